"""One sentence on the machine's load for the peer reports.

The reports compare contenders alternated in one process, so the ratios hold
under load; the absolute seconds do not. The sentence says which case a run was.
"""

import os


def load_sentence(loads, what="The contenders alternate in one process"):
    """Say whether the timings were taken on a quiet or a loaded machine.

    ``loads`` are the load averages sampled during the run (start, end, ...).
    The benchmark itself keeps up to every CPU busy, so a load up to the CPU
    count is a quiet machine; above it, other work competed for the cores.
    """
    cpus = os.cpu_count() or 1
    loads = [float(x) for x in loads if x is not None]
    shown = ", ".join(f"{x:.1f}" for x in loads)
    if loads and max(loads) <= cpus:
        return (f"Timings taken on a quiet machine (load average {shown} on {cpus} "
                f"CPUs). {what}; the ratios are the figures to compare.")
    return (f"**Timings taken under load**: the machine is shared (load average "
            f"{shown} on {cpus} CPUs). {what} so the load hits them alike; compare "
            "the ratios, not the absolute seconds.")
