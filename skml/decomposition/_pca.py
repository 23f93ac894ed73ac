"""Principal component analysis (notes A §4.1) and the power method (notes A §4.2).

PCA finds the orthonormal directions of largest variance: the top
eigenvectors of the covariance ``C = Xcᵀ Xc / (n - 1)`` of the centred data,
equivalently the top right singular vectors of ``Xc = U S Vᵀ`` (``C = V S²
Vᵀ / (n - 1)``). Four solvers reach them: a full SVD of ``Xc``, ``eigh`` of
``C`` (tall data), the notes' power method with deflation on ``C``, and a
randomized range finder (Halko, Martinsson and Tropp) with power iterations.
"""

import threading
import warnings
from math import lgamma, log
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy import linalg
from scipy.sparse.linalg import LinearOperator, svds
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_array, check_is_fitted, check_random_state

from ..utils import Interval, Options, validate_params
from ..utils._components import ComponentsFeaturesOutMixin
from ..utils._docstrings import SECTIONS, fill_class_docs
from ..utils._magnitude import max_abs
from ._pca_kernels import column_sums_and_peak
from ._power_kernels import power_iterate
from ..utils.validation import validate_data

__all__ = ["PCA", "power_method", "svd_flip_signs"]

# Default iteration caps of the two iterative solvers ("auto").
_POWER_MAX_ITER = 10_000
# Stopping tolerance of the power method when ``tol=0`` (scikit-learn's
# default, meaningful for ARPACK only): the iterate's change per step.
_POWER_DEFAULT_TOL = 1e-10
# Solvers that take sparse X (centred implicitly), as scikit-learn's.
_SPARSE_SOLVERS = ("auto", "arpack", "covariance_eigh")
# One re-seedable generator per thread (see _seeded_random_state).
_THREAD_RNG = threading.local()


def _seeded_random_state(random_state):
    """``check_random_state``, re-seeding a per-thread generator for an int seed.

    Building a RandomState costs ~60 µs (its MT19937 is first seeded from OS
    entropy, then re-seeded): as much as the whole power method on 20
    features. Re-seeding an existing one costs ~1 µs and gives the same
    stream. Per thread, and used only until the caller returns, so no two
    fits share it.
    """
    if not isinstance(random_state, Integral):
        return check_random_state(random_state)
    rng = getattr(_THREAD_RNG, "rng", None)
    if rng is None:
        rng = _THREAD_RNG.rng = np.random.RandomState()
    rng.seed(random_state)
    return rng


def svd_flip_signs(Vt, U=None):
    """Make the largest-magnitude entry of each row of ``Vt`` positive.

    Singular vectors are defined up to sign; this fixes the sign the way
    scikit-learn does for PCA (its ``svd_flip`` with
    ``u_based_decision=False``), so components agree entry for entry. The
    matching columns of ``U`` flip with them. Works in place and returns
    ``(Vt, U)``.
    """
    rows = np.arange(Vt.shape[0])
    signs = np.sign(Vt[rows, np.argmax(np.abs(Vt), axis=1)])
    signs[signs == 0] = 1.0
    Vt *= signs[:, np.newaxis]
    if U is not None:
        U *= signs[np.newaxis, :]
    return Vt, U


def power_method(A, n_components=1, *, max_iter=1000, tol=1e-10, random_state=None):
    """Top eigenpairs of a symmetric PSD matrix by power iteration with deflation.

    The notes' method (notes A §4.2): from a random unit ``b``, iterate
    ``b ← A b / ||A b||`` until ``||b_{t+1} − b_t|| < tol``; the eigenvalue
    is the Rayleigh quotient ``bᵀ A b``. Then deflate ``A ← A − λ b bᵀ`` and
    repeat for the next component. Each iterate is also re-orthogonalised
    against the vectors already found (the notes' "remove the v_1 component"),
    which keeps the result orthonormal when deflation leaves rounding noise.

    Parameters
    ----------
    A : ndarray of shape (d, d)
        Symmetric positive semi-definite matrix (not modified).
    n_components : int, default=1
        Number of eigenpairs.
    max_iter : int, default=1000
        Iteration cap per component.
    tol : float, default=1e-10
        Stop when the unit iterate moves less than this in one step.
    random_state : int, RandomState instance or None, default=None
        Draws the start vectors.

    Returns
    -------
    eigvals : ndarray of shape (n_components,)
        Decreasing (up to the solver's accuracy).
    eigvecs : ndarray of shape (d, n_components)
        Orthonormal columns.
    n_iter : ndarray of shape (n_components,)
        Iterations used per component; ``max_iter`` means not converged.

    Notes
    -----
    Writing ``b_0 = Σ a_i v_i`` gives ``A^t b_0 ∝ Σ λ_i^t a_i v_i``: the error
    shrinks like ``(λ_2/λ_1)^t``, so convergence depends on the eigengap and
    takes about ``log(1/tol) / log(λ_1/λ_2)`` steps. A repeated top eigenvalue
    still converges, to some vector of the top eigenspace. Each step costs one
    matrix-vector product, O(d²).

    Examples
    --------
    >>> import numpy as np
    >>> from skml.decomposition import power_method
    >>> vals, vecs, _ = power_method(np.diag([3.0, 1.0]), random_state=0)
    >>> vals.round(6), np.abs(vecs[:, 0]).round(6)
    (array([3.]), array([1., 0.]))
    """
    A = np.asarray(A)
    eigvals = np.zeros(n_components, dtype=np.result_type(A, np.float32))
    eigvecs = np.zeros((A.shape[0], n_components), dtype=eigvals.dtype)
    n_iter = np.zeros(n_components, dtype=np.intp)
    steps = _power_iterations(A, max_iter, tol, _seeded_random_state(random_state))
    for k in range(n_components):
        eigvals[k], eigvecs[:, k], n_iter[k] = next(steps)
    return eigvals, eigvecs, n_iter


def _power_iterations(A, max_iter, tol, rng):
    """Yield ``(eigenvalue, eigenvector, n_iter)`` one component at a time.

    A generator, so that PCA with a variance fraction can stop as soon as
    enough variance is explained.
    """
    A = np.array(A, dtype=np.result_type(A, np.float32), order="C", copy=True)
    d = A.shape[0]
    found = np.zeros((0, d), dtype=A.dtype)
    while True:
        b = rng.standard_normal(d).astype(A.dtype)
        b -= found.T @ (found @ b)
        b /= np.linalg.norm(b)
        # Deflation alone leaves rounding noise along the found vectors: the
        # kernel also projects them out of every iterate.
        t = power_iterate(A, b, found, max_iter, tol)
        lam = max(float(b @ (A @ b)), 0.0)
        A -= lam * np.outer(b, b)
        found = np.vstack([found, b[np.newaxis]])
        yield lam, b, t


def _range_finder(M, size, n_iter, normalizer, rng):
    """Orthonormal Q with ``range(Q) ≈ range(M)``: Halko et al. Algorithm 4.3/4.4.

    ``Q = orth((M Mᵀ)^q M Ω)`` for a Gaussian ``Ω``; the power iterations
    ``q`` sharpen the spectrum (``σ_i^(2q+1)``), and re-normalising between
    products (LU, cheaper, or QR) keeps the columns from collapsing onto the
    top singular vector in floating point.
    """
    Q = rng.standard_normal(size=(M.shape[1], size)).astype(M.dtype, copy=False)
    for _ in range(n_iter):
        if normalizer == "none":
            Q = M.T @ (M @ Q)
        elif normalizer == "LU":
            # The products are temporaries: LU overwrites them instead of
            # copying each (an n x (k + p) copy per iteration).
            Q, _ = linalg.lu(M @ Q, permute_l=True, overwrite_a=True, check_finite=False)
            Q, _ = linalg.lu(M.T @ Q, permute_l=True, overwrite_a=True,
                             check_finite=False)
        else:
            Q, _ = linalg.qr(M @ Q, mode="economic", check_finite=False)
            Q, _ = linalg.qr(M.T @ Q, mode="economic", check_finite=False)
    Q, _ = linalg.qr(M @ Q, mode="economic", check_finite=False)
    return Q


def _halko_svd(M, n_components, n_oversamples, n_iter, normalizer, rng, need_U=True):
    """Truncated SVD from the range finder: ``B = Qᵀ M = Û S Vᵀ``, ``U = Q Û``.

    Without ``need_U`` (tall M), ``U`` is None: ``fit`` alone does not use it,
    and ``Q Û`` is an n x (k + p) product.
    """
    # Work on the wide orientation's transpose: the range finder then
    # multiplies by the short side.
    transpose = M.shape[0] < M.shape[1]
    if transpose:
        M = M.T
    Q = _range_finder(M, n_components + n_oversamples, n_iter, normalizer, rng)
    U_hat, S, Vt = linalg.svd(Q.T @ M, full_matrices=False, check_finite=False)
    if transpose:
        U, Vt = Vt.T, (Q @ U_hat).T
    elif need_U:
        U = Q @ U_hat
    else:
        return None, S[:n_components], Vt[:n_components]
    return U[:, :n_components], S[:n_components], Vt[:n_components]


def _implicitly_centred(X, mean):
    """``X − 1 meanᵀ`` as a LinearOperator: products only, X stays sparse.

    ``(X − 1 μᵀ) v = X v − (μ·v) 1`` and ``(X − 1 μᵀ)ᵀ u = Xᵀ u − μ (1·u)``:
    each costs one product with X (O(nnz)) plus O(n + d).
    """
    def matmat(V):
        return X @ V - (mean @ V)[np.newaxis]

    def rmatmat(U):
        return X.T @ U - np.outer(mean, U.sum(axis=0))

    return LinearOperator(
        X.shape, dtype=X.dtype,
        matvec=lambda v: matmat(v.reshape(-1, 1)).ravel(),
        rmatvec=lambda u: rmatmat(u.reshape(-1, 1)).ravel(),
        matmat=matmat, rmatmat=rmatmat,
    )


def _extreme_scale(peak):
    """A power of two near ``peak = max |x|`` if that lies outside ``[2^-100, 2^100]``, else 1."""
    if peak == 0.0 or 2.0**-100 <= peak <= 2.0**100:
        return 1.0
    return float(np.ldexp(1.0, np.frexp(peak)[1]))


def _assess_dimension(spectrum, rank, n_samples):
    """Minka's (2000) log-evidence of a rank-``rank`` PPCA model of the spectrum."""
    n_features = spectrum.shape[0]
    eps = 1e-15
    if spectrum[rank - 1] < eps:
        return -np.inf
    pu = -rank * log(2.0)
    for i in range(1, rank + 1):
        half = (n_features - i + 1) / 2.0
        pu += lgamma(half) - log(np.pi) * half
    pl = -np.sum(np.log(spectrum[:rank])) * n_samples / 2.0
    v = max(eps, np.sum(spectrum[rank:]) / (n_features - rank))
    pv = -log(v) * n_samples * (n_features - rank) / 2.0
    m = n_features * rank - rank * (rank + 1.0) / 2.0
    pp = log(2.0 * np.pi) * (m + rank) / 2.0
    spectrum_ = spectrum.copy()
    spectrum_[rank:n_features] = v
    pa = 0.0
    for i in range(rank):
        diff = spectrum[i] - spectrum[i + 1 :]
        inv = 1.0 / spectrum_[i + 1 :] - 1.0 / spectrum_[i]
        pa += np.sum(np.log(diff * inv) + log(n_samples))
    return pu + pl + pv + pp - pa / 2.0 - rank * log(n_samples) / 2.0


def _infer_dimension(spectrum, n_samples):
    ll = np.full(spectrum.shape[0], -np.inf)
    for rank in range(1, spectrum.shape[0]):
        ll[rank] = _assess_dimension(spectrum, rank, n_samples)
    return int(np.argmax(ll))


@fill_class_docs(SECTIONS)
class PCA(ComponentsFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Principal component analysis by SVD, eigendecomposition or power iteration.

    Projects the data on the orthonormal directions of largest variance: the
    top eigenvectors of the covariance ``C = Xcᵀ Xc / (n − 1)`` of the
    centred data ``Xc``, i.e. the top right singular vectors of
    ``Xc = U S Vᵀ``, with variances ``S² / (n − 1)`` (notes A §4.1). The
    notes write the same problem with samples as columns and without
    centring (``max vᵀ X Xᵀ v`` over unit ``v``); ``center=False`` gives that
    uncentred form. ``svd_solver="power"`` is the notes' power method with
    deflation (notes A §4.2, :func:`power_method`).

    Parameters
    ----------
    n_components : int, float, "mle" or None, default=None
        Components to keep. ``None``: ``min(n_samples, n_features)``. An
        int ``k``. A float in (0, 1): the fewest components whose explained
        variance ratio sums to more than it (solvers "full",
        "covariance_eigh" and "power"). ``"mle"``: Minka's estimate (solvers
        "full" and "covariance_eigh", ``n_samples >= n_features``).
    copy : bool, default=True
        If False, ``fit`` centres X in place (solvers "full" and
        "randomized"; the covariance solvers never copy or modify X).
    whiten : bool, default=False
        Divide the projections by ``sqrt(explained_variance_)`` so each has
        unit variance on the training data.
    svd_solver : {"auto", "arpack", "full", "covariance_eigh", "power", \
            "randomized"}, \
            default="auto"
        "arpack": ARPACK's truncated SVD (``scipy.sparse.linalg.svds``) of the
        centred data, centred implicitly (a linear operator), so sparse X stays
        sparse; needs ``n_components < min(n, d)``.
        "full": LAPACK SVD of the centred data. "covariance_eigh": ``eigh`` of
        the covariance (fast when ``n_samples >> n_features``). "power": the
        notes' power method on the covariance. "randomized": a Halko range
        finder with power iterations. "auto" follows scikit-learn: tall data
        with at most 1000 features gets "covariance_eigh"; data with both
        sides at most 500 or ``"mle"`` gets "full"; few components
        (``1 <= k < 0.8 min(n, d)``) "randomized"; otherwise "full".
    tol : float, default=0.0
        For "power": stop a component when its unit iterate moves less than
        this in a step (0 means 1e-10, or 100 eps for float32 data). Ignored
        by the other solvers.
    iterated_power : int or "auto", default="auto"
        For "randomized": the power iterations of the range finder ("auto":
        7 if ``k < 0.1 min(n, d)`` else 4, as scikit-learn). For "power": the
        iteration cap per component ("auto": 10000).
    n_oversamples : int, default=10
        Extra random directions of the range finder ("randomized").
    power_iteration_normalizer : {"auto", "QR", "LU", "none"}, default="auto"
        Re-normalisation between the range finder's power iterations
        ("auto": "none" for at most 2 iterations, else "LU").
    random_state : int, RandomState instance or None, default=None
        Seeds "randomized" and "power".
    center : bool, default=True
        Subtract the mean before the decomposition. False is the notes'
        uncentred PCA (the SVD of the raw X, like a truncated SVD).

    Attributes
    ----------
    components_ : ndarray of shape (`n_components_`, n_features)
        Principal axes, orthonormal rows in decreasing order of variance,
        each with its largest-magnitude entry positive (scikit-learn's sign
        convention).
    explained_variance_ : ndarray of shape (`n_components_`,)
        Variance along each component, ``S² / (n_samples − 1)``.
    explained_variance_ratio_ : ndarray of shape (`n_components_`,)
        Fraction of the total variance along each component.
    singular_values_ : ndarray of shape (`n_components_`,)
        Singular values of the (centred) data.
    mean_ : ndarray of shape (n_features,)
        Per-feature mean (zeros when ``center=False``).
    n_components_ : int
        Number of components kept.
    noise_variance_ : float
        Probabilistic PCA noise variance: the mean variance of the discarded
        directions (0 when all are kept).
    n_samples_ : int
        Number of training samples.
    n_iter_ : ndarray of shape (`n_components_`,)
        Power-method iterations per component (``svd_solver="power"`` only).
    <fitted_feature_attributes>

    See Also
    --------
    power_method : The notes' eigen-solver, usable on any PSD matrix.
    sklearn.decomposition.PCA : The scikit-learn counterpart.
    sklearn.decomposition.TruncatedSVD : Its uncentred relative.

    Notes
    -----
    Time: "full" O(n d min(n, d)); "covariance_eigh" O(n d² + d³);
    "randomized" O(n d (k + p)(q + 1)) for ``p`` oversamples and ``q`` power
    iterations; "power" O(n d²) for the covariance then O(d²) per iteration,
    with about ``log(1/tol)/log(λ_k/λ_{k+1})`` iterations for component ``k``:
    the smaller the eigengap, the slower, and a component whose eigenvalue is
    tied with the next one converges to an arbitrary vector of their common
    eigenspace. Memory: "full" and "randomized" one centred copy of X (none
    with ``copy=False``); "covariance_eigh" and "power" ``d × d``, the
    covariance centred as ``XᵀX − n μμᵀ`` (from centred rows when that
    subtraction cancels most digits, data far from the origin).

    The notes' matrix ``X X^T`` (samples as columns) is ``(n − 1) C`` here:
    the notes' eigenvalues are ``singular_values_**2``, their variances
    ``(1/n) vᵀ X Xᵀ v`` are ``singular_values_**2 / n_samples``.

    References
    ----------
    N. Halko, P.-G. Martinsson and J. A. Tropp, "Finding structure with
    randomness: probabilistic algorithms for constructing approximate matrix
    decompositions", SIAM Review 53(2), 2011.
    M. E. Tipping and C. M. Bishop, "Probabilistic principal component
    analysis", JRSS B 61(3), 1999.
    T. P. Minka, "Automatic choice of dimensionality for PCA", NIPS 2000.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.decomposition import PCA
    >>> X = np.array([[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]])
    >>> pca = PCA(n_components=2).fit(X)
    >>> pca.explained_variance_ratio_.round(5)
    array([0.99244, 0.00756])
    >>> pca.singular_values_.round(5)
    array([6.30061, 0.5498 ])
    """

    _parameter_constraints = {
        "n_components": [
            Interval(Integral, 0, None, closed="left"),
            Interval(Real, 0, 1, closed="neither"),
            Options({"mle"}),
            None,
        ],
        "copy": ["boolean"],
        "whiten": ["boolean"],
        "svd_solver": [
            Options({"auto", "arpack", "full", "covariance_eigh", "power",
                     "randomized"})
        ],
        "tol": [Interval(Real, 0, None, closed="left")],
        "iterated_power": [
            Interval(Integral, 0, None, closed="left"), Options({"auto"})
        ],
        "n_oversamples": [Interval(Integral, 1, None, closed="left")],
        "power_iteration_normalizer": [Options({"auto", "QR", "LU", "none"})],
        "random_state": ["random_state"],
        "center": ["boolean"],
    }

    def __init__(
        self,
        n_components=None,
        *,
        copy=True,
        whiten=False,
        svd_solver="auto",
        tol=0.0,
        iterated_power="auto",
        n_oversamples=10,
        power_iteration_normalizer="auto",
        random_state=None,
        center=True,
    ):
        self.n_components = n_components
        self.copy = copy
        self.whiten = whiten
        self.svd_solver = svd_solver
        self.tol = tol
        self.iterated_power = iterated_power
        self.n_oversamples = n_oversamples
        self.power_iteration_normalizer = power_iteration_normalizer
        self.random_state = random_state
        self.center = center

    def fit(self, X, y=None):
        """Find the principal components of X.

        <unsupervised_fit>
        """
        self._fit(X, need_U=False)
        return self

    def fit_transform(self, X, y=None):
        """Fit on X and return its projection on the components.

        <unsupervised_X>

        Returns
        -------
        X_new : ndarray of shape (n_samples, `n_components_`)
            The projected (whitened if ``whiten``) data.
        """
        U, S, X = self._fit(X)
        if U is None:
            return self._project(X)
        U = U[:, : self.n_components_]
        if self.whiten:
            # X V / sqrt(S²/(n-1)) = U sqrt(n - 1)
            return U * np.sqrt(X.shape[0] - 1)
        return U * S[: self.n_components_]

    def _fit(self, X, need_U=True):
        validate_params(self)
        if sp.issparse(X) and self.svd_solver not in _SPARSE_SOLVERS:
            # scikit-learn's refusal (its randomized and full solvers centre X)
            # (scikit-learn's words, so that code matching its message matches.)
            raise TypeError(
                'PCA only support sparse inputs with the "arpack" and '
                f'"covariance_eigh" solvers, while "{self.svd_solver}" was passed. '
                "Both centre the data implicitly, without densifying it."
            )
        # Variances divide by n - 1: one sample has none.
        X = validate_data(
            self, X, dtype=[np.float64, np.float32], copy=False, ensure_min_samples=2,
            accept_sparse=("csr", "csc"),
        )
        n_samples, n_features = X.shape
        n_components = self.n_components
        solver = self.svd_solver
        if solver == "auto" and sp.issparse(X):
            solver = "arpack"  # as scikit-learn
        if n_components is None:
            n_components = min(n_samples, n_features) - (solver == "arpack")
        if solver == "auto":
            if n_features <= 1_000 and n_samples >= 10 * n_features:
                solver = "covariance_eigh"
            elif max(X.shape) <= 500 or n_components == "mle":
                solver = "full"
            elif 1 <= n_components < 0.8 * min(X.shape):
                solver = "randomized"
            else:
                solver = "full"
        self._fit_svd_solver = solver
        self._check_n_components(n_components, solver, n_samples, n_features)

        # Data of extreme magnitude are fitted divided by a power of two (exact),
        # so that sums of squares neither overflow nor underflow on the way.
        sums = None
        if sp.issparse(X) or not X.flags.c_contiguous:
            peak = max_abs(X)
        else:
            # One pass for the means and max |x| (numpy's means bit for bit).
            sums, peak = column_sums_and_peak(X)
        X_in, scale = X, _extreme_scale(peak)
        if scale != 1.0:
            X, sums = X / scale, None
        if self.center and sums is not None:
            self.mean_ = sums / n_samples
        elif self.center:
            self.mean_ = np.asarray(X.mean(axis=0), dtype=X.dtype).ravel()
        else:
            self.mean_ = np.zeros(n_features, dtype=X.dtype)
        self.n_samples_ = n_samples
        self.__dict__.pop("n_iter_", None)
        if solver in ("full", "covariance_eigh"):
            U, S, _ = self._fit_full(X, n_components, solver)
        elif solver == "arpack":
            U, S, _ = self._fit_arpack(X, n_components)
        elif solver == "power":
            U, S, _ = self._fit_power(X, n_components)
        else:
            U, S, _ = self._fit_randomized(X, n_components, need_U)
        if scale != 1.0:
            S = self._unscale(scale, S, X_in)
        return U, S, X_in

    def _unscale(self, scale, S, X):
        """Attributes fitted on ``X / scale`` in ``X``'s units; refuse what float64 cannot hold."""
        scale2 = np.float64(scale) ** 2 if scale < 2.0**500 else np.inf
        with np.errstate(over="ignore", under="ignore"):
            self.mean_ = self.mean_ * scale
            explained = self.explained_variance_ * scale2
            noise = self.noise_variance_ * scale2
            S = S * scale
        lost = (~np.isfinite(explained)) | ((explained == 0) & (self.explained_variance_ > 0))
        if np.any(lost) or not np.isfinite(noise):
            kind = "overflow" if scale > 1 else "underflow to zero"
            peak = float(np.max(np.abs(X.data if sp.issparse(X) else X)))
            raise ValueError(
                f"The variances of X {kind} in float64 (max |x| = {peak:.3g}, so "
                f"variances of order {peak:.3g}² are needed): PCA's explained "
                "variances cannot be stored. Rescale X (e.g. divide it by a "
                "constant or use StandardScaler)."
            )
        self.explained_variance_ = explained
        self.singular_values_ = self.singular_values_ * scale
        self.noise_variance_ = float(noise)
        return S

    def _check_n_components(self, k, solver, n_samples, n_features):
        bound = min(n_samples, n_features)
        if k == "mle":
            if solver not in ("full", "covariance_eigh"):
                # (scikit-learn's words first: its tests match them)
                raise ValueError(
                    f"n_components='mle' cannot be a string with svd_solver={solver!r}: "
                    "'mle' needs svd_solver='full' or 'covariance_eigh'."
                )
            if n_samples < n_features:
                raise ValueError(
                    "n_components='mle' is only supported if n_samples >= n_features"
                )
        elif isinstance(k, Real) and not isinstance(k, Integral):
            if solver in ("randomized", "arpack"):
                raise ValueError(
                    f"n_components={k} (a variance fraction) is not supported "
                    f"with svd_solver={solver!r}; pass an int."
                )
        elif solver == "arpack" and k >= 1:
            if not k < bound:
                raise ValueError(
                    f"n_components={k} must be strictly less than "
                    f"min(n_samples, n_features)={bound} with svd_solver='arpack'."
                )
        else:  # (arpack's k < 1 too, in scikit-learn's message)
            low = 0 if solver in ("full", "covariance_eigh") else 1
            if not low <= k <= bound:
                raise ValueError(
                    f"n_components={k} must be between {low} and "
                    f"min(n_samples, n_features)={bound} with svd_solver={solver!r}."
                )

    def _centred(self, X, order="C"):
        """``X − mean_``, in place unless ``copy`` (then in ``order``)."""
        if not self.copy:
            if self.center:
                X -= self.mean_
            return X
        if not self.center:
            return X.copy(order=order)
        # One pass (a copy, then subtracting in place, reads X twice).
        return np.subtract(X, self.mean_, order=order)

    def _covariance(self, X):
        """The covariance ``Xcᵀ Xc / (n − 1)``, dense ``(d, d)``.

        Centres the d x d Gram matrix instead of the n x d data: no copy of
        X, one BLAS product (for sparse X the only way: XᵀX has O(d²)
        entries at most).
        """
        n_samples = X.shape[0]
        C = X.T @ X
        if sp.issparse(C):
            C = C.toarray()
        if self.center:
            raw_diag = np.diag(C).copy()
            C -= n_samples * np.outer(self.mean_, self.mean_)
            if not sp.issparse(X) and np.any(np.diag(C) < 1e-6 * raw_diag):
                # The mean dominates (X + 1e8): the subtraction cancelled
                # more than 6 of the 16 digits; form C from centred rows.
                Xc = X - self.mean_
                C = Xc.T @ Xc
        C /= n_samples - 1
        return C

    def _fit_full(self, X, n_components, solver):
        n_samples, n_features = X.shape
        if solver == "full":
            # Centred straight into LAPACK's column-major layout, which the
            # SVD may then overwrite: no second copy of X.
            Xc = self._centred(X, order="F")
            U, S, Vt = linalg.svd(Xc, full_matrices=False, overwrite_a=Xc is not X,
                                  check_finite=False)
            explained_variance = S**2 / (n_samples - 1)
            Vt, U = svd_flip_signs(Vt, U)
        else:
            eigvals, eigvecs = np.linalg.eigh(self._covariance(X))
            explained_variance = np.clip(eigvals[::-1], 0.0, None)
            S = np.sqrt(explained_variance * (n_samples - 1))
            Vt, _ = svd_flip_signs(np.ascontiguousarray(eigvecs[:, ::-1].T))
            U = None
        total_var = explained_variance.sum()
        ratio = explained_variance / total_var
        if n_components == "mle":
            n_components = _infer_dimension(explained_variance, n_samples)
        elif 0 < n_components < 1.0:
            cum = np.cumsum(ratio)
            n_components = int(np.searchsorted(cum, n_components, "right")) + 1
            n_components = min(n_components, len(ratio))
        self._set_components(Vt, explained_variance, ratio, S, n_components)
        if n_components < min(n_features, n_samples):
            self.noise_variance_ = float(np.mean(explained_variance[n_components:]))
        else:
            self.noise_variance_ = 0.0
        return U, S, X

    def _set_components(self, Vt, explained_variance, ratio, S, k):
        self.n_components_ = int(k)
        self.components_ = np.ascontiguousarray(Vt[:k])
        self.explained_variance_ = explained_variance[:k].copy()
        self.explained_variance_ratio_ = ratio[:k].copy()
        self.singular_values_ = S[:k].copy()

    def _truncated_noise(self, total_var, n_samples, n_features):
        k = self.n_components_
        if k < min(n_features, n_samples):
            self.noise_variance_ = float(
                (total_var - self.explained_variance_.sum())
                / (min(n_features, n_samples) - k)
            )
        else:
            self.noise_variance_ = 0.0

    def _fit_power(self, X, n_components):
        n_samples, n_features = X.shape
        C = self._covariance(X)
        total_var = float(np.trace(C))
        max_iter = self.iterated_power
        if max_iter == "auto":
            max_iter = _POWER_MAX_ITER
        max_iter = max(max_iter, 1)
        # A unit vector moves by ~eps per step from rounding alone.
        tol = self.tol or max(_POWER_DEFAULT_TOL, 100 * np.finfo(X.dtype).eps)
        rng = _seeded_random_state(self.random_state)
        bound = min(n_samples, n_features)
        fraction = 0 < n_components < 1 and not isinstance(n_components, Integral)
        steps = _power_iterations(C, max_iter, tol, rng)
        values, vectors, iters = [], [], []
        while len(values) < (bound if fraction else n_components):
            lam, v, it = next(steps)
            values.append(lam)
            vectors.append(v)
            iters.append(it)
            if fraction and total_var > 0 and sum(values) / total_var > n_components:
                break
        if iters and max(iters) >= max_iter:
            warnings.warn(
                f"The power method did not converge in {max_iter} iterations for "
                "some component (a small eigengap slows it down); increase "
                "iterated_power or tol.",
                ConvergenceWarning,
            )
        explained_variance = np.asarray(values, dtype=X.dtype)
        order = np.argsort(-explained_variance, kind="stable")
        explained_variance = explained_variance[order]
        Vt, _ = svd_flip_signs(np.asarray(vectors, dtype=X.dtype)[order])
        S = np.sqrt(explained_variance * (n_samples - 1))
        ratio = explained_variance / (total_var or 1.0)
        self._set_components(Vt, explained_variance, ratio, S, len(values))
        self.n_iter_ = np.asarray(iters)[order]
        self._truncated_noise(total_var, n_samples, n_features)
        return None, S, X

    def _fit_arpack(self, X, n_components):
        """Truncated SVD of the implicitly centred X by ARPACK (``svds``)."""
        n_samples, n_features = X.shape
        op = _implicitly_centred(X, self.mean_) if self.center else X
        if sp.issparse(X):
            sq = float(X.data.astype(np.float64) @ X.data)
        else:
            sq = float(np.einsum("ij,ij->", X, X, dtype=np.float64))
        total_var = (sq - n_samples * float(self.mean_ @ self.mean_)) / (n_samples - 1)
        if not sq > 0.0:
            # X == 0: ARPACK has no Krylov space to build; every direction
            # has variance 0 (the other solvers return the axes too).
            S = np.zeros(n_components, dtype=X.dtype)
            Vt = np.eye(n_components, n_features, dtype=X.dtype)
            U = np.zeros((n_samples, n_components), dtype=X.dtype)
        else:
            rng = check_random_state(self.random_state)
            # A deterministic start vector: the result depends on random_state.
            v0 = rng.uniform(-1, 1, size=min(X.shape))
            U, S, Vt = svds(op, k=n_components, tol=self.tol, v0=v0)
            order = np.argsort(-S, kind="stable")
            U, S, Vt = U[:, order], S[order], Vt[order]
            Vt, U = svd_flip_signs(Vt, U)
        explained_variance = S**2 / (n_samples - 1)
        self._set_components(
            Vt, explained_variance, explained_variance / total_var, S, n_components
        )
        self._truncated_noise(total_var, n_samples, n_features)
        return U, S, X

    def _fit_randomized(self, X, n_components, need_U=True):
        n_samples, n_features = X.shape
        Xc = self._centred(X)
        n_iter = self.iterated_power
        if n_iter == "auto":
            n_iter = 7 if n_components < 0.1 * min(X.shape) else 4
        normalizer = self.power_iteration_normalizer
        if normalizer == "auto":
            normalizer = "none" if n_iter <= 2 else "LU"
        rng = check_random_state(self.random_state)
        U, S, Vt = _halko_svd(
            Xc, n_components, self.n_oversamples, n_iter, normalizer, rng, need_U
        )
        Vt, U = svd_flip_signs(Vt, U)
        explained_variance = S**2 / (n_samples - 1)
        total_var = float(np.einsum("ij,ij->", Xc, Xc)) / (n_samples - 1)
        self._set_components(
            Vt, explained_variance, explained_variance / total_var, S, n_components
        )
        self._truncated_noise(total_var, n_samples, n_features)
        return U, S, X

    def transform(self, X):
        """Project X on the principal components.

        <X_samples>

        Returns
        -------
        X_new : ndarray of shape (n_samples, `n_components_`)
            ``(X − mean_) components_ᵀ``, divided by
            ``sqrt(explained_variance_)`` if ``whiten``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=[np.float64, np.float32], reset=False,
                          accept_sparse=("csr", "csc"))
        return self._project(X)

    def _project(self, X):
        # Centre after projecting: no copy of X.
        X_new = np.asarray(X @ self.components_.T)
        X_new -= self.mean_ @ self.components_.T
        if self.whiten:
            scale = np.sqrt(self.explained_variance_)
            # Rank-deficient data can leave ~0 variances: clip, not divide by 0.
            X_new /= np.maximum(scale, np.finfo(scale.dtype).eps)
        return X_new

    def inverse_transform(self, X):
        """Map projections back to the input space.

        Parameters
        ----------
        X : array-like of shape (n_samples, `n_components_`)
            Projected data.

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
            ``X components_ + mean_`` (undoing the whitening first); exact
            when all components are kept.
        """
        check_is_fitted(self)
        X = check_array(X, dtype=[np.float64, np.float32], input_name="X")
        components = self.components_
        if self.whiten:
            components = np.sqrt(self.explained_variance_)[:, np.newaxis] * components
        return X @ components + self.mean_

    def get_covariance(self):
        """Covariance of the probabilistic PCA model.

        Returns
        -------
        cov : ndarray of shape (n_features, n_features)
            ``Wᵀ diag(λ − σ²) W + σ² I`` with ``W = components_``,
            ``λ = explained_variance_``, ``σ² = noise_variance_``.
        """
        check_is_fitted(self)
        diff = np.clip(self.explained_variance_ - self.noise_variance_, 0.0, None)
        cov = (self.components_.T * diff) @ self.components_
        cov.flat[:: cov.shape[0] + 1] += self.noise_variance_
        return cov

    def get_precision(self):
        """Inverse of :meth:`get_covariance`, by the matrix inversion lemma.

        Returns
        -------
        precision : ndarray of shape (n_features, n_features)
        """
        check_is_fitted(self)
        n_features = self.components_.shape[1]
        sigma2 = self.noise_variance_
        if self.n_components_ == 0:
            return np.eye(n_features) / sigma2
        if sigma2 == 0.0:
            # Every component kept: the model's covariance is the data's,
            # singular if a direction has no variance (a constant feature,
            # fewer samples than features); its density is then undefined.
            ev = self.explained_variance_
            eps = np.finfo(ev.dtype).eps
            if self.n_components_ < n_features or (
                    np.min(ev) <= n_features * eps * np.max(ev)):
                raise ValueError(
                    "The covariance of the PCA model is singular: some direction "
                    "of the training data has no variance (a constant feature, "
                    "collinear features, or fewer samples than features) and no "
                    "component is left for noise_variance_, so the precision and "
                    "the log-likelihood are undefined. Keep fewer components "
                    "(n_components below the data's rank)."
                )
            return linalg.inv(self.get_covariance())
        W = self.components_
        diff = np.clip(self.explained_variance_ - sigma2, 0.0, None)
        # (σ²I + Wᵀ diag(diff) W)⁻¹ = (I − Wᵀ (W Wᵀ + σ² diag(1/diff))⁻¹ W) / σ²:
        # no σ⁴, which underflows for data of magnitude 1e-80.
        inner = W @ W.T
        with np.errstate(divide="ignore"):
            inner.flat[:: inner.shape[0] + 1] += sigma2 / diff
        precision = -(W.T @ linalg.inv(inner) @ W)
        precision.flat[:: n_features + 1] += 1.0
        return precision / sigma2

    def score_samples(self, X):
        """Log-likelihood of each sample under the probabilistic PCA model.

        <X_samples>

        Returns
        -------
        ll : ndarray of shape (n_samples,)
            ``log N(x | mean_, get_covariance())`` (Tipping and Bishop).
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=[np.float64, np.float32], reset=False)
        Xr = X - self.mean_
        precision = self.get_precision()
        _, logdet = np.linalg.slogdet(precision)
        log_like = -0.5 * np.sum(Xr * (Xr @ precision), axis=1)
        log_like -= 0.5 * (X.shape[1] * log(2.0 * np.pi) - logdet)
        return log_like

    def score(self, X, y=None):
        """Average log-likelihood of the samples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.
        y : None
            Ignored.

        Returns
        -------
        ll : float
            Mean of :meth:`score_samples`.
        """
        return float(np.mean(self.score_samples(X)))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.input_tags.sparse = self.svd_solver in _SPARSE_SOLVERS
        return tags
