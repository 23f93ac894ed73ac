"""Differential privacy (notes B §13): mechanisms, accountants, DP statistics.

- :class:`BudgetAccountant` (sequential composition) and :func:`group_privacy`;
- the mechanisms :class:`LaplaceMechanism`, :class:`GaussianMechanism`
  (classic and analytic calibration), :class:`RandomizedResponse`,
  :class:`ExponentialMechanism`;
- DP statistics :func:`dp_count`, :func:`dp_sum`, :func:`dp_mean`,
  :func:`dp_histogram`, clipping and :func:`subsample_and_aggregate`;
- the Rényi-DP accountant of the subsampled Gaussian mechanism
  (:class:`RDPAccountant`, :func:`compute_rdp`, :func:`get_noise_multiplier`);
- models trained by DP-SGD: :class:`DPSGDClassifier`, :class:`DPSGDRegressor`;
- membership inference: :class:`MembershipInferenceAttack` (shadow models)
  and :class:`LossThresholdMembershipInference`;
- private synthetic data: :class:`DPHistogramSynthesizer`, :class:`PrivBayes`.
"""

from ._accountant import BudgetAccountant, BudgetExceededError, group_privacy
from ._dp_sgd import DPSGDClassifier, DPSGDRegressor
from ._mechanisms import (
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    analytic_gaussian_sigma,
    classic_gaussian_sigma,
)
from ._membership import (
    LossThresholdMembershipInference,
    MembershipInferenceAttack,
    attack_advantage,
    attack_auc,
)
from ._rdp import (
    DEFAULT_ORDERS,
    RDPAccountant,
    compute_rdp,
    get_noise_multiplier,
    rdp_to_epsilon,
)
from ._synthesizers import DPHistogramSynthesizer, PrivacyLeakWarning, PrivBayes
from ._tools import (
    clip,
    clip_norm,
    count_sensitivity,
    dp_count,
    dp_histogram,
    dp_mean,
    dp_sum,
    normalise_counts,
    subsample_and_aggregate,
    sum_sensitivity,
)

from . import _accountant, _dp_sgd, _mechanisms, _membership, _rdp, _synthesizers
from . import _tools

# Each module's __all__ lists what it exports.
__all__ = [
    *_rdp.__all__, *_synthesizers.__all__, *_membership.__all__, *_dp_sgd.__all__,
    *_accountant.__all__, *_mechanisms.__all__, *_tools.__all__,
]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
