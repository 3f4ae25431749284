"""op24's algorithms on the pipeline's instances (:func:`simulate_op24`): the zCDP policies
of :mod:`dpbandits.policies.op24` and LinUCB / JDP-LinUCB with the calibration ``op24``.

The kernels are the op24 audit's own (:mod:`.episodic`, :mod:`.gope`, :mod:`.adac_oful`,
:mod:`.fresh_linucb`); only their inputs come from the cell. On fresh arms they read the same
decision sets, reward uniforms and parameters as every other engine
(:meth:`dpbandits.envs.contextual.FreshArmInstances.chunk`: common random numbers). On fixed
arms AdaC-UCB and AdaC-GOPE draw rewards per episode or phase, not per round, so they cannot
read the per-round reward table; they draw from the trial's environment stream
(:func:`dpbandits.seeds.environment_generator` of its reward seed, as dpdpe's phased
engine): the same instances, their own reward draws.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from dpbandits.runtime.job_memory import CHUNK_BYTES

from ..policies.base import Policy
from ..seeds import environment_generator
from .result import SimulationResult, check_inputs

#: What the engine records: the pseudo-regret (the op24 kernels track nothing else per round).
OP24_METRICS = ("regret_pseudo",)


def _runs_on_fresh_arms(policy: Policy) -> bool:
    return "fresh" in policy.runs_on(policy.calibration)


def simulate_op24(
    policy: Policy,
    instances,
    reward_seeds: Sequence[int],
    noise_rngs: Sequence[np.random.Generator],
    checkpoints: np.ndarray,
    chunk_bytes: int = CHUNK_BYTES,
    progress=None,
):
    """:func:`dpbandits.engine.run.simulate` for op24's algorithms (module docstring).

    Returns
    -------
    SimulationResult
        ``regret_pseudo`` (n, C).

    Raises
    ------
    ValueError
        If the policy does not run on these instances (AdaC-OFUL, LinUCB and JDP-LinUCB of the
        op24 calibration need fresh arms; AdaC-UCB and AdaC-GOPE fixed arms).
    """

    start = time.perf_counter()
    contextual = bool(getattr(instances, "contextual", False))
    if contextual != _runs_on_fresh_arms(policy):
        need = "fresh decision sets" if _runs_on_fresh_arms(policy) else "a fixed arm set"
        raise ValueError(f"{policy.algorithm} ({policy.calibration}) runs on {need} only")
    n = instances.n if contextual else instances.X.shape[0]
    d = instances.d if contextual else instances.X.shape[2]
    cps = check_inputs(policy, d, n, reward_seeds, noise_rngs, checkpoints)
    if contextual:
        regret = _fresh(policy, instances, reward_seeds, noise_rngs, cps, chunk_bytes, progress)
    elif policy.algorithm == "adac_ucb":
        regret = _adac_ucb(policy, instances.mu, reward_seeds, noise_rngs, cps)
    else:
        regret = np.zeros((n, cps.size))
        for i in range(n):
            regret[i] = _adac_gope(policy, instances, i, reward_seeds[i], noise_rngs[i], cps)
    return SimulationResult(cps, {"regret_pseudo": regret}, time.perf_counter() - start)


def _fresh(policy, instances, reward_seeds, noise_rngs, cps, chunk_bytes, progress):
    """AdaC-OFUL, or LinUCB / JDP-LinUCB (op24), on fresh arms, a chunk of trials at a time."""
    from .adac_oful import run_adac_oful
    from .fresh_linucb import simulate_fresh

    n, K, d, T = instances.n, instances.K, instances.d, policy.setting.T
    regret = np.zeros((n, cps.size))
    chunk = max(1, int(chunk_bytes // (8 * T * K * (d + 1))))
    start = time.perf_counter()
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        arms, uniforms, theta = instances.chunk(lo, hi, T, reward_seeds)
        rngs = list(noise_rngs[lo:hi])
        if policy.algorithm == "adac_oful":
            run = run_adac_oful(arms, uniforms, theta, policy.rho, rngs, cps)
        else:
            run = simulate_fresh(policy, arms, uniforms, theta, rngs, cps)
        regret[lo:hi] = run.regret
        if progress is not None:
            progress(hi, n, time.perf_counter() - start)
    return regret


def _adac_ucb(policy, mu, reward_seeds, noise_rngs, cps):
    """AdaC-UCB on the fixed arm sets' means, all trials at once."""
    from .episodic import episode_regret, run_adac_ucb

    log = run_adac_ucb(
        np.asarray(mu, dtype=float),
        policy.setting.T,
        policy.rho,
        [environment_generator(s) for s in reward_seeds],
        list(noise_rngs),
        float(policy.opts["alpha"]),
        policy.opts["index"],
    )
    return episode_regret(log, cps)


def _adac_gope(policy, instances, i, reward_seed, noise_rng, cps):
    """One AdaC-GOPE run on fixed arm set ``i``."""
    from .gope import gope_regret, run_adac_gope

    run = run_adac_gope(
        instances.X[i],
        instances.theta[i],
        policy.setting.T,
        policy.rho,
        environment_generator(reward_seed),
        noise_rng,
        rewards=policy.opts["rewards"],
    )
    return gope_regret(run, cps)


__all__ = ["OP24_METRICS", "simulate_op24"]
