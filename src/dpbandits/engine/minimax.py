"""Cells of the open-problem audit's OP-E1 and OP-E2 (spec open-problem-002 §7.1, §7.2): one
(instance, K or d, T, privacy value) with all its trials, from the keyed streams of
:mod:`dpbandits.envs.minimax`. Every horizon is a separate run (spec R8).
"""

from __future__ import annotations

import math

import numpy as np

from ..envs.minimax import (
    algorithm_streams,
    finite_means,
    instance_stream,
    linear_instance,
    linear_K,
    uniform_play_regret,
)
from .episodic import episode_regret, run_adac_ucb
from .gope import gope_regret, run_adac_gope


def op_e1_cell(
    inst: str,
    K: int,
    T: int,
    rho: float,
    rho_index: int,
    trials: int,
    alpha: float = 3.1,
    index: str = "joint",
) -> tuple[np.ndarray, np.ndarray]:
    """AdaC-UCB (``rho = inf``: Ada-UCB) on a finite-armed instance.

    Returns
    -------
    (ndarray, ndarray)
        Per trial: the pseudo-regret at ``T`` and random play's regret (saturation reference).
    """
    means = np.array(
        [
            finite_means(inst, K, T, instance_stream("OP-E1", inst, K, 1, T, i))
            for i in range(trials)
        ]
    )
    streams = [
        algorithm_streams("OP-E1", inst, K, 1, T, i, "adac_ucb", rho_index) for i in range(trials)
    ]
    log = run_adac_ucb(
        means, T, rho, [s[0] for s in streams], [s[1] for s in streams], alpha, index
    )
    unif = np.array([uniform_play_regret(m, T) for m in means])
    return episode_regret(log, np.array([T]))[:, 0], unif


def op_e2_cell(
    inst: str, d: int, T: int, rho: float, rho_index: int, trials: int
) -> tuple[np.ndarray, np.ndarray]:
    """AdaC-GOPE (``rho = inf``: GOPE) on a linear instance; returns as :func:`op_e1_cell`."""
    regret, unif = np.empty(trials), np.empty(trials)
    K = linear_K(inst, d)
    for i in range(trials):
        X, theta = linear_instance(inst, d, T, instance_stream("OP-E2", inst, K, d, T, i))
        env, noise = algorithm_streams("OP-E2", inst, K, d, T, i, "adac_gope", rho_index)
        run = run_adac_gope(X, theta, T, rho, env, noise)
        regret[i] = gope_regret(run, np.array([T]))[0]
        unif[i] = uniform_play_regret(X @ theta, T)
    return regret, unif


def rho_index_of(rho: float, grid: list[float]) -> int:
    """1-based position of ``rho`` in the privacy grid, 0 for ``inf`` (spec §7.4)."""
    if math.isinf(rho):
        return 0
    return grid.index(rho) + 1


__all__ = ["op_e1_cell", "op_e2_cell", "rho_index_of"]
