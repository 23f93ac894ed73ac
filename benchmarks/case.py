"""What one benchmark row compares."""

from dataclasses import dataclass, field
from importlib import import_module


def load_object(path):
    """Import ``"package.module:Name"`` and return ``Name``."""
    module, _, name = path.partition(":")
    return getattr(import_module(module), name)


@dataclass(frozen=True)
class Case:
    """One skml estimator against its reference on one dataset.

    Estimators are named by import path (``"skml.linear_model:Ridge"``) so the
    registry imports nothing until a case runs.

    Attributes
    ----------
    estimator : str
        The skml class name this row covers (used by the coverage meta-test).
    skml : str
        Import path of the skml class.
    reference : str
        Import path of the reference class (scikit-learn's, or the named peer).
    dataset : str
        A key of ``benchmarks.datasets.DATASETS``.
    score : str
        A key of ``benchmarks.scores.SCORES`` ("accuracy", "r2", "max_abs_diff",
        ...), computed on the test split.
    params, reference_params : dict
        Constructor arguments of each side.
    family : str
        Subpackage name, for selection with ``--family``.
    profiles : tuple of str
        Profiles that run this case ("quick", "full").
    label : str
        Optional suffix distinguishing rows of the same estimator and dataset.
    """

    estimator: str
    skml: str
    reference: str
    dataset: str
    score: str
    family: str
    params: dict = field(default_factory=dict)
    reference_params: dict = field(default_factory=dict)
    profiles: tuple = ("quick", "full")
    label: str = ""

    @property
    def name(self):
        suffix = f",{self.label}" if self.label else ""
        return f"{self.estimator}[{self.dataset}{suffix}]"

    def make_skml(self):
        return load_object(self.skml)(**self.params)

    def make_reference(self):
        return load_object(self.reference)(**self.reference_params)
