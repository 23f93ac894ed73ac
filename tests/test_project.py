"""Project-wide rules: coverage of every estimator, and the from-scratch rule."""

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import tests
from skml.utils.discovery import all_estimators

from ._parity import PARITY_TESTED

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = [name for name, _ in all_estimators()]

# scikit-learn modules that implement algorithms: skml may not use them.
FORBIDDEN = re.compile(
    r"^\s*(from|import)\s+sklearn\.(svm|tree|ensemble|linear_model|cluster|mixture|"
    r"manifold|neighbors|decomposition|neural_network|naive_bayes|"
    r"discriminant_analysis|gaussian_process|kernel_approximation|metrics\.pairwise)\b"
    r"|randomized_svd",
    re.MULTILINE,
)


def _import_all_test_modules():
    for info in pkgutil.walk_packages(tests.__path__, prefix="tests."):
        importlib.import_module(info.name)


def test_skml_uses_no_sklearn_algorithm():
    offenders = []
    for path in (ROOT / "skml").rglob("*.py"):
        for match in FORBIDDEN.finditer(path.read_text()):
            offenders.append(f"{path.relative_to(ROOT)}: {match.group(0).strip()}")
    assert not offenders, "skml/ must implement its algorithms itself:\n" + "\n".join(
        offenders
    )


def test_there_are_estimators():
    assert len(PUBLIC) > 0


@pytest.mark.parametrize("name", PUBLIC)
def test_every_estimator_has_a_parity_test(name):
    _import_all_test_modules()
    assert name in PARITY_TESTED, (
        f"{name} has no test decorated with tests._parity.parity_test"
    )


@pytest.mark.parametrize("name", PUBLIC)
def test_every_estimator_has_a_benchmark_case(name):
    from benchmarks.cases import all_cases

    assert any(case.estimator == name for case in all_cases()), (
        f"{name} has no case in benchmarks/cases/"
    )


@pytest.mark.parametrize("name", PUBLIC)
def test_every_estimator_has_a_docs_entry(name):
    pages = "\n".join(p.read_text() for p in (ROOT / "docs").rglob("*.rst"))
    assert re.search(rf"^\s+{name}\s*$", pages, re.MULTILINE), (
        f"{name} is not listed in an autosummary block of docs/*.rst"
    )


def test_peers_stay_out_of_the_test_and_runtime_environments():
    # The README test command must never install a peer library (PyTorch
    # and friends cost gigabytes and CI minutes): peers live in their own
    # extra, installed only by `dev.py peers` into .venv-peers.
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    peer_names = {re.split(r"[<>=\[ ]", p)[0].lower() for p in extras["peers"]} - {"pandas"}
    installed_by_tests = project["dependencies"] + [
        req for extra in ("test", "docs", "bench") for req in extras[extra]]
    assert not peer_names & {re.split(r"[<>=\[ ]", r)[0].lower() for r in installed_by_tests}

    spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
    dev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dev)
    for command in ("test", "bench", "docs"):
        assert "peers" not in dev.EXTRAS[command].split(",")
    assert dev.PEERS_VENV != dev.VENV
