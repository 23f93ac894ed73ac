import os

from hypothesis import HealthCheck, settings

# CI: no deadline (numba compiles on first call, the machine is shared) and
# derandomised, so a red run is reproducible.
settings.register_profile(
    "ci",
    deadline=None,
    derandomize=True,
    max_examples=30,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=50)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
