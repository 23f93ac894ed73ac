"""The "scikit-learn's own tests" page, generated from the outside check.

``python -m benchmarks.sklearn_tests`` runs scikit-learn's test modules with
skml's classes substituted for their namesakes and writes
``benchmarks/results/sklearn_tests.json``: one record per test, with its
outcome, the skml classes whose code ran in it and, for a failure, the class
of failure (private internals, missing feature, different error, wrong
result, timeout) with a one-line reason.

This module turns that file into ``_generated_sklearn_tests.rst``:

- the per-class table, where a class's **applicable** tests are those in
  which its code ran, minus skipped and expected failures and minus the tests
  that need scikit-learn's private internals (they test scikit-learn's
  implementation, not the estimator's behaviour);
- every excluded private-internals test with the reason it was excluded.

The issue's goal is every class at >= 95% of its applicable tests; the table
says which classes meet it, so the page shows the gap as well as the progress.
Without the JSON the snippet says how to produce it.
"""

import json
from collections import Counter, defaultdict
from pathlib import Path

GOAL = 95.0
FAILURE_CLASSES = ("missing feature", "different error", "wrong result", "timeout")

NOT_RUN = (
    ".. note::\n\n"
    "   No results of the outside check were found when these pages were built.\n"
    "   Run ``python -m benchmarks.sklearn_tests`` and rebuild the documentation.\n"
)


def _escape(text):
    # Keep reST inline markup out of test ids and messages.
    return "``" + text.replace("`", "'") + "``" if text else "\\ "


def _per_class(tests):
    rows = defaultdict(Counter)
    for test in tests:
        for name in test.get("skml_classes", ()):
            if name.endswith("Mixin") or name.startswith("_"):
                # A shared (private) base class's code ran; the estimators
                # are counted.
                continue
            counts = rows[name]
            counts["ran"] += 1
            outcome = test["outcome"]
            if outcome in ("skipped", "xfailed"):
                counts["not applicable"] += 1
            elif outcome == "failed" and test.get("class") == "private internals":
                counts["private internals"] += 1
            elif outcome in ("passed", "xpassed"):
                counts["passed"] += 1
            else:
                counts[test.get("class") or "wrong result"] += 1
    return rows


def _table(rows):
    header = ["skml class", "applicable", "passed", *FAILURE_CLASSES,
              "private internals (excluded)", "pass %", f">= {GOAL:g}%"]
    lines = [".. list-table::", "   :header-rows: 1", "   :class: skml-bench-table", ""]
    body = []
    for name in sorted(rows):
        c = rows[name]
        applicable = c["ran"] - c["not applicable"] - c["private internals"]
        if applicable <= 0:
            continue
        rate = 100.0 * c["passed"] / applicable
        body.append([f"``{name}``", str(applicable), str(c["passed"]),
                     *(str(c[k]) for k in FAILURE_CLASSES),
                     str(c["private internals"]), f"{rate:.1f}",
                     "yes" if rate >= GOAL else "no"])
    for row in [header, *body]:
        lines.append("   * - " + row[0])
        lines.extend("     - " + cell for cell in row[1:])
    met = sum(row[-1] == "yes" for row in body)
    return met, len(body), "\n".join(lines) + "\n"


def _exclusions(tests):
    lines = []
    for test in sorted(tests, key=lambda t: t["nodeid"]):
        if test["outcome"] == "failed" and test.get("class") == "private internals":
            who = ", ".join(test.get("skml_classes", ()))
            lines.append(f"- {_escape(test['nodeid'])} ({who}): {_escape(test.get('reason', ''))}")
    return "\n".join(lines) + "\n" if lines else "None.\n"


def render(report):
    """The reST snippet for the parsed ``sklearn_tests.json``."""
    meta, tests = report.get("meta", {}), report["tests"]
    met, total, table = _table(_per_class(tests))
    head = (
        f"From ``benchmarks/results/sklearn_tests.json`` (skml commit "
        f"``{meta.get('commit', '?')}``, scikit-learn {meta.get('sklearn', '?')}, "
        f"numpy {meta.get('numpy', '?')}). **{met} of {total}** classes pass at "
        f"least {GOAL:g}% of their applicable tests.\n\n"
    )
    return (head + table + "\n"
            "Tests excluded because they need scikit-learn's private internals\n"
            "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n\n"
            + _exclusions(tests))


def write_sklearn_tests(results_dir, docs_dir):
    """Write ``_generated_sklearn_tests.rst`` into ``docs_dir``."""
    source = Path(results_dir) / "sklearn_tests.json"
    text = render(json.loads(source.read_text())) if source.is_file() else NOT_RUN
    target = Path(docs_dir) / "_generated_sklearn_tests.rst"
    # Rewrite only on change, so Sphinx does not rebuild the page for nothing.
    if not target.exists() or target.read_text() != text:
        target.write_text(text)
