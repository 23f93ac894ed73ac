r"""The fully connected network behind the MLP estimators (notes B §7.1, §7.3, §7.4).

All trainable numbers live in **one flat vector** ``theta``; the weight
matrices, intercepts and batch-norm scales/shifts are views into it (weights
first, so the L2 penalty is one operation on ``theta[:n_coef]``). The
gradient ``grad`` has the same layout, so an :mod:`skml.optim` optimiser takes
one step on one array instead of a dozen numpy calls per layer.

Activations, deltas and scratch arrays are allocated once per batch size and
reused through row slices; every matrix product writes into them with
``out=``, so a training step allocates (almost) nothing.

Forward pass, for hidden layers ``l = 1..L-1`` with input ``a_0 = x``::

    z_l = a_{l-1} W_l + b_l
    z_l <- gamma_l (z_l - mu_B) / sqrt(var_B + eps) + beta_l     (batch_norm)
    a_l = f(z_l)
    a_l <- a_l * m_l / q,  m_l ~ Bernoulli(q)                     (dropout, training)

and the output ``p = g(a_{L-1} W_L + b_L)`` with ``g`` the softmax, the
logistic, the identity or the exponential (Poisson loss). Each output/loss
pair is canonical, so ``dJ/dz_L = (p - y) / n`` and backpropagation is the
notes' chain rule.
"""

import numpy as np
from scipy.special import expit

from ._activations import activate, multiply_derivative

__all__ = ["Network", "forward_eval"]


def forward_eval(X, coefs, intercepts, activation, out_activation, slope=0.1,
                 batch_norm=None):
    """Inference pass on the given parameters (no dropout, running statistics).

    ``batch_norm`` is ``(gammas, betas, running_means, running_vars, eps)`` or
    None. Allocates one array per layer; nothing is copied from the fitted
    parameters.
    """
    A = X
    last = len(coefs) - 1
    for l, (W, b) in enumerate(zip(coefs, intercepts)):
        Z = A @ W
        Z += b
        if l == last:
            return _output(Z, out_activation)
        if batch_norm is not None:
            gammas, betas, means, variances, eps = batch_norm
            Z -= means[l]
            Z /= np.sqrt(variances[l] + eps)
            Z *= gammas[l]
            Z += betas[l]
        A = activate(activation, Z, slope)
    return A


def _output(Z, out_activation, row=None):
    """Apply the output function in place (a stable softmax)."""
    if out_activation == "softmax":
        if row is None:
            row = np.empty(Z.shape[0], dtype=Z.dtype)
        np.max(Z, axis=1, out=row)
        Z -= row[:, None]
        np.exp(Z, out=Z)
        np.sum(Z, axis=1, out=row)
        Z /= row[:, None]
    elif out_activation == "logistic":
        expit(Z, out=Z)
    elif out_activation == "exp":
        np.exp(Z, out=Z)
    return Z


class Network:
    """Parameters, buffers and the forward/backward passes of one MLP.

    Parameters
    ----------
    layer_units : list of int
        Units per layer, input and output included.
    activation : str
        Hidden activation (see :mod:`._activations`).
    out_activation : {"softmax", "logistic", "identity", "exp"}
    slope : float
        Leaky-ReLU slope.
    batch_norm : bool
        Normalise every hidden pre-activation.
    bn_momentum, bn_eps : float
        Running-average weight of the new batch (PyTorch semantics) and the
        variance offset.
    dtype : numpy dtype
    """

    def __init__(self, layer_units, activation, out_activation, slope=0.1,
                 batch_norm=False, bn_momentum=0.1, bn_eps=1e-5, dtype=np.float64):
        self.layer_units = [int(u) for u in layer_units]
        self.activation = activation
        self.out_activation = out_activation
        self.slope = slope
        self.batch_norm = batch_norm
        self.bn_momentum = bn_momentum
        self.bn_eps = bn_eps
        self.dtype = np.dtype(dtype)
        units = self.layer_units
        self.n_coef = sum(a * b for a, b in zip(units[:-1], units[1:]))
        size = self.n_coef + sum(units[1:])
        if batch_norm:
            size += 2 * sum(units[1:-1])
        self.theta = np.zeros(size, dtype=self.dtype)
        self.grad = np.zeros(size, dtype=self.dtype)
        self.coefs, self.intercepts, self.gammas, self.betas = self._views(self.theta)
        self.g_coefs, self.g_intercepts, self.g_gammas, self.g_betas = self._views(
            self.grad
        )
        if batch_norm:
            for gamma in self.gammas:
                gamma[:] = 1.0
        self.running_mean = [np.zeros(u, dtype=self.dtype) for u in units[1:-1]]
        self.running_var = [np.ones(u, dtype=self.dtype) for u in units[1:-1]]
        self._capacity = 0

    def _views(self, flat):
        units = self.layer_units
        coefs, intercepts, gammas, betas = [], [], [], []
        offset = 0
        for n_in, n_out in zip(units[:-1], units[1:]):
            coefs.append(flat[offset:offset + n_in * n_out].reshape(n_in, n_out))
            offset += n_in * n_out
        for n_out in units[1:]:
            intercepts.append(flat[offset:offset + n_out])
            offset += n_out
        if self.batch_norm:
            for n_out in units[1:-1]:
                gammas.append(flat[offset:offset + n_out])
                betas.append(flat[offset + n_out:offset + 2 * n_out])
                offset += 2 * n_out
        return coefs, intercepts, gammas, betas

    # ------------------------------------------------------------------ buffers

    def allocate(self, batch_size, dropout=False):
        """Preallocate the per-batch buffers for batches of up to ``batch_size``."""
        if batch_size <= self._capacity and (not dropout or self._dropped):
            return
        n, dt = max(batch_size, self._capacity), self.dtype
        units = self.layer_units
        hidden = units[1:-1]

        def per_unit(kind=dt):
            return [np.empty((n, u), dtype=kind) for u in hidden]

        self.acts = [np.empty((n, u), dtype=dt) for u in units[1:]]
        self.deltas = [np.empty((n, u), dtype=dt) for u in units[1:]]
        self.tmp = per_unit()
        self.mask = per_unit(bool)
        self.xhat = per_unit() if self.batch_norm else []
        self.invstd = [np.empty(u, dtype=dt) for u in hidden]
        self.batch_mean = [np.empty(u, dtype=dt) for u in hidden]
        self.batch_var = [np.empty(u, dtype=dt) for u in hidden]
        self._dropped = per_unit() if dropout else []
        self._uniform = per_unit() if dropout else []
        self._keep = per_unit(bool) if dropout else []
        self.out_tmp = np.empty((n, units[-1]), dtype=dt)
        self.out_tmp2 = np.empty((n, units[-1]), dtype=dt)
        self.row = np.empty(n, dtype=dt)
        self.scratch = np.empty(self.n_coef, dtype=dt)
        self._capacity = n

    # ------------------------------------------------------------------ forward

    def forward(self, X, training=False, keep_prob=1.0, rng=None, sample_weight=None):
        """Output probabilities / values of the batch ``X``.

        ``sample_weight`` weighs the batch statistics of batch norm, so that a
        row of weight ``k`` counts as ``k`` copies there too.

        In training mode the result is a view into a reused buffer, batch
        norm uses (and updates) batch statistics and dropout is applied; in
        eval mode fresh arrays are allocated and running statistics used.
        """
        if not training:
            bn = None
            if self.batch_norm:
                bn = (self.gammas, self.betas, self.running_mean, self.running_var,
                      self.bn_eps)
            return forward_eval(X, self.coefs, self.intercepts, self.activation,
                                self.out_activation, self.slope, bn)
        nb = X.shape[0]
        n_layers = len(self.coefs)
        self._inputs = [X]
        self._bn_weights = None
        if self.batch_norm and sample_weight is not None:
            total = float(sample_weight.sum())
            self._bn_weights = (sample_weight / total).astype(self.dtype), total
        A = X
        for l in range(n_layers):
            Z = self.acts[l][:nb]
            np.dot(A, self.coefs[l], out=Z)
            Z += self.intercepts[l]
            if l == n_layers - 1:
                return _output(Z, self.out_activation, self.row[:nb])
            if self.batch_norm:
                self._bn_forward(l, Z)
            activate(self.activation, Z, self.slope, self.tmp[l][:nb])
            if keep_prob < 1.0:
                uniform, keep = self._uniform[l][:nb], self._keep[l][:nb]
                D = self._dropped[l][:nb]
                rng.random(out=uniform, dtype=self.dtype)
                np.less(uniform, keep_prob, out=keep)
                np.multiply(Z, keep, out=D)
                D *= 1.0 / keep_prob  # inverted dropout: E[a m / q] = a
                A = D
            else:
                A = Z
            self._inputs.append(A)
        return A

    def _bn_forward(self, l, Z):
        gamma, beta = self.gammas[l], self.betas[l]
        nb = Z.shape[0]
        mu, var, invstd = self.batch_mean[l], self.batch_var[l], self.invstd[l]
        xhat = self.xhat[l][:nb]
        if self._bn_weights is None:
            np.mean(Z, axis=0, out=mu)
            Z -= mu
            np.multiply(Z, Z, out=xhat)
            np.mean(xhat, axis=0, out=var)  # the biased variance (notes B §7.4)
            count = nb
        else:
            w, count = self._bn_weights
            np.dot(w, Z, out=mu)
            Z -= mu
            np.multiply(Z, Z, out=xhat)
            np.dot(w, xhat, out=var)
        np.add(var, self.bn_eps, out=invstd)
        np.sqrt(invstd, out=invstd)
        np.divide(1.0, invstd, out=invstd)
        np.multiply(Z, invstd, out=xhat)
        np.multiply(xhat, gamma, out=Z)
        Z += beta
        if self._update_running:
            # PyTorch semantics: momentum weighs the *new* batch, and the
            # running variance takes the unbiased batch variance. The notes
            # (D4) print the average the other way round (catalogue B §15).
            m = self.bn_momentum
            unbias = count / (count - 1) if count > 1 else 1.0
            self.running_mean[l] *= 1.0 - m
            self.running_mean[l] += m * mu
            self.running_var[l] *= 1.0 - m
            self.running_var[l] += (m * unbias) * var

    _update_running = True

    # ----------------------------------------------------------------- backward

    def backward(self, Y, sample_weight=None, alpha=0.0, keep_prob=1.0):
        """Loss of the last training ``forward`` and its gradient into ``grad``.

        The objective is ``sum_i s_i loss_i / sum_i s_i + alpha ||W||^2 /
        (2 sum_i s_i)`` over the batch (scikit-learn's scaling), ``loss_i``
        the cross-entropy or half the squared error.
        """
        n_layers = len(self.coefs)
        P = self.acts[-1][:Y.shape[0]]
        nb = P.shape[0]
        delta = self.deltas[-1][:nb]
        np.subtract(P, Y, out=delta)
        sw_sum = nb if sample_weight is None else float(sample_weight.sum())
        loss = self._loss(P, Y, delta, sample_weight) / sw_sum
        if sample_weight is None:
            delta *= 1.0 / nb
        else:
            delta *= (sample_weight / sw_sum)[:, None].astype(self.dtype, copy=False)
        for l in range(n_layers - 1, -1, -1):
            A_in = self._inputs[l]
            np.dot(A_in.T, delta, out=self.g_coefs[l])
            np.sum(delta, axis=0, out=self.g_intercepts[l])
            if l == 0:
                break
            h = l - 1
            dA = self.deltas[h][:nb]
            np.dot(delta, self.coefs[l].T, out=dA)
            if keep_prob < 1.0:
                dA *= self._keep[h][:nb]
                dA *= 1.0 / keep_prob
            multiply_derivative(
                self.activation, self.acts[h][:nb], dA, self.slope,
                self.tmp[h][:nb], self.mask[h][:nb],
            )
            if self.batch_norm:
                self._bn_backward(h, dA)
            delta = dA
        if alpha:
            w, gw = self.theta[:self.n_coef], self.grad[:self.n_coef]
            scratch = self.scratch
            np.multiply(w, alpha / sw_sum, out=scratch)
            gw += scratch
            loss += 0.5 * alpha * float(np.dot(w, w)) / sw_sum
        return loss

    def _loss(self, P, Y, delta, sample_weight):
        """Summed (weighted) loss of the batch; ``delta = P - Y`` on entry."""
        nb = P.shape[0]
        E = self.out_tmp[:nb]
        tiny = np.finfo(self.dtype).eps
        if self.out_activation == "identity":
            np.multiply(delta, delta, out=E)
            E *= 0.5
        elif self.out_activation == "exp":  # Poisson: p - y log p
            np.clip(P, tiny, None, out=E)
            np.log(E, out=E)
            E *= Y
            np.subtract(P, E, out=E)
        elif self.out_activation == "softmax":
            np.clip(P, tiny, 1.0, out=E)
            np.log(E, out=E)
            E *= Y
            E *= -1.0
        else:  # logistic: -(y log p + (1 - y) log(1 - p))
            E2 = self.out_tmp2[:nb]
            np.clip(P, tiny, 1.0 - tiny, out=E)
            np.subtract(1.0, E, out=E2)
            np.log(E, out=E)
            np.log(E2, out=E2)
            E -= E2
            E *= Y
            E += E2
            E *= -1.0
        if sample_weight is None:
            return float(E.sum())
        return float(sample_weight @ E.sum(axis=1))

    def _bn_backward(self, l, dY):
        """Turn ``dJ/dy`` of a batch-norm output into ``dJ/dz``, in place."""
        nb = dY.shape[0]
        xhat, tmp = self.xhat[l][:nb], self.tmp[l][:nb]
        g_gamma, g_beta = self.g_gammas[l], self.g_betas[l]
        np.multiply(dY, xhat, out=tmp)
        np.sum(tmp, axis=0, out=g_gamma)
        np.sum(dY, axis=0, out=g_beta)
        # dz_i = gamma / sigma (dy_i - w_i sum_j dy_j - w_i xhat_i sum_j dy_j xhat_j)
        # with w_i = 1 / n, or the normalised sample weights.
        np.multiply(xhat, g_gamma, out=tmp)
        tmp += g_beta
        if self._bn_weights is None:
            tmp *= 1.0 / nb
        else:
            tmp *= self._bn_weights[0][:, None]
        dY -= tmp
        dY *= self.gammas[l] * self.invstd[l]

    # ------------------------------------------------------------------ helpers

    def loss_gradient(self, X, Y, sample_weight=None, alpha=0.0):
        """``(loss, grad copy)`` of one batch in training mode without dropout.

        Running statistics are left untouched; used by the gradient tests.
        """
        self.allocate(X.shape[0])
        self._update_running = False
        try:
            self.forward(X, training=True, sample_weight=sample_weight)
            loss = self.backward(Y, sample_weight, alpha)
        finally:
            self._update_running = True
        return loss, self.grad.copy()
