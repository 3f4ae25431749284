"""plasso's PrivateLASSO and its non-private references on the pipeline's sparse instances
(:func:`simulate_plasso`; :mod:`dpbandits.policies.plasso`).

The rounds are the plasso audit's (:func:`dpbandits.engine.private_lasso.run_trial`); the trial's
instance, contexts and reward noises come from the cell's
:class:`~dpbandits.envs.sparse.SparseInstances` (the same for every algorithm of the cell), the
algorithm's three streams (sparse vector, tree noise, ties) are spawned from the trial's noise
generator. The engine records the pseudo-regret at ``T`` only (the episode schedule depends on
``T``); earlier checkpoints are ``NaN``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from ..policies.base import Policy
from .result import SimulationResult, check_inputs

#: What the engine records.
PLASSO_METRICS = ("regret_pseudo",)


def simulate_plasso(
    policy: Policy,
    instances,
    reward_seeds: Sequence[int],
    noise_rngs: Sequence[np.random.Generator],
    checkpoints: np.ndarray,
    chunk_bytes: int = 0,
    progress=None,
):
    """:func:`dpbandits.engine.run.simulate` for the ``plasso`` engine (module docstring).

    Returns
    -------
    SimulationResult
        ``regret_pseudo`` (n, C): the pseudo-regret at ``T`` in the last column (which must be
        ``T``), ``NaN`` before.

    Raises
    ------
    ValueError
        On instances other than sparse ones, or checkpoints not ending at ``T``.
    """
    from .private_lasso import _Trial, run_trial

    start = time.perf_counter()
    if getattr(instances, "family", None) != "sparse":
        raise ValueError(f"{policy.algorithm} runs on sparse instances only")
    n, T = instances.n, policy.setting.T
    if instances.T != T:
        raise ValueError(f"instances of horizon {instances.T}, policy of horizon {T}")
    cps = check_inputs(policy, instances.d, n, reward_seeds, noise_rngs, checkpoints)
    if cps[-1] != T:
        raise ValueError(f"the plasso engine records the regret at T = {T} only: last checkpoint")
    const = policy.run_constants(instances.s0)
    regret = np.full((n, cps.size), np.nan)
    for i in range(n):
        streams = noise_rngs[i].spawn(3)  # sparse vector, tree noise, ties
        regret[i, -1] = run_trial(policy.algorithm, const, _Trial(instances.trial(i), streams,
                                                                  T, instances.d))[0]  # fmt: skip
        if progress is not None:
            progress(i + 1, n, time.perf_counter() - start)
    return SimulationResult(cps, {"regret_pseudo": regret}, time.perf_counter() - start)


__all__ = ["PLASSO_METRICS", "simulate_plasso"]
