"""Privacy accounting: the (epsilon, delta) a noise calibration delivers.

Every function here answers "given this noise, what is the smallest epsilon at this delta?" for
one mechanism or a composition, under the replace-one neighbouring relation the papers use.
Library first (``dp-accounting``, Google's differential privacy accounting library):

* Gaussian mechanism: the exact (analytic) privacy profile of Balle & Wang (2018, Thm. 8),
  ``dp_accounting.get_epsilon_gaussian`` (bisection on the closed form);
  :func:`gaussian_delta` is the same closed form written out, for tests and plots.
* Laplace mechanism: pure ``epsilon = Delta / b`` at ``delta = 0``; at ``delta > 0`` and for
  compositions, privacy loss distributions (``dp_accounting.pld``, pessimistic discretisation:
  the returned epsilon is an upper bound, within the discretisation interval of the exact one).
* Heterogeneous compositions (Laplace and Gaussian releases of one user):
  :func:`composed_epsilon` (PLD).
* rho-zCDP to (epsilon, delta): ``dp_accounting``'s RDP accountant on a ``ZCDpEvent`` (the
  optimal conversion over Renyi orders), next to the classical ``rho + 2 sqrt(rho ln(1/delta))``
  of :func:`dpbandits.mechanisms.zcdp.zcdp_to_dp`.
* Two explicit output distributions (a discrete mechanism such as a binomial count):
  :func:`pmf_pair_epsilon` (PLD of the pair of probability mass functions, both directions).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr, ndtr

#: Discretisation of the privacy loss in PLD computations (dp-accounting's default).
PLD_INTERVAL = 1e-4


def _check_delta(delta: float, allow_zero: bool = False) -> None:
    ok = (0 <= delta < 1) if allow_zero else (0 < delta < 1)
    if not ok:
        raise ValueError(f"delta = {delta!r}: must be in {'[0, 1)' if allow_zero else '(0, 1)'}")


def gaussian_delta(epsilon: float, sigma: float, sensitivity: float) -> float:
    """Exact privacy profile of the Gaussian mechanism (Balle & Wang 2018, Thm. 8):

    ``delta(eps) = Phi(D/(2s) - eps s/D) - e^eps Phi(-D/(2s) - eps s/D)`` with noise std ``s`` and
    L2 sensitivity ``D``; the second term is evaluated as ``exp(eps + log Phi(.))``.
    """
    if sigma <= 0:
        return 1.0
    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    return float(ndtr(a - b) - math.exp(epsilon + float(log_ndtr(-a - b))))


def gaussian_epsilon(sigma: float, sensitivity: float, delta: float) -> float:
    """Smallest ``epsilon >= 0`` at which a Gaussian mechanism is ``(epsilon, delta)``-DP.

    Parameters
    ----------
    sigma : float
        Noise standard deviation per coordinate (i.i.d.); 0 means no noise (``inf``).
    sensitivity : float
        L2 sensitivity of the released vector under the neighbouring relation.
    delta : float

    Returns
    -------
    float
        ``dp_accounting.get_epsilon_gaussian(sigma / sensitivity, delta)``: exact up to the
        bisection tolerance (1e-12); 0 when ``delta(0) <= delta``.
    """
    _check_delta(delta)
    if sensitivity < 0:
        raise ValueError(f"sensitivity = {sensitivity!r}: must be >= 0")
    if sensitivity == 0:
        return 0.0
    if not sigma > 0:
        return math.inf
    return _epsilon_of_ratio(sigma / sensitivity, delta)


@functools.lru_cache(maxsize=8192)
def _epsilon_of_ratio(ratio: float, delta: float) -> float:
    """``dp_accounting.get_epsilon_gaussian(ratio, delta)``, once per value: the privacy audit
    asks for the same mechanism many times (1695 calls, 668 distinct, 1.8 s at paper scale)."""
    import dp_accounting

    return float(dp_accounting.get_epsilon_gaussian(ratio, delta))


def laplace_epsilon(scale: float, sensitivity: float, delta: float = 0.0) -> float:
    """Smallest ``epsilon`` of one Laplace mechanism with scale ``b`` and L1 sensitivity ``D``.

    ``D / b`` at ``delta = 0`` (pure DP); PLD (dp-accounting) at ``delta > 0``.
    """
    _check_delta(delta, allow_zero=True)
    if sensitivity == 0:
        return 0.0
    if not scale > 0:
        return math.inf
    if delta == 0:
        return sensitivity / scale
    return composed_epsilon([Component("laplace", scale, sensitivity)], delta)


@dataclass(frozen=True)
class Component:
    """One additive-noise release of a composition.

    Attributes
    ----------
    kind : {"gaussian", "laplace"}
    scale : float
        Gaussian standard deviation, or Laplace scale ``b``.
    sensitivity : float
        L2 (Gaussian) or L1 (Laplace) sensitivity of the release.
    count : int
        Number of identical releases (composed).
    """

    kind: str
    scale: float
    sensitivity: float
    count: int = 1


def composed_epsilon(
    components: Sequence[Component], delta: float, interval: float = PLD_INTERVAL
) -> float:
    """Smallest ``epsilon`` at ``delta`` of the composition of the given releases (PLD).

    Identical Gaussian releases are merged first (``count`` Gaussian releases of sensitivity
    ``D`` are one Gaussian mechanism of sensitivity ``sqrt(count) D``); a composition of Gaussian
    releases only is then exact through :func:`gaussian_epsilon`. Anything with a Laplace part goes
    through privacy loss distributions (``dp_accounting.pld``, pessimistic), with the
    discretisation ``interval`` widened for very large losses so the grid stays small.
    """
    from dp_accounting.pld import privacy_loss_distribution as pld

    from .pld_arrays import compose, self_compose  # = .compose, .self_compose, faster

    _check_delta(delta)
    comps = [c for c in components if c.sensitivity > 0 and c.count > 0]
    if not comps:
        return 0.0
    if any(not c.scale > 0 for c in comps):
        return math.inf
    gauss = [c for c in comps if c.kind == "gaussian"]
    other = [c for c in comps if c.kind != "gaussian"]
    if any(c.kind != "laplace" for c in other):
        raise ValueError(f"unknown component kind(s): {sorted({c.kind for c in other})}")
    # sum of squared (sensitivity/std) ratios: the Gaussian part as one mechanism of std 1
    g_ratio = math.sqrt(sum(c.count * (c.sensitivity / c.scale) ** 2 for c in gauss))
    if not other:
        return gaussian_epsilon(1.0, g_ratio, delta)
    loss_scale = g_ratio**2 / 2 + sum(c.count * c.sensitivity / c.scale for c in other)
    step = max(interval, loss_scale * 1e-6)
    total = None
    for c in other:
        one = pld.from_laplace_mechanism(
            c.scale, sensitivity=c.sensitivity, value_discretization_interval=step
        )
        part = self_compose(one, c.count) if c.count > 1 else one
        total = part if total is None else compose(total, part)
    if gauss:
        total = compose(
            total,
            pld.from_gaussian_mechanism(
                1.0, sensitivity=g_ratio, value_discretization_interval=step
            ),
        )
    from .pld_arrays import epsilon_for_delta  # = total.get_epsilon_for_delta, compiled

    return epsilon_for_delta(total, delta)


def zcdp_epsilon(rho: float, delta: float) -> float:
    """``epsilon`` at ``delta`` of a ``rho``-zCDP mechanism (dp-accounting RDP accountant)."""
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    _check_delta(delta)
    if math.isinf(rho):
        return math.inf
    acc = rdp.RdpAccountant()
    acc.compose(dp_accounting.ZCDpEvent(rho))
    return float(acc.get_epsilon(delta))


def pmf_pair_pld(p, q, count: int = 1, pessimistic: bool = True, interval: float = PLD_INTERVAL):
    """Privacy loss distribution of the pair ``(p, q)`` in both directions (dp-accounting,
    ``symmetric=False``: its epsilon is the larger of ``(p, q)`` and ``(q, p)``), composed
    ``count`` times; ``p``, ``q``: probability mass functions over the same outcomes (arrays
    indexed by the outcome, dicts, or ``(outcomes, probabilities)`` array pairs).

    ``pessimistic`` (default): losses rounded up, the epsilon is an upper bound of the pair's (a
    certificate); ``False``: rounded down, the epsilon is a lower bound of the pair's (the
    infinite-loss mass is exact either way). ``interval``: the discretisation of the loss."""
    from .pld_arrays import from_rounded_arrays, log_support, rounded_loss_arrays, self_compose

    # = pld.from_two_probability_mass_functions(logs(p), logs(q), symmetric=False) with its
    # defaults (pessimistic, interval 1e-4, no truncation), the rounding done with arrays
    # (dpbandits.privacy.pld_arrays: the same numbers, tested against the library's function)
    # ``create_from_rounded_probability`` and ``self_compose`` likewise (pld_arrays)
    lp, lq = log_support(p), log_support(q)
    dist = from_rounded_arrays(
        rounded_loss_arrays(lp, lq, interval, pessimistic),
        rounded_loss_arrays(lq, lp, interval, pessimistic),
        interval,
        pessimistic,
        count,
    )
    return self_compose(dist, count) if count > 1 else dist


def pmf_pair_epsilon(
    p: Mapping[int, float] | np.ndarray,
    q: Mapping[int, float] | np.ndarray,
    delta: float,
    count: int = 1,
) -> float:
    """Smallest ``epsilon`` at ``delta`` distinguishing two output distributions, both ways.

    ``count``: the pair is released that many times independently (composed). The larger epsilon
    of the two directions (:func:`pmf_pair_pld`); ``inf`` if one has mass the other lacks
    beyond ``delta``.
    """
    _check_delta(delta)
    from .pld_arrays import epsilon_for_delta  # = .get_epsilon_for_delta, compiled

    return epsilon_for_delta(pmf_pair_pld(p, q, count), delta)


__all__ = [
    "Component",
    "composed_epsilon",
    "gaussian_delta",
    "gaussian_epsilon",
    "laplace_epsilon",
    "pmf_pair_epsilon",
    "pmf_pair_pld",
    "zcdp_epsilon",
]
