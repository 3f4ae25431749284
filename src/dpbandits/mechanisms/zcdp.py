"""Zero-concentrated differential privacy (rho-zCDP): the Gaussian mechanism's calibration and the
conversions to and from (epsilon, delta)-DP (Bun and Steinke 2016; op24, Table 1).

* The Gaussian mechanism with L2 sensitivity ``Delta`` and noise ``N(0, sigma^2 I)`` is
  ``Delta^2 / (2 sigma^2)``-zCDP (Bun-Steinke Prop. 1.6), so ``sigma = Delta / sqrt(2 rho)``.
* ``rho``-zCDP implies ``(rho + 2 sqrt(rho ln(1/delta)), delta)``-DP for every ``delta > 0``
  (Prop. 1.3); :func:`dp_to_zcdp` is its inverse in ``rho``.
* ``epsilon``-DP implies ``(epsilon^2 / 2)``-zCDP (Prop. 1.4).

These are the standard (not the tightest) conversions; reports that translate a ``rho`` into an
``epsilon`` use :func:`zcdp_to_dp` and say so.
"""

from __future__ import annotations

import math


def _check_delta(delta: float) -> None:
    if not 0 < delta < 1:
        raise ValueError(f"delta = {delta!r}: must be in (0, 1)")


def zcdp_to_dp(rho: float, delta: float) -> float:
    """``rho``-zCDP's ``epsilon`` at ``delta``: ``rho + 2 sqrt(rho ln(1/delta))`` (Prop. 1.3)."""
    _check_delta(delta)
    if not rho >= 0:
        raise ValueError(f"rho = {rho!r}: must be >= 0")
    if math.isinf(rho):
        return math.inf
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def dp_to_zcdp(epsilon: float, delta: float) -> float:
    """The ``rho`` whose :func:`zcdp_to_dp` at ``delta`` is ``epsilon``:
    ``(sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))^2``."""
    _check_delta(delta)
    if not epsilon > 0:
        raise ValueError(f"epsilon = {epsilon!r}: must be > 0")
    if math.isinf(epsilon):
        return math.inf
    L = math.log(1.0 / delta)
    return (math.sqrt(L + epsilon) - math.sqrt(L)) ** 2


def pure_dp_to_zcdp(epsilon: float) -> float:
    """``epsilon``-DP is ``epsilon^2 / 2``-zCDP (Bun-Steinke Prop. 1.4)."""
    if not epsilon > 0:
        raise ValueError(f"epsilon = {epsilon!r}: must be > 0")
    return 0.5 * epsilon * epsilon


def gaussian_sigma(sensitivity: float, rho: float) -> float:
    """Noise standard deviation that makes the Gaussian mechanism ``rho``-zCDP:
    ``sensitivity / sqrt(2 rho)`` (0 for ``rho = inf``, the non-private reference)."""
    if not (sensitivity > 0 and rho > 0):
        raise ValueError(f"need sensitivity > 0 and rho > 0; got {sensitivity!r}, {rho!r}")
    return 0.0 if math.isinf(rho) else sensitivity / math.sqrt(2.0 * rho)


__all__ = ["dp_to_zcdp", "gaussian_sigma", "pure_dp_to_zcdp", "zcdp_to_dp"]
