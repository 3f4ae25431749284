"""What every engine returns (:class:`SimulationResult`) and the inputs every engine refuses
(:func:`check_inputs`): shared by the engine's driver and the per-family runners."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class SimulationResult:
    """Per-trial metrics at checkpoints.

    Attributes
    ----------
    checkpoints : ndarray, shape (C,)
        Rounds (number of rounds played) at which metrics were recorded.
    metrics : dict[str, ndarray]
        Each of :data:`METRICS`, shape (n_trials, C).
    seconds : float
        Wall time of the simulation.
    """

    checkpoints: np.ndarray
    metrics: dict[str, np.ndarray]
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)


def check_inputs(policy, d, n, reward_seeds, noise_rngs, checkpoints) -> np.ndarray:
    """Refuse inputs that do not fit the policy; return the checkpoints as an int array."""
    T = policy.setting.T
    if d != policy.setting.d:
        raise ValueError(
            f"instances have d={d} but the policy was calibrated for d={policy.setting.d}"
        )
    if len(reward_seeds) != n or len(noise_rngs) != n:
        raise ValueError("need one reward seed and one noise generator per trial")
    cps = np.asarray(checkpoints, dtype=np.int64)
    if cps.size == 0 or cps.min() < 1 or cps.max() > T or np.any(np.diff(cps) <= 0):
        raise ValueError(f"checkpoints must be increasing rounds in [1, {T}]")
    return cps
