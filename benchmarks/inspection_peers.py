"""skml.inspection against shap and lime (issue 13; anchors-next §2).

Run ``python -m benchmarks.inspection_peers [--quick] [--out PATH]`` in the
peers environment (``python3 dev.py peers inspection_peers``). shap and lime
are imported lazily; a missing peer gives "peer not installed" rows. BLAS
threads are pinned to one; every timing is the best of ``--repeats`` runs
after a warm-up run (numba compiles, shap's helpers load), and the first
(cold) call is reported separately where it matters.

Setting (anchors-next §2.2): breast_cancer (30 features, standardised), the
80/20 split with ``random_state=0``, background = the first 50 training
rows. Models: skml ``LogisticRegression`` explained through its margin
(``decision_function``; ground truth ``w (x - mean(bg))``), and
scikit-learn's ``RandomForestClassifier`` (50 trees) explained through
``P(y=1)`` (ground truth: shap's interventional ``TreeExplainer`` on the
same background, which is exact).

Sections:

1. Exact Shapley values on the first 10 features: skml ``exact`` vs shap
   ``ExactExplainer`` (max relative difference; time per 100 rows, warm and
   cold).
2. Kernel SHAP and permutation at equal model evaluations on 30 features:
   relative L2 error to the ground truth, non-zero values per row, time.
3. LIME: time per row on 100 rows, weighted R² of the surrogates, top-10
   overlap (Jaccard) with lime's ``lasso_path`` selection and across seeds.
4. Time per 100 explanations, every explainer, LR margin.
5. A 20 000-row task: kernel and LIME for a logistic model, an MLP, a random
   forest and gradient boosting, per 100 explanations.
6. Exact TreeSHAP on the same trees: skml's random forest and gradient
   boosting, their node arrays handed to shap's C++ ``TreeExplainer`` as a
   custom tree dict (children, missing-value child, features, thresholds,
   values, covers), path dependent and interventional; and scikit-learn's
   own forest and boosting, read natively by both (boosting's probability
   output too); max relative difference, efficiency gaps, and seconds per
   1000 explanations at one thread (CPU time) and all threads (wall time,
   skml ``n_jobs=-1``), on breast_cancer and the 20 000-row task.

``--sections 6 --merge`` re-runs section 6 and keeps the others of the
existing report as they were.

The report goes to ``benchmarks/results/inspection_peers.md``.
"""

import argparse
import os
import platform
import sys
import time
import warnings
from pathlib import Path

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
NOT_INSTALLED = "peer not installed"


def _peer(name):
    try:
        return __import__(name)
    except Exception:  # noqa: BLE001 - any import failure means "not there"
        return None


def _best(fn, repeats):
    out = fn()  # warm-up
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def _interleaved(fa, fb, repeats):
    """Best times of two functions run alternately (fair on a loaded machine)."""
    out_a, out_b = fa(), fb()  # warm-up
    ta, tb = [], []
    for _ in range(repeats):
        t = time.perf_counter()
        out_a = fa()
        ta.append(time.perf_counter() - t)
        t = time.perf_counter()
        out_b = fb()
        tb.append(time.perf_counter() - t)
    return min(ta), min(tb), float(np.median(np.array(ta) / np.array(tb))), out_a, out_b


def _cold(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


class _Timed:
    """A model function that adds up the time spent inside it."""

    def __init__(self, f):
        self.f, self.total = f, 0.0

    def __call__(self, Z):
        t = time.perf_counter()
        out = self.f(Z)
        self.total += time.perf_counter() - t
        return out


def _rel_l2(a, b):
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def _data():
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
    sc = StandardScaler().fit(X_tr)
    return sc.transform(X_tr), sc.transform(X_te), y_tr, y_te


def section_exact(lines, X_tr, X_te, y_tr, repeats, n_rows):
    from skml.inspection import ShapleyExplainer
    from skml.linear_model import LogisticRegression

    shap = _peer("shap")
    M = 10
    Xs_tr, Xs_te = X_tr[:, :M], X_te[:, :M]
    lr = LogisticRegression().fit(Xs_tr, y_tr)
    bg = Xs_tr[:50]
    rows = Xs_te[:n_rows]
    lines += ["## 1. Exact Shapley values (10 features, LR margin, background 50)", "",
              f"{n_rows} rows explained.", "",
              "| explainer | cold first call | warm (best) | per 100 rows (warm) |",
              "|---|---|---|---|"]
    def run_skml():
        return ShapleyExplainer(lr.decision_function, bg, algorithm="exact").explain(rows)

    cold_skml, _ = _cold(run_skml)
    if shap is None:
        t_skml, ours = _best(run_skml, repeats)
        lines += [f"| skml exact | {cold_skml:.3f} s | {t_skml:.3f} s | "
                  f"{100 * t_skml / n_rows:.3f} s |",
                  f"| shap ExactExplainer | {NOT_INSTALLED} | | |", ""]
        return
    masker = shap.maskers.Independent(bg, max_samples=len(bg))

    def run_shap():
        return shap.ExactExplainer(lr.decision_function, masker)(rows, silent=True).values

    cold_shap, _ = _cold(run_shap)
    # run alternately: the machine's load changes between runs
    t_skml, t_shap, median_ratio, ours, theirs = _interleaved(run_skml, run_shap,
                                                              max(repeats, 5))
    lines.append(f"| skml exact | {cold_skml:.3f} s | {t_skml:.3f} s | "
                 f"{100 * t_skml / n_rows:.3f} s |")
    lines.append(f"| shap ExactExplainer | {cold_shap:.3f} s | {t_shap:.3f} s | "
                 f"{100 * t_shap / n_rows:.3f} s |")
    rel = np.max(np.abs(ours.values - theirs)) / np.max(np.abs(theirs))
    lines += ["", f"- max |skml - shap| / max |shap| = **{rel:.2e}**; warm time ratio "
              f"skml/shap = **{t_skml / t_shap:.2f}** (best of each, run alternately; "
              f"median of the paired ratios {median_ratio:.2f}); cold ratio "
              f"{cold_skml / cold_shap:.3f}.", ""]
    # a nonlinear model too: the MLP's probability
    from skml.neural_network import MLPClassifier

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mlp = MLPClassifier(hidden_layer_sizes=(16,), max_iter=300,
                            random_state=0).fit(Xs_tr, y_tr)

    def f(Z):
        return mlp.predict_proba(Z)[:, 1]

    ours = ShapleyExplainer(f, bg, algorithm="exact").explain(rows[:5]).values
    theirs = shap.ExactExplainer(f, masker)(rows[:5], silent=True).values
    rel = np.max(np.abs(ours - theirs)) / np.max(np.abs(theirs))
    lines += [f"- MLP P(y=1), 5 rows: max relative difference **{rel:.2e}**.", ""]


def section_sampled(lines, X_tr, X_te, y_tr, repeats, n_rows, quick):
    from sklearn.ensemble import RandomForestClassifier

    from skml.inspection import ShapleyExplainer
    from skml.linear_model import LogisticRegression

    shap = _peer("shap")
    bg = X_tr[:50]
    rows = X_te[:n_rows]
    lr = LogisticRegression().fit(X_tr, y_tr)
    truth_lr = lr.coef_[0] * (rows - bg.mean(0))
    rf = RandomForestClassifier(n_estimators=50, random_state=0, n_jobs=1).fit(X_tr, y_tr)

    def f_rf(Z):
        return rf.predict_proba(Z)[:, 1]

    truth_rf = None
    if shap is not None:
        te = shap.TreeExplainer(rf, data=bg, feature_perturbation="interventional")
        v = te.shap_values(rows, check_additivity=False)
        v = np.asarray(v)
        truth_rf = v[..., 1] if v.ndim == 3 and v.shape[-1] == 2 else v[1]
    lines += ["## 2. Kernel SHAP and permutation at equal model evaluations (30 features)",
              "", f"{n_rows} rows, background 50. relL2 = ||phi - truth|| / ||truth||. "
              "Coalitions per row = model evaluations / 50.", "",
              "Model time is the time spent inside the model function in the last run; "
              "overhead = time - model time.", "",
              "| model | explainer | coalitions | time | model time | overhead | relL2 "
              "| non-zero per row |",
              "|---|---|---|---|---|---|---|---|"]

    def row(model, name, budget, t, values, truth, model_time):
        err = "n/a" if truth is None else f"{_rel_l2(values, truth):.3f}"
        nz = np.mean(np.sum(np.abs(values) > 1e-12, axis=1))
        lines.append(f"| {model} | {name} | {budget} | {t:.3f} s | {model_time:.3f} s | "
                     f"{t - model_time:.3f} s | {err} | {nz:.0f} |")

    budgets = [500, 2108] if not quick else [500]
    for model, raw_f, truth in [("LR margin", lr.decision_function, truth_lr),
                                ("RF P(y=1)", f_rf, truth_rf)]:
        f = _Timed(raw_f)
        reps = repeats if model.startswith("LR") else 1

        def timed(fn):
            def run():
                f.total = 0.0
                return fn(), f.total
            return run

        for budget in budgets:
            errs = []
            for seed in range(3):
                t, (ex, mt) = _best(timed(lambda seed=seed: ShapleyExplainer(
                    f, bg, algorithm="kernel", n_samples=budget,
                    random_state=seed).explain(rows)), reps)
                errs.append((t, ex.values, mt))
            row(model, "skml kernel (seed 0)", budget, errs[0][0], errs[0][1], truth,
                errs[0][2])
            if truth is not None:
                mean_err = np.mean([_rel_l2(e[1], truth) for e in errs])
                lines.append(f"| {model} | skml kernel, mean relL2 of 3 seeds | {budget} "
                             f"| | | | {mean_err:.3f} | |")
            t, (ex, mt) = _best(timed(lambda: ShapleyExplainer(
                f, bg, algorithm="permutation", n_samples=budget,
                random_state=0).explain(rows)), reps)
            row(model, "skml permutation", budget, t, ex.values, truth, mt)
            if shap is None:
                lines.append(f"| {model} | shap | {budget} | {NOT_INSTALLED} | | | | |")
                continue
            kern = shap.KernelExplainer(f, bg)
            for l1, label in [(False, "shap Kernel l1_reg=False"),
                              ("num_features(10)", "shap Kernel default l1_reg")]:
                t, (v, mt) = _best(timed(lambda l1=l1: np.asarray(kern.shap_values(
                    rows, nsamples=budget, l1_reg=l1, silent=True))), reps)
                row(model, label, budget, t, v, truth, mt)
            masker = shap.maskers.Independent(bg, max_samples=len(bg))
            perm = shap.PermutationExplainer(f, masker)
            t, (v, mt) = _best(timed(lambda: perm(rows, max_evals=budget,
                                                  silent=True).values), reps)
            row(model, "shap Permutation", budget, t, v, truth, mt)
    lines.append("")


def section_lime(lines, X_tr, X_te, y_tr, repeats, n_rows, quick):
    from skml.inspection import LimeExplainer
    from skml.linear_model import LogisticRegression

    lime = _peer("lime")
    lr = LogisticRegression().fit(X_tr, y_tr)
    rows = X_te[:n_rows]
    K = 10
    lines += ["## 3. LIME (LR probabilities, K = 10, 5000 samples)", "",
              f"{n_rows} rows.", "",
              "| explainer | time per row | mean weighted R² | top-10 Jaccard across seeds |",
              "|---|---|---|---|"]

    def ours(seed, background=X_tr):
        return LimeExplainer(n_features_explained=K, n_samples=5000,
                             random_state=seed).explain(lr, rows, background=background)

    t, ex = _best(lambda: ours(0), repeats)
    ex1 = ours(1)
    baseline = X_tr.mean(axis=0, keepdims=True)
    t_b, ex_b = _best(lambda: ours(0, baseline), repeats)
    ex_b1 = ours(1, baseline)

    def top(coef):
        return [set(np.argsort(-np.abs(c))[:K][np.abs(c[np.argsort(-np.abs(c))[:K]]) > 0])
                for c in coef]

    def jaccard(a, b):
        return float(np.mean([len(x & y) / max(1, len(x | y)) for x, y in zip(a, b)]))

    ours_top = top(ex.coef_[:, :, 1])
    lines.append(f"| skml LimeExplainer (batched) | {1000 * t / n_rows:.2f} ms | "
                 f"{np.mean(ex.score_[:, 1]):.3f} | "
                 f"{jaccard(ours_top, top(ex1.coef_[:, :, 1])):.2f} |")
    lines.append(f"| skml LimeExplainer, background = the training mean (one baseline row) "
                 f"| {1000 * t_b / n_rows:.2f} ms | {np.mean(ex_b.score_[:, 1]):.3f} | "
                 f"{jaccard(top(ex_b.coef_[:, :, 1]), top(ex_b1.coef_[:, :, 1])):.2f} |")
    if lime is None:
        lines += [f"| lime | {NOT_INSTALLED} | | |", ""]
        return
    from lime.lime_tabular import LimeTabularExplainer

    n_lime = n_rows if not quick else min(n_rows, 20)

    def theirs(seed):
        explainer = LimeTabularExplainer(X_tr, mode="classification",
                                         feature_selection="lasso_path",
                                         random_state=seed)
        coefs, scores = [], []
        for x in rows[:n_lime]:
            e = explainer.explain_instance(x, lr.predict_proba, num_features=K,
                                           labels=(1,), num_samples=5000)
            c = np.zeros(X_tr.shape[1])
            for j, w in e.local_exp[1]:
                c[j] = w
            coefs.append(c)
            scores.append(e.score)
        return np.array(coefs), np.array(scores)

    t0 = time.perf_counter()
    lc0, ls0 = theirs(0)
    t_lime = time.perf_counter() - t0
    lc1, _ = theirs(1)
    lime_top = top(lc0)
    lines.append(f"| lime LimeTabularExplainer, lasso_path | {1000 * t_lime / n_lime:.2f} ms "
                 f"| {np.mean(ls0):.3f} | {jaccard(lime_top, top(lc1)):.2f} |")
    lines += ["", f"- time ratio skml/lime per row: **{(t / n_rows) / (t_lime / n_lime):.3f}**.",
              f"- top-10 Jaccard skml vs lime (same rows): "
              f"**{jaccard(ours_top[:n_lime], lime_top):.2f}** (different interpretable "
              "representations: skml switches features to background values, lime "
              "compares quartile bins).", ""]


def section_per_100(lines, X_tr, X_te, y_tr, repeats):
    from skml.inspection import IntegratedGradients, LimeExplainer, ShapleyExplainer
    from skml.linear_model import LogisticRegression

    shap = _peer("shap")
    lr = LogisticRegression().fit(X_tr, y_tr)
    bg = X_tr[:50]
    rows = X_te[:100]
    lines += ["## 4. Time per 100 explanations (LR, 30 features, background 50)", "",
              "| explainer | skml | shap |", "|---|---|---|"]
    f = lr.decision_function
    t_lin, _ = _best(lambda: ShapleyExplainer(lr, bg, algorithm="linear",
                                              response_method="decision_function"
                                              ).explain(rows), repeats)
    s_lin = NOT_INSTALLED
    if shap is not None:
        masker = shap.maskers.Independent(bg, max_samples=len(bg))
        t, _ = _best(lambda: shap.LinearExplainer((lr.coef_, lr.intercept_), masker)(rows),
                     repeats)
        s_lin = f"{t:.4f} s"
    lines.append(f"| linear (margin) | {t_lin:.4f} s | {s_lin} |")
    t_k, _ = _best(lambda: ShapleyExplainer(f, bg, algorithm="kernel", n_samples=2108,
                                            random_state=0).explain(rows), 1)
    s_k = NOT_INSTALLED
    if shap is not None:
        kern = shap.KernelExplainer(f, bg)
        t, _ = _best(lambda: kern.shap_values(rows, nsamples=2108, l1_reg=False,
                                              silent=True), 1)
        s_k = f"{t:.3f} s"
    lines.append(f"| kernel, 2108 coalitions (margin) | {t_k:.3f} s | {s_k} |")
    t_ig, _ = _best(lambda: IntegratedGradients(lr, baseline=bg.mean(0)).explain(rows),
                    repeats)
    lines.append(f"| integrated gradients, 50 Gauss-Legendre steps (proba) | {t_ig:.4f} s "
                 "| (captum: torch models only) |")
    t_l, _ = _best(lambda: LimeExplainer(n_samples=5000, random_state=0).explain(
        lr, rows, background=X_tr), 1)
    lines += [f"| LIME, 5000 samples (proba) | {t_l:.3f} s | see section 3 |", ""]


def section_20k(lines, repeats):
    """Four model kinds on a 20 000-row task: time per 100 explanations."""
    from sklearn.datasets import make_classification
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier

    from skml.inspection import LimeExplainer, ShapleyExplainer
    from skml.linear_model import LogisticRegression
    from skml.neural_network import MLPClassifier

    shap, lime = _peer("shap"), _peer("lime")
    X, y = make_classification(n_samples=20_000, n_features=20, n_informative=10,
                               random_state=0)
    X_tr, X_te, y_tr = X[:16_000], X[16_000:], y[:16_000]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = {
            "skml LogisticRegression": LogisticRegression().fit(X_tr, y_tr),
            "skml MLPClassifier (32)": MLPClassifier(hidden_layer_sizes=(32,), max_iter=50,
                                                     random_state=0).fit(X_tr, y_tr),
            "sklearn RandomForest (50)": RandomForestClassifier(
                n_estimators=50, random_state=0, n_jobs=1).fit(X_tr, y_tr),
            "sklearn GradientBoosting (100)": GradientBoostingClassifier(
                random_state=0).fit(X_tr, y_tr),
        }
    bg = X_tr[:50]
    n_rows = 10
    rows = X_te[:n_rows]
    lines += ["## 5. A 20 000-row task (20 features): seconds per 100 explanations", "",
              f"make_classification(20000, 20), 16 000 training rows; P(y=1) explained; "
              f"background 50. Measured on {n_rows} rows (one run after a warm-up) and "
              "scaled to 100. Kernel: 2 d + 2048 = 2088 coalitions, shap with "
              "l1_reg=False. LIME: 5000 samples, K = 10, background = the training rows "
              "(skml) / the training data (lime).", "",
              "| model | skml kernel | shap Kernel | skml LIME | lime |",
              "|---|---|---|---|---|"]
    scale = 100 / n_rows
    for name, model in models.items():
        def f(Z, model=model):
            return model.predict_proba(Z)[:, 1]

        t_k, _ = _best(lambda: ShapleyExplainer(f, bg, algorithm="kernel",
                                                random_state=0).explain(rows), 1)
        s_k = NOT_INSTALLED
        if shap is not None:
            kern = shap.KernelExplainer(f, bg)
            t, _ = _best(lambda: kern.shap_values(rows, nsamples=2088, l1_reg=False,
                                                  silent=True), 1)
            s_k = f"{scale * t:.2f}"
        t_l, _ = _best(lambda: LimeExplainer(random_state=0).explain(
            f, rows, background=X_tr), 1)
        s_l = NOT_INSTALLED
        if lime is not None:
            from lime.lime_tabular import LimeTabularExplainer

            explainer = LimeTabularExplainer(X_tr, mode="classification",
                                             feature_selection="lasso_path",
                                             random_state=0)

            def proba(Z, model=model):
                return model.predict_proba(Z)

            def run_lime():
                for x in rows:
                    explainer.explain_instance(x, proba, num_features=10, labels=(1,))

            t, _ = _best(run_lime, 1)
            s_l = f"{scale * t:.2f}"
        lines.append(f"| {name} | {scale * t_k:.2f} | {s_k} | {scale * t_l:.2f} | {s_l} |")
    lines.append("")


def _shap_tree_dict(model):
    """An skml forest or boosting as shap's custom tree-ensemble dict: the
    class probabilities (forests: every class's leaf proportion / n_trees, so
    both libraries compute the same outputs) or the raw margin (binary
    boosting: learning_rate * leaf value, init_ as base_offset)."""
    if hasattr(model, "learning_rate"):
        members = list(model.estimators_[:, 0])
        scale, offset = model.learning_rate, float(model.init_[0])
    else:
        members = list(model.estimators_)
        scale, offset = 1.0 / len(members), np.zeros(len(model.classes_))
    trees = []
    for est in members:
        t = est.tree_
        leaf = t.children_left < 0
        default = np.where(t.missing_go_to_left != 0, t.children_left, t.children_right)
        trees.append({
            "children_left": t.children_left.astype(np.int32),
            "children_right": t.children_right.astype(np.int32),
            "children_default": np.where(leaf, -1, default).astype(np.int32),
            "features": np.where(leaf, -2, t.feature).astype(np.int32),
            "thresholds": t.threshold.astype(np.float64),
            "values": scale * t.value[:, 0, :].astype(np.float64),
            "node_sample_weight": t.weighted_n_node_samples.astype(np.float64),
        })
    return {"trees": trees, "base_offset": offset, "tree_output": "raw_value",
            "input_dtype": np.float64, "internal_dtype": np.float64}


def _interleaved_clock(fa, fb, repeats, clock):
    """Best times of two functions run alternately, on ``clock``."""
    fa(), fb()  # warm-up (numba compiles)
    ta, tb = [], []
    for _ in range(repeats):
        t = clock()
        fa()
        ta.append(clock() - t)
        t = clock()
        fb()
        tb.append(clock() - t)
    return min(ta), min(tb)


def _tree_rows(data_name, model_name, game, ours_fn, ours_all_fn, theirs_fn, rows, out,
               repeats, shap_missing):
    """One row of section 6: values, efficiency and the three timings."""
    phi, base = ours_fn(rows)
    eff = float(np.abs(phi.sum(1) + base - out).max())
    if shap_missing:
        return (f"| {data_name} | {model_name} | {game} | {NOT_INSTALLED} | {eff:.1e} | | "
                f"| | {NOT_INSTALLED} | | |")
    ref, base_theirs = theirs_fn(rows)
    rel = float(np.abs(phi - ref).max() / np.abs(ref).max())
    eff_theirs = float(np.abs(ref.sum(1) + base_theirs - out).max())
    scale = 1000 / len(rows)
    # one thread: CPU time of each (shap's C++ TreeSHAP is single-threaded)
    a1, b1 = _interleaved_clock(lambda: ours_fn(rows), lambda: theirs_fn(rows), repeats,
                                time.process_time)
    # all threads: wall time of skml with n_jobs=-1 against shap's (one thread)
    aa, bb = _interleaved_clock(lambda: ours_all_fn(rows), lambda: theirs_fn(rows),
                                repeats, time.perf_counter)
    return (f"| {data_name} | {model_name} | {game} | {rel:.1e} | {eff:.1e} | "
            f"{eff_theirs:.1e} | {scale * a1:.3f} | {scale * aa:.3f} | {scale * b1:.3f} | "
            f"{a1 / b1:.2f} | {aa / bb:.2f} |")


def _skml_trees(A_tr, b_tr, big):
    from skml.ensemble import GradientBoostingClassifier, RandomForestClassifier

    return {
        "RandomForest (50)": RandomForestClassifier(
            n_estimators=50, max_depth=10 if big else None, random_state=0
        ).fit(A_tr, b_tr),
        "GradientBoosting (100)": GradientBoostingClassifier(
            n_estimators=100, max_depth=3, random_state=0).fit(A_tr, b_tr),
    }


def _sklearn_trees(A_tr, b_tr, big):
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier

    return {
        "sklearn RandomForest (50)": RandomForestClassifier(
            n_estimators=50, max_depth=10 if big else None, random_state=0
        ).fit(A_tr, b_tr),
        "sklearn GradientBoosting (100)": GradientBoostingClassifier(
            n_estimators=100, max_depth=3, random_state=0).fit(A_tr, b_tr),
    }


def section_tree(lines, X_tr, X_te, y_tr, repeats, quick):
    """skml's TreeSHAP against shap's C++ TreeExplainer on the same trees."""
    from sklearn.datasets import make_classification

    from skml.inspection import ShapleyExplainer

    shap = _peer("shap")
    X20, y20 = make_classification(n_samples=20_000, n_features=20, n_informative=10,
                                   random_state=0)
    tasks = {"breast_cancer": (X_tr, X_te, y_tr),
             "20k x 20": (X20[:16_000], X20[16_000:], y20[:16_000])}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines += ["## 6. Exact TreeSHAP on the same trees (skml vs shap's C++ TreeExplainer)",
              "",
              "skml's `RandomForestClassifier` (50 trees, both class probabilities "
              "computed, P(y=1) compared; max_depth=10 on the 20k task) and "
              "`GradientBoostingClassifier` (100 depth-3 trees, raw margin). shap "
              "explains the very same trees: their node arrays (children, "
              "missing-value child, features, thresholds, values scaled by "
              "1/n_trees or the learning rate, weighted covers) passed to "
              "`shap.TreeExplainer` as a custom tree dict. The scikit-learn rows: "
              "scikit-learn's own forest and boosting, which both libraries read "
              "natively (skml from the public `tree_` arrays); \"probability\": "
              "boosting's P(y=1) with shap's `model_output=\"probability\"` "
              "(per-background-row rescaling of the raw values). Interventional: "
              "background = the first 100 training rows. Rows: the test rows, tiled "
              "to 1000 (path dependent; 500 on the 20k task) or the first 100 of "
              "those (interventional; 40 on the 20k task); times scaled to 1000 "
              "rows. Seconds per 1000 explanations, best of the repeats, the two "
              "libraries alternated: \"1 thread\" is the CPU time of each "
              "(`time.process_time`; skml `n_jobs=1`; shap's C++ TreeSHAP is "
              "single-threaded), \"all threads\" the wall time of skml with "
              "`n_jobs=-1` against shap's wall time, ratio from the same pairs. "
              "rel diff = max |skml - shap| / max |shap|; eff = max |sum phi + base - "
              "model output| (each library's efficiency gap against the model's own "
              "prediction).", "",
              f"Load average when section 6 started: {load:.1f} on {os.cpu_count()} "
              "shared CPUs.", "",
              "| data | model | game | rel diff | eff (skml) | eff (shap) | skml 1 thread | "
              "skml all threads | shap | skml / shap, 1 thread | skml / shap, all threads |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for data_name, (A_tr, A_te, b_tr) in tasks.items():
        big = len(A_tr) > 1000
        models = {**_skml_trees(A_tr, b_tr, big), **_sklearn_trees(A_tr, b_tr, big)}
        rows_pd = np.resize(A_te, (200 if quick else (500 if big else 1000),
                                   A_te.shape[1]))
        rows_iv = rows_pd[:20 if quick else (40 if big else 100)]
        bg = A_tr[:100]
        for model_name, model in models.items():
            forest = not hasattr(model, "learning_rate")
            native = model_name.startswith("sklearn")
            games = [("path dependent", None, rows_pd, "raw"),
                     ("interventional", bg, rows_iv, "raw")]
            if native and not forest:
                games.append(("probability", bg, rows_iv, "probability"))
            for game, background, rows, output in games:
                if forest or output == "probability":
                    out = model.predict_proba(rows)[:, 1]
                else:
                    out = model.decision_function(rows)
                method = "predict_proba" if output == "probability" else "auto"
                ours1 = ShapleyExplainer(model, background, algorithm="tree",
                                         response_method=method, n_jobs=1)
                ours_all = ShapleyExplainer(model, background, algorithm="tree",
                                            response_method=method, n_jobs=-1)
                two = forest or output == "probability"

                def run_ours(R, ours=ours1, two=two):
                    v = ours.explain(R)
                    return (v.values[:, :, 1], v.base_values[:, 1]) if two else \
                        (v.values, v.base_values)

                def run_all(R, ours=ours_all):
                    return ours.explain(R)

                theirs = None
                if shap is not None:
                    fp = "tree_path_dependent" if background is None else "interventional"
                    kw = {"model_output": "probability"} if output == "probability" else {}
                    theirs = shap.TreeExplainer(
                        model if native else _shap_tree_dict(model), data=background,
                        feature_perturbation=fp, **kw)

                def run_theirs(R, theirs=theirs, forest=forest):
                    v = np.asarray(theirs.shap_values(R, check_additivity=False))
                    base = np.ravel(theirs.expected_value)[1 if forest else 0]
                    return (v[:, :, 1] if forest else v.reshape(len(R), -1)), base

                lines.append(_tree_rows(data_name, model_name, game, run_ours, run_all,
                                        run_theirs, rows, out, repeats, shap is None))
                print(lines[-1], flush=True)
    lines.append("")


def _merge_sections(path, new_lines, sections):
    """The report at ``path`` with the sections just run replaced (the others
    kept as they were), so one section can be re-run on its own."""
    old = Path(path).read_text().splitlines() if Path(path).exists() else []
    if not old:
        return new_lines

    def split(lines):
        head, parts, current = [], {}, None
        for line in lines:
            if line.startswith("## ") and line[3:].split(".")[0].isdigit():
                current = int(line[3:].split(".")[0])
                parts[current] = []
            if current is None:
                head.append(line)
            else:
                parts[current].append(line)
        return head, parts

    head_old, parts_old = split(old)
    head_new, parts_new = split(new_lines)
    merged = dict(parts_old)
    for k in sections:
        if k in parts_new:
            merged[k] = parts_new[k] + [f"(Section {k} re-run on its own: `--sections "
                                        f"{k} --merge`.)", ""]
    out = list(head_old)
    for k in sorted(merged):
        out += merged[k]
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rows and budgets")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=str(RESULTS / "inspection_peers.md"))
    parser.add_argument("--sections", default="1,2,3,4,5,6",
                        help="comma-separated section numbers to run")
    parser.add_argument("--merge", action="store_true",
                        help="replace only these sections in the existing report")
    args = parser.parse_args(argv)
    sections = {int(x) for x in args.sections.split(",")}
    X_tr, X_te, y_tr, _ = _data()
    versions = []
    for name in ("shap", "lime"):
        mod = _peer(name)
        if mod is None:
            versions.append(f"{name} {NOT_INSTALLED}")
            continue
        from importlib.metadata import version

        versions.append(f"{name} {version(name)}")
    import sklearn

    import skml

    lines = ["# skml.inspection vs shap and lime", "",
             f"Python {platform.python_version()}, numpy {np.__version__}, scikit-learn "
             f"{sklearn.__version__}, skml {skml.__version__}; "
             + ", ".join(versions) + f"; {os.cpu_count()} CPUs (shared), 1 BLAS thread. "
             f"Best of {args.repeats} after a warm-up unless stated. Generated by "
             "`python -m benchmarks.inspection_peers`.", ""]
    n = 10
    if 1 in sections:
        section_exact(lines, X_tr, X_te, y_tr, args.repeats, n)
    if 2 in sections:
        section_sampled(lines, X_tr, X_te, y_tr, args.repeats, n, args.quick)
    if 3 in sections:
        section_lime(lines, X_tr, X_te, y_tr, args.repeats,
                     100 if not args.quick else 20, args.quick)
    if 4 in sections:
        section_per_100(lines, X_tr, X_te, y_tr, args.repeats)
    if 5 in sections:
        section_20k(lines, args.repeats)
    if 6 in sections:
        section_tree(lines, X_tr, X_te, y_tr, args.repeats, args.quick)
    if args.merge:
        lines = _merge_sections(args.out, lines, sections)
    text = "\n".join(lines) + "\n"
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
