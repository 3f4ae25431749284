"""Policies on the P_Vec bit-sum protocol (CZ22 Sec. 3.3, App. C): ``sdp_vec``, ``sdp_vec_ru``."""

from __future__ import annotations

import math

from ..mechanisms import vec as pvec
from ..mechanisms.gaussian import amp_ru_batch_budget
from .base import Policy
from .confidence import TheoryRegularizer


class SDPVec(Policy):
    """LinUCB-SDP-Vec: Algorithm 1 with P_Vec, statistics and model updated once per batch.

    experiment: the script's P_Vec (real ``g`` and ``b``, ``b`` scaled by option ``vec_scale``,
    range ``Delta = L``), ``Gamma = (1/4)(ln(d/delta)/(epsilon sqrt(B))) sqrt(n d)``,
    ``lambda = 2 Gamma``;
    theory: Thm. C.1 (integer ``g, b``, ``Delta = 1``) with the explicit ``lambda`` and radius.

    Option ``target`` (theory only): ``utility`` (default) calibrates P_Vec to the batch, Thm.
    C.1 at batch size ``B`` (Cor. C.2's "utility-targeted" form); ``privacy`` calibrates one
    user's bits to ``(epsilon, delta)``-LDP, Cor. C.3's "privacy-targeted" form
    (:func:`dpbandits.mechanisms.vec.vec_params_local`), which holds for every ``B``.
    """

    release = "cz22"

    algorithm = "sdp_vec"
    label = "LinUCB-SDP-Vec"
    engine = "vec"
    #: ``p_scale``: P_Vec's binomial noise scale (:mod:`dpbandits.mechanisms.vec`; 1 = the
    #: paper's ``p = 1/4``), set below 1 only by a matched calibration.
    options = {"vec_scale": 1.0, "p_scale": 1.0, "target": "utility"}
    noise_knob = "p_scale"
    #: Values of the option ``target``: Cor. C.2's and Cor. C.3's calibrations.
    TARGETS = ("utility", "privacy")

    def _target(self) -> str:
        target = self.opts.get("target", "utility")
        if target not in self.TARGETS:
            raise ValueError(
                f"{self.algorithm}: target must be one of {', '.join(self.TARGETS)}, got {target!r}"
            )
        if target == "privacy" and self.calibration != "theory":
            raise ValueError(
                f"{self.algorithm}: target 'privacy' (Cor. C.3) is a theory calibration; allowed "
                f"with calibration theory only, got {self.calibration!r}"
            )
        return target

    def _budget(self) -> tuple[float, float]:
        return self.setting.epsilon, self.setting.delta

    def _params(self) -> pvec.VecParams:
        s = self.setting
        eps, delta = self._budget()
        target = self._target()
        if self.calibration == "experiment":
            return pvec.vec_params_experiment(
                eps,
                delta,
                s.B,
                s.d,
                float(self.opts["vec_scale"]),
                truncate_b=self.quirks.truncate_b,
                p_scale=float(self.opts["p_scale"]),
            )
        if target == "privacy":
            return pvec.vec_params_local(eps, delta, s.d, p_scale=float(self.opts["p_scale"]))
        return pvec.vec_params_theory(eps, delta, s.B, s.d, p_scale=float(self.opts["p_scale"]))

    def _calibrate(self) -> None:
        s = self.setting
        self.period = s.B
        self.scheme = "vec"
        self.vec = self._params()
        pvec.check_simulable(self.vec, self.period)
        if self.calibration == "experiment":
            eps, delta = self._budget()
            self.Gamma = (
                0.25
                * (math.log(s.d / delta) / (eps * math.sqrt(s.B)))
                * math.sqrt(s.T)
                * math.sqrt(s.d)
            )
            self.lam = 2.0 * self.Gamma
            self.consts = {"Gamma": self.Gamma}
        else:
            sigma_tilde = math.sqrt(s.T * (1.0 + self.vec.b)) / (2.0 * self.vec.g)
            self.reg = TheoryRegularizer(sigma_tilde, s.d, s.T // s.B, 1.0 / s.T)
            self.lam = self.reg.lam
            self.consts = {"sigma_tilde": sigma_tilde, "Sigma_N": self.reg.Sigma_N}
        self.consts.update(
            {
                "g": self.vec.g,
                "b": self.vec.b,
                "p": self.vec.p,
                "b_trials": self.vec.b_trials,
                "b_debias": self.vec.b_debias,
            }
        )

    def cumulative_noise_std(self, L: float) -> float:
        """Binomial noise of one analyzed entry, accumulated over all batches."""
        per_batch = self.vec.noise_std_per_batch(self.period, self.encoding_range(L))
        return per_batch * math.sqrt(self.n_batches)

    def stated_local_level(self) -> tuple[float, float]:
        """The local ``(epsilon_0, delta_0)`` CZ22 states for one user's messages: under Thm.
        C.1's calibration (Remark 3.7; the proof of Cor. C.2 compares ``b`` with ``B = 1``), or
        ``(epsilon, delta)`` itself under Cor. C.3's (option ``target: privacy``)."""
        s = self.setting
        if self._target() == "privacy":
            return s.epsilon, s.delta
        return pvec.corC2_local_budget(s.epsilon, s.delta, s.B)

    def encoding_range(self, L: float) -> float:
        """``Delta`` of the encoding: the instance's max arm norm (script) or 1 (theory)."""
        return float(L) if self.calibration == "experiment" else 1.0

    def _conditions(self) -> list[tuple[str, bool]]:
        s = self.setting
        if self._target() == "privacy":
            return [
                ("Cor. C.3 range epsilon_0 <= 15", s.epsilon <= 15),
                ("Cor. C.3 range delta_0 < 1/2", s.delta < 0.5),
                ("Cor. C.3 needs integer b", float(self.vec.b).is_integer()),
            ]
        return [
            ("Thm. 3.5 range epsilon <= 15", s.epsilon <= 15),
            ("Thm. 3.5 range delta < 1/2", s.delta < 0.5),
            ("Thm. 3.5 needs integer b", float(self.vec.b).is_integer()),
        ]


class SDPVecRU(SDPVec):
    """SDP-Vec for returning users (Thm. 4.2(ii) = Thm. E.5)."""

    #: Returning users: the paper states no local level for one batch's messages.
    stated_local_level = None
    #: Thm. E.5's per-batch budget only: no privacy-targeted form.
    options = {"vec_scale": 1.0, "p_scale": 1.0}
    TARGETS = ("utility",)

    algorithm = "sdp_vec_ru"
    label = "LinUCB-SDP-Vec (returning users)"

    def _budget(self) -> tuple[float, float]:
        s = self.setting
        return amp_ru_batch_budget(s.epsilon, s.delta, s.T // s.B)

    def _params(self) -> pvec.VecParams:
        s = self.setting
        if self.calibration == "experiment":
            return pvec.vec_params_ru_experiment(
                s.epsilon,
                s.delta,
                s.B,
                s.d,
                s.T,
                float(self.opts["vec_scale"]),
                self.quirks.truncate_b,
                float(self.opts["p_scale"]),
            )
        return pvec.vec_params_ru_theory(
            s.epsilon, s.delta, s.B, s.d, s.T, float(self.opts["p_scale"])
        )
