"""Driver of the fast engine: draws, noise tables and kernel calls for all trials of a cell."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from dpbandits.engine import kernels
from dpbandits.engine import olucb as kernels_olucb
from dpbandits.engine.combiner import COMBINER_METRICS, run_combiner
from dpbandits.engine.contextual import CONTEXTUAL_METRICS, run_contextual
from dpbandits.engine.etc import run_etc
from dpbandits.engine.noise import draw_raw, draw_vec_stacked, noise_tables
from dpbandits.engine.olucb import OLUCB_METRICS
from dpbandits.engine.op24_cells import simulate_op24
from dpbandits.engine.phased_cells import simulate_phased
from dpbandits.engine.plasso_cells import simulate_plasso
from dpbandits.engine.result import SimulationResult, check_inputs
from dpbandits.envs.linear import FixedArmInstances
from dpbandits.envs.rewards import reward_tables
from dpbandits.learners.maler import n_experts
from dpbandits.policies.base import Policy
from dpbandits.policies.combiner import stacked_tables
from dpbandits.result_columns import METRICS
from dpbandits.runtime.job_memory import CHUNK_BYTES

#: Metrics an engine records on top of :data:`METRICS`.
EXTRA_METRICS = {"onlineucb": OLUCB_METRICS, "combiner": COMBINER_METRICS}
#: The engines besides the fixed-arm one, by the key a policy names
#: (:meth:`~dpbandits.policies.base.Policy.simulator`); each takes :func:`simulate`'s arguments.
SIMULATORS: dict[str, Callable[..., SimulationResult]] = {
    "op24": simulate_op24,
    "plasso": simulate_plasso,
    "phased": simulate_phased,
}


def checkpoint_rounds(T: int, n_checkpoints: int) -> np.ndarray:
    """``n_checkpoints`` evenly spaced rounds ending at ``T`` (1-based counts of rounds played)."""
    if n_checkpoints < 1:
        raise ValueError(f"need at least one checkpoint, got {n_checkpoints}")
    n_checkpoints = min(n_checkpoints, T)
    return np.unique(np.round(np.linspace(T / n_checkpoints, T, n_checkpoints)).astype(np.int64))


@dataclass
class _Chunk:
    """One chunk of trials: its instances' arrays, reward tables, raw noise draws, radii,
    checkpoints and the output block the kernel fills."""

    X: np.ndarray
    mu: np.ndarray
    best: np.ndarray
    rewards: np.ndarray
    raws: list
    beta: np.ndarray
    cps: np.ndarray
    out: np.ndarray
    stacked: dict | None = None  # raw draws drawn stacked (draw_vec_stacked), not in raws

    def stack(self, key: str) -> np.ndarray:
        """The chunk's raw draws of one kind, stacked over its trials."""
        if self.stacked is not None:
            return self.stacked[key]
        return np.stack([r[key] for r in self.raws])


def _run_combiner(policy: Policy, instances, sl: slice, c: _Chunk) -> None:
    """One chunk of the Private Bandit Combiner (Algorithm 2 of olucb)."""
    o = policy.opts
    run_combiner(
        c.X,
        c.mu,
        c.best,
        c.rewards,
        c.stack("zeta"),
        c.stack("noise_x"),
        c.stack("noise_y"),
        policy.tab_radius,
        policy.tab_G,
        policy.tab_Delta2,
        policy.tab_Sigma,
        policy.tab_mu_hat,
        policy.tab_restart,
        policy.tab_local,
        policy.tab_horizon,
        *_selection(policy),
        o["D"],
        o["learner"] == "maler",
        o["ogd_step"] == "strongly_convex",
        c.cps,
        c.out,
    )


def _run_onlineucb(policy: Policy, instances, sl: slice, c: _Chunk) -> None:
    """One chunk of OnlineUCB (Algorithm 1 of olucb)."""
    o = policy.opts
    kernels_olucb.run_onlineucb(
        c.X,
        c.mu,
        c.best,
        c.rewards,
        np.ascontiguousarray(instances.theta[sl]),
        c.stack("noise_x"),
        c.stack("noise_y"),
        c.stack("zeta"),
        c.beta[0],
        policy.Sigma,
        policy.G,
        o["D"],
        policy.setting.T,
        n_experts(policy.setting.T),
        o["learner"] == "maler",
        o["ogd_step"] == "strongly_convex",
        policy.mu_hat,
        o["radius_mode"] == "oracle",
        policy.k_constants(),
        c.cps,
        c.out,
    )


def _run_vec(policy: Policy, instances, sl: slice, c: _Chunk) -> None:
    """One chunk of LinUCB-SDP-Vec (the P_Vec shuffle protocol)."""
    uniforms = c.stack("uniforms")
    binom = c.stack("binomial").astype(np.float64)
    Delta = np.array([policy.encoding_range(instances.L[i]) for i in range(sl.start, sl.stop)])
    v = policy.vec
    kernels.run_vec(
        c.X,
        c.mu,
        c.best,
        c.rewards,
        uniforms,
        binom,
        policy.period,
        v.g,
        v.p,
        v.b_debias,
        Delta,
        policy.lam,
        c.beta,
        policy.clip,
        c.cps,
        c.out,
    )


def _run_gaussian(policy: Policy, instances, sl: slice, c: _Chunk) -> None:
    """One chunk of the Gaussian-noise LinUCB family (non-private, JDP, LDP, SDP-Amp)."""
    table, index = noise_tables(policy, len(c.raws), c.raws.__getitem__)
    kernels.run_gaussian(
        c.X,
        c.mu,
        c.best,
        c.rewards,
        table,
        index,
        policy.refresh_rounds().astype(np.int64),
        c.beta,
        policy.lam,
        policy.clip,
        c.cps,
        c.out,
    )


def _run_etc(policy: Policy, instances, sl: slice, c: _Chunk) -> None:
    """One chunk of explore-then-commit (the rate audit's planted contestant)."""
    run_etc(c.X, c.mu, c.best, c.rewards, policy.n_explore, policy.lam, c.cps, c.out)


#: The kernel that runs one chunk, per policy engine (the Gaussian family otherwise).
_KERNELS = {
    "combiner": _run_combiner,
    "onlineucb": _run_onlineucb,
    "vec": _run_vec,
    "etc": _run_etc,
}


def simulate(
    policy: Policy,
    instances: FixedArmInstances,
    reward_seeds: Sequence[int],
    noise_rngs: Sequence[np.random.Generator],
    checkpoints: np.ndarray,
    chunk_bytes: int = CHUNK_BYTES,
    progress: Callable[[int, int, float], None] | None = None,
    rewards: np.ndarray | None = None,
) -> SimulationResult:
    """Run ``policy`` on every instance (trial) over the horizon.

    Parameters
    ----------
    policy : Policy
    instances : FixedArmInstances
        One instance per trial.
    reward_seeds : sequence of int
        Seed of each trial's reward stream (common across algorithms).
    noise_rngs : sequence of numpy.random.Generator
        One generator per trial for the algorithm's noise.
    checkpoints : ndarray of int
        Rounds at which to record metrics (see :func:`checkpoint_rounds`).
    chunk_bytes : int
        Memory budget per chunk of trials; results do not depend on it.
    progress : callable, optional
        Called as ``progress(done, total, seconds)`` after each chunk.
    rewards : ndarray of bool, shape (n, T', K) with T' >= T, optional
        Precomputed reward tables (:func:`dpbandits.envs.reward_tables` with ``reward_seeds``);
        the first ``T`` rounds are used. Drawn per chunk when omitted.

    Returns
    -------
    SimulationResult
    """
    engine = SIMULATORS.get(policy.simulator())
    if engine is not None:
        return engine(
            policy,
            instances,
            reward_seeds,
            noise_rngs,
            checkpoints,
            chunk_bytes=chunk_bytes,
            progress=progress,
        )
    if getattr(instances, "contextual", False):
        return _simulate_contextual(
            policy, instances, reward_seeds, noise_rngs, checkpoints, chunk_bytes, progress
        )
    start = time.perf_counter()
    n, K, d = instances.X.shape
    T = policy.setting.T
    cps = check_inputs(policy, d, n, reward_seeds, noise_rngs, checkpoints)
    if rewards is not None and (
        rewards.shape[0] != n or rewards.shape[1] < T or rewards.shape[2] != K
    ):
        raise ValueError(f"rewards must have shape ({n}, >= {T}, {K}), got {rewards.shape}")
    C = cps.shape[0]
    names = METRICS + EXTRA_METRICS.get(policy.engine, ())
    out = {name: np.zeros((n, C)) for name in names}
    mu_all = instances.mu
    best_all = instances.best.astype(np.int64)
    L_all = instances.L
    chunk = max(1, int(chunk_bytes // policy.trial_bytes(K)))
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        sl = slice(lo, hi)
        X = np.ascontiguousarray(instances.X[sl])
        mu = np.ascontiguousarray(mu_all[sl])
        if rewards is None:
            chunk_rewards = reward_tables(
                mu_all[lo:hi], T, [reward_seeds[i] for i in range(lo, hi)]
            )
        else:
            chunk_rewards = np.ascontiguousarray(rewards[lo:hi, :T])
        if policy.scheme == "vec":  # large uniform tables: drawn into one array
            raws, stacked = [], draw_vec_stacked(policy, [noise_rngs[i] for i in range(lo, hi)])
        else:
            raws, stacked = [draw_raw(policy, noise_rngs[i]) for i in range(lo, hi)], None
        beta = np.stack([policy.radius(L_all[i]) for i in range(lo, hi)])
        chunk_out = np.zeros((hi - lo, C, len(names)))
        part = _Chunk(X, mu, best_all[sl], chunk_rewards, raws, beta, cps, chunk_out, stacked)
        _KERNELS.get(policy.engine, _run_gaussian)(policy, instances, sl, part)
        for k, name in enumerate(names):
            out[name][sl] = chunk_out[:, :, k]
        if progress is not None:
            progress(hi, n, time.perf_counter() - start)
    return SimulationResult(cps, out, time.perf_counter() - start)


def _selection(policy: Policy) -> tuple:
    """``select, C_i, alpha_i, R_i, p_index, sigma^2, log_const`` of the combiner kernels."""
    if policy.algorithm == "combiner":
        o = policy.opts
        return (
            True,
            policy.C,
            policy.alpha,
            policy.R,
            float(o["p_index"]),
            policy.sigma**2,
            policy.log_const,
        )
    M = stacked_tables(policy)["radius"].shape[0]
    return False, np.zeros(M), np.ones(M), np.zeros(M), 0.0, policy.sigma**2, 0.0


def _simulate_contextual(
    policy: Policy,
    instances,
    reward_seeds: Sequence[int],
    noise_rngs: Sequence[np.random.Generator],
    checkpoints: np.ndarray,
    chunk_bytes: int,
    progress,
) -> SimulationResult:
    """:func:`simulate` on fresh arms (:class:`dpbandits.envs.contextual.FreshArmInstances`)."""
    start = time.perf_counter()
    n, d, K = instances.n, instances.d, instances.K
    T = policy.setting.T
    if "fresh" not in policy.runs_on(policy.calibration):
        raise ValueError(
            f"{policy.algorithm}: fresh-arm instances ({instances.family}) are simulated for "
            "OnlineUCB, Algorithm 7 and the combiner only"
        )
    if policy.opts.get("radius_mode") == "oracle":
        raise ValueError("onlineucb: the oracle radius is not available on fresh arms")
    cps = check_inputs(policy, d, n, reward_seeds, noise_rngs, checkpoints)
    names = METRICS + CONTEXTUAL_METRICS
    out = {name: np.zeros((n, cps.shape[0])) for name in names}
    tabs = stacked_tables(policy)
    per_trial = 8 * T * (K * d + K + 2 * d + 1)
    chunk = max(1, int(chunk_bytes // per_trial))
    o = policy.opts
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        arms, uniforms, theta = instances.chunk(lo, hi, T, reward_seeds)
        raws = [draw_raw(policy, noise_rngs[i]) for i in range(lo, hi)]
        chunk_out = np.zeros((hi - lo, cps.shape[0], len(names)))
        run_contextual(
            arms,
            theta,
            uniforms,
            np.stack([r["zeta"] for r in raws]),
            policy.scheme == "onlineucb",  # OnlineUCB draws zeta already scaled (or none)
            np.stack([r["noise_x"] for r in raws]),
            np.stack([r["noise_y"] for r in raws]),
            tabs["radius"],
            tabs["G"],
            tabs["Delta2"],
            tabs["Sigma"],
            tabs["mu_hat"],
            tabs["restart"],
            tabs["local"],
            tabs["horizon"],
            *_selection(policy),
            o["D"],
            o["learner"] == "maler",
            o["ogd_step"] == "strongly_convex",
            cps,
            chunk_out,
        )
        for k, name in enumerate(names):
            out[name][lo:hi] = chunk_out[:, :, k]
        if progress is not None:
            progress(hi, n, time.perf_counter() - start)
    return SimulationResult(cps, out, time.perf_counter() - start)
