#!/usr/bin/env python3
"""Set up a local environment and run skml's test suite or its benchmark.

Only the Python standard library is used here, so that on a fresh machine with
nothing but Python 3 these two commands do all the set-up themselves::

    python3 dev.py test     # the whole test suite, then the docs build
    python3 dev.py bench    # the comparison benchmark (quick profile)

Both create ``.venv/`` next to this file on first use and install skml with
the extras they need; later runs reuse it and reinstall only when
``pyproject.toml`` changes. Arguments after the command go to pytest or to
the benchmark runner, e.g. ``python3 dev.py bench --profile full``.

A third command runs the benchmarks against the specialist libraries::

    python3 dev.py peers [MODULE ...]   # e.g. inspection_peers; default: all

It uses its own environment, ``.venv-peers/``: skml with the ``bench`` extra
is installed first, then the ``peers`` extra with numpy, scipy, scikit-learn
and numba held at the versions just resolved (a pip constraints file), so a
peer can never downgrade them. Neither the tests nor ``dev.py bench`` ever
install a peer.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
PEERS_VENV = ROOT / ".venv-peers"
EXTRAS = {"test": "test,docs,bench", "bench": "bench", "docs": "docs", "peers": "bench"}
# Held at the resolved versions while the peers are installed.
HELD = ("numpy", "scipy", "scikit-learn", "numba", "joblib", "threadpoolctl")
# The peer benchmark modules that `dev.py peers` runs by default.
PEER_MODULES = ("inspection_peers", "adversarial_peers", "privacy_peers", "search_peers",
                "convnet_peers", "attention_peers", "specialists")
# PyTorch for the convnet/attention comparisons: the CPU build from PyTorch's
# own index (the registry's wheel pulls gigabytes of GPU libraries), pinned
# by its local version so pip cannot pick the GPU build instead.
TORCH_CPU = ("torch==2.13.0+cpu", "https://download.pytorch.org/whl/cpu")


def _python(venv_dir):
    return venv_dir / ("Scripts" if os.name == "nt" else "bin") / (
        "python.exe" if os.name == "nt" else "python")


def _run(cmd, **kwargs):
    print("+", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.call([str(c) for c in cmd], cwd=ROOT, **kwargs)


def _ensure_env(extras, venv_dir=VENV):
    python = _python(venv_dir)
    if not python.exists():
        print(f"creating virtual environment in {venv_dir}", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(venv_dir)
        _run([python, "-m", "pip", "install", "-q", "--upgrade", "pip"])
    # Reinstall only when the requirements changed or new extras are wanted.
    wanted = sorted(set(EXTRAS[extras].split(",")))
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    stamp = venv_dir / ".dev-stamp"
    have = stamp.read_text().split("\n") if stamp.exists() else []
    if have[:1] == [digest] and set(wanted) <= set(have[1:]):
        return
    installed = sorted(set(wanted) | (set(have[1:]) if have[:1] == [digest] else set()))
    spec = f".[{','.join(installed)}]"
    if _run([python, "-m", "pip", "install", "-q", "-e", spec]) != 0:
        sys.exit("pip install failed; see the messages above")
    stamp.write_text("\n".join([digest, *installed]))


def test(args):
    _ensure_env("test")
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    code = _run([PYTHON, "-m", "pytest", "-n", "2", "-p", "no:cacheprovider",
                 "--hypothesis-profile", "ci", *args], env=env)
    if code != 0:
        return code
    return docs([], env=dict(os.environ, NUMBA_CACHE_DIR=str(_merged_numba_cache())))


def _merged_numba_cache():
    # The test workers compiled every kernel into their own caches (tests/conftest.py
    # explains why they cannot share one); the gallery reuses them instead of compiling
    # again. Copying gw1 over gw0 is safe: a function's index is copied together with
    # the files it names, so it never points at another worker's code.
    cache = ROOT / ".numba_cache"
    merged = cache / "docs"
    for worker in sorted(cache.glob("gw*")):
        shutil.copytree(worker, merged, dirs_exist_ok=True)
    return merged


def docs(args, env=None):
    _ensure_env("docs")
    return _run([PYTHON, "-m", "sphinx", "-n", "-W", "--keep-going", "-q", "-b", "html",
                 "docs", "docs/_build/html", *args], env=env)


def bench(args):
    _ensure_env("bench")
    return _run([PYTHON, "-m", "benchmarks", *args])


def _ensure_peers():
    _ensure_env("peers", PEERS_VENV)
    python = _python(PEERS_VENV)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    stamp = PEERS_VENV / ".peers-stamp"
    if stamp.exists() and stamp.read_text() == digest:
        return python
    frozen = subprocess.run([str(python), "-m", "pip", "freeze"], capture_output=True,
                            text=True, check=True).stdout.splitlines()
    held = [line for line in frozen
            if line.split("==")[0].lower().replace("_", "-") in HELD]
    constraints = PEERS_VENV / "held-versions.txt"
    constraints.write_text("\n".join(held) + "\n")
    if _run([python, "-m", "pip", "install", "-q", "-c", constraints,
             "-e", ".[bench,peers]"]) != 0:
        sys.exit("pip install of the peers failed; see the messages above")
    if _run([python, "-m", "pip", "install", "-q", "-c", constraints,
             "--extra-index-url", TORCH_CPU[1], TORCH_CPU[0]]) != 0:
        sys.exit("pip install of PyTorch (CPU) failed; see the messages above")
    stamp.write_text(digest)
    return python


def peers(args):
    python = _ensure_peers()
    code = 0
    for module in args or PEER_MODULES:
        if not (ROOT / "benchmarks" / f"{module}.py").exists():
            print(f"skipping benchmarks/{module}.py: not there yet", flush=True)
            continue
        code = _run([python, "-m", f"benchmarks.{module}"],
                    env=dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                             MKL_NUM_THREADS="1")) or code
    return code


def main(argv):
    commands = {"test": test, "bench": bench, "docs": docs, "peers": peers}
    if not argv or argv[0] not in commands:
        print(__doc__)
        return 2
    return commands[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
