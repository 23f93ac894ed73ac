"""The benchmark harness, on fake cases with fast scikit-learn estimators."""

import json
import os
from dataclasses import replace

import numpy as np
import pytest

from benchmarks import __main__ as cli
from benchmarks import runner
from benchmarks.case import Case
from benchmarks.report import format_table
from benchmarks.runner import PROFILES, loglog_slope, run_case, scaling_series
from benchmarks.scores import SCORES, agreement

FAST = replace(PROFILES["quick"], repeats=2, case_budget_s=2.0, tiny_s=0.05)


def fake(name, dataset, score, skml=None, reference=None, params=None, **kw):
    reference = reference or f"sklearn.dummy:{name}"
    return Case(estimator=name, skml=skml or reference, reference=reference,
                dataset=dataset, score=score, family="fake", params=params or {},
                reference_params=params or {}, **kw)


CLF = fake("DummyClassifier", "iris", "accuracy", params={"strategy": "prior"})
REG = fake("DummyRegressor", "diabetes", "r2")
SCALER = fake("StandardScaler", "wine", "transform_max_abs_diff",
              reference="sklearn.preprocessing:StandardScaler")
MISSING = fake("Nothing", "iris", "accuracy", skml="skml.no_such_module:Nothing",
               reference="sklearn.dummy:DummyClassifier")


def test_classifier_row():
    r = run_case(CLF, FAST)
    assert r["status"] == "ok", r.get("traceback")
    assert r["score"]["skml"] == r["score"]["reference"]
    assert r["score"]["skml"] == pytest.approx(1 / 3, abs=0.05)
    assert r["agreement"] == {"kind": "equal", "value": 1.0}
    t = r["timings"]["1"]
    assert set(t) >= {"repeats", "fit_s", "predict_s", "fit_ratio", "predict_ratio"}
    assert t["repeats"] >= 1 and len(t["samples"]["skml"]["fit"]) == t["repeats"]
    assert t["fit_ratio"] == pytest.approx(t["fit_s"]["skml"] / t["fit_s"]["reference"])
    assert all(m is not None and m >= 0 for m in r["memory_mb"].values())
    assert (r["n_train"], r["n_features"]) == (112, 4)


def test_regressor_and_transformer_agreement():
    reg = run_case(REG, FAST)
    assert reg["agreement"]["kind"] == "diff_over_std"
    assert reg["agreement"]["value"] == 0.0
    scaler = run_case(SCALER, FAST)
    assert scaler["score"] == {"skml": 0.0, "reference": None}  # the score is the diff


def test_log_loss_uses_predict_proba():
    r = run_case(replace(CLF, score="log_loss"), FAST)
    assert r["status"] == "ok"
    assert r["score"]["skml"] == pytest.approx(np.log(3), rel=0.05)
    assert r["agreement"]["kind"] == "max_abs_diff"


@pytest.mark.parametrize("case, side", [
    (MISSING, "skml"),
    (replace(CLF, reference_params={"strategy": "bogus"}), "reference"),
    (replace(CLF, score="no_such_score"), "setup"),
    (replace(CLF, dataset="no_such_dataset"), "setup"),
])
def test_failures_become_error_rows(case, side):
    r = run_case(case, FAST)
    assert r["status"] == "error" and r["error_side"] == side
    assert r["error"] and "Traceback" in r["traceback"]


def test_both_thread_modes():
    r = run_case(CLF, FAST, threads="both")
    assert set(r["timings"]) == {"1", "all"} and r["primary_threads"] == "1"


class _Slow:
    calls = []

    def __init__(self, tag):
        self.tag = tag

    def fit(self, X, y):
        _Slow.calls.append(self.tag)
        return self

    def predict(self, X):
        return np.zeros(len(X))


def test_repeats_alternate_and_adapt_to_the_budget():
    data = (np.zeros((3, 1)), np.zeros((2, 1)), np.zeros(3), np.zeros(2))
    sides = [("skml", lambda: _Slow("s")), ("reference", lambda: _Slow("r"))]
    _Slow.calls = []
    _, _, done = runner.time_sides(sides, data, "predict", repeats=4, budget_s=60)
    assert done >= 4  # tiny repeats: more samples, for free
    assert _Slow.calls[:4] == ["s", "r", "r", "s"]
    _, _, done = runner.time_sides(sides, data, "predict", repeats=4, budget_s=0.0)
    assert done == 1  # over budget: one repeat only


def test_agreement_kinds():
    y = np.array([0.0, 2.0])
    assert agreement("equal", [1, 2, 3, 4], [1, 2, 0, 4], y) == 0.75
    assert agreement("diff_over_std", [1.0, 2.0], [1.0, 3.0], y) == 1.0
    assert np.isnan(agreement("max_abs_diff", np.ones((2, 2)), np.ones((2, 3)), y))
    assert agreement("same_partition", [0, 0, 1], [1, 1, 0], y) == 1.0
    assert set(SCORES) >= {"accuracy", "r2", "log_loss", "neg_mse",
                           "transform_max_abs_diff"}


def test_slope_and_series():
    n = np.array([1e4, 3e4, 1e5])
    assert loglog_slope(n, 2e-9 * n**2) == pytest.approx(2.0)
    assert loglog_slope(n, [None, None, 1.0]) is None
    assert scaling_series("reg_20k_20") == [
        "reg_10k_20", "reg_20k_20", "reg_30k_20", "reg_100k_20", "reg_300k_20"]
    assert scaling_series("iris") == []


def test_select():
    cases = [CLF, REG, replace(CLF, family="other", profiles=("full",))]
    assert cli.select(cases, "quick", name="Regressor") == [REG]
    assert cli.select(cases, "quick", name="DummyClassifier[iris]") == [CLF]
    assert cli.select(cases, "quick", name="^Dummy(Clas|Reg)") == [CLF, REG]
    assert cli.select(cases, "full", families=["other,nothing"]) == [cases[2]]


def test_table_is_aligned():
    results = [run_case(CLF, FAST), run_case(MISSING, FAST)]
    lines = format_table(results).splitlines()
    assert lines[0].split()[:4] == ["case", "score", "skml", "ref"]
    assert lines[2].index("accuracy") == lines[0].index("score")
    assert "ERROR (skml): ModuleNotFoundError" in lines[3]


@pytest.fixture
def fake_registry(monkeypatch):
    for name, profile in PROFILES.items():
        monkeypatch.setitem(PROFILES, name, replace(profile, tiny_s=0.05))
    monkeypatch.setattr(cli, "all_cases", lambda: [CLF, SCALER, MISSING])
    series = ["iris", "wine", "breast_cancer"]
    monkeypatch.setattr(runner, "scaling_series",
                        lambda d: series if d == "iris" else [])
    monkeypatch.setattr(cli, "scaling_series", runner.scaling_series)


def test_command_line_end_to_end(fake_registry, tmp_path, capsys):
    assert cli.main(["--out", str(tmp_path), "--repeats", "1"]) == 0
    out = capsys.readouterr()
    assert "DummyClassifier[iris]" in out.out and "[3/3] Nothing[iris]" in out.err
    data = json.loads((tmp_path / "quick.json").read_text())
    assert data["meta"]["cpu_count"] >= 1 and data["meta"]["versions"]["numpy"]
    assert [r["status"] for r in data["results"]] == ["ok", "ok", "error"]
    report = (tmp_path / "report-quick.md").read_text()
    assert "## Goals" in report and "## Errors" in report and "no_such_module" in report
    assert (tmp_path / "quick-fit-ratio.png").exists()
    assert cli.main(["--out", str(tmp_path), "--strict", "--name", "Nothing"]) == 1
    assert cli.main(["--out", str(tmp_path), "--name", "NoSuchCase"]) == 2


def test_full_profile_adds_scaling(fake_registry, tmp_path):
    argv = ["--out", str(tmp_path), "--profile", "full", "--name", "Classifier"]
    assert cli.main([*argv, "--repeats", "1"]) == 0
    (result,) = json.loads((tmp_path / "full.json").read_text())["results"]
    assert set(result["timings"]) == {"1", "all"}
    scaling = result["scaling"]
    assert scaling["n"] == [112, 133, 426] and set(scaling["slope"]) == {
        "skml", "reference"}
    assert (tmp_path / "full-scaling.png").exists()
    assert "## Scaling" in (tmp_path / "report-full.md").read_text()


def test_scaling_prediction_uses_the_measured_slope():
    from benchmarks.runner import _predicted_fit_s

    # Quadratic growth is extrapolated as quadratic, not linear.
    assert _predicted_fit_s([10, 20], [1.0, 4.0], 40) == pytest.approx(16.0)
    # Sub-linear measurements are still extrapolated at least linearly.
    assert _predicted_fit_s([10, 20], [1.0, 1.2], 40) == pytest.approx(2.4)
    # One point: linear.
    assert _predicted_fit_s([10], [1.0], 30) == pytest.approx(3.0)


def test_a_selected_run_never_writes_over_the_committed_report(fake_registry, tmp_path,
                                                               monkeypatch):
    committed = tmp_path / "results"
    monkeypatch.setattr(cli, "RESULTS", committed)
    assert cli.main(["--name", "Classifier", "--repeats", "1"]) == 0
    assert (committed / "selected" / "report-quick.md").exists()
    assert not (committed / "report-quick.md").exists()
    assert cli.output_dir(cli.parse_args([])) == committed
    assert cli.output_dir(cli.parse_args(["--family", "x"])) == committed / "selected"
    assert cli.output_dir(cli.parse_args(["--family", "x", "--out", "o"])).name == "o"


def test_noisy_ratios_are_marked():
    from benchmarks.report import fmt_timing_ratio, spread

    assert spread([1.0]) == 0.0 and spread([1.0, 1.0, 1.0]) == 0.0
    steady = {"fit_ratio": 0.5, "samples": {"skml": {"fit": [1.0, 1.05, 1.1]},
                                            "reference": {"fit": [2.0, 2.1, 2.0]}}}
    assert fmt_timing_ratio(steady, "fit") == "0.50"
    noisy = {"fit_ratio": 0.5, "samples": {"skml": {"fit": [1.0, 1.05, 1.9]},
                                           "reference": {"fit": [2.0, 2.1, 2.0]}}}
    assert fmt_timing_ratio(noisy, "fit") == "0.50*"


def test_convnet_peers_report_without_the_peers(tmp_path):
    from benchmarks import convnet_peers

    rows = [{"arch": "lenet8", "threads": 1, "n_threads": 1, "dtype": "float32",
             "clock": "CPU", "skml": (0.5, 0.9, 0.6)},
            {"arch": "lenet8", "threads": "all", "n_threads": 2, "dtype": "float32",
             "clock": "wall", "skml": (0.4, 0.9, 0.7), "torch": (0.8, 0.85, 1.5)}]
    versions = {"torch": "2.x", "skorch": None, "torch_default_threads": 2}
    out = tmp_path / "convnet.md"
    convnet_peers.report(rows, versions, 2, 3, out, load_start=1.0)
    text = out.read_text()
    one, multi = [line for line in text.splitlines() if line.startswith("| lenet8")]
    assert one.count("peer not installed") == 2  # neither torch nor skorch
    assert multi.count("peer not installed") == 1 and "| 0.50x |" in multi
    assert "2 (all)" in multi and "skorch not installed" in text
    # The load sentence reads the machine's load at the end of the report: it
    # says "under load" or "quiet machine" depending on this machine.
    assert "under load" in text or "quiet machine" in text
    assert "torch 1.500" in text  # the CPU-seconds note


def test_attention_peers_table_without_the_peers():
    from benchmarks import attention_peers

    rows = [{"threads": 1, "n_threads": 1, "clock": "CPU", "PyTorch": (2.0, 0.9, 2.1),
             "skorch": None, "skml f32": (1.0, 0.95, 1.1), "skml f64": (1.5, 0.95, 1.6)},
            {"threads": "all", "n_threads": 2, "clock": "wall", "PyTorch": None,
             "skorch": None, "skml f32": (0.7, 0.95, 1.2), "skml f64": None}]
    with_torch = attention_peers.training_table(rows, {"torch": "2.x", "skorch": None})
    assert with_torch[0][2:8] == ("2.000", "0.900", "0.50x", "peer not installed", "", "")
    assert with_torch[1][0] == "2 (all)" and with_torch[1][-2:] == ("-", "-")
    none = attention_peers.training_table(rows, {"torch": None, "skorch": None})
    assert none[1].count("peer not installed") == 2
    note = attention_peers.cpu_note(rows)
    assert "2 threads: skml f32 1.200" in note[0]


def test_load_sentence_says_quiet_or_loaded():
    # The peer reports said "under load" even for runs on an idle machine.
    from benchmarks._load import load_sentence

    cpus = os.cpu_count() or 1
    assert "quiet machine" in load_sentence([0.5 * cpus, cpus])
    assert "under load" in load_sentence([0.5 * cpus, 3.0 * cpus])
    assert "under load" in load_sentence([])
