"""The phased-elimination engine's cells (dpdpe's DP-DPE and DP-PE variants): the trials of a
cell run one after the other, each with its own environment stream (:mod:`.phased`)."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from dpbandits.runtime.job_memory import CHUNK_BYTES

from ..policies.base import Policy
from ..policies.dpdpe import DPPE
from ..policies.etc import PhasedExploreThenCommit
from ..seeds import environment_generator
from .phased import PHASED_METRICS, run_dpdpe, run_dppe, run_etc, run_metrics
from .result import SimulationResult, check_inputs


def simulate_phased(
    policy: Policy,
    instances,
    reward_seeds: Sequence[int],
    noise_rngs: Sequence[np.random.Generator],
    checkpoints: np.ndarray,
    chunk_bytes: int = CHUNK_BYTES,
    progress=None,
) -> SimulationResult:
    """:func:`dpbandits.engine.run.simulate` for the phased-elimination policies (dpdpe;
    :mod:`.phased`): one run per trial (``chunk_bytes`` is not needed), environment stream from
    the trial's reward seed. ``extra["phases"]`` holds each run's phase log."""
    start = time.perf_counter()
    n = instances.X.shape[0]
    cps = check_inputs(policy, instances.X.shape[2], n, reward_seeds, noise_rngs, checkpoints)
    runner = run_dpdpe
    if isinstance(policy, DPPE):
        runner = run_dppe
    elif isinstance(policy, PhasedExploreThenCommit):
        runner = run_etc
    out = {name: np.zeros((n, cps.shape[0])) for name in PHASED_METRICS}
    logs = []
    for i in range(n):
        run = runner(
            policy,
            instances.X[i],
            instances.theta[i],
            environment_generator(reward_seeds[i]),
            noise_rngs[i],
        )
        for name, values in run_metrics(run, cps).items():
            out[name][i] = values
        logs.append(run.log)
        if progress is not None and (i + 1) % 5 == 0:
            progress(i + 1, n, time.perf_counter() - start)
    return SimulationResult(cps, out, time.perf_counter() - start, {"phases": logs})
