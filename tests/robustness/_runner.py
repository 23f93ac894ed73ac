"""Drive the worker process: collect raw results, survive crashes and hangs.

A case that kills the worker (segfault, abort) or gives no answer within
``timeout`` seconds is recorded as a crash of that library on that case; the
worker is restarted and carries on with the next case.
"""

import json
import os
import select
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import _cases as C

ROOT = Path(__file__).resolve().parents[2]
# First calls compile numba kernels (cached after that); slow fits of the
# small instances take a few seconds. A case still silent after this is hung.
# The tree growth loop's first compile of a new specialisation took 91 s on a
# 2-core machine running CI beside it (AdaBoost's stump, 2026-11-27), so the
# limit leaves room for a cold compile under load.
CASE_TIMEOUT = float(os.environ.get("SKML_ROBUSTNESS_TIMEOUT", 300))
START_TIMEOUT = 300.0
MAX_RESTARTS = 25


def _env():
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, "1")
    env.setdefault("PYTHONHASHSEED", "0")
    return env


class _Process:
    """A child speaking JSON lines, read with a timeout."""

    def __init__(self, args):
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", *args], cwd=ROOT, env=_env(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
        )
        self.buffer = b""

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def read(self, timeout):
        """The next message, ``"timeout"`` or ``"died"``."""
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout"
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return "timeout"
            chunk = os.read(fd, 65536)
            if not chunk:
                return "died"
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def stderr_tail(self, n=400):
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-n:]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()  # our own child, by its handle
        self.proc.wait()
        self.log.close()

    def exit_note(self):
        code = self.proc.poll()
        return f"process died (exit code {code})" if code is not None else "process died"


class Runner:
    """One worker process, restarted after a crash."""

    def __init__(self, timeout=CASE_TIMEOUT):
        self.timeout = timeout
        self.worker = None
        self.lock = threading.Lock()

    def _ensure(self):
        if self.worker is not None and self.worker.proc.poll() is None:
            return self.worker
        if self.worker is not None:
            self.worker.stop()
        self.worker = _Process(["tests.robustness._worker"])
        message = self.worker.read(START_TIMEOUT)
        if not isinstance(message, dict) or message.get("op") != "ready":
            tail = self.worker.stderr_tail(2000)
            self.worker.stop()
            self.worker = None
            raise RuntimeError(f"robustness worker failed to start: {message}\n{tail}")
        return self.worker

    def close(self):
        if self.worker is not None:
            self.worker.stop()
            self.worker = None

    def run_estimator(self, name, cases=None):
        """Records of every case of ``name`` (or of ``cases``), in case order."""
        with self.lock:
            raws, metas = {}, {}
            for _ in range(MAX_RESTARTS):
                worker = self._ensure()
                done = [cid for cid, sides in raws.items() if len(sides) == 2]
                skip_side = {cid: list(sides) for cid, sides in raws.items() if len(sides) == 1}
                worker.send({"op": "run", "estimator": name, "cases": cases,
                             "skip": done, "skip_side": skip_side})
                current = None
                while True:
                    message = worker.read(self.timeout)
                    if isinstance(message, dict):
                        op = message["op"]
                        if op == "start":
                            current = (message["case"], message["side"])
                            metas[message["case"]["id"]] = message["case"]
                        elif op == "side":
                            raws.setdefault(message["case"]["id"], {})[message["side"]] = (
                                message["raw"])
                            current = None
                        elif op == "done":
                            return self._records(name, metas, raws)
                        continue
                    # Timeout or death: the running case crashed this library.
                    if message == "timeout":
                        note = f"no answer within {self.timeout:.0f} s (hang)"
                        status = "timeout"
                    else:
                        worker.proc.wait()
                        note = worker.exit_note()
                        status = "died"
                    worker.stop()
                    self.worker = None
                    if current is None:
                        raise RuntimeError(f"worker lost outside a case: {note}")
                    meta, side = current
                    raws.setdefault(meta["id"], {})[side] = {"status": status, "message": note}
                    break
            raise RuntimeError(f"{name}: the worker crashed {MAX_RESTARTS} times")

    @staticmethod
    def _records(name, metas, raws):
        records = []
        for cid, meta in metas.items():
            sides = raws.get(cid, {})
            skml_raw = sides.get("skml", {"status": "n/a", "message": "not run"})
            sk_raw = sides.get("sklearn", {"status": "n/a", "message": "not run"})
            record = C.judge(meta, skml_raw, sk_raw)
            record["estimator"] = name
            records.append(record)
        return records

    def run_pickles(self, names):
        """The pickle round trip of every estimator: dump here, load in one fresh process."""
        meta = {"id": "pickle_fresh_process", "group": "pickle", "expect": "answer",
                "oracle": "identical", "estimator": None}
        raws = {}
        with self.lock, tempfile.TemporaryDirectory() as directory:
            dumped = []
            for name in names:
                worker = self._ensure()
                worker.send({"op": "dump", "estimator": name,
                             "path": os.path.join(directory, f"{name}.pkl")})
                message = worker.read(self.timeout)
                if isinstance(message, dict):
                    if message["raw"] is not None:
                        raws[name] = message["raw"]
                    else:
                        dumped.append(name)
                    continue
                worker.stop()
                self.worker = None
                raws[name] = {"status": "died" if message == "died" else "timeout",
                              "message": f"dump: {message}"}
            remaining = list(dumped)
            while remaining:
                loader = _Process(["tests.robustness._worker", "--load", directory,
                                   *remaining])
                current = None
                while True:
                    message = loader.read(START_TIMEOUT)
                    if isinstance(message, dict):
                        if message["op"] == "start":
                            current = message["estimator"]
                        elif message["op"] == "loaded":
                            raws[message["estimator"]] = message["raw"]
                            remaining.remove(message["estimator"])
                            current = None
                        elif message["op"] == "done":
                            break
                        continue
                    loader.proc.wait() if message == "died" else None
                    note = loader.exit_note() if message == "died" else "hang"
                    victim = current or remaining[0]
                    raws[victim] = {"status": "died" if message == "died" else "timeout",
                                    "message": f"loading in a fresh process: {note}"}
                    remaining.remove(victim)
                    break
                loader.stop()
        records = {}
        for name in names:
            record = C.judge(meta, raws[name], {"status": "n/a", "message": "not run"})
            record["estimator"] = name
            records[name] = record
        return records


def run_all(names=None, workers=1, progress=None):
    """Every record of every estimator, pickles included."""
    names = list(names or C.skml_estimators())
    runners = [Runner() for _ in range(max(1, workers))]
    results = {}
    try:
        def job(index, name):
            records = runners[index % len(runners)].run_estimator(name)
            if progress:
                progress(name, records)
            return name, records

        if len(runners) == 1:
            for name in names:
                results[name] = job(0, name)[1]
        else:
            # Each thread owns one runner (its lock serialises its requests).
            with ThreadPoolExecutor(len(runners)) as pool:
                futures = [pool.submit(job, i, n) for i, n in enumerate(names)]
                for future in futures:
                    name, records = future.result()
                    results[name] = records
        pickles = runners[0].run_pickles(names)
        for name in names:
            results[name].append(pickles[name])
    finally:
        for runner in runners:
            runner.close()
    return results
