"""Cells of the open-problem audit (docs/papers/op24.md): OP-E1 and OP-E2 take one
(instance, K or d, T, privacy value) with all its trials, every horizon a separate run [R8];
OP-E3 takes one (context family, K, d, algorithm, privacy value) over ``T_max`` with the regret at
checkpoints. All randomness comes from the keyed streams of :mod:`.streams`.
"""

from __future__ import annotations

import math

import numpy as np

from ...engine.adac_oful import run_adac_oful
from ...engine.egreedy import run_egreedy
from ...engine.episodic import episode_regret, run_adac_ucb
from ...engine.fresh_linucb import simulate_fresh
from ...engine.gope import gope_regret, run_adac_gope
from ...policies.base import Setting
from ...policies.jdp import JDPTree
from ...policies.linucb import LinUCB
from .algorithms import CONTESTANT
from .streams import (
    algorithm_streams,
    contextual_trial,
    finite_means,
    instance_stream,
    linear_instance,
    linear_K,
    uniform_play_regret,
)

#: OP-E3 algorithms and the privacy parameter each is indexed by (docs/papers/op24.md).
OP_E3_ALGORITHMS = {"linucb": None, "jdp_linucb": "eps", "adac_oful": "rho", "egreedy": None}
#: Exploration schedule of OP-E3's planted contestant (:data:`.algorithms.CONTESTANT`,
#: :mod:`dpbandits.engine.egreedy`): probability ``min(1, CONTESTANT_SCALE t^(CONTESTANT_POWER -
#: 1))``, so its regret grows like ``t^CONTESTANT_POWER``, above every exponent OP-E3's claims
#: state (0.5 up to logs).
CONTESTANT_POWER = 0.9
CONTESTANT_SCALE = 0.5
#: delta of JDP-LinUCB's (epsilon, delta)-JDP (OP-E3, docs/papers/op24.md).
OP_E3_DELTA = 0.01
#: Decision sets of this many trials are held in memory at once (bytes); results do not depend
#: on it (every trial has its own streams).
OP_E3_CHUNK_BYTES = 256 * 2**20


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


def op_e3_cell(
    ctx: str,
    K: int,
    d: int,
    T_max: int,
    algorithm: str,
    privacy: float,
    privacy_index: int,
    trials: int,
    checkpoints: np.ndarray,
) -> dict[str, np.ndarray]:
    """One OP-E3 algorithm on ``trials`` runs of ``T_max`` rounds (docs/papers/op24.md).

    Parameters
    ----------
    ctx : {"C1", "C2"}
    K, d, T_max : int
        Every ``T``-dependent constant (tree size, ``Upsilon``, ``nu``) uses ``T_max`` [R8].
    algorithm : {"linucb", "jdp_linucb", "adac_oful", "egreedy"}
    privacy : float
        ``epsilon`` of JDP-LinUCB (``delta = 0.01``), ``rho`` of AdaC-OFUL (``inf``: OFUL-RS);
        ignored by LinUCB and the planted contestant (:data:`CONTESTANT`).
    privacy_index : int
        1-based position in the algorithm's privacy grid (0 for ``inf`` and for LinUCB).
    trials : int
    checkpoints : ndarray of int

    Returns
    -------
    dict
        ``regret`` and ``regret_unif`` (random play's ``sum_t max - mean``), shape (trials, C);
        ``n_episodes`` (AdaC-OFUL: episodes started by each checkpoint; else 0) and
        ``floor_events`` (JDP-LinUCB: rounds where the eigenvalue floor acted; else 0).
    """
    if algorithm not in OP_E3_ALGORITHMS:
        raise ValueError(f"unknown OP-E3 algorithm {algorithm!r}; allowed {list(OP_E3_ALGORITHMS)}")
    cps = np.asarray(checkpoints, dtype=np.int64)
    out = {k: np.zeros((trials, cps.size)) for k in ("regret", "regret_unif", "n_episodes")}
    out["floor_events"] = np.zeros((trials, cps.size))
    policy = None
    if algorithm == "linucb":
        policy = LinUCB(Setting(T=T_max, d=d), calibration="op24")
    elif algorithm == "jdp_linucb":
        policy = JDPTree(
            Setting(T=T_max, d=d, epsilon=privacy, delta=OP_E3_DELTA), calibration="op24"
        )
    chunk = max(1, OP_E3_CHUNK_BYTES // (8 * T_max * K * (d + 1)))
    for lo in range(0, trials, chunk):
        hi = min(trials, lo + chunk)
        parts = [contextual_trial(ctx, K, d, T_max, i) for i in range(lo, hi)]
        A = np.stack([p[0] for p in parts])
        U = np.stack([p[1] for p in parts])
        theta = np.stack([p[2] for p in parts])
        del parts
        rngs = [
            algorithm_streams("OP-E3", ctx, K, d, T_max, i, algorithm, privacy_index)[1]
            for i in range(lo, hi)
        ]
        if algorithm == CONTESTANT:
            draws = np.stack([r.random((T_max, 2)) for r in rngs])
            regret = np.zeros((hi - lo, cps.size))
            run_egreedy(A, U, theta, draws, CONTESTANT_POWER, CONTESTANT_SCALE, cps, regret)
            out["regret"][lo:hi] = regret
        elif policy is None:
            run = run_adac_oful(A, U, theta, privacy, rngs, cps)
            out["regret"][lo:hi] = run.regret
            for j, starts in enumerate(run.switches):
                out["n_episodes"][lo + j] = np.searchsorted(np.asarray(starts), cps, side="right")
        else:
            run = simulate_fresh(policy, A, U, theta, rngs, cps)
            out["regret"][lo:hi] = run.regret
            out["floor_events"][lo:hi] = run.floor_events
        means = np.einsum("ntkd,nd->ntk", A, theta)
        gaps = np.cumsum(means.max(axis=2) - means.mean(axis=2), axis=1)
        out["regret_unif"][lo:hi] = gaps[:, cps - 1]
    return out


def rho_index_of(rho: float, grid: list[float]) -> int:
    """Position (1-based) of ``rho`` in its grid, 0 for ``inf`` (stream keys of :mod:`.streams`)."""
    if math.isinf(rho):
        return 0
    return grid.index(rho) + 1


__all__ = ["OP_E3_ALGORITHMS", "op_e1_cell", "op_e2_cell", "op_e3_cell", "rho_index_of"]
