"""Non-private LinUCB (AY11; spec 003 §3.1 and Table E)."""

from __future__ import annotations

from .base import Policy
from .confidence import TheoryRegularizer


class LinUCB(Policy):
    """OFUL / LinUCB with exact statistics, refreshed every round.

    Calibrations
    ------------
    experiment
        Table E: ``Gamma = 1`` in the width, ``lambda = 1e-4 Gamma`` in the Gram (quirk 3);
        corrected: ``lambda = Gamma = 1``.
    theory
        ``lambda = 1`` and the time-varying AY11 radius (spec §3.10 with ``sigma~ = 0``).
    """

    algorithm = "linucb"
    label = "LinUCB"
    private = False

    def _calibrate(self) -> None:
        s = self.setting
        self.scheme = "none"
        if self.calibration == "experiment":
            self.Gamma = 1.0
            self.lam = 1e-4 * self.Gamma if self.quirks.linucb_lambda_mismatch else self.Gamma
            self.consts = {"Gamma": self.Gamma}
        else:
            self.reg = TheoryRegularizer(0.0, s.d, s.T, 1.0 / s.T)
            self.lam = self.reg.lam
