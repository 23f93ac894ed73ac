"""The benchmark report's figures: a family summary plus one chart per family,
redrawn from a saved run's JSON without running anything."""

import json

import pytest

pytest.importorskip("matplotlib")


def _result(case, family, ratio, score=("accuracy", 0.9, 0.9)):
    name, mine, ref = score
    return {
        "case": case, "family": family, "status": "ok", "primary_threads": "1",
        "timings": {"1": {"fit_ratio": ratio}}, "score_name": name,
        "score": {"skml": mine, "reference": ref},
    }


def test_family_charts_and_replot(tmp_path):
    from benchmarks.plots import make_plots, replot

    results = [
        _result("A[x]", "tree", 0.5), _result("B[x]", "tree", 2.0),
        _result("C[y]", "svm", 1.2, ("r2", 0.5, 0.8)),
        {"case": "D[z]", "family": "svm", "status": "error"},
    ]
    made = make_plots(results, tmp_path, "quick")
    assert made["fit time ratio"] == "quick-fit-ratio.png"
    assert made["fit time ratio: svm"] == "quick-fit-ratio-svm.png"
    assert made["fit time ratio: tree"] == "quick-fit-ratio-tree.png"
    for png in made.values():
        assert (tmp_path / png).stat().st_size > 0

    # a family that is gone from the next run loses its stale chart
    saved = tmp_path / "quick.json"
    saved.write_text(json.dumps({"meta": {"profile": "quick"}, "results": results[:2]}))
    again = replot(saved)
    assert "fit time ratio: svm" not in again
    assert not (tmp_path / "quick-fit-ratio-svm.png").exists()
    assert (tmp_path / "quick-fit-ratio-tree.png").exists()
