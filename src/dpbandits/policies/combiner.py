"""Algorithm 2 (Private Bandit Combiner) and Algorithm 7 (doubling-trick OnlineUCB) of olucb
(Sec. 4; the project's readings of both: docs/papers/olucb.md).

**Algorithm 7** (``onlineucb_doubling``, body reconstructed): OnlineUCB restarted at
local times ``1, 2, 4, ...``; epoch ``m`` has horizon ``H_m = 2^m``, threshold
``lambda_bar_m = H_m^{-k}`` (``k = 1/8``), ``Delta_m^2 = lambda_bar_m`` if
``lambda_min <= lambda_bar_m`` else 0, failure probability ``beta_m = beta/2^{m+1}``, and its own
``G_m``, Maler and radius, all computed by :class:`~dpbandits.policies.onlineucb.OnlineUCB` at
``(H_m, beta_m, lambda_bar_m)``.

**Algorithm 2** (``combiner``, Sec. 4): base 1 is Algorithm 7 with
``lambda_min = T^{-1/8}``; bases ``i = 2..M`` are OnlineUCB with ``lambda_min = lambda_i =
2^{i-1}/T^{1/8}`` and ``lambda_bar = T^{-1/8}`` (so ``Delta^2 = 0``), ``M = 1 + ceil(log2(T)/8)``
(M not fixed by the paper). Each round the combiner plays the active base with the largest index
``U_i = mu_hat_i + min{1, (C_i n^{alpha_i} + w(n))/n} - R_i/T`` (``U_i = 1 - R_i/T`` before its
first play), feeds it the privatized reward and eliminates it when its deviation sum reaches
``C_i n^{alpha_i} + w(n)``; ``w(n) = p sqrt(n (1 + sigma^2) log(T^3 M max{1, log n}
(1 + sigma^2)/beta))``. Constants ``eta_i, C_i, alpha_i, R_i`` of Theorem 4.1 with ``P = P' = 1``
and ``p = 3`` (left open by the paper).

**Target cap** (option ``target_cap``, default None: Theorem 4.1's ``R_i`` as they are). At every
horizon simulated here Theorem 4.1 gives ``R_i/T > 1`` for every base (at ``T = 20000``,
``epsilon = 1``: 36.9, 6.1, 3.2), and the offsets differ by more than the index's data part
``mu_hat_i + min{1, .}`` can move (at most :data:`INDEX_DATA_SPAN`): the constants, not the
rewards, pick the base (:func:`dominated_bases`; ``consts["selection_degenerate"]``). With
``target_cap = c`` the targets are ``min(R_i, c T)``: a target at or above ``c T`` (``c = 1``:
the largest per-round regret of both instance families, whose means lie in an interval of length
1) bounds nothing, so capping it keeps every target a valid regret bound, and bases whose
targets are all vacuous get equal offsets, leaving the choice to the index's data part. Targets
below ``c T`` are Theorem 4.1's unchanged (docs/papers/olucb.md).

Both policies expose per-play tables of every base (radius, ``G``, ``Delta^2``, ...), indexed by
the base's own play count, which the engine and the reference loop read.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from .base import Policy, Setting
from .onlineucb import LEARNERS, OnlineUCB, onlineucb_sigma

#: Power constant ``k`` of Algorithm 7 as base 1 of the combiner (Algorithm 2).
K_POWER = 1.0 / 8.0
RADIUS_MODES = ("scaled", "theory")  # the oracle radius needs theta*; not offered here
#: Range of the data part ``mu_hat_i + min{1, (C_i n^alpha_i + w(n))/n}`` of Algorithm 2's index
#: for rewards whose means lie in an interval of length 1: 1 for the mean, 1 for the bonus.
INDEX_DATA_SPAN = 2.0


def kappa(alpha: float) -> float:
    """``kappa(alpha) = (1-a)^{(1-a)/a} (1+a)^{1/a} / a^{(1-a)/a}`` (Theorem 4.1)."""
    e = (1.0 - alpha) / alpha
    return (1.0 - alpha) ** e * (1.0 + alpha) ** (1.0 / alpha) / alpha**e


def n_bases(T: int) -> int:
    """``M = 1 + ceil(log2(T)/8)`` (M not fixed by the paper): 3 at T = 20000."""
    return 1 + math.ceil(math.log2(T) / 8.0)


def base_lambdas(T: int) -> np.ndarray:
    """``lambda_i = 2^{i-1}/T^{1/8}`` of bases ``i = 2..M`` (0.29, 0.58, 1.16 at T = 20000)."""
    return np.array([2.0 ** (i - 1) / T**K_POWER for i in range(2, n_bases(T) + 1)])


def dominated_bases(R_over_T: np.ndarray, span: float = INDEX_DATA_SPAN) -> np.ndarray:
    """Bases whose offset ``R_i/T`` exceeds the smallest by more than ``span``.

    The data part of their index can never catch up with the base of the smallest offset (up to
    the privacy noise of the first few means): the constants exclude them. When all but one
    base are dominated, selection is fixed by the constants (degenerate).
    """
    r = np.asarray(R_over_T, dtype=float)
    return r - r.min() > span


def epoch_of(tau: int) -> int:
    """Epoch ``m`` of local time ``tau >= 1`` (epoch m covers ``[2^m, 2^{m+1} - 1]``)."""
    return int(tau).bit_length() - 1


@dataclass(frozen=True)
class BaseTables:
    """Per-play constants of one base, indexed by its play count ``n = 0 .. T - 1``.

    ``restart[n]``: the base starts a fresh Algorithm 1 at play ``n`` (state reset);
    ``local[n]``: the play's 1-based time within its epoch; ``horizon[n]``: the epoch's horizon
    (Maler's grid); ``radius``, ``G``, ``Delta2``, ``Sigma``, ``mu_hat``: the epoch's constants.
    """

    radius: np.ndarray
    G: np.ndarray
    Delta2: np.ndarray
    Sigma: np.ndarray
    mu_hat: np.ndarray
    restart: np.ndarray
    local: np.ndarray
    horizon: np.ndarray


def _algorithm1(setting: Setting, opts: dict, **over) -> OnlineUCB:
    keep = ("learner", "ogd_step", "radius_mode", "c_beta", "D", "C", "R", "sigma_includes_delta")
    return OnlineUCB(setting, "experiment", None, **{k: opts[k] for k in keep}, **over)


def fixed_tables(base: OnlineUCB, T: int) -> BaseTables:
    """Tables of a base that runs one Algorithm 1 over the whole horizon."""
    full = np.ones(T)
    restart = np.zeros(T, dtype=bool)
    restart[0] = True
    return BaseTables(
        radius=base.radius(1.0).astype(float),
        G=full * base.G,
        Delta2=full * base.Delta2,
        Sigma=full * base.Sigma,
        mu_hat=full * base.mu_hat,
        restart=restart,
        local=np.arange(1, T + 1, dtype=np.int64),
        horizon=np.full(T, T, dtype=np.int64),
    )


def doubling_epochs(
    setting: Setting, opts: dict, lambda_min: float, k: float, beta: float
) -> list[OnlineUCB]:
    """The Algorithm 1 of each epoch of Algorithm 7 (reconstructed): epoch ``m`` has horizon
    ``2^m`` and failure probability ``beta / 2^(m + 1)``. Cheap: no per-play array."""
    return [
        _algorithm1(
            Setting(T=2**m, d=setting.d, epsilon=setting.epsilon, delta=setting.delta),
            opts,
            lambda_min=lambda_min,
            lambda_bar_power=k,
            beta_fail=beta / 2 ** (m + 1),
        )
        for m in range(epoch_of(setting.T) + 1)
    ]


def doubling_tables(T: int, epochs: list[OnlineUCB]) -> BaseTables:
    """Per-play tables of Algorithm 7 over ``T`` plays from its epochs (:func:`doubling_epochs`)."""
    t = {name: np.zeros(T) for name in ("radius", "G", "Delta2", "Sigma", "mu_hat")}
    restart = np.zeros(T, dtype=bool)
    local = np.zeros(T, dtype=np.int64)
    horizon = np.zeros(T, dtype=np.int64)
    for m, alg in enumerate(epochs):
        H = 2**m
        lo, hi = H - 1, min(2 * H - 1, T)  # 0-based plays of this epoch
        t["radius"][lo:hi] = alg.radius(1.0)[: hi - lo]
        for name in ("G", "Delta2", "Sigma", "mu_hat"):
            t[name][lo:hi] = getattr(alg, name)
        restart[lo] = True
        local[lo:hi] = np.arange(1, hi - lo + 1)
        horizon[lo:hi] = H
    return BaseTables(**t, restart=restart, local=local, horizon=horizon)


def stacked_tables(policy: Policy) -> dict[str, np.ndarray]:
    """Per-play tables of every base, ``name -> (M, T)`` (:class:`BaseTables` fields).

    A combiner or Algorithm 7 has them already; plain OnlineUCB is one base that runs one
    Algorithm 1 over the horizon (:func:`fixed_tables`).
    """
    if isinstance(policy, _MultiBase):
        return {name: getattr(policy, f"tab_{name}") for name in BaseTables.__dataclass_fields__}
    if isinstance(policy, OnlineUCB):
        tab = fixed_tables(policy, policy.setting.T)
        return {
            name: np.ascontiguousarray(getattr(tab, name)[None])
            for name in BaseTables.__dataclass_fields__
        }
    raise ValueError(f"{policy.algorithm}: not an OnlineUCB-type policy")


class _MultiBase(Policy):
    """Shared set-up of the two policies: options, noise scheme and the stacked tables."""

    engine = "combiner"
    calibrations = ("experiment",)
    scalable = False
    release = "olucb"
    options = {
        "learner": "maler",
        "ogd_step": "convex",
        "radius_mode": "scaled",
        "c_beta": 1.0,
        "beta_fail": 0.1,
        "D": 1.0,
        "C": 1.0,
        "R": 0.5,
        "sigma_includes_delta": False,
    }

    def _check(self) -> None:
        o = self.opts
        if o["learner"] not in LEARNERS:
            raise ValueError(f"{self.algorithm}: learner must be one of {LEARNERS}")
        if o["radius_mode"] not in RADIUS_MODES:
            raise ValueError(
                f"{self.algorithm}: radius_mode must be one of {RADIUS_MODES}, "
                f"got {o['radius_mode']!r}"
            )
        self.period = 1
        self.scheme = "combiner"
        self.lam = 1.0
        self.sigma = onlineucb_sigma(self.setting.epsilon, self.setting.delta)

    def _stack(self, n_bases: int, build) -> None:
        """Record how to build the per-play tables of the ``n_bases`` bases: ``build()`` returns
        a list of :class:`BaseTables`. They are built on first use (``tables``, ``tab_*``), so
        constructing a policy (the workflow validates every cell while it parses) costs no
        memory or time proportional to T."""
        self._n_bases, self._build_tables = n_bases, build

    @functools.cached_property
    def tables(self) -> list[BaseTables]:
        """Per-play tables of every base (built on first use)."""
        tables = self._build_tables()
        assert len(tables) == self._n_bases
        return tables

    @functools.cached_property
    def _stacked(self) -> dict[str, np.ndarray]:
        return {
            name: np.ascontiguousarray(np.stack([getattr(b, name) for b in self.tables]))
            for name in BaseTables.__dataclass_fields__
        }

    @property
    def n_bases(self) -> int:
        """Number of base learners."""
        return self._n_bases

    @property
    def table_bases(self) -> int:
        """Every base's per-play tables are held (and stacked)."""
        return self._n_bases

    @classmethod
    def runs_on(cls, calibration: str) -> frozenset[str]:
        """Fixed arm sets and fresh decision sets."""
        return frozenset({"fixed", "fresh"})

    def radius(self, L: float) -> np.ndarray:
        """Radius of base 1's plays (the per-base tables are in ``tab_radius``)."""
        return self.tab_radius[0]


for _name in BaseTables.__dataclass_fields__:  # tab_radius, tab_G, ...: (M, T), on first use
    setattr(_MultiBase, f"tab_{_name}", property(lambda self, n=_name: self._stacked[n]))


class OnlineUCBDoubling(_MultiBase):
    """Algorithm 7 alone: OnlineUCB with doubling restarts (module docstring).

    Options as :class:`OnlineUCB`, plus ``lambda_min`` (default ``T^{-1/8}``, as base 1 of the
    combiner) and ``k_power`` (1/8).
    """

    algorithm = "onlineucb_doubling"
    label = "OnlineUCB-doubling"
    options = {**_MultiBase.options, "lambda_min": None, "k_power": K_POWER}

    def _calibrate(self) -> None:
        self._check()
        s, o = self.setting, self.opts
        lam = s.T**-K_POWER if o["lambda_min"] is None else float(o["lambda_min"])
        self.epochs = doubling_epochs(s, o, lam, float(o["k_power"]), float(o["beta_fail"]))
        self._stack(1, lambda: [doubling_tables(s.T, self.epochs)])
        self.consts = {
            "sigma": self.sigma,
            "lambda_min": lam,
            "n_epochs": len(self.epochs),
            "G_last_epoch": self.epochs[-1].G,
        }


class Combiner(_MultiBase):
    """Algorithm 2 with Algorithm 7 as base 1 (module docstring).

    Options as :class:`OnlineUCB` (``radius_mode`` scaled or theory), plus ``p_index`` (3, the
    universal constant of the index and the test), ``P_const`` (1, ``P = P'`` of Thm 4.1) and
    ``target_cap`` (None: Theorem 4.1's targets; ``c > 0``: targets ``min(R_i, c T)``, module
    docstring).

    ``R_paper`` holds Theorem 4.1's targets, ``R`` the ones the index and the engines use.
    """

    algorithm = "combiner"
    label = "Combiner"
    options = {**_MultiBase.options, "p_index": 3.0, "P_const": 1.0, "target_cap": None}

    def _calibrate(self) -> None:
        self._check()
        s, o = self.setting, self.opts
        T, d, eps = s.T, s.d, s.epsilon
        lam1 = T**-K_POWER
        self.epochs = doubling_epochs(s, o, lam1, K_POWER, float(o["beta_fail"]))
        self.lambdas = base_lambdas(T)
        bases = [
            _algorithm1(s, o, lambda_min=float(lam), lambda_bar_power=K_POWER)
            for lam in self.lambdas
        ]
        self._stack(
            1 + len(bases),
            lambda: [doubling_tables(T, self.epochs)] + [fixed_tables(b, T) for b in bases],
        )
        M = self.n_bases
        P = float(o["P_const"])
        log32 = math.log(T) ** 1.5
        et = eps * T**K_POWER
        # Theorem 4.1: base 1, then bases 2..M
        eta = [et / (math.sqrt(d * T) * (P * log32 * et + 1.0))]
        C = [P * log32 * math.sqrt(d) * (et + 1.0) / et]
        alpha = [0.75]
        for lam in self.lambdas:
            eta.append(eps / (P * log32 * math.sqrt(d * T)))
            C.append(P * log32 * math.sqrt(d) / (eps * lam))
            alpha.append(0.5)
        self.eta, self.C, self.alpha = np.array(eta), np.array(C), np.array(alpha)
        beta = float(o["beta_fail"])
        inv_eta = 1.0 / self.eta
        self.R_paper = np.array([self._target_regret(i, inv_eta) for i in range(M)])
        cap = o["target_cap"]
        if cap is None:
            self.R = self.R_paper.copy()
        else:
            if not float(cap) > 0:
                raise ValueError(f"combiner: target_cap must be > 0 or null, got {cap!r}")
            self.R = np.minimum(self.R_paper, float(cap) * T)
        # log(T^3 M (1 + sigma^2)/beta): the part of w(n)'s logarithm that does not depend on n
        self.log_const = math.log(T**3 * M * (1.0 + self.sigma**2) / beta)
        dominated = dominated_bases(self.R / T)
        self.consts = {
            "sigma": self.sigma,
            "n_bases": M,
            **{f"lambda_{i + 2}": float(v) for i, v in enumerate(self.lambdas)},
            **{f"R_{i + 1}/T": float(r / T) for i, r in enumerate(self.R)},
            **{f"R_{i + 1}/T_thm": float(r / T) for i, r in enumerate(self.R_paper)},
            "dominated_bases": int(dominated.sum()),
            "selection_degenerate": float(dominated.sum() == M - 1),
        }

    def _target_regret(self, i: int, inv_eta: np.ndarray) -> float:
        """``R_i`` of Theorem 4.1 (its ``N`` read as ``M``)."""
        T, M, beta = self.setting.T, len(self.C), float(self.opts["beta_fail"])
        a, c, e = self.alpha[i], self.C[i], self.eta[i]
        return float(
            c * T**a
            + kappa(a) * c ** (1 / a) * T * e ** ((1 - a) / a)
            + 288.0 * math.log(T**3 * M / beta) * T * e
            + (inv_eta.sum() - inv_eta[i])
        )

    def index(self, i: int, n: int, mean: float) -> float:
        """``U(i, t-1)`` of Algorithm 2 for base ``i`` after ``n`` plays with running mean ``mean``
        (``1 - R_i/T`` before the first play, where the paper's ``min{1, ./0}`` is 1)."""
        T = self.setting.T
        if n == 0:
            return 1.0 - self.R[i] / T
        bonus = (self.C[i] * n ** self.alpha[i] + float(self.width(n))) / n
        return mean + min(1.0, bonus) - self.R[i] / T

    def eliminates(self, i: int, n: int, deviation: float) -> bool:
        """The test of step 5: ``deviation >= C_i n^{alpha_i} + w(n)``."""
        return deviation >= self.C[i] * n ** self.alpha[i] + float(self.width(n))

    def width(self, n: np.ndarray | float) -> np.ndarray:
        """``w(n)`` of the index and the elimination test (Algorithm 2), for ``n >= 1``."""
        s, o = self.setting, self.opts
        n = np.asarray(n, dtype=float)
        v = 1.0 + self.sigma**2
        logn = np.maximum(1.0, np.log(n))
        inner = s.T**3 * self.n_bases * logn * v / float(o["beta_fail"])
        return float(o["p_index"]) * np.sqrt(n * v * np.log(inner))
