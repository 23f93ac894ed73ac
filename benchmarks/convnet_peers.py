"""ConvNetClassifier against PyTorch and skorch with the same architecture (issue 25).

Run ``python -m benchmarks.convnet_peers [--epochs 10] [--seeds 3]
[--threads 1,all] [--out PATH]`` (with an environment holding torch and
skorch, e.g. ``.venv-peers/bin/python``).

For each architecture, dtype and thread setting, three contenders train the
same layers (same shapes, ReLU, max pooling, "same" padding, Adam with
learning rate 1e-3, batch 64, no weight decay, ``--epochs`` epochs,
reshuffled each epoch) on the same split of scikit-learn's digits (70 %
train, stratified; pixels / 16): skml's ConvNetClassifier, a plain PyTorch
training loop, and skorch's ``NeuralNetClassifier`` around the same PyTorch
module (PyTorch behind ``fit``/``predict``, no validation split, the same
initial weights as the plain loop). The three alternate seed by seed in
one process, so machine load hits them alike; a one-batch warm-up fit of
each precedes them (numba compiles its kernels on first use). The table
gives the best over ``--seeds`` seeds of the time per epoch (the whole
``fit`` divided by the epochs: shuffling, batches, forward, backward and the
optimiser step) and the median held-out accuracy.

Threads: ``1`` pins BLAS (threadpoolctl) and PyTorch (``torch.set_num_threads``)
to one thread and times CPU seconds of the process (``time.process_time``,
less inflated by other processes' load than the wall clock); ``all`` gives
BLAS and PyTorch every CPU (``os.cpu_count()``; PyTorch's own default,
``torch.get_num_threads()`` before any setting, is printed in the report)
and times the wall clock, as CPU seconds would add the threads up (the
report lists those CPU seconds too). ``--all-archs`` limits the all-threads
rows to some architectures, when the machine allows no more.

Architectures:

- ``lenet8``: digits 8 x 8, conv 16 3x3 - maxpool 2 - conv 32 3x3 - maxpool 2 -
  dense 64 - dense 10;
- ``residual8``: digits 8 x 8, conv 16 3x3 - maxpool 2 - residual block 16
  3x3 (conv-relu-conv + identity, then relu) - dense 64 - dense 10;
- ``lenet32``: the digits upsampled 4x to 32 x 32 (``np.kron``), the ``lenet8``
  layers: larger maps, so the products dominate the per-call overheads.

A missing peer (torch, or skorch) gives "peer not installed" rows. The report goes to
``benchmarks/results/convnet_peers.md``. ``--accuracy`` instead compares
ConvNetClassifier with MLPClassifier on the digits at equal epochs (median
over 5 seeds), in ``benchmarks/results/convnet_peers_accuracy.md``.
"""

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks._load import load_sentence

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


def _now():
    """Both clocks at once: (wall seconds, CPU seconds of the process)."""
    return np.array([time.perf_counter(), time.process_time()])


def _skml(layers, side, X_train, X_test, y_train, y_test, epochs, seed, dtype,
          clock=time.perf_counter):
    import warnings

    from skml.neural_network import ConvNetClassifier

    clf = ConvNetClassifier(
        image_shape=(side, side), layers=layers, solver="adam", alpha=0.0,
        learning_rate_init=LR, batch_size=BATCH, max_iter=epochs, tol=0.0,
        n_iter_no_change=np.inf, random_state=seed, dtype=dtype,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = clock()
        clf.fit(X_train, y_train)
        elapsed = clock() - start
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


def _torch(layers, side, X_train, X_test, y_train, y_test, epochs, seed, dtype,
           clock=time.perf_counter):
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
    start = clock()
    for _ in range(epochs):
        order = torch.randperm(len(Xt), generator=gen)
        for i in range(0, len(Xt), BATCH):
            idx = order[i:i + BATCH]
            opt.zero_grad()
            loss = loss_fn(model(Xt[idx]), yt[idx])
            loss.backward()
            opt.step()
    elapsed = clock() - start
    with torch.no_grad():
        pred = model(torch.tensor(X_test.reshape(-1, 1, side, side),
                                  dtype=dtype)).argmax(1).numpy()
    return elapsed / epochs, float(np.mean(pred == y_test))


def _skorch(layers, side, X_train, X_test, y_train, y_test, epochs, seed, dtype,
            clock=time.perf_counter):
    """skorch's NeuralNetClassifier around the module of :func:`_torch_model`
    (same seed, so the same initial weights as the plain loop): Adam, batch
    64, shuffled batches, no validation split, no printing."""
    import torch
    from skorch import NeuralNetClassifier

    tdtype = getattr(torch, dtype)
    torch.manual_seed(seed)
    model = _torch_model(torch, layers, side).to(tdtype)
    net = NeuralNetClassifier(
        model, criterion=torch.nn.CrossEntropyLoss, optimizer=torch.optim.Adam, lr=LR,
        max_epochs=epochs, batch_size=BATCH, iterator_train__shuffle=True,
        train_split=None, verbose=0, device="cpu",
    )
    Xt = X_train.reshape(-1, 1, side, side).astype(dtype)
    start = clock()
    net.fit(Xt, y_train.astype(np.int64))
    elapsed = clock() - start
    pred = net.predict(X_test.reshape(-1, 1, side, side).astype(dtype))
    return elapsed / epochs, float(np.mean(pred == y_test))


def _peers():
    """(torch or None, skorch version or None), imported lazily."""
    try:
        import torch
    except ImportError:
        return None, None
    try:
        import skorch
    except ImportError:
        return torch, None
    return torch, skorch.__version__


def _n_threads(threads):
    return os.cpu_count() if threads == "all" else int(threads)


def run(epochs, seeds, threads_list, archs, dtypes, all_archs=None):
    from threadpoolctl import threadpool_limits

    torch, skorch_version = _peers()
    torch_default = None if torch is None else torch.get_num_threads()
    rows = []
    for arch in archs:
        upsample, layers = ARCHS[arch]
        side = 8 * upsample
        X_train, X_test, y_train, y_test = _data(upsample)
        for threads, dtype in [(t, d) for d in dtypes for t in threads_list]:
            n = _n_threads(threads)
            if threads == "all" and all_archs is not None and arch not in all_archs:
                continue
            contenders = {"skml": _skml}
            if torch is not None:
                contenders["torch"] = _torch
                if skorch_version is not None:
                    contenders["skorch"] = _skorch
            res = {name: [] for name in contenders}
            with threadpool_limits(n):
                if torch is not None:
                    torch.set_num_threads(n)
                for func in contenders.values():  # warm-up: numba compiles, torch allocates
                    func(layers, side, X_train[:BATCH], X_test, y_train[:BATCH], y_test, 1,
                         0, dtype)
                for seed in range(seeds):  # the contenders alternate
                    for name, func in contenders.items():
                        res[name].append(func(layers, side, X_train, X_test, y_train,
                                              y_test, epochs, seed, dtype, _now))
            # one thread: CPU seconds (less inflated by the load); all: wall clock
            main, other = (1, 0) if n == 1 else (0, 1)
            row = {"arch": arch, "threads": threads, "n_threads": n, "dtype": dtype,
                   "clock": "CPU" if n == 1 else "wall"}
            for lib, values in res.items():
                row[lib] = (float(min(v[0][main] for v in values)),
                            statistics.median(v[1] for v in values),
                            float(min(v[0][other] for v in values)))
            rows.append(row)
            print(row, flush=True)
    versions = {"torch": None if torch is None else torch.__version__,
                "skorch": skorch_version, "torch_default_threads": torch_default}
    return rows, versions


def report(rows, versions, epochs, seeds, out, load_start=None, command=None):
    import sklearn

    torch_version, skorch_version = versions["torch"], versions["skorch"]
    lines = [
        "# ConvNetClassifier vs PyTorch and skorch (same architecture)",
        "",
        f"`{command or f'python -m benchmarks.convnet_peers --epochs {epochs} --seeds {seeds}'}`; "
        f"{platform.processor() or platform.machine()}, Python "
        f"{platform.python_version()}, numpy {np.__version__}, scikit-learn "
        f"{sklearn.__version__}, torch {torch_version or 'not installed'}, skorch "
        f"{skorch_version or 'not installed'}; {os.cpu_count()} CPUs, PyTorch's "
        f"default thread count {versions['torch_default_threads']}.",
        "",
        load_sentence([load_start, os.getloadavg()[0]],
                      "The contenders alternate seed by seed in one process"),
        "",
        "Digits (1257 train / 540 test), Adam lr 1e-3, batch 64, the same dtype and the "
        f"same initial weights in PyTorch and skorch, {epochs} epochs; time per epoch: "
        f"best of {seeds} seeds (one thread: CPU seconds of the process; all threads: "
        "wall clock); held-out accuracy: median over the seeds. skorch: "
        "`NeuralNetClassifier` around the same module, `train_split=None`, "
        "`iterator_train__shuffle=True`, `verbose=0`. See the module docstring for the "
        "layers.",
        "",
        "| architecture | dtype | threads | clock | skml s/epoch | torch s/epoch | "
        "skorch s/epoch | skml / torch | skml / skorch | skml acc | torch acc | "
        "skorch acc |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        s = row["skml"]
        cells = [row["arch"], row["dtype"],
                 f"{row['n_threads']}" + (" (all)" if row["threads"] == "all" else ""),
                 row["clock"], f"{s[0]:.3f}"]
        peers = [row.get("torch"), row.get("skorch")]
        cells += [f"{p[0]:.3f}" if p else "peer not installed" for p in peers]
        cells += [f"{s[0] / p[0]:.2f}x" if p else "" for p in peers]
        cells += [f"{s[1]:.3f}"] + [f"{p[1]:.3f}" if p else "" for p in peers]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Ratios: skml's time over the peer's (goal <= 1.5x PyTorch on CPU).", ""]
    multi = [row for row in rows if row["n_threads"] > 1]
    if multi:
        lines += [
            "CPU seconds per epoch of the process in the all-threads runs (all threads "
            "added up; the one-thread rows' CPU seconds are the figures to compare "
            "with): " + "; ".join(
                f"{row['arch']} {row['dtype']}: " + ", ".join(
                    f"{lib} {row[lib][2]:.3f}" for lib in ("skml", "torch", "skorch")
                    if row.get(lib)) for row in multi) + ".",
            "",
        ]
    skipped = sorted({row["arch"] for row in rows} - {row["arch"] for row in multi})
    if multi and skipped:
        lines += [f"No all-threads rows for {', '.join(skipped)} in this run "
                  "(`--all-archs`): the time the loaded machine allowed.", ""]
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
    parser.add_argument("--threads", default="1,all",
                        help="comma-separated thread settings: counts and 'all' "
                             "(every CPU), e.g. 1,all")
    parser.add_argument("--archs", default=",".join(ARCHS))
    parser.add_argument("--all-archs", default=None,
                        help="architectures that get the all-threads rows "
                             "(default: every one of --archs)")
    parser.add_argument("--dtypes", default="float64,float32")
    parser.add_argument("--out", type=Path, default=RESULTS / "convnet_peers.md")
    parser.add_argument("--accuracy", action="store_true",
                        help="only the ConvNet vs MLP accuracy table "
                             "(results/convnet_peers_accuracy.md)")
    args = parser.parse_args(argv)
    if args.accuracy:
        accuracy_vs_mlp((5, 10, 20), 5, RESULTS / "convnet_peers_accuracy.md")
        return
    threads = [t if t == "all" else int(t) for t in args.threads.split(",")]
    archs = args.archs.split(",")
    load_start = os.getloadavg()[0]
    all_archs = None if args.all_archs is None else args.all_archs.split(",")
    rows, versions = run(args.epochs, args.seeds, threads, archs, args.dtypes.split(","),
                         all_archs)
    command = "python -m benchmarks.convnet_peers " + " ".join(
        a for a in (argv if argv is not None else sys.argv[1:]))
    report(rows, versions, args.epochs, args.seeds, args.out, load_start, command.strip())


if __name__ == "__main__":
    main()
