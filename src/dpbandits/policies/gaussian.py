"""Policies whose privacy noise is a per-user Gaussian randomizer (cz22, CZ22).

``ldp`` (local model, ZCH+20), ``sdp_amp`` (Algorithm 1 with P_Amp), ``batched_ldp``
(Batched-Local-LinUCB, App. F) and ``sdp_amp_ru`` (returning users, Thm. E.3).
"""

from __future__ import annotations

import math

from ..mechanisms import amplification as amp
from ..mechanisms.gaussian import (
    amp_ru_batch_budget,
    s_amp_experiment,
    s_ldp_experiment,
    sigma_amp_ru_stated,
    sigma_amp_ru_theory,
    sigma_amp_theory,
    sigma_ldp_theory,
)
from .base import Policy
from .confidence import TheoryRegularizer


class _PerUserGaussian(Policy):
    """Shared calibration: per-user std; ``Gamma = std sqrt(n d)``, ``lambda = 2 Gamma``."""

    release = "cz22"

    def _per_user_std(self) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def _batch(self) -> int:
        return 1

    def _calibrate(self) -> None:
        s = self.setting
        self.period = self._batch()
        self.scheme = "per_round" if self.period == 1 else "per_batch"
        std = self._per_user_std()
        # One raw draw is the sum of the batch's `period` per-user draws (exact aggregate identity).
        self.noise_std = std * math.sqrt(self.period)
        if self.calibration == "experiment":
            self.convention = "half_sum" if self.quirks.half_sum_symmetrization else "upper_mirror"
            self.Gamma = std * math.sqrt(s.T) * math.sqrt(s.d)  # the script's
            self.lam = 2.0 * self.Gamma
            self.consts = {"s": std, "Gamma": self.Gamma}
        else:
            self.convention = "upper_mirror"  # CZ22 Alg. 2
            self.reg = TheoryRegularizer(std * math.sqrt(s.T), s.d, s.T // self.period, 1.0 / s.T)
            self.lam = self.reg.lam
            self.consts = {
                "sigma": std,
                "sigma_tilde": self.reg.sigma_tilde,
                "Sigma_N": self.reg.Sigma_N,
                "nu": self.reg.nu,
            }


class LDP(_PerUserGaussian):
    """LinUCB-LDP: every user adds Gaussian noise to ``x y`` and ``x x^T`` (CZ22 Sec. 5, App. F).

    experiment: ``s = sqrt(ln(2.5/delta))/epsilon`` (script); theory: ``sigma_0`` of Prop. F.1.
    """

    algorithm = "ldp"
    label = "LinUCB-LDP"

    def _per_user_std(self) -> float:
        s = self.setting
        if self.calibration == "experiment":
            return s_ldp_experiment(s.epsilon, s.delta)
        return sigma_ldp_theory(s.epsilon, s.delta)

    def _conditions(self) -> list[tuple[str, bool]]:
        return [("Prop. F.1 / Gaussian mechanism needs epsilon <= 1", self.setting.epsilon <= 1)]


class BatchedLDP(LDP):
    """Batched-Local-LinUCB (App. F, Prop. F.1): LDP noise, model refreshed every ``B`` rounds."""

    algorithm = "batched_ldp"
    label = "Batched-LinUCB-LDP"

    def _batch(self) -> int:
        return self.setting.B


class SDPAmp(_PerUserGaussian):
    """LinUCB-SDP-Amp: Algorithm 1 with P_Amp (CZ22 Sec. 3.2, App. B).

    experiment: ``s = sqrt(ln(2.5B/delta))/(epsilon sqrt(B))`` (the script's);
    theory: ``sigma_1`` of Thm. 3.2.
    """

    algorithm = "sdp_amp"
    label = "LinUCB-SDP-Amp"

    def _batch(self) -> int:
        return self.setting.B

    def _per_user_std(self) -> float:
        s = self.setting
        if self.calibration == "experiment":
            return s_amp_experiment(s.epsilon, s.delta, s.B)
        return sigma_amp_theory(s.epsilon, s.delta, s.B)

    def stated_local_level(self) -> tuple[float, float]:
        """The local ``(epsilon_0, delta_0)`` CZ22 states for one user's messages under Thm.
        3.2's calibration (Remark 3.4; constants from the proof of Thm. B.1)."""
        s = self.setting
        return amp.thm32_local_budget(s.epsilon, s.delta, s.B)

    def _conditions(self) -> list[tuple[str, bool]]:
        s = self.setting
        eps0, _ = amp.thm32_local_budget(s.epsilon, s.delta, s.B)
        return [
            (
                "Thm. 3.2 range epsilon < sqrt(ln(2/delta)/B)",
                s.epsilon < amp.thm32_epsilon_range(s.delta, s.B),
            ),
            (
                "Lemma B.4 condition eps_0 <= ln(B/(16 ln(4/delta)))",
                amp.fmt20_condition_holds(eps0, s.B, s.delta / 2.0),
            ),
        ]


class SDPAmpRU(SDPAmp):
    """SDP-Amp for returning users (Thm. 4.2(i) = Thm. E.3).

    Per-batch budget ``(epsilon_m, delta_m)`` by advanced composition over ``M = T/B`` batches.
    Option ``sigma_form``: ``substituted`` (theory default, docs/papers/cz22.md) or ``stated``.
    """

    #: Returning users: the paper states no local level for one batch's messages.
    stated_local_level = None

    algorithm = "sdp_amp_ru"
    label = "LinUCB-SDP-Amp (returning users)"
    options = {"sigma_form": "substituted"}

    def _per_user_std(self) -> float:
        s = self.setting
        if self.calibration == "experiment":
            eps_m, delta_m = amp_ru_batch_budget(s.epsilon, s.delta, s.T // s.B)
            return s_amp_experiment(eps_m, delta_m, s.B)
        form = self.opts["sigma_form"]
        if form == "substituted":
            return sigma_amp_ru_theory(s.epsilon, s.delta, s.B, s.T)
        if form == "stated":
            return sigma_amp_ru_stated(s.epsilon, s.delta, s.B, s.T)
        raise ValueError(f"sdp_amp_ru: sigma_form must be 'substituted' or 'stated', got {form!r}")

    def _conditions(self) -> list[tuple[str, bool]]:
        s = self.setting
        eps_m, delta_m = amp_ru_batch_budget(s.epsilon, s.delta, s.T // s.B)
        eps0 = eps_m * math.sqrt(s.B) / math.sqrt(math.log(2.0 / delta_m))
        return [
            (
                "Thm. E.3 range epsilon <= (2/B) ln(2/delta) sqrt(2T)",
                s.epsilon <= (2.0 / s.B) * math.log(2.0 / s.delta) * math.sqrt(2.0 * s.T),
            ),
            ("Lemma B.4 condition per batch", amp.fmt20_condition_holds(eps0, s.B, delta_m / 2.0)),
        ]
