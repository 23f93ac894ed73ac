"""skml.gaussian_process against sklearn.gaussian_process, with the same kernel.

Both sides fit constant x Matern(5/2) + white noise (three log hyper-parameters)
from the same start by L-BFGS-B on the marginal likelihood; the rows time the
whole fit (optimisation and Cholesky) and predict the posterior mean.
"""

from benchmarks.case import Case


def _skml_gp(**params):
    from skml.gaussian_process import GaussianProcessRegressor
    from skml.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

    kernel = ConstantKernel() * Matern(1.0, nu=2.5) + WhiteKernel()
    return GaussianProcessRegressor(kernel, normalize_y=True, random_state=0, **params)


def _sklearn_gp(**params):
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

    kernel = ConstantKernel() * Matern(1.0, nu=2.5) + WhiteKernel()
    return GaussianProcessRegressor(kernel, normalize_y=True, random_state=0, **params)


CASES = [
    Case(estimator="GaussianProcessRegressor",
         skml="benchmarks.cases.gaussian_process:_skml_gp",
         reference="benchmarks.cases.gaussian_process:_sklearn_gp",
         dataset="diabetes", score="r2", family="gaussian_process"),
]
