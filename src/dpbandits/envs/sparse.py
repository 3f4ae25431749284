"""Sparse high-dimensional contextual instances of the PrivateLASSO audit (docs/papers/plasso.md):
families F1 (margin holds), F2 (margin violated, fixed distribution) and F3 (no uniform margin,
T-dependent).

Streams are ``numpy.random.Generator(PCG64)`` children of the integer keys below, so a
trial's instance, contexts and reward noises are a pure function of (experiment, family, d, s0,
K, T, trial) and identical for every algorithm (common random numbers):

* environment ``SeedSequence([1001, exp, fam, d, s0, K, T, trial]).spawn(6)`` -> ``g_inst, g_ctx,
  g_noise, g_a, g_v, g_h``;
* algorithm ``SeedSequence([..., trial, alg, eps_index]).spawn(3)`` -> ``g_svt, g_tbap, g_tie``.

Every draw is made per round in the same order whether rounds are generated one at a time or in
blocks (numpy fills arrays sequentially), so block generation equals per-round generation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from ..normals import standard_normal

ROOT = 1001
EXPERIMENTS = {"PL-E1": 1, "PL-E2": 2, "arena": 3}
FAMILIES = {"F1": 1, "F2": 2, "F3": 3}
ALGORITHMS = {
    "private_lasso": 1,
    "np_th_lasso": 2,
    "oracle_ols": 3,
    "oracle_tbap": 4,
    "svt_noise_off": 5,
    "tbap_noise_off": 6,
}
SQRT3 = math.sqrt(3.0)


def _dot(A: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``A @ w`` over the last axis, summed coordinate by coordinate in a fixed order, so that the
    result does not depend on the block shape (numpy's matmul sums in a shape-dependent order,
    which would break "block generation equals per-round generation" by an ulp)."""
    out = A[..., 0] * w[0]
    for q in range(1, w.shape[0]):
        out = out + A[..., q] * w[q]
    return out


def _generators(key: list[int], n: int) -> list[np.random.Generator]:
    seq = np.random.SeedSequence([int(k) for k in key])
    return [np.random.Generator(np.random.PCG64(s)) for s in seq.spawn(n)]


def algorithm_streams(
    exp: str,
    family: str,
    d: int,
    s0: int,
    K: int,
    T: int,
    trial: int,
    algorithm: str,
    eps_index: int,
) -> tuple[np.random.Generator, np.random.Generator, np.random.Generator]:
    """``(g_svt, g_tbap, g_tie)`` of one algorithm on one trial."""
    key = [ROOT, EXPERIMENTS[exp], FAMILIES[family], d, s0, K, T, trial]
    g_svt, g_tbap, g_tie = _generators([*key, ALGORITHMS[algorithm], eps_index], 3)
    return g_svt, g_tbap, g_tie


@dataclass
class SparseInstance:
    """One trial's environment: the parameter and the context / reward-noise streams.

    Attributes
    ----------
    family : {"F1", "F2", "F3"}
    d, s0, K, T : int
    support : numpy.ndarray
        ``S``, sorted, shape ``(s0,)``.
    theta_S : numpy.ndarray
        ``theta`` on ``S``: random signs over ``sqrt(s0)`` (``||theta|| = 1``, ``theta_min =
        1/sqrt(s0)``).
    sigma, C_X : float
        Reward-noise standard deviation (``Unif(-sigma sqrt3, sigma sqrt3)``, [R27]) and the
        coordinate clip of the contexts.
    """

    family: str
    d: int
    s0: int
    K: int
    T: int
    support: np.ndarray
    theta_S: np.ndarray
    sigma: float
    C_X: float
    streams: list

    @property
    def theta(self) -> np.ndarray:
        """``theta`` in ``R^d``."""
        out = np.zeros(self.d)
        out[self.support] = self.theta_S
        return out

    def block(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The next ``n`` rounds: contexts ``X`` (n, K, d), mean rewards ``mu`` (n, K) and reward
        noises ``eta`` (n, K) (one per arm and round: common random numbers)."""
        _, g_ctx, g_noise, g_a, g_v, g_h = self.streams
        K, d, S = self.K, self.d, self.support
        if self.family == "F1":
            X = standard_normal(g_ctx, (n, K, d))
        else:
            X = g_ctx.uniform(-SQRT3, SQRT3, (n, K, d))
        eta = g_noise.uniform(-self.sigma * SQRT3, self.sigma * SQRT3, (n, K))
        if self.family != "F1":
            a = g_a.uniform(-SQRT3, SQRT3, n)
            V = g_v.uniform(0.0, 1.0, n)
            h = g_h.uniform(-SQRT3, SQRT3, (n, K))
            tau = V**4 if self.family == "F2" else np.full(n, self.T**-0.5)
            u = self.theta_S / np.linalg.norm(self.theta_S)
            g = X[:, :, S]
            v = g - _dot(g, u)[:, :, None] * u
            X[:, :, S] = v + (a[:, None] + tau[:, None] * h)[:, :, None] * u
        np.clip(X, -self.C_X, self.C_X, out=X)
        mu = _dot(X[:, :, S], self.theta_S)
        return X, mu, eta


def make_instance(
    exp: str,
    family: str,
    d: int,
    s0: int,
    K: int,
    T: int,
    trial: int,
    sigma: float = 0.5,
    C_X: float = 4.0,
) -> SparseInstance:
    """Draw trial ``trial``'s instance (``S`` = sorted ``choice(d, s0)``, signs ``choice([-1,
    1])``, ``theta_S = signs/sqrt(s0)``) and set up its streams."""
    if family not in FAMILIES:
        raise ValueError(f"family = {family!r}: allowed {', '.join(FAMILIES)}")
    streams = _generators([ROOT, EXPERIMENTS[exp], FAMILIES[family], d, s0, K, T, trial], 6)
    g_inst = streams[0]
    support = np.sort(g_inst.choice(d, s0, replace=False))
    signs = g_inst.choice([-1, 1], size=s0)
    theta_S = signs / math.sqrt(s0)
    return SparseInstance(family, d, s0, K, T, support, theta_S, sigma, C_X, streams)


@dataclass(frozen=True)
class SparseInstances:
    """Trials ``0 .. n - 1`` of one sparse family as a simulation cell's instances (the arena's
    sparse suite, docs/arena.md): trial ``i``'s instance and its context and reward-noise streams
    are :func:`make_instance` of experiment ``arena``, so every algorithm of a cell sees the same
    parameter, contexts and noises (common random numbers), at the defaults of plasso's audit
    (``sigma = 0.5``, ``C_X = 4``).

    Attributes
    ----------
    sparse_family : {"F1", "F2", "F3"}
    n, K, d, s0, T : int
    first : int
        Absolute index of the first trial (the key of its streams).
    """

    sparse_family: str
    n: int
    K: int
    d: int
    s0: int
    T: int
    first: int = 0
    family: ClassVar[str] = "sparse"
    contextual: ClassVar[bool] = True

    def __post_init__(self):
        if self.sparse_family not in FAMILIES:
            raise ValueError(f"family = {self.sparse_family!r}: allowed {', '.join(FAMILIES)}")
        if not 1 <= self.s0 <= self.d:
            raise ValueError(f"s0 = {self.s0}: must be in [1, d = {self.d}]")

    def trial(self, i: int) -> SparseInstance:
        """Trial ``first + i``'s instance (fresh streams: call once per run)."""
        return make_instance(
            "arena", self.sparse_family, self.d, self.s0, self.K, self.T, self.first + i
        )

    def take(self, lo: int, hi: int) -> SparseInstances:
        """Instances ``lo .. hi - 1``."""
        return replace(self, n=hi - lo, first=self.first + lo)

    @property
    def L(self) -> np.ndarray:
        """``max ||x||`` bound per instance: ``C_X sqrt(d)`` (coordinates clipped at C_X)."""
        return np.full(self.n, 4.0 * math.sqrt(self.d))

    def random_play_rate(self) -> np.ndarray:
        """Per trial, the mean over the ``T`` rounds of ``max_k mu_k - mean_k mu_k`` on the
        trial's own contexts (random play's per-round pseudo-regret, the learning gate's cap)."""
        out = np.empty(self.n)
        for i in range(self.n):
            inst, total = self.trial(i), 0.0
            for lo in range(0, self.T, RATE_BLOCK):
                _, mu, _ = inst.block(min(RATE_BLOCK, self.T - lo))
                total += float(np.sum(mu.max(axis=1) - mu.mean(axis=1)))
            out[i] = total / self.T
        return out


#: Rounds generated at a time by :meth:`SparseInstances.random_play_rate`.
RATE_BLOCK = 4096

__all__ = [
    "ALGORITHMS",
    "SparseInstance",
    "SparseInstances",
    "algorithm_streams",
    "make_instance",
]
