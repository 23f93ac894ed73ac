"""skml's comparison benchmark: each skml estimator against its reference.

Run ``python3 dev.py bench`` (or ``python -m benchmarks --help`` inside the
environment). Cases live in ``benchmarks/cases/<family>.py``, datasets in
``benchmarks/datasets.py``.
"""
