"""Maler (Wang, Lu, Zhang, UAI 2019), the online learner of OnlineUCB (olucb, Algorithm 3).

Maler runs one convex expert (OGD), ``K + 1`` exp-concave experts (ONS) and ``K + 1``
strongly convex experts (OGD with 1/t steps) on the ball ``{||theta|| <= D}`` and combines them
with tilted exponential weights; its regret adapts to the curvature of the losses:
``O(G D sqrt(T))`` for convex, ``O((d/alpha + G D) log T)`` for exp-concave and
``O((G^2/lambda + G D) log T)`` for strongly convex losses (as olucb quotes it, Lemma 3.5).

Constants (MetaGrad grid; docs/papers/olucb.md): ``D_M = 2D``; ``K = ceil(log2(T)/2)``;
``eta_i = 2^{-i} / (5 D_M G)``, ``i = 0..K``; ``eta_c = 1 / (2 G D_M sqrt(T))``; prior
``1/3`` (convex) and ``1/(3(i+1)(i+2))`` (each exp-concave and strongly convex expert);
``G_l = 7/(25 D_M)``; ``beta_ons = min(1/(4 G_l D_M), 1)/2 = 25/56``;
``A_1 = I/(beta_ons^2 D_M^2)``.

The state of one learner is a handful of arrays (:func:`maler_init`), so the engine can keep one
per trial inside a compiled kernel; :class:`Maler` is the small Python API over ``n`` learners.
Experts are ordered ``[convex, exp_0..exp_K, sc_0..sc_K]``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

CONVEX, EXP_CONCAVE, STRONGLY_CONVEX = 0, 1, 2
BETA_ONS = 25.0 / 56.0


def n_grid(T: int) -> int:
    """``K = ceil(log2(T)/2)``: the learning-rate grid has ``K + 1`` values."""
    return int(math.ceil(0.5 * math.log2(max(T, 2))))


def n_experts(T: int) -> int:
    """``2K + 3`` experts (19 for T = 20000)."""
    return 2 * n_grid(T) + 3


@njit(cache=True)
def maler_init(d, D, G, T, kinds, etas, logw, pos, A, Ainv):
    """Initialise one learner's state arrays in place (sizes from :func:`n_experts`)."""
    D_M = 2.0 * D
    K = (kinds.shape[0] - 3) // 2
    kinds[0] = CONVEX
    etas[0] = 1.0 / (2.0 * G * D_M * math.sqrt(T))
    logw[0] = math.log(1.0 / 3.0)
    for i in range(K + 1):
        eta = 2.0 ** (-i) / (5.0 * D_M * G)
        prior = math.log(1.0 / (3.0 * (i + 1) * (i + 2)))
        kinds[1 + i] = EXP_CONCAVE
        etas[1 + i] = eta
        logw[1 + i] = prior
        kinds[2 + K + i] = STRONGLY_CONVEX
        etas[2 + K + i] = eta
        logw[2 + K + i] = prior
        for a in range(d):
            for b in range(d):
                A[i, a, b] = 1.0 / (BETA_ONS**2 * D_M**2) if a == b else 0.0
                Ainv[i, a, b] = BETA_ONS**2 * D_M**2 if a == b else 0.0
    pos[:, :] = 0.0


@njit(cache=True)
def maler_predict(etas, logw, pos, out):
    """Tilted weighted average ``sum_e w_e eta_e x_e / sum_e w_e eta_e`` into ``out``."""
    E, d = pos.shape
    top = logw.max()
    den = 0.0
    out[:] = 0.0
    for e in range(E):
        c = math.exp(logw[e] - top) * etas[e]
        den += c
        for j in range(d):
            out[j] += c * pos[e, j]
    for j in range(d):
        out[j] /= den


@njit(cache=True)
def sum_squares(x):
    """``sum_j x_j^2`` accumulated in index order (the same value as ``np.sum(x * x)`` in a
    compiled function, without allocating ``x * x``)."""
    s = 0.0
    for j in range(x.shape[0]):
        s += x[j] * x[j]
    return s


@njit(cache=True)
def project_ball(x, D):
    """Euclidean projection onto ``{||x|| <= D}`` in place."""
    nrm = math.sqrt(sum_squares(x))
    if nrm > D:
        x *= D / nrm


@njit(cache=True)
def project_ball_metric(y, A, D, out):
    """``argmin_{||x|| <= D} (x - y)^T A (x - y)`` (ONS's projection), written to ``out``.

    Inside the ball the answer is ``y``; otherwise ``x(nu) = (A + nu I)^{-1} A y`` with
    ``||x(nu)|| = D``, found by bisection on ``nu`` in the eigenbasis of ``A``.
    """
    d = y.shape[0]
    ny = math.sqrt(sum_squares(y))
    if ny <= D:
        out[:] = y
        return
    lam, Q = np.linalg.eigh(A)
    c = Q.T @ y
    lo = 0.0
    hi = lam.max() * (ny / D - 1.0) + 1e-300
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        s = 0.0
        for j in range(d):
            v = lam[j] * c[j] / (lam[j] + mid)
            s += v * v
        if s > D * D:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    nu = hi
    z = np.empty(d)
    for j in range(d):
        z[j] = lam[j] * c[j] / (lam[j] + nu)
    out[:] = Q @ z


@njit(cache=True)
def maler_update(g, theta, t, D, G, kinds, etas, logw, pos, A, Ainv, work):
    """One Maler round after gradient ``g`` at prediction ``theta`` (round ``t >= 1``).

    Weights are multiplied by ``exp(-f_e(x_e))`` with each expert's surrogate at its own point;
    then every expert takes its own step (Wang, Lu, Zhang 2019).
    """
    E, d = pos.shape
    D_M = 2.0 * D
    G_l = 7.0 / (25.0 * D_M)
    beta = 0.5 * min(1.0 / (4.0 * G_l * D_M), 1.0)
    for e in range(E):
        r = 0.0
        dist2 = 0.0
        for j in range(d):
            diff = theta[j] - pos[e, j]
            r += g[j] * diff
            dist2 += diff * diff
        eta = etas[e]
        if kinds[e] == CONVEX:
            f = -eta * r + (eta * G * D_M) ** 2
        elif kinds[e] == EXP_CONCAVE:
            f = -eta * r + eta * eta * r * r
        else:
            f = -eta * r + eta * eta * G * G * dist2
        logw[e] -= f
    logw -= logw.max()
    sqrt_t = math.sqrt(t)
    for e in range(E):
        eta = etas[e]
        x = pos[e]
        if kinds[e] == CONVEX:
            step = D_M / (G * sqrt_t)
            for j in range(d):
                x[j] -= step * g[j]
            project_ball(x, D)
        elif kinds[e] == STRONGLY_CONVEX:
            step = 1.0 / (2.0 * eta * eta * G * G * t)
            for j in range(d):
                x[j] -= step * (eta * g[j] + 2.0 * eta * eta * G * G * (x[j] - theta[j]))
            project_ball(x, D)
        else:
            i = e - 1
            inner = 0.0
            for j in range(d):
                inner += g[j] * (x[j] - theta[j])
            v = work[0]
            for j in range(d):
                v[j] = eta * g[j] + 2.0 * eta * eta * inner * g[j]
            # matrix-vector products column by column: every entry sums over b in the same
            # order as a row-by-row dot product (the same bits), but the d sums run side by side
            Av = work[1]
            Av[:] = 0.0
            for b in range(d):
                vb = v[b]
                for a in range(d):
                    Av[a] += Ainv[i, a, b] * vb
            den = 1.0
            for a in range(d):
                den += v[a] * Av[a]
            for a in range(d):
                for b in range(d):
                    A[i, a, b] += v[a] * v[b]
                    Ainv[i, a, b] -= Av[a] * Av[b] / den
            y = work[2]
            y[:] = 0.0
            for b in range(d):
                vb = v[b]
                for a in range(d):
                    y[a] += Ainv[i, a, b] * vb
            for a in range(d):
                y[a] = x[a] - y[a] / beta
            project_ball_metric(y, A[i], D, x)


@njit(cache=True)
def ogd_step(theta, g, t, D, G, mu, strongly_convex):
    """OnlineUCB's OGD learner (olucb, Sec. 5): ``theta <- Pi_B(theta - eta_t g)`` in place.

    ``eta_t = 2D/(G sqrt(t))`` (Maler's convex expert) or ``1/(mu t)`` (docs/papers/olucb.md).
    """
    step = 1.0 / (mu * t) if strongly_convex else 2.0 * D / (G * math.sqrt(t))
    for j in range(theta.shape[0]):
        theta[j] -= step * g[j]
    project_ball(theta, D)


@njit(cache=True)
def _predict_all(etas, logw, pos, out):
    for i in range(pos.shape[0]):
        maler_predict(etas[i], logw[i], pos[i], out[i])


@njit(cache=True)
def _update_all(g, theta, t, D, G, kinds, etas, logw, pos, A, Ainv, work):
    for i in range(pos.shape[0]):
        maler_update(
            g[i], theta[i], t, D, G, kinds[i], etas[i], logw[i], pos[i], A[i], Ainv[i], work
        )


class Maler:
    """``n`` independent Maler learners on the ball of radius ``D`` in ``R^d``.

    Parameters
    ----------
    n : int
        Number of independent streams (e.g. trials).
    d : int
    D : float
        Radius of the domain.
    G : float
        Bound on the gradients' norm.
    T : int
        Horizon (sets the learning-rate grid).

    Examples
    --------
    >>> learner = Maler(n=1, d=2, D=1.0, G=1.0, T=100)
    >>> theta = learner.predict()          # (n, d), starts at 0
    >>> learner.update(np.ones((1, 2)))    # gradient at the last prediction
    """

    def __init__(self, n: int, d: int, D: float, G: float, T: int):
        E, K1 = n_experts(T), n_grid(T) + 1
        self.d, self.D, self.G, self.T = d, float(D), float(G), int(T)
        self.kinds = np.zeros((n, E), dtype=np.int64)
        self.etas = np.zeros((n, E))
        self.logw = np.zeros((n, E))
        self.pos = np.zeros((n, E, d))
        self.A = np.zeros((n, K1, d, d))
        self.Ainv = np.zeros((n, K1, d, d))
        for i in range(n):
            maler_init(
                d,
                self.D,
                self.G,
                self.T,
                self.kinds[i],
                self.etas[i],
                self.logw[i],
                self.pos[i],
                self.A[i],
                self.Ainv[i],
            )
        self.t = 0
        self._theta = np.zeros((n, d))
        self._work = np.zeros((3, d))

    @property
    def weights(self) -> np.ndarray:
        """Normalised expert weights, shape (n, E)."""
        w = np.exp(self.logw - self.logw.max(axis=1, keepdims=True))
        return w / w.sum(axis=1, keepdims=True)

    def predict(self) -> np.ndarray:
        """Current predictions, shape (n, d)."""
        _predict_all(self.etas, self.logw, self.pos, self._theta)
        return self._theta.copy()

    def update(self, g: np.ndarray) -> None:
        """Feed the gradients ``g`` (shape (n, d)) observed at the last predictions."""
        self.t += 1
        _predict_all(self.etas, self.logw, self.pos, self._theta)
        _update_all(
            np.ascontiguousarray(g, dtype=float),
            self._theta,
            self.t,
            self.D,
            self.G,
            self.kinds,
            self.etas,
            self.logw,
            self.pos,
            self.A,
            self.Ainv,
            self._work,
        )
