"""A cheap upper bound of one shuffle part's epsilon from Rényi divergences (no privacy loss
distribution), for pruning the parts of a certificate that cannot decide it.

A part is ``s`` coordinates, in each of which one user moves a ``Binomial(N, p)`` count by
``k`` (:mod:`dpbandits.privacy.every_part`): the pair ``(P, Q)`` with ``Q(x) = P(x - k)``,
composed ``s`` times, in both directions. Where the two supports differ the loss is infinite,
so the bound conditions each side on the counts where both are known (the binomial's window of
:func:`~dpbandits.privacy.binomial_shift.binomial_arrays`, shifted or not): ``P = (1 - m) P'' +
m R`` with ``m = 1 - P(overlap)``, so that ``TV(P^s, P''^s) <= 1 - (1 - m)^s`` (a coupling
that draws every coordinate from ``P''`` with probability ``1 - m``). The Rényi divergence of
the product is additive, ``D_a(P''^s || Q^s) = s D_a(P'' || Q)``, and converts to ``(epsilon,
delta')`` by Mironov (2017, Prop. 3), ``epsilon = D + ln(1/delta') / (a - 1)``, and by Canonne,
Kamath & Steinke (2020, Prop. 12), ``epsilon = D + ln(1 - 1/a) - (ln delta' + ln a) / (a - 1)``,
with ``delta' = delta - (1 - (1 - m)^s)``. The bound is the smallest over the orders
:data:`ORDERS` and the largest over the two directions.
"""

from __future__ import annotations

import functools
import math

import numpy as np

#: Rényi orders of the bound.
ORDERS = np.array([1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0])


def _direction(a: np.ndarray, log_a: np.ndarray, log_b: np.ndarray, s: int, delta: float) -> float:
    """Epsilon bound at ``delta`` of ``s`` compositions of the pair whose first distribution has
    the masses ``a`` (logs ``log_a``) on the overlap (its mass elsewhere is ``1 - sum``) and whose
    second has the log-masses ``log_b`` there."""
    m = max(0.0, 1.0 - float(a.sum())) + 1e-12  # the rounding of the sum, taken as left out
    if m >= 1.0:
        return math.inf
    rest = delta + math.expm1(s * math.log1p(-m))  # delta - (1 - (1 - m)^s)
    if rest <= 0.0:
        return math.inf
    x = ORDERS[:, None] * (log_a - math.log1p(-m))[None, :] + (1.0 - ORDERS)[:, None] * log_b
    top = x.max(axis=1)
    D = (top + np.log(np.exp(x - top[:, None]).sum(axis=1))) / (ORDERS - 1.0)
    R = s * np.maximum(D, 0.0)
    mironov = R + math.log(1.0 / rest) / (ORDERS - 1.0)
    cks = R + np.log1p(-1.0 / ORDERS) - (math.log(rest) + np.log(ORDERS)) / (ORDERS - 1.0)
    return float(max(0.0, min(mironov.min(), cks.min())))


@functools.lru_cache(maxsize=65536)
def rdp_epsilon(view: tuple, delta: float) -> float:
    """An upper bound of the epsilon at ``delta`` of the part ``view = (N, p, k, s)`` (module
    docstring): 0 without a shift, ``inf`` where the mass off the overlap exceeds ``delta``.

    Parameters
    ----------
    view : tuple
        ``N`` binomial trials, success probability ``p``, shift ``k`` in each of ``s``
        coordinates.
    delta : float
        The delta of the epsilon.

    Returns
    -------
    float
        The bound (``inf`` where none is found).
    """
    from .binomial_shift import _shift_pairs

    N, p, k, s = view
    k, s = int(k), int(s)
    if k <= 0 or s <= 0:
        return 0.0
    if N <= 0:
        return math.inf
    ((((ks, probs), _), _),) = _shift_pairs(int(N), float(p), ((k, s),))  # the screen's arrays
    if ks.size <= k or ks[-1] - ks[0] + 1 != ks.size:  # no overlap, or a gap in the window
        return math.inf
    logs = np.log(probs)
    # P(x) and Q(x) = P(x - k) on the overlap, both directions
    up = _direction(probs[k:], logs[k:], logs[:-k], s, delta)
    return max(up, _direction(probs[:-k], logs[:-k], logs[k:], s, delta))
