"""skml.attention against PyTorch: attention to rounding, transformer time per epoch.

Run ``python -m benchmarks.attention_peers [--n 2000] [--epochs 5] [--out PATH]``
(in ``.venv-peers``, where PyTorch is installed; without it the PyTorch rows
say "peer not installed"). Two parts:

1. **scaled_dot_product_attention**: skml's function against
   ``torch.nn.functional.scaled_dot_product_attention`` on the same random
   ``Q, K, V`` (batch 4, 8 heads, T = 64, d = 32), without a mask, with the
   causal mask and with an additive mask; the largest absolute difference of
   the outputs in float64 and float32.
2. **Training**: the same encoder in both libraries (token embedding, the
   sinusoidal table, ``n_layers`` post-norm blocks of multi-head attention
   and a ReLU feed-forward of width 4d, mean pooling, a linear head; Adam,
   cross-entropy, no dropout, batch 64, float32) on the order task "does
   token 1 come before token 2" (one 1 and one 2 per sequence among tokens
   3..9, so the bag of tokens carries no information), with BLAS and
   PyTorch pinned to one thread (threadpoolctl, ``torch.set_num_threads``),
   then to all threads. Time per epoch is the median over the epochs after
   a warm-up epoch; held-out accuracy after ``--epochs`` epochs; and a
   bag-of-tokens logistic regression for reference.

The report goes to ``benchmarks/results/attention_peers.md``.
"""

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np

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


def torch_run(torch, X, y, X_test, y_test, cfg, epochs, seed=0):
    model = _torch_model(torch, cfg, seed)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    lossf = torch.nn.CrossEntropyLoss()
    Xt, yt = torch.from_numpy(X).long(), torch.from_numpy(y).long()
    gen = torch.Generator().manual_seed(seed)
    times = []
    for _ in range(epochs + 1):  # the first epoch is a warm-up
        t0 = time.perf_counter()
        order = torch.randperm(len(Xt), generator=gen)
        for start in range(0, len(Xt), cfg["batch"]):
            idx = order[start:start + cfg["batch"]]
            opt.zero_grad()
            loss = lossf(model(Xt[idx]), yt[idx])
            loss.backward()
            opt.step()
        times.append(time.perf_counter() - t0)
    with torch.no_grad():
        pred = model(torch.from_numpy(X_test).long()).argmax(1).numpy()
    return float(np.median(times[1:])), float(np.mean(pred == y_test))


def skml_run(X, y, X_test, y_test, cfg, epochs, dtype="float32", seed=0):
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
        TransformerClassifier(max_iter=1, **params).fit(X[:128], y[:128])  # warm-up
        # Time per epoch: fits of 1 and 1 + epochs epochs, the difference.
        t0 = time.perf_counter()
        TransformerClassifier(max_iter=1, **params).fit(X, y)
        t1 = time.perf_counter()
        clf = TransformerClassifier(max_iter=epochs + 1, **params).fit(X, y)
        t2 = time.perf_counter()
    per_epoch = ((t2 - t1) - (t1 - t0)) / epochs
    return per_epoch, float(clf.score(X_test, y_test))


def bag_of_tokens(X, y, X_test, y_test):
    from sklearn.linear_model import LogisticRegression

    def counts(A):
        return np.stack([(A == v).sum(1) for v in range(VOCAB)], 1)

    return float(LogisticRegression(max_iter=2000).fit(counts(X), y)
                 .score(counts(X_test), y_test))


def training_rows(n, epochs, threads):
    from threadpoolctl import threadpool_limits

    torch = _torch()
    cfg = CONFIG
    X, y = which_first(n, cfg["T"], 0)
    X_test, y_test = which_first(1000, cfg["T"], 1)
    rows = []
    for n_threads in threads:
        with threadpool_limits(n_threads):
            if torch is not None:
                torch.set_num_threads(n_threads)
                t_torch, acc_torch = torch_run(torch, X, y, X_test, y_test, cfg, epochs)
            t32, acc32 = skml_run(X, y, X_test, y_test, cfg, epochs, "float32")
            t64 = acc64 = float("nan")
            if n_threads == 1:  # float64 once: the time the machine allows
                t64, acc64 = skml_run(X, y, X_test, y_test, cfg, epochs, "float64")
        if torch is None:
            rows.append((n_threads, "peer not installed", "", f"{t32:.3f}", f"{acc32:.3f}",
                         "", f"{t64:.3f}", f"{acc64:.3f}"))
        else:
            rows.append((n_threads, f"{t_torch:.3f}", f"{acc_torch:.3f}", f"{t32:.3f}",
                         f"{acc32:.3f}", f"{t32 / t_torch:.2f}x", f"{t64:.3f}",
                         f"{acc64:.3f}"))
    return rows, bag_of_tokens(X, y, X_test, y_test)


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
    parser.add_argument("--threads", default=f"1,{os.cpu_count()}")
    parser.add_argument("--out", default=str(RESULTS / "attention_peers.md"))
    args = parser.parse_args(argv)
    threads = sorted({int(t) for t in args.threads.split(",")})
    torch = _torch()
    version = "not installed" if torch is None else torch.__version__

    sdpa = sdpa_rows()
    acc_rows, acc_bag = accuracy_rows()
    train, bag = training_rows(args.n, args.epochs, threads)
    cfg = CONFIG
    text = [
        "# skml.attention against PyTorch",
        "",
        f"PyTorch {version}, numpy {np.__version__}, {platform.machine()}, "
        f"{os.cpu_count()} cores. Command: `python -m benchmarks.attention_peers "
        f"--n {args.n} --epochs {args.epochs}`.",
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
        f"skml TransformerClassifier (1 block, d = 16, 2 heads, batch 32, Adam "
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
        f"held-out sequences of T = {cfg['T']} tokens, vocabulary {VOCAB}). Both "
        f"libraries: embedding, sinusoidal positions, {cfg['n_layers']} post-norm "
        f"encoder blocks (d = {cfg['d_model']}, {cfg['n_heads']} heads, "
        f"d_ff = {4 * cfg['d_model']}), mean pooling, linear head; Adam "
        f"(lr {cfg['lr']}), batch {cfg['batch']}, no dropout. Time per epoch in "
        f"seconds after a warm-up; accuracy on the held-out set after "
        f"{args.epochs + 1} epochs (both). The goal is skml float32 within "
        f"1.5x of PyTorch's time at one thread.",
        "",
        _table(["threads", "PyTorch s/epoch", "PyTorch acc", "skml f32 s/epoch",
                "skml f32 acc", "skml f32 / PyTorch", "skml f64 s/epoch",
                "skml f64 acc"], train),
        "",
        f"Bag-of-tokens logistic regression (token counts): held-out accuracy "
        f"{bag:.3f} (chance 0.5): the task needs the order.",
        "",
    ]
    Path(args.out).write_text("\n".join(text))
    print("\n".join(text))


if __name__ == "__main__":
    main()
