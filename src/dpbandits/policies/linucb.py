"""Non-private LinUCB (AY11; the baseline of cz22 and op24)."""

from __future__ import annotations

import numpy as np

from .base import CALIBRATIONS, Policy
from .confidence import TheoryRegularizer, linucb_sqrt_beta


class FreshArmCalibration:
    """What the calibration ``op24`` changes in a LinUCB-type policy's dispatch (mixed into
    :class:`LinUCB` and :class:`~dpbandits.policies.jdp.JDPTree`): fresh decision sets, op24's
    engine and its tree accounting."""

    @classmethod
    def runs_on(cls, calibration: str) -> frozenset[str]:
        """Fresh decision sets under ``op24`` (:mod:`dpbandits.engine.fresh_linucb`), else fixed
        arm sets."""
        return frozenset({"fresh" if calibration == "op24" else "fixed"})

    def simulator(self) -> str:
        """op24's engine under ``op24``."""
        return "op24" if self.calibration == "op24" else self.engine

    def release_family(self) -> str | None:
        """op24's tree accounting (zCDP at the cell's delta) under ``op24``."""
        return "op24_tree" if self.calibration == "op24" else self.release


class LinUCB(FreshArmCalibration, Policy):
    """OFUL / LinUCB with exact statistics, refreshed every round.

    Calibrations
    ------------
    experiment
        The script: ``Gamma = 1`` in the width, ``lambda = 1e-4 Gamma`` in the Gram (quirk 3);
        corrected: ``lambda = Gamma = 1``.
    theory
        ``lambda = 1`` and the time-varying AY11 radius (CZ22 Lemma A.2 with ``sigma~ = 0``).
    op24
        docs/papers/op24.md: ``lambda = 1``, 1-sub-Gaussian rewards in ``{-1, +1}``,
        ``delta_c = 0.01`` (:func:`~dpbandits.policies.confidence.linucb_sqrt_beta`).
    """

    algorithm = "linucb"
    label = "LinUCB"
    private = False
    calibrations = (*CALIBRATIONS, "op24")
    #: ``delta_c`` of the op24 calibration (docs/papers/op24.md).
    OP24_DELTA_C = 0.01

    def _calibrate(self) -> None:
        s = self.setting
        self.scheme = "none"
        if self.calibration == "experiment":
            self.Gamma = 1.0
            self.lam = 1e-4 * self.Gamma if self.quirks.linucb_lambda_mismatch else self.Gamma
            self.consts = {"Gamma": self.Gamma}
        elif self.calibration == "op24":
            self.lam = 1.0
            self.consts = {"delta_c": self.OP24_DELTA_C}
        else:
            self.reg = TheoryRegularizer(0.0, s.d, s.T, 1.0 / s.T)
            self.lam = self.reg.lam

    def _radius_at(self, t: np.ndarray, L: float) -> np.ndarray:
        """op24: ``sqrt(beta_t)`` at the 1-based round ``t + 1`` (op24, Sec. 3)."""
        if self.calibration == "op24":
            t1 = np.asarray(t) + 1
            return linucb_sqrt_beta(t1, self.setting.d, self.lam, self.OP24_DELTA_C)
        return super()._radius_at(t, L)
