"""op24's part of ``dpb warmup`` (:mod:`dpbandits.dev.warmup`): LinUCB under the op24
calibration on fresh arms (JDP-LinUCB runs the same kernels) and OP-E3's planted contestant.
Loaded by name: no job runs it."""

import numpy as np

from dpbandits.dev.warmup import warm_run
from dpbandits.engine.egreedy import run_egreedy
from dpbandits.envs import make_instances
from dpbandits.policies import Setting, make_policy


def run() -> None:
    """Compile the kernels of op24's runs with one tiny run."""
    T = 200
    setting = Setting(T=T, d=3, epsilon=1.0, delta=0.1)
    warm_run(make_policy("linucb", setting, "op24"), make_instances("fresh_sphere", 1, 10, 3, 2), T)
    A, U, theta = np.zeros((1, 2, 2, 2)), np.zeros((1, 2, 2)), np.ones((1, 2))
    cps = np.array([2], dtype=np.int64)
    run_egreedy(A, U, theta, np.zeros((1, 2, 2)), 0.9, 0.5, cps, np.zeros((1, 1)))
