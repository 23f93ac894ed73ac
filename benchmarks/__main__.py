"""Command line of the benchmark: ``python -m benchmarks [options]``.

See ``benchmarks/README.md``. Exits 0 even when cases fail (they are reported),
unless ``--strict``; exits 2 when the selection matches no case.
"""

import argparse
import gc
import os
import re
import sys
from dataclasses import replace
from pathlib import Path
from time import perf_counter

from benchmarks.cases import all_cases
from benchmarks.runner import PROFILES, run_case, run_scaling, scaling_series, settle

RESULTS = Path(__file__).resolve().parent / "results"


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=(
        "Compare each skml estimator with its reference (fit/predict time, score, "
        "agreement, memory)."))
    p.add_argument("--profile", choices=sorted(PROFILES), default="quick",
                   help="quick (default): bundled and 20k datasets; full: more "
                        "repeats, all-thread figures and scaling curves")
    p.add_argument("--family", action="append", default=[],
                   help="only these families (repeat or comma-separate)")
    p.add_argument("--name", help="only cases whose name contains this text or "
                                  "matches this regular expression")
    p.add_argument("--threads", choices=["1", "all", "both"],
                   help="BLAS threads for the timings: 1 (pinned), all, or both "
                        "(default: 1 for quick, both for full)")
    p.add_argument("--repeats", type=int, help="override the profile's repeats")
    p.add_argument("--stat", choices=["median", "min"], default="median",
                   help="statistic of the repeats (default median; min resists "
                        "the pauses of a busy machine)")
    p.add_argument("--list", action="store_true", help="list the selected cases")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 if any case errors")
    p.add_argument("--out", type=Path, default=None,
                   help="directory for the JSON, report and plots (default: "
                        "benchmarks/results for a whole profile, "
                        "benchmarks/results/selected for a --family/--name selection, "
                        "so that a selected run never overwrites the committed report)")
    return p.parse_args(argv)


def output_dir(args):
    """Where a run writes: ``--out``, else by whether the run is a selection."""
    if args.out is not None:
        return args.out
    return RESULTS / "selected" if (args.family or args.name) else RESULTS


def _name_matches(pattern, name):
    if pattern in name:
        return True
    try:
        return re.search(pattern, name) is not None
    except re.error:
        return False


def select(cases, profile, families=(), name=None):
    families = {f.strip() for arg in families for f in arg.split(",") if f.strip()}
    return [
        c for c in cases
        if profile in c.profiles
        and (not families or c.family in families)
        and (name is None or _name_matches(name, c.name))
    ]


def _log(message):
    print(message, file=sys.stderr, flush=True)


def _outcome(result):
    if result["status"] != "ok":
        return f"ERROR ({result['error_side']}): {result['error'][:100]}"
    t = result["timings"][result["primary_threads"]]
    return (f"fit ratio {t['fit_ratio']:.2f}, predict ratio {t['predict_ratio']:.2f}, "
            f"{t['repeats']} repeats")


def run(cases, profile, threads, log=_log):
    """Run the cases in order, logging one line as each starts and ends.

    Ctrl-C stops the run after the cases already measured; they are reported.
    """
    results = []
    start = perf_counter()
    try:
        for i, case in enumerate(cases, 1):
            settle()
            tag = f"[{i}/{len(cases)}] {case.name}"
            log(f"{tag} ... (at {perf_counter() - start:.0f} s)")
            t0 = perf_counter()
            result = run_case(case, profile, threads)
            if profile.scaling and result["status"] == "ok" and scaling_series(
                    case.dataset):
                try:
                    result["scaling"] = run_scaling(case, profile, log)
                except Exception as exc:  # never lose the case's own figures
                    result["scaling_error"] = f"{type(exc).__name__}: {exc}"
            result["elapsed_s"] = perf_counter() - t0
            results.append(result)
            log(f"{tag} {_outcome(result)} ({result['elapsed_s']:.1f} s)")
    except KeyboardInterrupt:
        log(f"interrupted: reporting the {len(results)} cases measured so far")
    finally:
        gc.unfreeze()
    return results


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    profile = PROFILES[args.profile]
    profile = replace(profile, stat=args.stat, repeats=args.repeats or profile.repeats)
    cases = select(all_cases(), args.profile, args.family, args.name)
    if args.list:
        for c in cases:
            print(f"{c.name:<45} {c.family:<16} {c.skml} vs {c.reference}")
        return 0
    if not cases:
        print("no benchmark case matches the selection (see --list)", file=sys.stderr)
        return 2

    # Imported here so that --list stays fast and free of matplotlib.
    from benchmarks.plots import make_plots
    from benchmarks.report import format_table, machine_info, write_json, write_report

    threads = args.threads or profile.threads
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    start = perf_counter()
    results = run(cases, profile, threads)
    meta = machine_info()
    meta.update(profile=args.profile, threads=threads, repeats=profile.repeats,
                stat=profile.stat, load_before=load_before,
                selection=" ".join(sys.argv[1:] if argv is None else argv) or "(all)",
                duration_s=perf_counter() - start)
    print(format_table(results))
    out = output_dir(args)
    out.mkdir(parents=True, exist_ok=True)
    json_path = out / f"{args.profile}.json"
    report_path = out / f"report-{args.profile}.md"
    write_json(json_path, meta, results)
    plots = make_plots(results, out, args.profile)
    write_report(report_path, meta, results, plots)
    errors = sum(r["status"] != "ok" for r in results)
    print(f"\n{len(results)} cases, {errors} errors, {meta['duration_s']:.0f} s; "
          f"wrote {json_path} and {report_path}")
    if max(load_before or 0, meta["load_average"] or 0) > meta["cpus_usable"]:
        print("note: the machine was busy (load average above the CPU count); "
              "millisecond timings are noisy, see the report")
    return 1 if args.strict and errors else 0


if __name__ == "__main__":
    sys.exit(main())
