"""plasso's PrivateLASSO and its two non-private references as policies (engine ``plasso``),
so that a simulation cell can run them on the pipeline's sparse instances (the arena's sparse
suite, docs/arena.md).

The algorithm is the plasso audit's (docs/papers/plasso.md#algorithms;
:mod:`dpbandits.policies.private_lasso` for the constants, :mod:`dpbandits.engine.private_lasso`
for the rounds); only the inputs come from the cell. The calibration ``paper`` is Algorithm 1's
budget split at the cell's ``(epsilon, delta)`` with the audit's other defaults
(:data:`~dpbandits.policies.private_lasso.DEFAULTS`).
"""

from __future__ import annotations

from .base import Policy
from .private_lasso import DEFAULTS, plasso_constants

#: The one calibration: Algorithm 1 at the cell's (epsilon, delta), the audit's defaults.
PAPER = "paper"
#: The suite setting these policies run on.
SPARSE = "sparse"


class _Plasso(Policy):
    """Shared set-up: the run's constants come from the instances (``s0``), so a policy holds
    only the target and the variant."""

    engine = "plasso"
    calibrations = (PAPER,)
    scalable = False
    compiled = False
    release = "plasso"
    arms = SPARSE

    @classmethod
    def runs_on(cls, calibration: str) -> frozenset[str]:
        """Sparse contexts (:attr:`arms`)."""
        return frozenset({cls.arms})

    def trial_bytes(self, K: int) -> int:
        """One trial at a time: its history (``T x d``) and a block of contexts."""
        s = self.setting
        return 8 * s.T * (s.d + 1) + 8 * 4096 * K * (s.d + 2)

    def _calibrate(self) -> None:
        self.scheme = "plasso"
        self.consts = {}

    def run_constants(self, s0: int):
        """:class:`~dpbandits.policies.private_lasso.PlassoConstants` of a run with sparsity
        ``s0`` (``epsilon = inf`` for the non-private variants)."""
        s = self.setting
        eps = s.epsilon if self.private else float("inf")
        delta = s.delta if self.private else DEFAULTS["delta"]
        return plasso_constants(s.T, s.d, s0, s.K, eps, delta)

    def radius(self, L: float):  # pragma: no cover - episodic, no radius per refresh
        raise NotImplementedError(f"{self.algorithm} has no confidence radius per refresh")

    def constants(self, L: float | None = None) -> dict:
        """The variant (the run's constants depend on ``s0`` and are in the phase records)."""
        return {"variant": self.algorithm}


class PrivateLASSO(_Plasso):
    """PrivateThresholdedLASSO (plasso, Algorithms 1-2 with TBAP)."""

    algorithm = "private_lasso"
    label = "PrivateLASSO"


class NPThresholdedLASSO(_Plasso):
    """The non-private thresholded LASSO bandit (the noise-free screening of Algorithm 2)."""

    algorithm = "np_th_lasso"
    label = "NP-Th-LASSO"
    private = False


class OracleOLS(_Plasso):
    """Greedy OLS on the true support (the oracle reference of the plasso audit)."""

    algorithm = "oracle_ols"
    label = "Oracle-OLS"
    private = False


#: The policies of this module.
PLASSO_POLICIES = (PrivateLASSO, NPThresholdedLASSO, OracleOLS)

__all__ = ["PAPER", "PLASSO_POLICIES", "SPARSE", "NPThresholdedLASSO", "OracleOLS", "PrivateLASSO"]
