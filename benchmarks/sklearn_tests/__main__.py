"""Command line of the outside check: ``python -m benchmarks.sklearn_tests [options]``.

See :mod:`benchmarks.sklearn_tests` for how the substitution works. Each selected test
module runs in its own child pytest; the raw records stay in ``--work`` (a temporary
directory unless given) so ``--reclassify WORK`` can redo the report without running
anything. Exits 0 (failures are the point), 2 when the selection matches nothing.
"""

import argparse
import json
import os
import platform
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path

from benchmarks.sklearn_tests import MODULES
from benchmarks.sklearn_tests.classify import CLASSES, WRONG, _first_line, classify

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUT = REPO / "benchmarks" / "results" / "sklearn_tests.md"
MAX_RESTARTS = 20


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m benchmarks.sklearn_tests", description=(
        "Run scikit-learn's own test modules with skml's classes substituted and "
        "classify every failure."))
    p.add_argument("--module", action="append", default=[],
                   help="family (tree, svm, ...), test file stem (test_tree), key "
                        "(ensemble/test_common) or skml class name; repeat or "
                        "comma-separate (default: all)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help="markdown report; the JSON goes beside it with .json "
                        "(default: benchmarks/results/sklearn_tests.md)")
    p.add_argument("--work", type=Path,
                   help="directory for the raw per-module records and pytest logs "
                        "(default: a new temporary directory, kept)")
    p.add_argument("--test-timeout", type=float, default=300.0,
                   help="seconds one test's call may take (default 300)")
    p.add_argument("--module-timeout", type=float, default=3600.0,
                   help="seconds one test module may take in all (default 3600)")
    p.add_argument("--substitute", choices=["all", "home"], default="all",
                   help="substitute every counterpart in every module (default) or "
                        "only the classes the module is listed for")
    p.add_argument("--pytest-args", default="",
                   help="extra arguments for the child pytest, e.g. '-k sparse'")
    p.add_argument("--list", action="store_true",
                   help="list the selected modules and classes, run nothing")
    p.add_argument("--reclassify", type=Path, metavar="WORK",
                   help="rebuild the report from the raw records in WORK")
    return p.parse_args(argv)


def _sklearn_root():
    import sklearn

    return Path(sklearn.__file__).resolve().parent.parent


def select(selectors):
    """The ``(family, path, classes)`` entries matching any selector (all if none)."""
    wanted = {s.strip() for arg in selectors for s in arg.split(",") if s.strip()}
    rows = [(fam, path, classes) for fam, entries in MODULES.items()
            for path, classes in entries]
    if not wanted:
        return rows
    return [r for r in rows if r[0] in wanted or Path(r[1]).stem in wanted
            or r[1] in wanted or _key(r[1]) in wanted or wanted & set(r[2])]


def counterpart_names():
    """skml estimator names that scikit-learn also has, and those it does not."""
    from sklearn.utils.discovery import all_estimators as sklearn_estimators

    from skml.utils.discovery import all_estimators as skml_estimators

    sk = {name for name, _ in sklearn_estimators()}
    ours = [name for name, _ in skml_estimators()]
    return [n for n in ours if n in sk], [n for n in ours if n not in sk]


def _key(path):
    """``ensemble/test_common`` for ``sklearn/ensemble/tests/test_common.py``."""
    parts = [p for p in Path(path).with_suffix("").parts[1:] if p != "tests"]
    return "/".join(parts)


def _module_name(path):
    return path[:-3].replace("/", ".")


def _read_jsonl(path):
    collected, started, records = [], [], {}
    if not path.exists():
        return collected, started, records
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                row = json.loads(line)
            except json.JSONDecodeError:  # a line cut by a kill
                continue
            if "collected" in row:
                collected = collected or row["collected"]
            elif "started" in row:
                started.append(row["started"])
            else:
                records[row["nodeid"]] = row
    return collected, started, records


def run_module(path, names, work, args, log):
    """Run one sklearn test module in child pytest processes; return its raw file."""
    root = _sklearn_root()
    stem = _module_name(path).replace(".", "_")
    raw = work / f"{stem}.jsonl"
    done_file = work / f"{stem}.done"
    logfile = work / f"{stem}.log"
    for f in (raw, done_file, logfile):
        f.unlink(missing_ok=True)
    ini = work / "pytest.ini"
    ini.write_text("[pytest]\n")
    env = dict(os.environ)
    env.update(
        SKT_OUT=str(raw), SKT_TARGETS=_module_name(path), SKT_NAMES=",".join(names),
        SKT_TEST_TIMEOUT=str(args.test_timeout), SKT_DONE=str(done_file),
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")])),
        OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
        NUMBA_NUM_THREADS="1", PYTHONHASHSEED="0", MPLBACKEND="agg",
    )
    cmd = [sys.executable, "-m", "pytest", str(root / path),
           "-p", "benchmarks.sklearn_tests._plugin", "-p", "no:cacheprovider",
           "-c", str(ini), "--rootdir", str(root), "--confcutdir", str(root),
           "-q", "--tb=line", "-rN", "--disable-warnings", "--color=no",
           *shlex.split(args.pytest_args)]
    deadline = time.monotonic() + args.module_timeout
    for attempt in range(MAX_RESTARTS + 1):
        remaining = deadline - time.monotonic()
        if remaining <= 5:
            break
        with open(logfile, "a") as lf:
            proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=lf,
                                    stderr=subprocess.STDOUT, start_new_session=True)
            try:
                rc = proc.wait(timeout=remaining)
                timed_out = False
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                rc = proc.wait()
                timed_out = True
        collected, started, records = _read_jsonl(raw)
        unfinished = [n for n in started if n not in records]
        if unfinished:  # the test that was running when the child died
            node = unfinished[-1]
            kind = "ModuleTimeout" if timed_out else "ProcessCrash"
            msg = (f"module time limit ({args.module_timeout:.0f} s) hit in this test"
                   if timed_out else f"pytest child died (exit code {rc}) in this test")
            row = {"nodeid": node, "outcome": "failed", "phase": "call",
                   "skml_ran": True, "skml_classes": [], "exc_type": kind,
                   "exc_mro": [kind], "exc_msg": msg, "frames": []}
            with open(raw, "a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")
            records[node] = row
        if rc in (0, 1, 5) and not timed_out or not unfinished:
            break  # a normal end (5: nothing collected), or a crash outside any test
        log(f"    child {'timed out' if timed_out else f'died ({rc})'} in {node}; "
            f"resuming without the {len(records)} recorded tests")
        done_file.write_text("\n".join(records))
    return raw


def load_module(path, raw, classes):
    """Records of one module, classified, plus tests collected but never run."""
    collected, _, records = _read_jsonl(raw)
    rows = []
    for node in collected or list(records):
        rec = records.get(node) or {"nodeid": node, "outcome": "not run",
                                    "skml_ran": False, "skml_classes": []}
        rec["module"] = _key(path)
        if rec["outcome"] in ("failed", "error") and rec.get("skml_ran"):
            rec["class"], rec["reason"] = classify(rec)
        rows.append(rec)
    return rows


def summarize(rows):
    s = Counter(collected=len(rows))
    for r in rows:
        if r["outcome"] == "not run":
            s["not run"] += 1
            continue
        if not r.get("skml_ran"):
            s["no skml"] += 1
            continue
        s["ran skml"] += 1
        s[r["outcome"]] += 1
        if "class" in r:
            s[r["class"]] += 1
    return s


_COLUMNS = ["collected", "ran skml", "passed", "failed", *CLASSES, "skipped",
            "xfailed"]


def _table(title_col, groups):
    head = [title_col, *_COLUMNS, "pass %"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, s in groups:
        failed = s["failed"] + s["error"]
        cells = [s["collected"], s["ran skml"], s["passed"] + s["xpassed"], failed,
                 *(s[c] for c in CLASSES), s["skipped"], s["xfailed"]]
        ran = s["ran skml"] - s["skipped"] - s["xfailed"]
        pct = f"{100 * (s['passed'] + s['xpassed']) / ran:.0f}" if ran else "-"
        lines.append("| " + " | ".join([name, *map(str, cells), pct]) + " |")
    return "\n".join(lines)


def _by_class(rows):
    per = defaultdict(Counter)
    for r in rows:
        if not r.get("skml_ran") or r["outcome"] == "not run":
            continue
        # A private skml base class (the owner of a class method that ran) counts only
        # when no public class did.
        names = [c for c in r.get("skml_classes") or [] if not c.startswith("_")]
        for cls in names or ["(other skml)"]:
            s = per[cls]
            s["collected"] += 1
            s["ran skml"] += 1
            s[r["outcome"]] += 1
            if "class" in r:
                s[r["class"]] += 1
    return sorted(per.items())


def _md_escape(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def write_report(md_path, meta, rows, modules):
    by_module = defaultdict(list)
    for r in rows:
        by_module[r["module"]].append(r)
    total = summarize(rows)
    out = [
        "# scikit-learn's own tests, run against skml",
        "",
        "Generated by `python -m benchmarks.sklearn_tests` (see "
        "`benchmarks/sklearn_tests/__init__.py`). Each scikit-learn test module below "
        "ran with every scikit-learn class that skml also has replaced by skml's "
        f"(substitution: `{meta['substitute']}`); only tests in which skml code ran "
        "are counted and classified.",
        "",
        f"- skml commit `{meta['commit']}`"
        f"{' (with uncommitted changes)' if meta['dirty'] else ''}, scikit-learn "
        f"{meta['sklearn']}, numpy {meta['numpy']}, Python {meta['python']}",
        f"- {meta['date']}, {meta['duration_s'] / 60:.0f} min, selection: "
        f"{meta['selection']}, limits {meta['test_timeout']:.0f} s per test and "
        f"{meta['module_timeout']:.0f} s per module",
        f"- skml estimators without a scikit-learn namesake (not exercised): "
        f"{', '.join(meta['no_counterpart']) or 'none'}",
        "",
        "Classes: **private internals** (the test needs sklearn's private attributes "
        "or functions), **missing feature** (a parameter, attribute, input kind or "
        "value skml does not accept), **different error** (another exception, message "
        "or warning than expected), **wrong result** (an assertion on numbers or "
        "labels failed, or a crash on valid input), **timeout**. Heuristics, see "
        "`classify.py`. `pass %` is passed / (ran skml - skipped - xfailed).",
        "",
        "## Totals",
        "",
        _table("module", [("**all**", total)]
               + [(m, summarize(by_module[m])) for m in modules if m in by_module]),
        "",
        "## By skml class",
        "",
        "A test counts once for each skml class whose code ran in it.",
        "",
        _table("skml class", _by_class(rows)),
        "",
    ]
    wrong = [r for r in rows if r.get("class") == WRONG]
    out += [f"## Wrong results ({len(wrong)})", ""]
    out += [f"- `{_md_escape(r['nodeid'])}`: {_md_escape(r['reason'])}" for r in wrong]
    out.append("")
    for cls in CLASSES:
        if cls == WRONG:
            continue
        hits = [r for r in rows if r.get("class") == cls]
        if not hits:
            continue
        reasons = Counter(_group(r["reason"]) for r in hits)
        out += [f"## {cls.capitalize()} ({len(hits)}): most frequent reasons", ""]
        out += [f"- {n} x {_md_escape(reason)}"
                for reason, n in reasons.most_common(40)]
        if len(reasons) > 40:
            out.append(f"- ... and {len(reasons) - 40} other reasons (see the JSON)")
        out.append("")
    notrun = [r for r in rows if r["outcome"] == "not run"]
    if notrun:
        out += [f"{len(notrun)} collected tests did not run (module time limit).", ""]
    md_path.parent.mkdir(parents=True, exist_ok=True)
    md_path.write_text("\n".join(out))


def _group(reason):
    """Reasons grouped for counting: drop the bracketed test context and numbers."""
    base = reason.split(" [", 1)[0]
    return base if len(base) <= 150 else base[:147] + "..."


def write_json(path, meta, rows):
    """``{"meta": ..., "totals": ..., "tests": [...]}``, one test per line; only the
    tests in which skml code ran (the others are counted in the totals)."""
    keep = ("nodeid", "outcome", "skml_classes", "class", "reason", "exc_type")
    lines = []
    for r in rows:
        if not r.get("skml_ran"):
            continue
        row = {k: r[k] for k in keep if r.get(k) not in (None, [], "")}
        if r["outcome"] in ("failed", "error") and r.get("exc_msg"):
            row["exc_msg"] = _first_line(r["exc_msg"], 200)
        if r.get("duration", 0) >= 1:
            row["duration"] = r["duration"]
        lines.append(json.dumps(row))
    meta = {k: v for k, v in meta.items() if k != "work"}  # a local temporary path
    head = json.dumps({"meta": meta, "totals": summarize(rows)})
    path.write_text(head[:-1] + ', "tests": [\n' + ",\n".join(lines) + "\n]}\n")


def _git(*args):
    try:
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True,
                              text=True, check=True).stdout.strip()
    except Exception:
        return ""


def _log(message):
    print(message, file=sys.stderr, flush=True)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    entries = select(args.module)
    if not entries:
        print("no test module matches the selection", file=sys.stderr)
        return 2
    names, no_counterpart = counterpart_names()
    if args.list:
        for fam, path, classes in entries:
            print(f"{fam:<22} {path:<62} {', '.join(classes)}")
        return 0
    work = (args.reclassify or args.work
            or Path(tempfile.mkdtemp(prefix="skml-sktests-")))
    work.mkdir(parents=True, exist_ok=True)
    import numpy
    import sklearn

    meta = {"commit": _git("rev-parse", "--short", "HEAD"),
            "dirty": bool(_git("status", "--porcelain", "--", "skml")),
            "sklearn": sklearn.__version__, "numpy": numpy.__version__,
            "python": platform.python_version(),
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "selection": " ".join(args.module) or "(all)",
            "substitute": args.substitute, "test_timeout": args.test_timeout,
            "module_timeout": args.module_timeout, "no_counterpart": no_counterpart,
            "work": str(work), "duration_s": 0.0}
    start = time.monotonic()
    rows = []
    for i, (fam, path, classes) in enumerate(entries, 1):
        raw = work / f"{_module_name(path).replace('.', '_')}.jsonl"
        if not args.reclassify:
            subst = classes if args.substitute == "home" else names
            _log(f"[{i}/{len(entries)}] {path} ... "
                 f"(at {time.monotonic() - start:.0f} s)")
            t0 = time.monotonic()
            run_module(path, [n for n in subst if n in names], work, args, _log)
            elapsed = time.monotonic() - t0
        module_rows = load_module(path, raw, classes)
        rows += module_rows
        s = summarize(module_rows)
        if not args.reclassify:
            _log(f"[{i}/{len(entries)}] {_key(path)}: {s['collected']} collected, "
                 f"{s['ran skml']} ran skml, {s['passed']} passed, "
                 f"{s['failed'] + s['error']} failed ({elapsed:.0f} s)")
    if args.reclassify:
        old = args.out.with_suffix(".json")
        if old.exists():
            meta = json.loads(old.read_text())["meta"] | {"work": str(work)}
    else:
        meta["duration_s"] = time.monotonic() - start
    modules = [_key(p) for _, p, _ in entries]
    write_report(args.out, meta, rows, modules)
    write_json(args.out.with_suffix(".json"), meta, rows)
    total = summarize(rows)
    print(_table("module", [("all", total)]))
    print(f"\nwrote {args.out} and {args.out.with_suffix('.json')}; "
          f"raw records in {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
