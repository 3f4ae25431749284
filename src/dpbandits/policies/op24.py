"""op24's rho-zCDP algorithms as policies (engine ``op24``), so that a simulation cell can
run them on the pipeline's instances and reward streams (the arena, docs/arena.md).

The algorithms themselves are op24's as the op24 audit implements them
(docs/papers/op24.md#algorithms; :mod:`dpbandits.engine.episodic`, :mod:`~dpbandits.engine.gope`,
:mod:`~dpbandits.engine.adac_oful`). A cell names a target ``(epsilon, delta)``; the policy runs
at ``rho = dp_to_zcdp(epsilon, delta)``, the largest ``rho`` whose zCDP-to-DP conversion
(Bun and Steinke 2016, Prop. 1.3: ``epsilon = rho + 2 sqrt(rho ln(1/delta))``) meets the
target: the calibration ``zcdp``.

op24's JDP-LinUCB is :class:`~dpbandits.policies.jdp.JDPTree` with the calibration ``op24``
(and its non-private baseline :class:`~dpbandits.policies.linucb.LinUCB`, ``op24``).
"""

from __future__ import annotations

from typing import ClassVar

from ..mechanisms.zcdp import dp_to_zcdp
from .base import Policy

#: The one calibration: rho from the cell's (epsilon, delta) target (module docstring).
ZCDP = "zcdp"
#: What each policy runs on: ``fixed`` arm sets (the engine's FixedArmInstances) or ``fresh``
#: decision sets every round (FreshArmInstances).
FIXED, FRESH = "fixed", "fresh"


class _Zcdp(Policy):
    """Shared set-up: ``rho`` from the target, no confidence radius per refresh."""

    engine = "op24"
    calibrations = (ZCDP,)
    scalable = False
    release = "op24_zcdp"
    #: The instances the engine runs this policy on.
    arms: ClassVar[str] = FIXED

    @classmethod
    def runs_on(cls, calibration: str) -> frozenset[str]:
        """The setting it declares (:attr:`arms`)."""
        return frozenset({cls.arms})

    def trial_bytes(self, K: int) -> int:
        """On fresh arms, the decision sets and reward uniforms; the design and estimates."""
        s = self.setting
        return 8 * s.T * K * (s.d + 1) + 32 * (K * s.d + s.d * s.d + K)

    def _calibrate(self) -> None:
        s = self.setting
        self.scheme = "op24"
        self.rho = dp_to_zcdp(s.epsilon, s.delta)
        self.consts = {"rho": self.rho}

    def radius(self, L: float):  # pragma: no cover - not a refresh-based UCB policy
        raise NotImplementedError(f"{self.algorithm} has no confidence radius per refresh")

    def constants(self, L: float | None = None) -> dict:
        """``rho`` and the options (for metadata)."""
        return {**self.consts, **{k: v for k, v in self.opts.items()}}


class AdaCUCB(_Zcdp):
    """AdaC-UCB (op24, Sec. 3; :func:`dpbandits.engine.episodic.run_adac_ucb`) on the arms
    of a fixed arm set taken as a finite-armed Bernoulli bandit (means in [0, 1]; the features
    are not used). Options: ``alpha`` (3.1, the exploration exponent), ``index`` (joint | sum,
    docs/papers/op24.md [R1])."""

    algorithm = "adac_ucb"
    label = "AdaC-UCB"
    options = {"alpha": 3.1, "index": "joint"}


class AdaCGOPE(_Zcdp):
    """AdaC-GOPE (op24, Sec. 4; :func:`dpbandits.engine.gope.run_adac_gope`) on a fixed
    arm set. Option ``rewards``: ``bernoulli`` (rewards in {0, 1} with mean ``<theta, a>``, the
    pipeline's fixed-arm instances) or ``pm1`` (rewards in {-1, +1}, op24's J instances)."""

    algorithm = "adac_gope"
    label = "AdaC-GOPE"
    options = {"rewards": "bernoulli"}

    def _calibrate(self) -> None:
        super()._calibrate()
        if self.opts["rewards"] not in ("bernoulli", "pm1"):
            raise ValueError(
                f"{self.algorithm}: rewards must be bernoulli or pm1, got {self.opts['rewards']!r}"
            )


class AdaCOFUL(_Zcdp):
    """AdaC-OFUL (op24, Sec. 5; :func:`dpbandits.engine.adac_oful.run_adac_oful`) on fresh
    decision sets (rewards in {-1, +1} with mean ``<theta, a>``)."""

    algorithm = "adac_oful"
    label = "AdaC-OFUL"
    arms = FRESH


#: The policies of this module.
OP24_POLICIES = (AdaCUCB, AdaCGOPE, AdaCOFUL)

__all__ = ["FIXED", "FRESH", "OP24_POLICIES", "ZCDP", "AdaCGOPE", "AdaCOFUL", "AdaCUCB"]
