"""Ball-constrained least squares of TBAP (plasso, Sec. 3; Algorithm 1, line 12):
``min_{||theta|| <= C} theta^T A theta - 2 b^T theta`` for a symmetric, possibly indefinite ``A``
(privacy noise), by eigendecomposition and bisection on the secular equation.

Cases (``A = U diag(w) U^T``, ``w_1 <= ... <= w_m``, ``b' = U^T b``, ``tol = 1e-10 max(1, |w|)``):

* ``A`` positive definite and ``||A^{-1} b|| <= C``: ``theta = A^{-1} b``;
* otherwise ``theta = (A + mu I)^{-1} b`` with ``mu > max(0, -w_1)`` solving ``||theta|| = C``
  (bisection on ``(lo, lo + ||b||/C]``, 100 halvings);
* hard case (``w_1 < 0``, ``b'_1 = 0`` and ``||theta(-w_1)|| < C``): ``theta(-w_1) + tau U_1``;
* project decision (docs/papers/plasso.md, 'Algorithms') for exact (noise-free) statistics,
  whose Gram matrix is singular until ``m`` independent rows arrive: when ``A`` is positive
  semi-definite up to ``tol`` and ``b`` has no component on its null space, the objective is flat
  along that null space and the minimum-norm minimiser (the pseudo-inverse solution, as
  ``numpy.linalg.lstsq``) is returned if it lies in the ball. The usual hard-case formula would
  instead add an arbitrary null-space vector of length ``tau``, whose direction rounding decides.
"""

from __future__ import annotations

import numpy as np
from numba import njit

BISECTIONS = 100
REL_TOL = 1e-10
HARD_TOL = 1e-12


@njit(cache=True)
def _norm_at(w, bp, mu, skip):
    s = 0.0
    for i in range(w.shape[0]):
        if not skip[i]:
            s += (bp[i] / (w[i] + mu)) ** 2
    return np.sqrt(s)


@njit(cache=True)
def trust_region_solve(A, b, C):
    """Minimiser of ``theta^T A theta - 2 b^T theta`` over ``||theta||_2 <= C``.

    Parameters
    ----------
    A : numpy.ndarray
        Symmetric ``(m, m)``.
    b : numpy.ndarray
        ``(m,)``.
    C : float
        Radius ``C_theta``.

    Returns
    -------
    numpy.ndarray
        ``theta``, shape ``(m,)`` (empty for ``m = 0``).
    """
    m = b.shape[0]
    theta = np.zeros(m)
    if m == 0:
        return theta
    w, U = np.linalg.eigh(A)
    bp = U.T @ b
    nb = np.sqrt(np.sum(b * b))
    tol = REL_TOL * max(1.0, np.max(np.abs(w)))
    lo = -w[0] if w[0] < -tol else 0.0
    pole = np.zeros(m, dtype=np.bool_)
    no_pole_mass = True
    for i in range(m):
        if w[i] + lo <= tol:
            pole[i] = True
            if abs(bp[i]) > HARD_TOL * nb:
                no_pole_mass = False
    if no_pole_mass:
        n0 = _norm_at(w, bp, lo, pole)
        if n0 <= C:
            coef = np.zeros(m)
            for i in range(m):
                if not pole[i]:
                    coef[i] = bp[i] / (w[i] + lo)
            if lo > 0.0:  # hard case: move along the most negative direction to the boundary
                coef[0] += np.sqrt(max(C * C - n0 * n0, 0.0))
            return U @ coef
    no_skip = np.zeros(m, dtype=np.bool_)
    a, z = lo, lo + nb / C
    for _ in range(BISECTIONS):
        mid = 0.5 * (a + z)
        if _norm_at(w, bp, mid, no_skip) > C:
            a = mid
        else:
            z = mid
    coef = bp / (w + z)
    return U @ coef


__all__ = ["trust_region_solve"]
