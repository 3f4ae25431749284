"""Near-G-optimal experimental design on a finite action set (dpdpe, Algorithm 1, line 4).

For a design ``pi`` (a probability vector over the rows ``x`` of an action matrix) let
``V(pi) = sum_x pi(x) x x^T`` and ``g(pi) = max_x ||x||^2_{V(pi)^{-1}}``. Kiefer-Wolfowitz: the
minimum of ``g`` is the dimension ``r`` of the span, and ``sum_x pi(x) ||x||^2_{V^{-1}} = r`` for
every design with invertible ``V`` (so ``g >= r``). Phased elimination (DP-DPE's Algorithm 1,
line 4; DP-PE's Algorithm 3) needs ``g(pi) <= 2d`` with support at most
``S = 4 d ln ln d + 16`` (Lattimore, Szepesvari, Weisz 2020, Prop. 3.7). The paper does not say
how to compute the design; the solver below is the project's (docs/papers/dpdpe.md, "Decisions
recorded from the code").

:func:`g_optimal_design` reduces to the span of the rows, starts from a greedy basis (pivoted
Gram-Schmidt) and runs Frank-Wolfe toward steps with exact line search (Fedorov-Wynn) until
``g <= 2r``; every iteration adds at most one support point. An accuracy mode adds away steps
(Wolfe-Atwood) and stops at ``g <= (1 + eta) r``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Relative threshold of the numerical rank (singular values below it times the largest).
RANK_RTOL = 1e-10


def support_cap(d: int) -> float:
    """``S = 4 d ln ln d + 16`` (natural logarithms, as dpdpe writes log elsewhere); 16 for
    ``d = 1``."""
    if d <= 1:
        return 16.0
    return 4.0 * d * math.log(math.log(d)) + 16.0


def span_basis(X: np.ndarray) -> np.ndarray:
    """Orthonormal basis ``Q`` (d x r) of the span of the rows of ``X`` (Remark 3.2)."""
    X = np.asarray(X, dtype=float)
    _, s, vt = np.linalg.svd(X, full_matrices=False)
    if s.size == 0 or s[0] == 0:
        raise ValueError("the action set spans only the origin")
    r = int(np.sum(s > RANK_RTOL * s[0]))
    return vt[:r].T


@dataclass(frozen=True)
class Design:
    """A design over the rows of an action matrix.

    Attributes
    ----------
    weights : ndarray, shape (m,)
        ``pi`` (non-negative, sums to 1).
    support : ndarray of int
        Indices of the rows with positive weight, ascending.
    g : float
        ``max_x ||x||^2_{V(pi)^{-1}}`` in the reduced coordinates.
    rank : int
        Dimension ``r`` of the span.
    basis : ndarray, shape (d, r)
        Orthonormal basis of the span; reduced coordinates are ``X @ basis``.
    iterations : int
        Frank-Wolfe iterations after the initial basis.
    """

    weights: np.ndarray
    support: np.ndarray
    g: float
    rank: int
    basis: np.ndarray
    iterations: int


def _g_values(Z: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``||z||^2_{V(w)^{-1}}`` of every row (Cholesky solve)."""
    V = (Z * w[:, None]).T @ Z
    L = np.linalg.cholesky(V)
    Y = np.linalg.solve(L, Z.T)
    return np.einsum("ij,ij->j", Y, Y)


def greedy_basis(Z: np.ndarray) -> np.ndarray:
    """Indices of ``r`` rows chosen by pivoted Gram-Schmidt (largest residual, ties: lowest)."""
    R = np.array(Z, dtype=float, copy=True)
    r = Z.shape[1]
    chosen = []
    for _ in range(r):
        norms = np.einsum("ij,ij->i", R, R)
        i = int(np.argmax(norms))
        q = R[i] / math.sqrt(norms[i])
        chosen.append(i)
        R -= np.outer(R @ q, q)
    return np.array(chosen, dtype=np.int64)


def g_optimal_design(
    X: np.ndarray,
    factor: float = 2.0,
    accuracy: float | None = None,
    max_iter: int = 100_000,
    cap: float | None = None,
) -> Design:
    """A design with ``g(pi) <= factor * r`` and support ``<= floor(S)`` (Algorithm 1, line 4).

    Parameters
    ----------
    X : ndarray, shape (m, d)
        The (active) actions.
    factor : float
        Stop when ``g <= factor * r`` (2: the requirement of Algorithm 1, line 4).
    accuracy : float, optional
        If given, run the Wolfe-Atwood away-step mode to ``g <= (1 + accuracy) r`` instead
        (supports then exceed the cap; for tests of optimality).
    max_iter : int
        Iteration limit (an error is raised beyond it).
    cap : float, optional
        Support cap (default :func:`support_cap` of ``d``); enforced with drop steps in the
        default mode.

    Returns
    -------
    Design
    """
    X = np.asarray(X, dtype=float)
    m, d = X.shape
    Q = span_basis(X)
    Z = X @ Q
    r = Z.shape[1]
    w = np.zeros(m)
    w[greedy_basis(Z)] = 1.0 / r
    target = (1.0 + accuracy) * r if accuracy is not None else factor * r * (1 + 1e-12)
    limit = math.floor(support_cap(d) if cap is None else cap)
    it = 0
    drops = 0
    while True:
        g = _g_values(Z, w)
        j = int(np.argmax(g))
        G = float(g[j])
        if G <= target:
            if accuracy is not None or np.count_nonzero(w) <= limit:
                break
            # support guard (docs/papers/dpdpe.md): drop the point with the smallest g, renormalise
            drops += 1
            if drops > 10 * d:
                raise RuntimeError(f"design: support above {limit} after {drops} drop steps")
            supp = np.flatnonzero(w)
            k = supp[int(np.argmin(g[supp]))]
            w[k] = 0.0
            w /= w.sum()
            continue
        if it >= max_iter:
            raise RuntimeError(f"design: no convergence in {max_iter} iterations (g = {G:.4g})")
        it += 1
        step = (G / r - 1.0) / (G - 1.0)
        if accuracy is not None:  # Wolfe-Atwood: compare with the best away step
            supp = np.flatnonzero(w)
            k = supp[int(np.argmin(g[supp]))]
            gk = float(g[k])
            if r - gk > G - r and gk > 1.0:
                away = min((1.0 - gk / r) / (gk - 1.0), w[k] / (1.0 - w[k]))
                w *= 1.0 + away
                w[k] -= away
                w[k] = max(w[k], 0.0)
                w /= w.sum()
                continue
        w *= 1.0 - step
        w[j] += step
    support = np.flatnonzero(w)
    return Design(w, support, G, r, Q, it)
