"""Careless and extreme input for every public estimator (issue 23).

``_cases.py`` defines the cases and their oracles, ``_worker.py`` runs them in
a child process (so that a segfault or a hang is recorded as a crash instead
of killing the test run), ``_runner.py`` drives the child, and
``python -m tests.robustness`` prints the summary table. The known failures
are listed once, in ``_known_failures.py``.
"""
