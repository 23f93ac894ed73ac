"""Print the robustness summary: ``python -m tests.robustness [options]``.

Runs every case of every estimator (the same matrix as
``test_robustness.py``) and prints, per estimator, the count of each
outcome and of the cases where scikit-learn's class of the same name does
better or worse, then every case that is not a clear error or an accepted
answer, or where scikit-learn does better, marked with its entry in
``_known_failures.py``.

Options: ``--estimators A,B`` (a subset), ``--workers N`` (child processes,
default 1: the machine is shared), ``--json FILE`` (all records).
"""

import argparse
import collections
import json
import sys
import time

from . import _cases as C
from ._known_failures import known_failure
from ._runner import run_all

OUTCOMES = ("clear", "accepted", "wrong", "crash", "unclear")


def summary_table(results):
    """Rows of (estimator, counts) and the totals row, as text lines."""
    header = (f"{'estimator':32s} {'cases':>5s} {'clear':>5s} {'accept':>6s} "
              f"{'wrong':>5s} {'crash':>5s} {'unclr':>5s} {'n/a':>4s} "
              f"{'sk:better':>9s} {'sk:worse':>8s} {'known':>5s}")
    lines = [header, "-" * len(header)]
    total = collections.Counter()
    for name in sorted(results):
        records = results[name]
        counts = collections.Counter(r["outcome"] for r in records)
        versus = collections.Counter(r["versus_sklearn"] for r in records)
        known = sum(known_failure(name, r["case"]) is not None for r in records)
        row = collections.Counter({
            "cases": sum(counts[o] for o in OUTCOMES), **{o: counts[o] for o in OUTCOMES},
            "n/a": counts["n/a"], "better": versus["better"], "worse": versus["worse"],
            "known": known,
        })
        total.update(row)
        lines.append(_row(name, row))
    lines.append("-" * len(header))
    lines.append(_row(f"all ({len(results)} estimators)", total))
    return lines, total


def _row(label, c):
    return (f"{label:32s} {c['cases']:5d} {c['clear']:5d} {c['accepted']:6d} "
            f"{c['wrong']:5d} {c['crash']:5d} {c['unclear']:5d} {c['n/a']:4d} "
            f"{c['better']:9d} {c['worse']:8d} {c['known']:5d}")


def failures(results):
    """Every case that the test counts as failing, with its table entry."""
    lines = []
    for name in sorted(results):
        for r in results[name]:
            bad = r["outcome"] not in ("clear", "accepted", "n/a")
            worse = r["versus_sklearn"] == "worse"
            if not (bad or worse):
                continue
            reason = known_failure(name, r["case"])
            mark = "known" if reason else "NEW  "
            lines.append(
                f"{mark} {name} / {r['case']}: {r['outcome']}"
                + (" (scikit-learn better)" if worse else "")
                + f" -- {r['detail'][:110]} | scikit-learn: {r['sklearn']}"
                + f" ({r['sklearn_detail'][:70]})"
            )
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.robustness")
    parser.add_argument("--estimators", default=None)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    names = args.estimators.split(",") if args.estimators else sorted(C.skml_estimators())
    start = time.perf_counter()

    def progress(name, records):
        print(f"  {name}: {len(records)} cases", file=sys.stderr, flush=True)

    results = run_all(names, workers=args.workers, progress=progress)
    lines, total = summary_table(results)
    print("\n".join(lines))
    bad = failures(results)
    print(f"\nCases failing the test (silent wrong answer, crash, unclear error, or "
          f"scikit-learn better): {len(bad)}")
    print("\n".join(bad))
    print(f"\n{time.perf_counter() - start:.0f} s")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)
    new = [line for line in bad if line.startswith("NEW")]
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
