r"""Hidden-layer activations and their derivatives (notes B §7.2).

Each activation writes ``A = f(Z)`` over ``Z`` or into a given buffer. The
derivative is written in terms of the *output* ``A`` (as scikit-learn does),
so the backward pass needs no copy of ``Z``:

=============  =========================  ==========================
name           f(z)                       f'(z) from a = f(z)
=============  =========================  ==========================
identity       z                          1
logistic       1 / (1 + e^{-z})           a (1 - a)
tanh           tanh z = 2 sigma(2z) - 1   1 - a^2
relu           max(z, 0)                  1 if a > 0 else 0
leaky_relu     max(s z, z), 0 <= s < 1    1 if a > 0 else s
elu            z if z > 0 else e^z - 1    1 if a > 0 else a + 1
=============  =========================  ==========================

ELU is notes D1 §9.3's ``(t)_+ + (t)_- (exp(t) - 1)``, read with ``(t)_-``
the indicator of ``t <= 0`` (catalogue B §7.2; as written, with ``(t)_-`` the
negative part, it would not be continuous at 0): the standard ELU with
``alpha = 1``, as PyTorch's ``elu``. PReLU (the notes' learnable slope, D3)
has a parameter, so it is a layer: :class:`skml.neural_network._prelu.PReLU`.

D1 prints ``tanh(t) = 1 - 2 sgm(2t)``, which is ``-tanh``; we use the
standard function (catalogue B §15). The leaky slope ``s`` defaults to 0.1 in
the estimators, the notes' (D3) value; PyTorch's default is 0.01.
"""

import numpy as np
from scipy.special import expit

__all__ = ["ACTIVATIONS", "activate", "multiply_derivative"]

ACTIVATIONS = ("identity", "logistic", "tanh", "relu", "leaky_relu", "elu")


def activate(name, Z, slope=0.1, tmp=None, out=None):
    """Write ``f(Z)`` into ``out`` (default: ``Z`` itself) and return it.

    ``tmp`` is a scratch array like ``Z``, used by the in-place leaky ReLU.
    """
    if out is None:
        out = Z
    if name == "relu":
        np.maximum(Z, 0, out=out)
    elif name == "tanh":
        np.tanh(Z, out=out)
    elif name == "logistic":
        expit(Z, out=out)
    elif name == "leaky_relu":
        if out is not Z:
            tmp = out
        elif tmp is None:
            tmp = np.empty_like(Z)
        np.multiply(Z, slope, out=tmp)
        np.maximum(Z, tmp, out=out)  # max(s z, z) is leaky ReLU for 0 <= s < 1
    elif name == "elu":
        # expm1 on min(z, 0): no overflow for large z, full precision near 0
        negative = np.minimum(Z, 0.0)
        np.expm1(negative, out=negative)
        np.maximum(Z, 0.0, out=out)
        out += negative
    elif out is not Z:
        out[...] = Z
    return out


def multiply_derivative(name, A, delta, slope=0.1, tmp=None, mask=None):
    """``delta *= f'(z)``, with ``f'`` computed from the activation ``A = f(z)``.

    ``tmp`` (float, like ``A``) and ``mask`` (bool, like ``A``) are scratch
    arrays; they are allocated when not given.
    """
    if name == "identity":
        return delta
    if name == "elu":
        # f'(z) = 1 for z > 0 (a > 0), e^z = a + 1 otherwise
        if tmp is None:
            tmp = np.empty_like(A)
        np.add(A, 1.0, out=tmp)
        np.minimum(tmp, 1.0, out=tmp)
        delta *= tmp
        return delta
    if name in ("relu", "leaky_relu"):
        if mask is None:
            mask = np.empty(A.shape, dtype=bool)
        np.greater(A, 0, out=mask)
        if name == "relu":
            np.multiply(delta, mask, out=delta)
            return delta
        if tmp is None:
            tmp = np.empty_like(A)
        np.multiply(mask, 1.0 - slope, out=tmp)
        tmp += slope
    else:
        if tmp is None:
            tmp = np.empty_like(A)
        np.multiply(A, A, out=tmp)
        if name == "tanh":
            np.subtract(1.0, tmp, out=tmp)
        else:  # logistic: a - a^2
            np.subtract(A, tmp, out=tmp)
    delta *= tmp
    return delta
