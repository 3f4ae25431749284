"""op24's part of ``dpb warmup`` (:mod:`dpbandits.dev.warmup`): LinUCB under the op24
calibration on fresh arms (JDP-LinUCB runs the same kernels). Loaded by name: no job runs it."""

from dpbandits.dev.warmup import warm_run
from dpbandits.envs import make_instances
from dpbandits.policies import Setting, make_policy


def run() -> None:
    """Compile the kernels of op24's runs with one tiny run."""
    T = 200
    setting = Setting(T=T, d=3, epsilon=1.0, delta=0.1)
    warm_run(make_policy("linucb", setting, "op24"), make_instances("fresh_sphere", 1, 10, 3, 2), T)
