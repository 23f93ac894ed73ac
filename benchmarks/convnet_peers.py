"""ConvNetClassifier against PyTorch with the same architecture (issue 25).

Run ``python -m benchmarks.convnet_peers [--epochs 10] [--seeds 3] [--out PATH]``
(with an environment holding torch, e.g. ``.venv-peers/bin/python``).

For each architecture and thread count, both libraries train the same layers
(same shapes, ReLU, max pooling, "same" padding, Adam with learning rate 1e-3,
batch 64, no weight decay, ``--epochs`` epochs, reshuffled each epoch) on the
same split of scikit-learn's digits (70 % train, stratified; pixels / 16), and
the table gives the median over ``--seeds`` seeds of the time per epoch
(wall clock of the whole training divided by the epochs: shuffling, batches,
forward, backward and the optimiser step) and of the held-out accuracy. Runs
of the two libraries alternate, so machine load hits both alike; a one-batch
warm-up fit of each precedes them (numba compiles its kernels on first use).

Architectures:

- ``lenet8``: digits 8 x 8, conv 16 3x3 - maxpool 2 - conv 32 3x3 - maxpool 2 -
  dense 64 - dense 10;
- ``residual8``: digits 8 x 8, conv 16 3x3 - maxpool 2 - residual block 16
  3x3 (conv-relu-conv + identity, then relu) - dense 64 - dense 10;
- ``lenet32``: the digits upsampled 4x to 32 x 32 (``np.kron``), the ``lenet8``
  layers: larger maps, so the products dominate the per-call overheads.

A missing peer gives "peer not installed" rows. The report goes to
``benchmarks/results/convnet_peers.md``. ``--accuracy`` instead compares
ConvNetClassifier with MLPClassifier on the digits at equal epochs (median
over 5 seeds), in ``benchmarks/results/convnet_peers_accuracy.md``.
"""

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"
BATCH = 64
LR = 1e-3

ARCHS = {
    "lenet8": (1, [("conv", 16, 3), ("maxpool", 2), ("conv", 32, 3), ("maxpool", 2),
                   ("dense", 64)]),
    "residual8": (1, [("conv", 16, 3), ("maxpool", 2), ("residual", 16, 3),
                      ("dense", 64)]),
    "lenet32": (4, [("conv", 16, 3), ("maxpool", 2), ("conv", 32, 3), ("maxpool", 2),
                    ("dense", 64)]),
}


def _data(upsample, seed=0):
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    if upsample > 1:
        X = np.kron(X.reshape(-1, 8, 8), np.ones((upsample, upsample))).reshape(len(X), -1)
    return train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)


def _skml(layers, side, X_train, X_test, y_train, y_test, epochs, seed, dtype):
    import warnings

    from skml.neural_network import ConvNetClassifier

    clf = ConvNetClassifier(
        image_shape=(side, side), layers=layers, solver="adam", alpha=0.0,
        learning_rate_init=LR, batch_size=BATCH, max_iter=epochs, tol=0.0,
        n_iter_no_change=np.inf, random_state=seed, dtype=dtype,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        clf.fit(X_train, y_train)
        elapsed = time.perf_counter() - start
    return elapsed / epochs, clf.score(X_test, y_test)


def _torch_model(torch, layers, side):
    nn = torch.nn

    class Residual(nn.Module):
        def __init__(self, c, f, k):
            super().__init__()
            self.conv1 = nn.Conv2d(c, f, k, padding=k // 2)
            self.conv2 = nn.Conv2d(f, f, k, padding=k // 2)
            self.proj = None if c == f else nn.Conv2d(c, f, 1)

        def forward(self, x):
            s = x if self.proj is None else self.proj(x)
            return self.conv2(torch.relu(self.conv1(x))) + s

    mods, c, h = [], 1, side
    flat = None
    for spec in layers:
        kind = spec[0]
        if kind == "conv":
            mods += [nn.Conv2d(c, spec[1], spec[2], padding="same"), nn.ReLU()]
            c = spec[1]
        elif kind == "residual":
            mods += [Residual(c, spec[1], spec[2]), nn.ReLU()]
            c = spec[1]
        elif kind == "maxpool":
            mods.append(nn.MaxPool2d(spec[1]))
            h //= spec[1]
        elif kind == "dense":
            if flat is None:
                flat = c * h * h
                mods.append(nn.Flatten())
            mods += [nn.Linear(flat, spec[1]), nn.ReLU()]
            flat = spec[1]
    mods.append(nn.Linear(flat, 10))
    return nn.Sequential(*mods)


def _torch(layers, side, X_train, X_test, y_train, y_test, epochs, seed, dtype):
    import torch

    dtype = getattr(torch, dtype)
    torch.manual_seed(seed)
    model = _torch_model(torch, layers, side)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    loss_fn = torch.nn.CrossEntropyLoss()
    # NCHW, PyTorch's layout (a flat row is one channel here, so the same order).
    Xt = torch.tensor(X_train.reshape(-1, 1, side, side), dtype=dtype)
    yt = torch.tensor(y_train, dtype=torch.long)
    model = model.to(dtype)
    gen = torch.Generator().manual_seed(seed)
    start = time.perf_counter()
    for _ in range(epochs):
        order = torch.randperm(len(Xt), generator=gen)
        for i in range(0, len(Xt), BATCH):
            idx = order[i:i + BATCH]
            opt.zero_grad()
            loss = loss_fn(model(Xt[idx]), yt[idx])
            loss.backward()
            opt.step()
    elapsed = time.perf_counter() - start
    with torch.no_grad():
        pred = model(torch.tensor(X_test.reshape(-1, 1, side, side),
                                  dtype=dtype)).argmax(1).numpy()
    return elapsed / epochs, float(np.mean(pred == y_test))


def run(epochs, seeds, threads_list, archs, dtypes):
    from threadpoolctl import threadpool_limits

    try:
        import torch
    except ImportError:
        torch = None
    rows = []
    for arch in archs:
        upsample, layers = ARCHS[arch]
        side = 8 * upsample
        X_train, X_test, y_train, y_test = _data(upsample)
        for threads, dtype in [(t, d) for d in dtypes for t in threads_list]:
            res = {"skml": [], "torch": []}
            with threadpool_limits(threads):  # warm-up: numba compiles, torch allocates
                _skml(layers, side, X_train[:BATCH], X_test, y_train[:BATCH], y_test, 1,
                      0, dtype)
                if torch is not None:
                    _torch(layers, side, X_train[:BATCH], X_test, y_train[:BATCH],
                           y_test, 1, 0, dtype)
            for seed in range(seeds):
                with threadpool_limits(threads):
                    res["skml"].append(_skml(layers, side, X_train, X_test, y_train,
                                             y_test, epochs, seed, dtype))
                    if torch is not None:
                        torch.set_num_threads(threads)
                        res["torch"].append(_torch(layers, side, X_train, X_test,
                                                   y_train, y_test, epochs, seed, dtype))
            row = {"arch": arch, "threads": threads, "dtype": dtype}
            for lib, values in res.items():
                if values:
                    row[lib] = (statistics.median(v[0] for v in values),
                                statistics.median(v[1] for v in values))
            rows.append(row)
            print(row, flush=True)
    return rows, (None if torch is None else torch.__version__)


def report(rows, torch_version, epochs, seeds, out):
    import sklearn

    lines = [
        "# ConvNetClassifier vs PyTorch (same architecture)",
        "",
        f"`python -m benchmarks.convnet_peers --epochs {epochs} --seeds {seeds}`; "
        f"{platform.processor() or platform.machine()}, Python "
        f"{platform.python_version()}, numpy {np.__version__}, scikit-learn "
        f"{sklearn.__version__}, torch {torch_version or 'not installed'}; load "
        f"average at the end {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs.",
        "",
        "Digits (1257 train / 540 test), Adam lr 1e-3, batch 64, the same dtype in both, "
        f"{epochs} epochs; medians over {seeds} seeds of the time per epoch and "
        "the held-out accuracy. See the module docstring for the layers.",
        "",
        "| architecture | dtype | threads | skml s/epoch | torch s/epoch | ratio | "
        "skml accuracy | torch accuracy |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        s = row.get("skml")
        t = row.get("torch")
        if t is None:
            lines.append(f"| {row['arch']} | {row['dtype']} | {row['threads']} | {s[0]:.3f} | peer not "
                         f"installed | | {s[1]:.3f} | |")
            continue
        lines.append(
            f"| {row['arch']} | {row['dtype']} | {row['threads']} | {s[0]:.3f} | {t[0]:.3f} | "
            f"{s[0] / t[0]:.2f}x | {s[1]:.3f} | {t[1]:.3f} |"
        )
    lines += ["", "Ratio: skml's time over PyTorch's (goal <= 1.5x on CPU).", ""]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines))
    print(f"wrote {out}")


def accuracy_vs_mlp(epochs_list, seeds, out):
    """ConvNet against the MLP on digits at equal epochs (skml only, no peer).

    Both: Adam, learning rate 3e-3, batch 32, no early stopping, the same
    stratified 70/30 split per seed (seed = split and initialisation).
    """
    import warnings

    from skml.neural_network import ConvNetClassifier, MLPClassifier

    layers = [("conv", 16, 3), ("maxpool", 2), ("conv", 32, 3), ("dense", 64)]
    common = dict(learning_rate_init=3e-3, batch_size=32, alpha=1e-4, tol=0.0,
                  n_iter_no_change=np.inf)
    rows = []
    for epochs in epochs_list:
        acc = {"convnet": [], "mlp64": [], "mlp256": []}
        for seed in range(seeds):
            X_train, X_test, y_train, y_test = _data(1, seed)
            models = {
                "convnet": ConvNetClassifier(image_shape=(8, 8), layers=layers,
                                             max_iter=epochs, random_state=seed,
                                             **common),
                "mlp64": MLPClassifier((64,), max_iter=epochs, random_state=seed,
                                       **common),
                "mlp256": MLPClassifier((256,), max_iter=epochs, random_state=seed,
                                        **common),
            }
            for name, model in models.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model.fit(X_train, y_train)
                acc[name].append(model.score(X_test, y_test))
        row = {k: (statistics.median(v), min(v), max(v)) for k, v in acc.items()}
        rows.append((epochs, row))
        print(epochs, row, flush=True)
    lines = [
        "# ConvNetClassifier vs MLPClassifier on digits, equal epochs",
        "",
        f"`python -m benchmarks.convnet_peers --accuracy`; held-out accuracy "
        f"(30 %, stratified), median [min, max] over {seeds} seeds (split and "
        "initialisation). Adam lr 3e-3, batch 32, alpha 1e-4, no early stopping. "
        f"ConvNet layers: `{layers}`; MLPs with one hidden ReLU layer of 64 or 256 "
        "units.",
        "",
        "| epochs | ConvNet | MLP (64) | MLP (256) |",
        "|---|---|---|---|",
    ]
    for epochs, row in rows:
        cells = [f"{m:.3f} [{lo:.3f}, {hi:.3f}]" for m, lo, hi in
                 (row["convnet"], row["mlp64"], row["mlp256"])]
        lines.append(f"| {epochs} | " + " | ".join(cells) + " |")
    lines.append("")
    out.write_text("\n".join(lines))
    print(f"wrote {out}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--threads", default="1",
                        help="comma-separated thread counts, e.g. 1,2")
    parser.add_argument("--archs", default=",".join(ARCHS))
    parser.add_argument("--dtypes", default="float64,float32")
    parser.add_argument("--out", type=Path, default=RESULTS / "convnet_peers.md")
    parser.add_argument("--accuracy", action="store_true",
                        help="only the ConvNet vs MLP accuracy table "
                             "(results/convnet_peers_accuracy.md)")
    args = parser.parse_args(argv)
    if args.accuracy:
        accuracy_vs_mlp((5, 10, 20), 5, RESULTS / "convnet_peers_accuracy.md")
        return
    threads = [int(t) for t in args.threads.split(",")]
    archs = args.archs.split(",")
    rows, version = run(args.epochs, args.seeds, threads, archs, args.dtypes.split(","))
    report(rows, version, args.epochs, args.seeds, args.out)


if __name__ == "__main__":
    main()
