"""OnlineUCB: private (contextual) online LinUCB, Algorithm 1 of olucb.

Each user perturbs its played arm and reward with Gaussian noise (``x~ = x + zeta + eta_x``,
``y~ = y + eta_y``) and computes the clipped gradient
``g = 2 x~ (<x~, theta_t> - y~) - 2 Sigma theta_t`` of the bias-corrected loss at the online
learner's prediction ``theta_t``. The server feeds ``g`` to the learner (Maler or OGD) and
grows the confidence set of the online-to-confidence-set conversion: ``V~ += x~ x~^T``,
``u~ += <theta_t, x~> x~``, centre ``V~^{-1} u~``, radius ``beta_t``.

Constants (Algorithm 1's inputs, every one an option here; readings: docs/papers/olucb.md):
``sigma = 2 sqrt(2 ln(1.25/delta))/epsilon``; ``lambda_bar = T^{-1/4}`` (Corollary 3.6) and
``Delta^2 = lambda_bar`` if ``lambda_min <= lambda_bar`` else 0; ``G`` as reconstructed from
Algorithm 1; ``Sigma = sigma^2 I``; ``beta_t = c_beta (D^2 + M_t + K_t)`` with computable
surrogates of Lemmas 3.3 and 3.5 (``radius_mode``: ``scaled`` with a calibrated ``c_beta``,
``theory`` with ``c_beta = 1``, ``oracle``, a diagnostic, with the realized regret and distances).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..mechanisms.gaussian import classic_gaussian_sigma
from .base import Policy

LEARNERS = ("maler", "ogd")
RADIUS_MODES = ("scaled", "theory", "oracle")


def onlineucb_sigma(epsilon: float, delta: float) -> float:
    """``sigma = 2 sqrt(2 ln(1.25/delta)) / epsilon`` (olucb Alg. 1; sensitivity 2)."""
    return classic_gaussian_sigma(2.0, epsilon, delta)


def perturbation(lambda_min: float, lambda_bar: float) -> float:
    """``Delta^2``: ``lambda_bar`` if ``lambda_min <= lambda_bar`` else 0 (Algorithm 1)."""
    return lambda_bar if lambda_min <= lambda_bar else 0.0


def clipping_constant(
    sigma: float, Delta2: float, T: int, beta: float, D: float = 1.0, C: float = 1.0
) -> float:
    """``G`` of Algorithm 1, a lost "+" restored (docs/papers/olucb.md).

    ``2 sqrt(2 L)(2D sigma + 2 sigma + D Delta + Delta)
    + 2 L (2D Delta^2 + 4D Delta sigma + 2 Delta sigma + 2 Delta sigma + 2D sigma^2 + 2 sigma^2
    + D C sigma^2) + 2D + 2`` with ``L = ln(2T/beta)`` (the doubled ``2 Delta sigma`` as printed).
    """
    L = math.log(2.0 * T / beta)
    Delta = math.sqrt(Delta2)
    first = 2.0 * math.sqrt(2.0 * L) * (2 * D * sigma + 2 * sigma + D * Delta + Delta)
    second = (
        2.0
        * L
        * (
            2 * D * Delta2
            + 4 * D * Delta * sigma
            + 2 * Delta * sigma
            + 2 * Delta * sigma
            + 2 * D * sigma**2
            + 2 * sigma**2
            + D * C * sigma**2
        )
    )
    return first + second + 2 * D + 2


def corrected_loss(theta, x_tilde, y_tilde, Sigma: float) -> np.ndarray:
    """``l_t(theta) = (<x~, theta> - y~)^2 - Sigma ||theta||^2`` (Algorithm 1; Sigma = sigma^2).

    Broadcasts over leading axes of ``x_tilde`` (rows are rounds).
    """
    x_tilde, theta = np.asarray(x_tilde, float), np.asarray(theta, float)
    return (x_tilde @ theta - y_tilde) ** 2 - Sigma * (theta @ theta)


def loss_gradient(theta, x_tilde, y_tilde, Sigma: float) -> np.ndarray:
    """``g_t = 2 x~ (<x~, theta> - y~) - 2 Sigma theta``, the gradient of :func:`corrected_loss`
    (Algorithm 1, step 7); one row per row of ``x_tilde``."""
    x_tilde, theta = np.asarray(x_tilde, float), np.asarray(theta, float)
    resid = x_tilde @ theta - y_tilde
    return 2.0 * x_tilde * np.expand_dims(resid, -1) - 2.0 * Sigma * theta


def clip_gradient(g, G: float) -> np.ndarray:
    """``g min{1, G/||g||}`` row-wise (Algorithm 1, step 8; ``g = 0`` stays 0)."""
    g = np.asarray(g, float)
    norm = np.linalg.norm(g, axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(norm > G, G / norm, 1.0)
    return g * scale


def confidence_centre(x_tilde, predictions) -> np.ndarray:
    """``theta_hat = V~^{-1} u~`` with ``V~ = I + sum x~ x~^T``, ``u~ = sum <theta_s, x~_s> x~_s``
    (Lemma 3.3): the ridge regression of the learner's predictions ``<theta_s, x~_s>`` on ``x~_s``.

    Parameters
    ----------
    x_tilde : ndarray, shape (n, d)
    predictions : ndarray, shape (n,)
        ``<theta_s, x~_s>`` of each round.
    """
    X = np.asarray(x_tilde, float)
    d = X.shape[1]
    return np.linalg.solve(np.eye(d) + X.T @ X, X.T @ np.asarray(predictions, float))


def ucb_index(X, theta_hat, Vinv, beta: float) -> np.ndarray:
    """``<x, theta_hat> + sqrt(beta) ||x||_{V~^{-1}}`` for every row of ``X`` (Algorithm 1):
    the largest ``<x, theta>`` over the ellipsoid ``||theta - theta_hat||^2_V~ <= beta``."""
    X = np.asarray(X, float)
    q = np.einsum("ki,ij,kj->k", X, Vinv, X)
    return X @ theta_hat + math.sqrt(beta) * np.sqrt(np.maximum(q, 0.0))


class OnlineUCB(Policy):
    """Algorithm 1 of olucb with Maler (Algorithm 3) or OGD (Sec. 5).

    Options (defaults: docs/papers/olucb.md): ``learner`` (maler | ogd), ``ogd_step`` (convex |
    strongly_convex), ``radius_mode`` (scaled | theory | oracle), ``c_beta`` (radius scale of the
    scaled mode; the Snakemake rule fills in the calibrated value), ``lambda_min`` (0.125),
    ``lambda_bar_power`` (1/4: ``lambda_bar = T^{-1/4}``), ``beta_fail`` (0.1), ``D`` (1),
    ``C`` (1), ``R`` (0.5), ``sigma_includes_delta`` (false).
    """

    algorithm = "onlineucb"
    label = "OnlineUCB"
    engine = "onlineucb"
    release = "olucb"
    calibrations = ("experiment",)
    scalable = False  # its radius is beta_t = c_beta (...), tuned through c_beta
    options = {
        "learner": "maler",
        "ogd_step": "convex",
        "radius_mode": "scaled",
        "c_beta": 1.0,
        "lambda_min": 0.125,
        "lambda_bar_power": 0.25,
        "beta_fail": 0.1,
        "D": 1.0,
        "C": 1.0,
        "R": 0.5,
        "sigma_includes_delta": False,
    }

    @classmethod
    def runs_on(cls, calibration: str) -> frozenset[str]:
        """Fixed arm sets and fresh decision sets."""
        return frozenset({"fixed", "fresh"})

    def _calibrate(self) -> None:
        s, o = self.setting, self.opts
        if o["learner"] not in LEARNERS:
            raise ValueError(f"onlineucb: learner must be one of {LEARNERS}, got {o['learner']!r}")
        if o["radius_mode"] not in RADIUS_MODES:
            raise ValueError(
                f"onlineucb: radius_mode must be one of {RADIUS_MODES}, got {o['radius_mode']!r}"
            )
        if o["ogd_step"] not in ("convex", "strongly_convex"):
            raise ValueError(
                f"onlineucb: ogd_step must be convex or strongly_convex, got {o['ogd_step']!r}"
            )
        if not float(o["c_beta"]) > 0:
            raise ValueError(f"onlineucb: c_beta must be > 0, got {o['c_beta']!r}")
        self.period = 1
        self.scheme = "onlineucb"
        self.lam = 1.0  # V~_0 = I
        self.sigma = onlineucb_sigma(s.epsilon, s.delta)
        self.lambda_bar = s.T ** (-float(o["lambda_bar_power"]))
        self.Delta2 = perturbation(float(o["lambda_min"]), self.lambda_bar)
        self.G = clipping_constant(self.sigma, self.Delta2, s.T, o["beta_fail"], o["D"], o["C"])
        self.Sigma = self.sigma**2 + (self.Delta2 if o["sigma_includes_delta"] else 0.0)
        self.mu_hat = 2.0 * (float(o["lambda_min"]) + self.Delta2)
        self.consts = {
            "sigma": self.sigma,
            "G": self.G,
            "Delta2": self.Delta2,
            "lambda_bar": self.lambda_bar,
            "mu_hat": self.mu_hat,
            "c_beta": float(o["c_beta"]) if o["radius_mode"] == "scaled" else 1.0,
            "lemma35_regime_T": self.lemma35_regime(),
        }

    def lemma35_regime(self) -> float:
        """First horizon at which Lemma 3.5's strongly convex bound on the learner's regret,
        ``(G^2/mu + G D) ln(T + 1) + (G^2/mu) ln(1/beta)`` (:meth:`regret_proxy`), is below Maler's
        convex rate ``2 G D sqrt(T)`` (the ``mu = 0`` branch): before it the log T rate the lemma
        states cannot be what the learner shows. ``inf`` when ``mu <= 0`` or beyond ``2^100``."""
        o = self.opts
        return _lemma35_crossing(self.G, o["D"], self.mu_hat, o["beta_fail"])

    # -- the radius (Lemma 3.3) -------------------------------------------------------------------
    def distance_proxy(self, t) -> np.ndarray:
        """``S_t``: Lemma 3.5's bound on ``sum_s ||theta_s - theta*||^2``, capped at ``4 D^2 t``."""
        t = np.asarray(t, dtype=float)
        o, G, mu = self.opts, self.G, self.mu_hat
        cap = 4.0 * o["D"] ** 2 * t
        if mu <= 0:
            return cap
        bound = (G**2 / mu**2 + G * o["D"] / mu) * np.log(t + 1) + (G**2 / mu**2) * math.log(
            1 / o["beta_fail"]
        )
        return np.minimum(cap, bound)

    def regret_proxy(self, t) -> np.ndarray:
        """``M_t``: the learner's regret bound (strongly convex; ``2 G D sqrt(t)`` at mu = 0)."""
        return _regret_proxy(t, self.G, self.opts["D"], self.mu_hat, self.opts["beta_fail"])

    def k_term(self, t, S) -> np.ndarray:
        """``K_t`` of Lemma 3.3 with ``gamma = 1`` and ``sum ||theta_s - theta*||^2 = S``."""
        k0, k1, k2 = self.k_constants()
        return k0 * np.sqrt(np.asarray(t, dtype=float) * S) + k1 + k2 * S

    def _radius_at(self, t, L) -> np.ndarray:
        """``beta_t = c_beta (D^2 + M_t + K_t)`` for round ``t + 1`` (``t`` 0-based; Lemma 3.3)."""
        n = np.asarray(t, dtype=float) + 1.0
        c = float(self.opts["c_beta"]) if self.opts["radius_mode"] == "scaled" else 1.0
        return c * (
            self.opts["D"] ** 2 + self.regret_proxy(n) + self.k_term(n, self.distance_proxy(n))
        )

    def k_constants(self) -> np.ndarray:
        """``K_t = k0 sqrt(t S) + k1 + k2 S`` (the oracle radius evaluates it in the kernel)."""
        s, o = self.setting, self.opts
        Lg = math.log(s.T / o["beta_fail"])
        D, Delta2 = o["D"], self.Delta2
        noise = (
            o["R"] + D * math.sqrt(math.log(1 / s.delta)) / s.epsilon + D * math.sqrt(Delta2)
        ) ** 2
        return np.array(
            [D * Delta2 * Lg, noise * Lg, (math.log(1 / s.delta) / s.epsilon**2 + Delta2) * Lg]
        )


def _regret_proxy(t, G: float, D: float, mu: float, beta_fail: float) -> np.ndarray:
    """:meth:`OnlineUCB.regret_proxy` of a learner with these constants."""
    t = np.asarray(t, dtype=float)
    if mu <= 0:
        return 2.0 * G * D * np.sqrt(t)
    return (G**2 / mu + G * D) * np.log(t + 1) + (G**2 / mu) * math.log(1 / beta_fail)


@functools.lru_cache(maxsize=4096)
def _lemma35_crossing(G: float, D: float, mu: float, beta_fail: float) -> float:
    """:meth:`OnlineUCB.lemma35_regime` of a learner with these constants (cached: every cell of
    a setting asks it while the workflow parses)."""
    if mu <= 0:
        return math.inf
    convex = 2.0 * G * D

    def below(T: float) -> bool:
        return float(_regret_proxy(T, G, D, mu, beta_fail)) <= convex * math.sqrt(T)

    lo, hi = 1.0, 2.0
    while not below(hi):
        lo, hi = hi, hi * 2.0
        if hi > 2.0**100:
            return math.inf
    while hi - lo > 1.0:  # sqrt grows faster than log: one crossing, found by bisection
        mid = math.floor((lo + hi) / 2.0)
        lo, hi = (lo, mid) if below(mid) else (mid, hi)
    return float(hi)
