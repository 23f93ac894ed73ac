import os
import sys

# Each pytest-xdist worker gets a numba cache directory of its own. numba's
# on-disk cache is not safe against two processes saving different
# specialisations of one function at the same moment: both can pick the same
# data-file name, the index then maps one signature to the other's machine
# code, and the next process that loads it crashes (seen with the tree growth
# loop, whose one dispatcher is specialised for the exact, histogram and
# multi-output searches). Two workers compile the same kernels at the same
# time on a fresh clone, so they must not share a cache.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
if _WORKER and "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".numba_cache", _WORKER)
    if "numba" in sys.modules:
        sys.modules["numba"].core.config.reload_config()

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

from tests import _data  # noqa: E402

# CI: no deadline (numba compiles on first call, the machine is shared) and
# derandomised, so a red run is reproducible.
settings.register_profile(
    "ci",
    deadline=None,
    derandomize=True,
    max_examples=30,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=50)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


# -- seeds and data -------------------------------------------------------------
# SKML_TESTS_GLOBAL_RANDOM_SEED chooses the seed(s) given to tests that ask for
# `global_random_seed`: unset -> 42; "7" -> 7; "0-9" -> every seed 0..9 (both
# ends included); "1,5,9" -> those seeds; "all" -> 0..99. A test using it must
# pass for any seed, so its thresholds need a margin over seed-to-seed noise.
SEED_ENV = "SKML_TESTS_GLOBAL_RANDOM_SEED"


def _seeds(value):
    value = value.strip()
    if value == "all":
        return list(range(100))
    seeds = []
    for part in value.split(","):
        lo, sep, hi = part.partition("-")
        try:
            seeds += list(range(int(lo), int(hi) + 1)) if sep else [int(lo)]
        except ValueError:
            raise ValueError(
                f"{SEED_ENV}={value!r}: expected an integer, a range 'a-b', "
                "a comma-separated list of those, or 'all'") from None
    if not seeds or min(seeds) < 0:
        raise ValueError(f"{SEED_ENV}={value!r}: need at least one seed >= 0")
    return seeds


def pytest_generate_tests(metafunc):
    if "global_random_seed" in metafunc.fixturenames:
        seeds = _seeds(os.environ.get(SEED_ENV, "42"))
        metafunc.parametrize("global_random_seed", seeds,
                             ids=[f"seed{s}" for s in seeds])


def _dataset_fixture(name):
    @pytest.fixture
    def fixture():
        return _data.load(name)
    fixture.__doc__ = f"(X, y) of the bundled {name} dataset (a fresh copy)."
    return fixture


# Named <dataset>_data so they do not clash with module fixtures such as
# test_logistic's `iris`, which is the standardised set.
iris_data = _dataset_fixture("iris")
wine_data = _dataset_fixture("wine")
breast_cancer_data = _dataset_fixture("breast_cancer")
digits_data = _dataset_fixture("digits")
diabetes_data = _dataset_fixture("diabetes")
