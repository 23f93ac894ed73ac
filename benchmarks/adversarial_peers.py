"""skml.adversarial against the adversarial-robustness-toolbox (issue 14; anchors-next §3).

Run ``python -m benchmarks.adversarial_peers [--quick] [--out PATH]`` in the
peers environment (``python3 dev.py peers adversarial_peers``). ART is
imported lazily; without it the ART rows say "peer not installed". BLAS
threads are pinned to one; every attack is run once after a warm-up call
(imports, numba), its wall time reported.

Setting (anchors-next §3.2):

- ``digits``: pixels / 16 in the box [0, 1] (attacks clip to it), 450 test
  rows (``train_test_split(..., test_size=450, random_state=0)``);
- ``breast_cancer``: standardised, 143 test rows (``test_size=0.25``), no box.

Models, fitted by scikit-learn and attacked by both libraries **with the same
parameters**: skml's ``LogisticRegression``, ``LinearSVC`` and
``MLPClassifier`` receive scikit-learn's fitted ``coef_``/``intercept_``
(``coefs_``/``intercepts_``), so both attack one function. The rbf ``SVC``
(C=10, gamma="scale") is fitted by each library (the same SMO problem; the
prediction agreement is printed) and its rows are limited to ``--svc-rows``
because ART's SVC gradient is a Python loop.

Columns: robust accuracy (fraction of test rows still correct) and time.
``exact`` is :func:`skml.adversarial.exact_linear_robust_error` (the Hölder /
pairwise-margin oracle, box included): no attack can go below it on a linear
model, and a correct attack reaches it. skml: FGSM, PGD-10 (untargeted
margin, random start) and multi-targeted PGD-10 (no random start); ART:
``FastGradientMethod``, ``BasicIterativeMethod`` (10 steps of eps/4) and
``ProjectedGradientDescent`` (10 steps of eps/4, one random start).

A last section certifies a smoothed logistic regression on digits
(``SmoothedClassifier``, sigma 0.25, 1000 draws, alpha 0.001) and tries ART's
randomized smoothing on the same scikit-learn model. Plots:
``adversarial_peers_eps.png`` (robust accuracy against eps, LinearSVC on
digits) and ``adversarial_peers_certified.png`` (certified accuracy against
the radius). The report goes to ``benchmarks/results/adversarial_peers.md``.
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


def _art():
    try:
        import art  # noqa: F401
        from art.attacks.evasion import (
            BasicIterativeMethod,
            FastGradientMethod,
            ProjectedGradientDescent,
        )
        from art.estimators.classification import SklearnClassifier
    except ImportError:
        return None
    return {"SklearnClassifier": SklearnClassifier, "FGSM": FastGradientMethod,
            "BIM": BasicIterativeMethod, "PGD": ProjectedGradientDescent,
            "version": art.__version__}


def _short_error(exc):
    """A table cell for a peer's failure."""
    msg = str(exc)
    if "requires an estimator derived from" in msg and "LossGradientsMixin" in msg:
        return "unsupported (no loss gradient for this model)"
    return f"error: {type(exc).__name__}: {msg[:80]}"


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def _data(name):
    from sklearn.datasets import load_breast_cancer, load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    if name == "digits":
        X, y = load_digits(return_X_y=True)
        X = X / 16.0
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=450, random_state=0)
        return X_tr, X_te, y_tr, y_te, (0.0, 1.0)
    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, random_state=0)
    scaler = StandardScaler().fit(X_tr)
    return scaler.transform(X_tr), scaler.transform(X_te), y_tr, y_te, None


def _models(X_tr, y_tr):
    """``{name: (sklearn model, skml model with the same function, linear?)}``."""
    from sklearn.linear_model import LogisticRegression as SkLR
    from sklearn.neural_network import MLPClassifier as SkMLP
    from sklearn.svm import SVC as SkSVC
    from sklearn.svm import LinearSVC as SkLinearSVC

    from skml.linear_model import LogisticRegression
    from skml.neural_network import MLPClassifier
    from skml.svm import SVC, LinearSVC

    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, sk, ours in [
            ("LogisticRegression", SkLR(max_iter=2000), LogisticRegression(max_iter=5)),
            ("LinearSVC C=0.1", SkLinearSVC(C=0.1), LinearSVC(C=0.1, max_iter=5)),
        ]:
            sk.fit(X_tr, y_tr)
            ours.fit(X_tr, y_tr)
            ours.coef_, ours.intercept_ = sk.coef_.copy(), sk.intercept_.copy()
            out[name] = (sk, ours, True)
        sk = SkSVC(C=10, gamma="scale", probability=False).fit(X_tr, y_tr)
        out["SVC rbf C=10"] = (sk, SVC(C=10, gamma="scale").fit(X_tr, y_tr), False)
        sk = SkMLP((32,), max_iter=300, random_state=0).fit(X_tr, y_tr)
        ours = MLPClassifier((32,), max_iter=1, random_state=0).fit(X_tr, y_tr)
        ours.coefs_ = [W.copy() for W in sk.coefs_]
        ours.intercepts_ = [b.copy() for b in sk.intercepts_]
        out["MLP (32,)"] = (sk, ours, False)
    return out


def _skml_attacks(model, eps, clip):
    from skml.adversarial import FGSM, PGD, MultiTargetedPGD

    step = eps / 4
    return [
        ("skml FGSM", FGSM(model, eps=eps, clip=clip)),
        ("skml PGD-10", PGD(model, eps=eps, step_size=step, n_iter=10, clip=clip,
                            random_state=0)),
        ("skml MT-PGD-10", MultiTargetedPGD(model, eps=eps, step_size=step, n_iter=10,
                                            clip=clip)),
    ]


def _art_attacks(art, sk_model, eps, clip, which):
    clf = art["SklearnClassifier"](model=sk_model, clip_values=clip)
    step = eps / 4
    made = {
        "ART FGSM": lambda: art["FGSM"](clf, norm=np.inf, eps=eps),
        "ART BIM-10": lambda: art["BIM"](clf, eps=eps, eps_step=step, max_iter=10,
                                        verbose=False),
        "ART PGD-10": lambda: art["PGD"](clf, norm=np.inf, eps=eps, eps_step=step,
                                        max_iter=10, num_random_init=1, verbose=False),
    }
    return [(name, made[name]) for name in which]


def section_attacks(lines, name, eps_list, art, svc_rows, plot_data):
    from skml.adversarial import exact_linear_robust_error

    X_tr, X_te, y_tr, y_te, clip = _data(name)
    models = _models(X_tr, y_tr)
    lines += [f"## {name}", "",
              f"{X_tr.shape[0]} training rows, {X_te.shape[0]} test rows, "
              f"{X_te.shape[1]} features, clip={clip}.", "",
              "| model (clean acc) | eps | exact | skml FGSM | skml PGD-10 | "
              "skml MT-PGD-10 | ART FGSM | ART BIM-10 | ART PGD-10 |",
              "|---|---|---|---|---|---|---|---|---|"]
    for model_name, (sk, ours, linear) in models.items():
        Xe, ye = X_te, y_te
        if not linear and model_name.startswith("SVC"):
            Xe, ye = X_te[:svc_rows], y_te[:svc_rows]
        agree = float(np.mean(sk.predict(Xe) == ours.predict(Xe)))
        clean = float(np.mean(ours.predict(Xe) == ye))
        label = f"{model_name} ({clean:.3f}; {len(ye)} rows; agree {agree:.3f})"
        # warm-up (imports, numba, ART's first call)
        _skml_attacks(ours, eps_list[0], clip)[2][1].generate(Xe[:5], ye[:5])
        for eps in eps_list:
            cells = []
            if linear:
                idx = np.searchsorted(ours.classes_, ye)
                W, b = ours.coef_, ours.intercept_
                exact = 1 - exact_linear_robust_error(W, b, Xe, idx, eps, clip=clip)
                cells.append(f"**{exact:.3f}**")
            else:
                cells.append("n/a")
            ours_scores = {}
            for attack_name, attack in _skml_attacks(ours, eps, clip):
                X_adv, t = _timed(lambda: attack.generate(Xe, ye))
                acc = float(np.mean(ours.predict(X_adv) == ye))
                ours_scores[attack_name] = acc
                cells.append(f"{acc:.3f} ({t:.2f} s)")
            which = ["ART FGSM", "ART BIM-10", "ART PGD-10"]
            if model_name.startswith("SVC") and eps != 0.1:
                which = ["ART FGSM"]  # ART's SVC gradient is a Python loop
            art_scores = {}
            if art is None:
                cells += [NOT_INSTALLED] * 3
            else:
                done = dict.fromkeys(["ART FGSM", "ART BIM-10", "ART PGD-10"], "skipped")
                for attack_name, make in _art_attacks(art, sk, eps, clip, which):
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            X_adv, t = _timed(
                                lambda make=make: make().generate(
                                    x=Xe.astype(np.float32), y=ye))
                        acc = float(np.mean(sk.predict(X_adv.astype(np.float64)) == ye))
                        art_scores[attack_name] = acc
                        done[attack_name] = f"{acc:.3f} ({t:.2f} s)"
                    except Exception as exc:  # noqa: BLE001 - reported as found
                        done[attack_name] = _short_error(exc)
                cells += list(done.values())
            lines.append(f"| {label} | {eps} | " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
            plot_data.setdefault((name, model_name), []).append(
                (eps, exact if linear else None, ours_scores, art_scores))
    lines.append("")


def section_eps_curve(lines, art, plot_path, quick):
    """Robust accuracy against eps, LinearSVC on digits: oracle, skml, ART."""
    from skml.adversarial import MultiTargetedPGD, exact_linear_robust_error

    X_tr, X_te, y_tr, y_te, clip = _data("digits")
    sk, ours, _ = _models(X_tr, y_tr)["LinearSVC C=0.1"]
    eps_grid = np.linspace(0.0, 0.25, 6 if quick else 11)
    idx = np.searchsorted(ours.classes_, y_te)
    exact, mt, art_pgd = [], [], []
    for eps in eps_grid:
        exact.append(1 - exact_linear_robust_error(ours.coef_, ours.intercept_, X_te, idx,
                                                   eps, clip=clip))
        if eps == 0:
            mt.append(ours.score(X_te, y_te))
            art_pgd.append(sk.score(X_te, y_te))
            continue
        X_adv = MultiTargetedPGD(ours, eps=eps, step_size=eps / 4, clip=clip).generate(
            X_te, y_te)
        mt.append(float(np.mean(ours.predict(X_adv) == y_te)))
        if art is not None:
            _, make = _art_attacks(art, sk, float(eps), clip, ["ART PGD-10"])[0]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                X_adv = make().generate(x=X_te.astype(np.float32), y=y_te)
            art_pgd.append(float(np.mean(sk.predict(X_adv.astype(np.float64)) == y_te)))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        lines += ["(matplotlib not installed: no plot)", ""]
        return
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    ax.plot(eps_grid, exact, "k-", lw=2, label="exact oracle")
    ax.plot(eps_grid, mt, "o--", label="skml multi-targeted PGD-10")
    if art_pgd:
        ax.plot(eps_grid, art_pgd, "s:", label="ART PGD-10")
    ax.set_xlabel("eps (l_inf, pixels in [0, 1])")
    ax.set_ylabel("robust accuracy")
    ax.set_title("LinearSVC(C=0.1) on digits, 450 test rows")
    ax.legend()
    fig.tight_layout()
    fig.savefig(plot_path, dpi=110)
    plt.close(fig)
    lines += ["## Robust accuracy against eps (LinearSVC, digits)", "",
              f"![robust accuracy against eps]({plot_path.name})", "",
              "| eps | " + " | ".join(f"{e:.3f}" for e in eps_grid) + " |",
              "|---|" + "---|" * len(eps_grid),
              "| exact | " + " | ".join(f"{v:.3f}" for v in exact) + " |",
              "| skml MT-PGD-10 | " + " | ".join(f"{v:.3f}" for v in mt) + " |"]
    if art_pgd:
        lines.append("| ART PGD-10 | " + " | ".join(f"{v:.3f}" for v in art_pgd) + " |")
    lines.append("")


def section_smoothing(lines, art, plot_path, quick):
    from sklearn.linear_model import LogisticRegression as SkLR

    from skml.adversarial import SmoothedClassifier
    from skml.linear_model import LogisticRegression

    X_tr, X_te, y_tr, y_te, _ = _data("digits")
    n = 200 if quick else 1000
    sigma = 0.25
    clf = SmoothedClassifier(LogisticRegression(max_iter=1000), sigma=sigma, n_samples=n,
                             train_noise=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X_tr, y_tr)
    (labels, radii), t = _timed(lambda: clf.certify(X_te))
    correct = labels == y_te
    grid = np.linspace(0, 1.0, 11)
    cert = [float(np.mean(correct & (radii >= r))) for r in grid]
    lines += ["## Randomised smoothing (digits, LogisticRegression base)", "",
              f"skml `SmoothedClassifier(sigma={sigma}, n_samples={n}, n0=100, "
              f"alpha=0.001, train_noise=True)`: certify {len(y_te)} rows x "
              f"{n + 100} draws in {t:.2f} s; abstained on "
              f"{np.mean(labels == -1):.3f} of the rows.", "",
              "| radius | " + " | ".join(f"{r:.1f}" for r in grid) + " |",
              "|---|" + "---|" * len(grid),
              "| certified accuracy | " + " | ".join(f"{v:.3f}" for v in cert) + " |", ""]
    if art is None:
        lines += [f"ART randomized smoothing: {NOT_INSTALLED}.", ""]
    else:
        try:
            from art.estimators.certification.randomized_smoothing import (
                NumpyRandomizedSmoothing,
            )
            sk = SkLR(max_iter=1000).fit(X_tr, y_tr)
            wrapped = art["SklearnClassifier"](model=sk, clip_values=(0.0, 1.0))
            rs = NumpyRandomizedSmoothing(classifier=wrapped, sample_size=n,
                                          scale=sigma, alpha=0.001)
            _, t_art = _timed(lambda: rs.certify(X_te[:20].astype(np.float32), n=n))
            lines += [f"ART `NumpyRandomizedSmoothing` certified 20 rows in {t_art:.2f} s.",
                      ""]
        except Exception as exc:  # noqa: BLE001 - the finding of anchors-next §3.2
            lines += ["ART `NumpyRandomizedSmoothing` on a scikit-learn model: "
                      f"`{type(exc).__name__}: {str(exc)[:120]}`.", ""]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    ax.step(grid, cert, where="post")
    ax.set_xlabel("l2 radius")
    ax.set_ylabel("certified accuracy")
    ax.set_title(f"SmoothedClassifier(LogisticRegression), sigma={sigma}, digits")
    fig.tight_layout()
    fig.savefig(plot_path, dpi=110)
    plt.close(fig)
    lines += [f"![certified accuracy against the radius]({plot_path.name})", ""]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--svc-rows", type=int, default=150)
    parser.add_argument("--out", default=str(RESULTS / "adversarial_peers.md"))
    args = parser.parse_args(argv)
    from threadpoolctl import threadpool_limits

    import sklearn

    art = _art()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    lines = ["# skml.adversarial against ART", "",
             f"Python {sys.version.split()[0]}, numpy {np.__version__}, scikit-learn "
             f"{sklearn.__version__}, ART {art['version'] if art else NOT_INSTALLED}, "
             f"{platform.machine()}; BLAS pinned to 1 thread; a shared 2-core machine "
             "(times are indicative, ratios within one run are the measure).", "",
             "Robust accuracy (lower = stronger attack) and wall time per attack. "
             "See the module docstring for the setting.", ""]
    plot_data = {}
    eps_list = [0.05, 0.1, 0.2]
    with threadpool_limits(1):
        for name in ("digits", "breast_cancer"):
            section_attacks(lines, name, eps_list, art, args.svc_rows, plot_data)
        section_eps_curve(lines, art, out.with_name(out.stem + "_eps.png"), args.quick)
        section_smoothing(lines, art, out.with_name(out.stem + "_certified.png"),
                          args.quick)
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
