"""skml.attention against PyTorch: attention to rounding, transformer time per epoch.

Run ``python -m benchmarks.attention_peers [--n 2000] [--epochs 5] [--reps 3]
[--threads 1,all] [--out PATH]`` (in ``.venv-peers``, where PyTorch and skorch
are installed; without them their rows say "peer not installed"). Two parts:

1. **scaled_dot_product_attention**: skml's function against
   ``torch.nn.functional.scaled_dot_product_attention`` on the same random
   ``Q, K, V`` (batch 4, 8 heads, T = 64, d = 32), without a mask, with the
   causal mask and with an additive mask; the largest absolute difference of
   the outputs in float64 and float32.
2. **Training**: the same encoder in skml, in a plain PyTorch loop and in
   skorch's ``NeuralNetClassifier`` around the same PyTorch module (token
   embedding, the sinusoidal table, ``n_layers`` post-norm blocks of
   multi-head attention and a ReLU feed-forward of width 4d, mean pooling,
   a linear head; Adam, cross-entropy, no dropout, batch 64, float32) on the
   order task "does token 1 come before token 2" (one 1 and one 2 per
   sequence among tokens 3..9, so the bag of tokens carries no
   information). Thread settings (``--threads``, default ``1,all``): ``1``
   pins BLAS (threadpoolctl) and PyTorch (``torch.set_num_threads``) to one
   thread and times CPU seconds of the process (``time.process_time``);
   ``all`` gives both every CPU (``os.cpu_count()``) and times the wall
   clock. After a warm-up fit of each, the contenders alternate ``--reps``
   times (seed = repeat); time per epoch is the best whole fit over
   ``--epochs``, accuracy the median held-out accuracy after ``--epochs``
   epochs; skml in float64 as well at one thread; and a bag-of-tokens
   logistic regression for reference.

The report goes to ``benchmarks/results/attention_peers.md``.
"""

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np

from benchmarks._load import load_sentence

RESULTS = Path(__file__).resolve().parent / "results"
VOCAB = 10
CONFIG = {"d_model": 64, "n_heads": 4, "n_layers": 2, "T": 16, "batch": 64, "lr": 1e-3}


def which_first(n, T, seed):
    """Order task: one token 1 and one token 2 in each row; y = 1 comes first."""
    rng = np.random.RandomState(seed)
    X = rng.randint(3, VOCAB, size=(n, T))
    for i in range(n):
        p, q = rng.choice(T, 2, replace=False)
        X[i, p], X[i, q] = 1, 2
    y = (np.argmax(X == 1, 1) < np.argmax(X == 2, 1)).astype(int)
    return X, y


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


# ---------------------------------------------------------------- part 1

def sdpa_rows():
    from skml.attention import causal_mask, scaled_dot_product_attention

    torch = _torch()
    rng = np.random.default_rng(0)
    Q, K, V = (rng.normal(size=(4, 8, 64, 32)) for _ in range(3))
    additive = rng.normal(size=(64, 64))
    rows = []
    for name, mask in (("no mask", None), ("causal (boolean)", causal_mask(64)),
                       ("additive float", additive)):
        for dtype in (np.float64, np.float32):
            ours = scaled_dot_product_attention(
                Q.astype(dtype), K.astype(dtype), V.astype(dtype),
                mask=None if mask is None else (
                    mask if mask.dtype == bool else mask.astype(dtype)))
            if torch is None:
                rows.append((name, np.dtype(dtype).name, "peer not installed", ""))
                continue
            t = {k: torch.from_numpy(a.astype(dtype)) for k, a in
                 (("q", Q), ("k", K), ("v", V))}
            tm = None if mask is None else torch.from_numpy(
                mask if mask.dtype == bool else mask.astype(dtype))
            ref = torch.nn.functional.scaled_dot_product_attention(
                t["q"], t["k"], t["v"], attn_mask=tm).numpy()
            diff = float(np.max(np.abs(ours - ref)))
            eps = np.finfo(dtype).eps
            rows.append((name, np.dtype(dtype).name, f"{diff:.2e}",
                         f"{diff / eps:.1f}"))
    return rows


# ---------------------------------------------------------------- part 2

def _torch_model(torch, cfg, seed):
    from skml.attention import sinusoidal_positional_encoding

    torch.manual_seed(seed)
    d = cfg["d_model"]

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(VOCAB, d)
            self.register_buffer("pos", torch.tensor(
                sinusoidal_positional_encoding(cfg["T"], d), dtype=torch.float32))
            layer = torch.nn.TransformerEncoderLayer(
                d, cfg["n_heads"], dim_feedforward=4 * d, dropout=0.0,
                activation="relu", batch_first=True, norm_first=False)
            self.blocks = torch.nn.TransformerEncoder(layer, cfg["n_layers"],
                                                      enable_nested_tensor=False)
            self.head = torch.nn.Linear(d, 2)

        def forward(self, x):
            h = self.emb(x) + self.pos
            return self.head(self.blocks(h).mean(1))

    return Encoder()


def torch_run(torch, X, y, X_test, y_test, cfg, epochs, seed=0, clock=time.perf_counter):
    """Plain PyTorch loop: (seconds per epoch of the whole fit, held-out accuracy)."""
    model = _torch_model(torch, cfg, seed)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    lossf = torch.nn.CrossEntropyLoss()
    Xt, yt = torch.from_numpy(X).long(), torch.from_numpy(y).long()
    gen = torch.Generator().manual_seed(seed)
    t0 = clock()
    for _ in range(epochs):
        order = torch.randperm(len(Xt), generator=gen)
        for start in range(0, len(Xt), cfg["batch"]):
            idx = order[start:start + cfg["batch"]]
            opt.zero_grad()
            loss = lossf(model(Xt[idx]), yt[idx])
            loss.backward()
            opt.step()
    elapsed = clock() - t0
    with torch.no_grad():
        pred = model(torch.from_numpy(X_test).long()).argmax(1).numpy()
    return elapsed / epochs, float(np.mean(pred == y_test))


def skorch_run(torch, X, y, X_test, y_test, cfg, epochs, seed=0, clock=time.perf_counter):
    """skorch's NeuralNetClassifier around the module of the plain loop (same
    seed, same initial weights): no validation split, shuffled batches."""
    from skorch import NeuralNetClassifier

    net = NeuralNetClassifier(
        _torch_model(torch, cfg, seed), criterion=torch.nn.CrossEntropyLoss,
        optimizer=torch.optim.Adam, lr=cfg["lr"], max_epochs=epochs,
        batch_size=cfg["batch"], iterator_train__shuffle=True, train_split=None,
        verbose=0, device="cpu")
    t0 = clock()
    net.fit(X.astype(np.int64), y.astype(np.int64))
    elapsed = clock() - t0
    return elapsed / epochs, float(np.mean(net.predict(X_test.astype(np.int64)) == y_test))


def skml_run(X, y, X_test, y_test, cfg, epochs, dtype="float32", seed=0,
             clock=time.perf_counter):
    """skml's TransformerClassifier: (seconds per epoch of the whole fit, accuracy)."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from skml.attention import TransformerClassifier

    params = dict(n_layers=cfg["n_layers"], n_heads=cfg["n_heads"],
                  d_model=cfg["d_model"], batch_size=cfg["batch"],
                  learning_rate_init=cfg["lr"], dtype=dtype, random_state=seed,
                  vocab_size=VOCAB,
                  tol=0.0, n_iter_no_change=10 ** 6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = TransformerClassifier(max_iter=epochs, **params)
        t0 = clock()
        clf.fit(X, y)
        elapsed = clock() - t0
    return elapsed / epochs, float(clf.score(X_test, y_test))


def bag_of_tokens(X, y, X_test, y_test):
    from sklearn.linear_model import LogisticRegression

    def counts(A):
        return np.stack([(A == v).sum(1) for v in range(VOCAB)], 1)

    return float(LogisticRegression(max_iter=2000).fit(counts(X), y)
                 .score(counts(X_test), y_test))


def _now():
    """Both clocks at once: (wall seconds, CPU seconds of the process)."""
    return np.array([time.perf_counter(), time.process_time()])


def _peers():
    """(torch or None, skorch version or None), imported lazily."""
    torch = _torch()
    if torch is None:
        return None, None
    try:
        import skorch
    except ImportError:
        return torch, None
    return torch, skorch.__version__


def training_rows(n, epochs, threads, reps=3, reps_all=None):
    """One row per thread setting: each contender's (s/epoch, accuracy) or None."""
    from functools import partial

    from threadpoolctl import threadpool_limits

    torch, skorch_version = _peers()
    cfg = CONFIG
    X, y = which_first(n, cfg["T"], 0)
    X_test, y_test = which_first(1000, cfg["T"], 1)
    rows = []
    for setting in threads:
        n_threads = os.cpu_count() if setting == "all" else int(setting)
        contenders = {"skml f32": partial(skml_run, dtype="float32")}
        if n_threads == 1:  # float64 at one thread only: the time the machine allows
            contenders["skml f64"] = partial(skml_run, dtype="float64")
        if torch is not None:
            contenders["PyTorch"] = partial(torch_run, torch)
            if skorch_version is not None:
                contenders["skorch"] = partial(skorch_run, torch)
        res = {name: [] for name in contenders}
        with threadpool_limits(n_threads):
            if torch is not None:
                torch.set_num_threads(n_threads)
            for func in contenders.values():  # warm-up: numba compiles, torch allocates
                func(X[:128], y[:128], X_test[:10], y_test[:10], cfg, 1)
            n_reps = reps if n_threads == 1 or reps_all is None else reps_all
            for rep in range(n_reps):  # the contenders alternate
                for name, func in contenders.items():
                    res[name].append(func(X, y, X_test, y_test, cfg, epochs, seed=rep,
                                          clock=_now))
        # one thread: CPU seconds (less inflated by the load); all: wall clock
        main, other = (1, 0) if n_threads == 1 else (0, 1)
        row = {"threads": setting, "n_threads": n_threads,
               "clock": "CPU" if n_threads == 1 else "wall"}
        for name in ("PyTorch", "skorch", "skml f32", "skml f64"):
            values = res.get(name)
            row[name] = None if not values else (
                float(min(v[0][main] for v in values)),
                float(np.median([v[1] for v in values])),
                float(min(v[0][other] for v in values)))
        rows.append(row)
        print(row, flush=True)
    versions = {"torch": None if torch is None else torch.__version__,
                "skorch": skorch_version}
    return rows, versions, bag_of_tokens(X, y, X_test, y_test)


def training_table(rows, versions):
    """Markdown rows of :func:`training_rows`: times, ratios, accuracies."""
    out = []
    for row in rows:
        me = row["skml f32"]
        cells = [f"{row['n_threads']}" + (" (all)" if row["threads"] == "all" else ""),
                 row["clock"]]
        for name, lib in (("PyTorch", "torch"), ("skorch", "skorch")):
            peer = row[name]
            if peer is None:
                missing = versions[lib] is None or (lib == "skorch"
                                                    and versions["torch"] is None)
                cells += ["peer not installed" if missing else "-", "", ""]
            else:
                cells += [f"{peer[0]:.3f}", f"{peer[1]:.3f}", f"{me[0] / peer[0]:.2f}x"]
        cells += [f"{me[0]:.3f}", f"{me[1]:.3f}"]
        f64 = row["skml f64"]
        cells += ["-", "-"] if f64 is None else [f"{f64[0]:.3f}", f"{f64[1]:.3f}"]
        out.append(tuple(cells))
    return out


def cpu_note(rows):
    """A sentence with the CPU seconds per epoch of the all-threads runs."""
    multi = [row for row in rows if row["n_threads"] > 1]
    if not multi:
        return []
    parts = ["; ".join(
        f"{row['n_threads']} threads: " + ", ".join(
            f"{name} {row[name][2]:.3f}" for name in ("PyTorch", "skorch", "skml f32")
            if row[name] is not None) for row in multi)]
    return ["CPU seconds per epoch of the process in the all-threads runs (the "
            "threads added up; compare with the one-thread row): " + parts[0] + ".", ""]


def accuracy_rows(seed=0):
    """A small skml transformer trained to convergence, per positional encoding."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from skml.attention import TransformerClassifier

    X, y = which_first(1000, 8, seed)
    X_test, y_test = which_first(1000, 8, seed + 1)
    rows = []
    for positional in ("sinusoidal", "rope", "learned", "none"):
        clf = TransformerClassifier(n_layers=1, d_model=16, n_heads=2,
                                    positional=positional, batch_size=32,
                                    vocab_size=VOCAB,
                                    learning_rate_init=3e-3, max_iter=40,
                                    random_state=seed)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf.fit(X, y)
        rows.append((positional, clf.n_iter_, f"{clf.score(X, y):.3f}",
                     f"{clf.score(X_test, y_test):.3f}",
                     f"{time.perf_counter() - t0:.1f}"))
    return rows, bag_of_tokens(X, y, X_test, y_test)


def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--reps", type=int, default=3,
                        help="alternating repeats of the timed fits (best time kept)")
    parser.add_argument("--reps-all", type=int, default=None,
                        help="repeats in the all-threads runs (default: --reps)")
    parser.add_argument("--threads", default="1,all",
                        help="comma-separated thread settings: counts and 'all' "
                             "(every CPU)")
    parser.add_argument("--out", default=str(RESULTS / "attention_peers.md"))
    args = parser.parse_args(argv)
    threads = [t if t == "all" else int(t) for t in args.threads.split(",")]
    load_start = os.getloadavg()[0]
    torch, skorch_version = _peers()
    version = "not installed" if torch is None else torch.__version__
    torch_default = None if torch is None else torch.get_num_threads()

    sdpa = sdpa_rows()
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):  # skml only; one thread, as the training rows' first
        acc_rows, acc_bag = accuracy_rows()
    train, versions, bag = training_rows(args.n, args.epochs, threads, args.reps,
                                         args.reps_all)
    cfg = CONFIG
    text = [
        "# skml.attention against PyTorch and skorch",
        "",
        f"PyTorch {version}, skorch {skorch_version or 'not installed'}, numpy "
        f"{np.__version__}, {platform.machine()}, {os.cpu_count()} cores (PyTorch's "
        f"default thread count {torch_default}). Command: `python -m "
        f"benchmarks.attention_peers --n {args.n} --epochs {args.epochs} --reps "
        f"{args.reps}" + ("" if args.reps_all is None else f" --reps-all {args.reps_all}")
        + f" --threads {args.threads}`.",
        "",
        load_sentence([load_start, os.getloadavg()[0]]),
        "",
        "## scaled_dot_product_attention",
        "",
        "Largest absolute difference from `torch.nn.functional."
        "scaled_dot_product_attention` on Q, K, V of shape (4, 8, 64, 32), "
        "standard normal; the last column in units of the dtype's machine epsilon.",
        "",
        _table(["mask", "dtype", "max abs diff", "/ eps"], sdpa),
        "",
        "## Accuracy on the order task",
        "",
        f"skml TransformerClassifier (one thread, 1 block, d = 16, 2 heads, batch 32, Adam "
        f"lr 3e-3, up to 40 epochs with the default plateau stop), 1000 training "
        f"and 1000 held-out sequences of the order task below, with T = 8. "
        f"`none` has no positional information: attention with mean pooling is "
        f"then permutation invariant, like a bag of tokens.",
        "",
        _table(["positional", "epochs", "train acc", "held-out acc", "fit s"],
               acc_rows),
        "",
        f"Bag-of-tokens logistic regression on the same data: held-out accuracy "
        f"{acc_bag:.3f}.",
        "",
        "## Transformer training, time per epoch",
        "",
        f"Order task 'does token 1 come before token 2' ({args.n} training and 1000 "
        f"held-out sequences of T = {cfg['T']} tokens, vocabulary {VOCAB}). All "
        f"contenders: embedding, sinusoidal positions, {cfg['n_layers']} post-norm "
        f"encoder blocks (d = {cfg['d_model']}, {cfg['n_heads']} heads, "
        f"d_ff = {4 * cfg['d_model']}), mean pooling, linear head; Adam "
        f"(lr {cfg['lr']}), batch {cfg['batch']}, no dropout, {args.epochs} epochs. "
        "skorch: `NeuralNetClassifier` around the plain loop's module (same initial "
        "weights), `train_split=None`, `iterator_train__shuffle=True`, `verbose=0`. "
        f"Time per epoch: the best of {args.reps} alternating whole fits (seed = "
        "repeat" + ("" if args.reps_all is None else
                    f"; {args.reps_all} in the all-threads runs") +
        ") over the epochs, after a warm-up fit of each; one thread: CPU "
        "seconds of the process, all threads: wall clock. Accuracy: median over the "
        "repeats, held-out. Ratios: skml float32's time over the peer's; the goal "
        "is <= 1.5x PyTorch's time.",
        "",
        _table(["threads", "clock", "PyTorch s/epoch", "PyTorch acc",
                "skml f32 / PyTorch", "skorch s/epoch", "skorch acc",
                "skml f32 / skorch", "skml f32 s/epoch", "skml f32 acc",
                "skml f64 s/epoch", "skml f64 acc"], training_table(train, versions)),
        "",
        *cpu_note(train),
        f"Bag-of-tokens logistic regression (token counts): held-out accuracy "
        f"{bag:.3f} (chance 0.5): the task needs the order.",
        "",
    ]
    Path(args.out).write_text("\n".join(text))
    print("\n".join(text))


if __name__ == "__main__":
    main()
