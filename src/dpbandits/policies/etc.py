"""Explore-then-commit: the rate audit's planted contestant (docs/audit/rates.md).

Not an algorithm of the papers. Its regret has a known rate worse than the claims it is judged
against: it plays ``n = explore`` exploration rounds round-robin over the arms (round ``t < n``
plays arm ``t mod K``), fits the linear model by ridge least squares on those rounds
(``theta = (lambda I + G_n)^{-1} u_n``, ``lambda = 1``) and then plays the arm with the largest
estimated reward ``x_k^T theta`` (ties: lowest index) until the horizon. Once the committed arm
is the best one, its pseudo-regret is the exploration cost, ``(n / K) sum_k gap_k`` when ``K``
divides ``n``, which grows like ``T^a`` under the schedule ``n = ceil(c T^a)``
(:func:`dpbandits.config.resolve_schedule`). It is not private and draws no noise.
"""

from __future__ import annotations

import math

import numpy as np

from dpbandits.runtime.job_memory import PHASED_BASE_MB

from .base import CALIBRATIONS, Policy


class ExploreThenCommit(Policy):
    """Explore-then-commit with ``explore`` round-robin rounds (module docstring).

    Options
    -------
    explore : int
        Number of exploration rounds, ``1 <= explore <= T`` (required).

    Both calibrations are the same algorithm (``lambda = 1``); they exist so that the policy
    runs in any sweep.
    """

    algorithm = "etc"
    label = "Explore-then-commit"
    engine = "etc"
    private = False
    scalable = False
    calibrations = CALIBRATIONS
    options = {"explore": None}

    def _calibrate(self) -> None:
        n = self.opts["explore"]
        T = self.setting.T
        if n is None:
            raise ValueError(
                "etc: the option explore (number of exploration rounds) is required; "
                'in a sweep schedule: explore: {power: "9/10"}'
            )
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= T:
            raise ValueError(f"etc: explore must be an integer in [1, T={T}], got {n!r}")
        self.n_explore = int(n)
        self.scheme = "none"
        self.lam = 1.0
        self.consts = {"explore": self.n_explore}

    def radius(self, L: float) -> np.ndarray:
        """Explore-then-commit has no confidence radius: zeros, one per refresh (unused)."""
        return np.zeros(self.n_refresh)

    def exploration_cost(self, mu: np.ndarray) -> float:
        """Pseudo-regret of the exploration rounds on arms with means ``mu`` (shape (K,)):
        ``sum_{t < n} (max mu - mu[t mod K])``, the whole regret when the committed arm is
        the best one."""
        mu = np.asarray(mu, dtype=float)
        K = mu.shape[0]
        gaps = mu.max() - mu
        full, rest = divmod(self.n_explore, K)
        return float(full * gaps.sum() + gaps[:rest].sum())


def explore_rounds(T: int, power: float, scale: float = 1.0) -> int:
    """``ceil(scale * T^power)`` exploration rounds, at least 1 and at most ``T``."""
    return int(min(T, max(1, math.ceil(scale * float(T) ** power - 1e-9))))


class PhasedExploreThenCommit(ExploreThenCommit):
    """Explore-then-commit on the phased engine (:func:`dpbandits.engine.phased.run_etc`): the
    planted contestant of dpdpe's sweeps, on their instances and horizons (to ``10^7`` rounds).

    The same algorithm as :class:`ExploreThenCommit`, in the phased engine's environment: each
    round is a new client, whose reward is ``<theta* + xi, x> + eta`` with ``xi ~ N(0, sigma^2 I)``
    and ``eta ~ N(0, 1)`` (Sec. 2's clients, one round each). Its exploration rounds are played in
    blocks, arm by arm in index order (as the engine plays DP-DPE's phases); the regret at the
    horizon is that of round-robin play.

    Options
    -------
    explore : int
        Number of exploration rounds, ``1 <= explore <= T`` (required).
    sigma : float
        Client heterogeneity (0.1, dpdpe's default and its environment's).
    """

    algorithm = "etc_phased"
    label = "Explore-then-commit (phased engine)"
    engine = "phased"
    compiled = False
    phase_level = True
    calibrations = ("experiment",)
    options = {"explore": None, "sigma": 0.1}
    base_mb = PHASED_BASE_MB

    def _calibrate(self) -> None:
        super()._calibrate()
        if not float(self.opts["sigma"]) >= 0:
            raise ValueError(f"etc_phased: sigma must be >= 0, got {self.opts['sigma']!r}")
        self.scheme = "phased"

    def trial_bytes(self, K: int) -> int:
        """A trial holds its actions, the exploration sums and the ridge system."""
        d = self.setting.d
        return 32 * (K * d + d * d + K)

    def constants(self, L: float | None = None) -> dict:
        """Named constants (for metadata and tables)."""
        return {"lambda": self.lam, **self.consts}
