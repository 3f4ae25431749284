"""DP-DPE (dpdpe, Algorithm 1) and DP-PE (Appendix C, Algorithm 3): phased elimination with
G-optimal designs and a private aggregate per phase (docs/papers/dpdpe.md).

Calibration functions (one source of truth for the simulations and Tables 3-4):

* central (Thm 4.2): ``sigma_nc = 2B sqrt(2 s ln(1.25/delta)) / (eps n)`` — the Gaussian mechanism
  on the client average with l2-sensitivity ``2B sqrt(s)/n`` (Eq. 19);
* local (Thm 4.4): ``sigma_nl = 2B sqrt(2 s ln(1.25/delta)) / eps`` per client;
* shuffle (Thm 4.6): Algorithm 2 (:mod:`dpbandits.mechanisms.shuffle_sum`), ``Delta2 = B sqrt(s)``;
* width (Eq. 3, reconstructed from App. B.1): ``W_l = sqrt(4d log(1/beta)/(h_l n_l))
  + sqrt(2 sigma^2 log(1/beta)/n_l) + sqrt(2 sigma_n^2 log(1/beta))`` with ``sigma_n`` of Table 3
  (configuration F, :func:`dpdpe_sigma_n`) or the exact projected variance (configuration T,
  computed by the engine from :meth:`DPDPE.tau2`);
* DP-PE (Table 4): ``sigma_nc = sigma_nl = 2B sqrt(2 ln(1.25/delta))/eps``; widths
  ``2 d sigma_nc sqrt(s)/h``, ``2 d sigma_nl sqrt(2 s/h)``, ``2 d sigma_ns sqrt(s)/h``
  (:func:`pe_sigma_n`); Algorithm 4 for the shuffle model.
"""

from __future__ import annotations

import math

from dpbandits.g_optimal import support_cap
from dpbandits.runtime.job_memory import PHASED_BASE_MB

from ..mechanisms.gaussian import classic_gaussian_sigma
from ..mechanisms.shuffle_sum import (
    hoeffding_proxy,
    paper_variance_bound,
    scalar_params,
    vector_params,
)
from .base import Policy

PRIVATIZERS = ("none", "central", "local", "shuffle")
#: Width configurations (docs/papers/dpdpe.md): faithful (Table 3's sigma_n), tight (exact projected
#: variance of the privacy noise), and the shuffle-only diagnostic s1 (tight with eps_hat = eps in
#: Algorithm 2: NOT private as analysed).
WIDTHS = ("faithful", "tight", "s1")


# -- calibration functions (Tables 3 and 4) ------------------------------------------------------
def sigma_nc(s: int, n: int, eps: float, delta: float, B: float) -> float:
    """Central noise of DP-DPE: ``2B sqrt(2 s ln(1.25/delta)) / (eps n)`` (Thm 4.2, Eq. 18)."""
    return classic_gaussian_sigma(2.0 * B * math.sqrt(s) / n, eps, delta)


def sigma_nl(s: int, eps: float, delta: float, B: float) -> float:
    """Local noise of DP-DPE, per client: ``2B sqrt(2 s ln(1.25/delta)) / eps`` (Thm 4.4)."""
    return classic_gaussian_sigma(2.0 * B * math.sqrt(s), eps, delta)


def sigma_ns(s: int, n: int, eps: float, delta: float, B: float, eps_hat=None) -> float:
    """The paper's bound on Algorithm 2's output std: ``sqrt(360) Delta2 sqrt(ln(4s/delta)) /
    (n eps_hat)`` with ``Delta2 = B sqrt(s)`` (last line of the proof of Thm A.2)."""
    return math.sqrt(
        paper_variance_bound(vector_params(eps, delta, n, s, B * math.sqrt(s), eps_hat))
    )


def dpdpe_sigma_n(privatizer: str, s: int, n: int, d: int, eps, delta, B: float) -> float:
    """``sigma_n`` of Table 3 (configuration F): 0, ``2 sigma_nc sqrt(Sd)``,
    ``2 sigma_nl sqrt(Sd/n)``, ``2 sigma_ns sqrt(Sd)`` with ``S = 4 d ln ln d + 16``."""
    S = support_cap(d)
    if privatizer == "none":
        return 0.0
    if privatizer == "central":
        return 2.0 * sigma_nc(s, n, eps, delta, B) * math.sqrt(S * d)
    if privatizer == "local":
        return 2.0 * sigma_nl(s, eps, delta, B) * math.sqrt(S * d / n)
    if privatizer == "shuffle":
        return 2.0 * sigma_ns(s, n, eps, delta, B) * math.sqrt(S * d)
    raise ValueError(f"unknown privatizer {privatizer!r}; allowed: {PRIVATIZERS}")


def dpdpe_width(h: float, n: int, d: int, sigma: float, sigma_n: float, log_inv_beta: float):
    """The three terms of ``W_l`` (Eq. 3, reconstructed): action, client, privacy."""
    return (
        math.sqrt(4.0 * d * log_inv_beta / (h * n)),
        math.sqrt(2.0 * sigma**2 * log_inv_beta / n),
        math.sqrt(2.0 * sigma_n**2 * log_inv_beta),
    )


def pe_sigma_noise(eps: float, delta: float, B: float) -> float:
    """DP-PE's central and local noise: ``2B sqrt(2 ln(1.25/delta))/eps`` (Thms C.1, C.3)."""
    return classic_gaussian_sigma(2.0 * B, eps, delta)


def pe_sigma_ns(counts, eps: float, delta: float, B: float, p_scale: float = 1.0) -> float:
    """Algorithm 4's Hoeffding std for the largest batch of a phase (docs/papers/dpdpe.md)."""
    return max(
        math.sqrt(hoeffding_proxy(scalar_params(eps, delta, int(c), B, p_scale), average=False))
        for c in counts
    )


def pe_sigma_n(
    privatizer: str, s: int, h: float, d: int, eps, delta, B: float, counts=(), p_scale=1.0
):
    """``sigma_n`` of Table 4: ``2 d sigma_nc sqrt(s)/h``, ``2 d sigma_nl sqrt(2 s/h)``,
    ``2 d sigma_ns sqrt(s)/h`` (0 for non-private PE; ``p_scale``: the shuffle protocol's noise
    scale, :mod:`dpbandits.mechanisms.shuffle_sum`)."""
    if privatizer == "none":
        return 0.0
    if privatizer == "central":
        return 2.0 * d * pe_sigma_noise(eps, delta, B) * math.sqrt(s) / h
    if privatizer == "local":
        return 2.0 * d * pe_sigma_noise(eps, delta, B) * math.sqrt(2.0 * s / h)
    if privatizer == "shuffle":
        return 2.0 * d * pe_sigma_ns(counts, eps, delta, B, p_scale) * math.sqrt(s) / h
    raise ValueError(f"unknown privatizer {privatizer!r}; allowed: {PRIVATIZERS}")


class _Phased(Policy):
    """Shared set-up of the phased-elimination policies (engine ``phased``)."""

    engine = "phased"
    compiled = False
    phase_level = True
    release = "dpdpe"
    base_mb = PHASED_BASE_MB
    calibrations = ("experiment",)
    scalable = False
    privatizer = "none"

    def _check_common(self) -> None:
        s, o = self.setting, self.opts
        if s.K is None:
            raise ValueError(f"{self.algorithm}: the number of actions K is needed (beta = 1/(kT))")
        if not float(o["reward_bound"]) > 0:
            raise ValueError(f"{self.algorithm}: reward_bound must be > 0")
        if not 0 < float(o["p_scale"]) <= 1 or (o["p_scale"] != 1 and self.privatizer != "shuffle"):
            raise ValueError(
                f"{self.algorithm}: p_scale must be in (0, 1], and 1 unless the privatizer is the "
                f"shuffle protocol; got {o['p_scale']!r}"
            )
        self.period = 1
        self.scheme = "phased"
        self.beta = 1.0 / (s.K * s.T) if o["beta"] is None else float(o["beta"])
        if not 0 < self.beta < 1:
            raise ValueError(f"{self.algorithm}: beta must be in (0, 1), got {self.beta}")
        self.log_inv_beta = math.log(1.0 / self.beta)

    def radius(self, L: float):  # pragma: no cover - not a UCB policy
        raise NotImplementedError(f"{self.algorithm} has no confidence radius per round")

    def trial_bytes(self, K: int) -> int:
        """Each phase's rewards are drawn as it goes: a trial holds its actions, design and
        estimates (no ``T``-long array)."""
        d = self.setting.d
        return 32 * (K * d + d * d + K)

    def constants(self, L: float | None = None) -> dict:
        """Named constants (for metadata and tables); the widths are in each run's phase log."""
        return dict(self.consts)


class DPDPE(_Phased):
    """Algorithm 1 of dpdpe (DP-DPE) with one PRIVATIZER (those of Section 4).

    Options: ``alpha`` (0.8), ``sigma`` (client heterogeneity, 0.1; also the environment's),
    ``reward_bound`` (B, 1), ``beta`` (None: ``1/(kT)``), ``population`` (1e6), ``h1`` (2),
    ``width`` (faithful | tight | s1), ``U`` (DPE-FixedU only: clients per phase), ``p_scale``
    (shuffle only: Algorithm 2's binomial noise scale, 1; below 1 only in a matched calibration).
    """

    algorithm = "dpe"
    label = "DPE"
    private = False
    options = {
        "alpha": 0.8,
        "sigma": 0.1,
        "reward_bound": 1.0,
        "beta": None,
        "population": 1_000_000,
        "h1": 2.0,
        "width": "faithful",
        "U": None,
        "p_scale": 1.0,
    }

    def _calibrate(self) -> None:
        self._check_common()
        o = self.opts
        if not 0 < float(o["alpha"]) < 1:
            raise ValueError(f"{self.algorithm}: alpha must be in (0, 1), got {o['alpha']}")
        if o["width"] not in WIDTHS:
            raise ValueError(f"{self.algorithm}: width must be one of {WIDTHS}, got {o['width']!r}")
        if o["width"] == "s1" and self.privatizer != "shuffle":
            raise ValueError(f"{self.algorithm}: width s1 is a shuffle-only diagnostic")
        if (o["U"] is not None) != (self.algorithm == "dpe_fixedu"):
            raise ValueError(f"{self.algorithm}: option U is for dpe_fixedu only (and required)")
        self.consts = {
            "alpha": float(o["alpha"]),
            "beta": self.beta,
            "S": support_cap(self.setting.d),
            "width": o["width"],
        }

    def unmet_statement_conditions(self) -> list[str]:
        """Under the S1 diagnostic (``eps_hat = eps``) Algorithm 2 is not run at Thm 4.6's
        calibration (``eps_hat = eps/(18 sqrt(ln(2/delta)))``): the theorem claims nothing."""
        unmet = super().unmet_statement_conditions()
        if self.opts["width"] == "s1":
            unmet.append("Thm 4.6's calibration eps_hat = eps/(18 sqrt(ln(2/delta))): S1 uses eps")
        return unmet

    def clients(self, phase: int) -> int:
        """``n_l = ceil(2^{alpha l})`` (Alg. 1 line 7, reconstructed), or ``U`` (DPE-FixedU)."""
        if self.opts["U"] is not None:
            return int(self.opts["U"])
        return math.ceil(2.0 ** (float(self.opts["alpha"]) * phase) - 1e-9)

    def sdp_params(self, n: int, s: int):
        """Algorithm 2's parameters for a phase (``eps_hat = eps`` under the s1 diagnostic)."""
        st = self.setting
        eps_hat = st.epsilon if self.opts["width"] == "s1" else None
        B = float(self.opts["reward_bound"])
        p_scale = float(self.opts["p_scale"])
        return vector_params(st.epsilon, st.delta, n, s, B * math.sqrt(s), eps_hat, p_scale)

    def tau2(self, n: int, s: int) -> float:
        """Per-coordinate variance of the privacy noise in ``y_hat`` (configuration T): central
        ``sigma_nc^2``, local ``sigma_nl^2/n``, shuffle the Hoeffding proxy of Algorithm 2."""
        st, B = self.setting, float(self.opts["reward_bound"])
        if self.privatizer == "central":
            return sigma_nc(s, n, st.epsilon, st.delta, B) ** 2
        if self.privatizer == "local":
            return sigma_nl(s, st.epsilon, st.delta, B) ** 2 / n
        if self.privatizer == "shuffle":
            return hoeffding_proxy(self.sdp_params(n, s))
        return 0.0

    def sigma_n(self, n: int, s: int) -> float:
        """Table 3's ``sigma_n`` (configuration F)."""
        st = self.setting
        B = float(self.opts["reward_bound"])
        return dpdpe_sigma_n(self.privatizer, s, n, st.d, st.epsilon, st.delta, B)


class DPEFixedU(DPDPE):
    """DPE with exactly ``U`` new clients per phase (Section 7; U: docs/papers/dpdpe.md)."""

    algorithm = "dpe_fixedu"
    label = "DPE-FixedU"


class CDPDPE(DPDPE):
    """DP-DPE in the central model (Gaussian mechanism on the client average)."""

    algorithm = "cdp_dpe"
    label = "CDP-DPE"
    private = True
    privatizer = "central"


class LDPDPE(DPDPE):
    """DP-DPE in the local model (Gaussian noise on every client's report)."""

    algorithm = "ldp_dpe"
    label = "LDP-DPE"
    private = True
    privatizer = "local"


class SDPDPE(DPDPE):
    """DP-DPE in the shuffle model (Algorithm 2)."""

    algorithm = "sdp_dpe"
    label = "SDP-DPE"
    private = True
    privatizer = "shuffle"
    noise_knob = "p_scale"


class DPPE(_Phased):
    """Algorithm 3 of dpdpe (DP-PE for standard linear bandits; Appendix C).

    Options: ``reward_bound`` (B, 1), ``beta`` (None: ``1/(kT)``), ``h1`` (None:
    ``S = 4 d ln ln d + 16``, Remark C.10), ``p_scale`` (shuffle only: Algorithm 4's binomial
    noise scale, 1; below 1 only in a matched calibration).
    """

    algorithm = "pe"
    label = "PE"
    private = False
    options = {"reward_bound": 1.0, "beta": None, "h1": None, "p_scale": 1.0}

    def _calibrate(self) -> None:
        self._check_common()
        self.h1 = support_cap(self.setting.d) if self.opts["h1"] is None else float(self.opts["h1"])
        self.consts = {"beta": self.beta, "h1": self.h1}

    def sigma_n(self, s: int, h: float, counts) -> float:
        """Table 4's ``sigma_n`` for a phase."""
        st = self.setting
        B = float(self.opts["reward_bound"])
        p_scale = float(self.opts["p_scale"])
        return pe_sigma_n(self.privatizer, s, h, st.d, st.epsilon, st.delta, B, counts, p_scale)


class CDPPE(DPPE):
    """DP-PE in the central model."""

    algorithm = "cdp_pe"
    label = "CDP-PE"
    private = True
    privatizer = "central"


class LDPPE(DPPE):
    """DP-PE in the local model."""

    algorithm = "ldp_pe"
    label = "LDP-PE"
    private = True
    privatizer = "local"


class SDPPE(DPPE):
    """DP-PE in the shuffle model (Algorithm 4)."""

    algorithm = "sdp_pe"
    label = "SDP-PE"
    private = True
    privatizer = "shuffle"
    noise_knob = "p_scale"


PHASED_POLICIES = (DPDPE, DPEFixedU, CDPDPE, LDPDPE, SDPDPE, DPPE, CDPPE, LDPPE, SDPPE)


def _dpdpe_sigma_at(privatizer: str, at) -> float:
    return dpdpe_sigma_n(privatizer, at["s"], at["n"], at["d"], at["epsilon"], at["delta"], at["B"])


def _pe_sigma_at(privatizer: str, at) -> float:
    counts = [math.ceil(at["h"] / at["s"])] * at["s"]
    return pe_sigma_n(
        privatizer, at["s"], at["h"], at["d"], at["epsilon"], at["delta"], at["B"], counts
    )


#: The calibration functions of Tables 3 and 4 by the name a claims registry's table gives
#: (``function``), each of ``(privatizer, point)``: the point names ``s``, ``d``, ``epsilon``,
#: ``delta``, ``B`` and ``n`` (Table 3) or ``h`` (Table 4, equal batches ``ceil(h/s)``).
TABLE_FUNCTIONS = {"dpdpe_sigma_n": _dpdpe_sigma_at, "pe_sigma_n": _pe_sigma_at}
