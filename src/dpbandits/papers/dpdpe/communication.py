"""Communication cost of DP-DPE without simulation (dpdpe; docs/papers/dpdpe.md).

Theorem 5.1 (and 5.3, 5.4) bound the cost by ``O(d T^alpha)`` reals, Theorem 5.5 the shuffle
model's by ``O(d T^{3 alpha/2})`` bits. Both follow from the phase schedule alone, so they are
checked analytically over horizons no simulation reaches (``T = 2^10 ... 2^40``):

* every phase has the support bound ``S_int = floor(4 d ln ln d + 16)`` of Algorithm 1, line 4
  as its support size ``s_l`` and length ``T_l = ceil(h_l) + S_int``, the upper end of
  ``h_l <= T_l <= h_l + s_l`` (line 5: ``T_l(x) = ceil(h_l pi_l(x))``), with ``h_1 = 2``,
  ``h_{l+1} = 2 h_l`` (lines 2 and 19);
* a phase counts when it completes within ``T`` (the truncated last phase sends nothing:
  docs/papers/dpdpe.md, "Play order and the last phase");
* phase ``l`` samples ``n_l = ceil(2^{alpha l})`` clients (Alg. 1 line 7), each sending ``s_l``
  reals, or in the shuffle model ``s_l (g_l + b_l)`` bits with Algorithm 2's ``g_l, b_l``
  (Eq. 22, :func:`dpbandits.mechanisms.shuffle_sum.vector_params`).

``g_l`` takes its ``sqrt(n)`` branch only once ``eps_hat sqrt(n_l) / (6 sqrt(5 ln(4 s/delta)))``
exceeds ``max(sqrt(s), 10)``; before that ``g_l`` is constant and ``b_l`` falls like ``1/n_l``,
so the bits grow like the reals (exponent ``alpha``), not ``3 alpha/2`` (Theorem 5.5's rate holds
only beyond the switch; docs/papers/dpdpe.md). The slopes are fitted over the last decade of
horizons, and per horizon over the decade ending there, so the switch is visible.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd

from dpbandits.g_optimal import support_cap
from dpbandits.mechanisms.shuffle_sum import vector_params
from dpbandits.regret_stats import loglog_slope

#: Algorithm 1's first phase length ``h_1`` (line 2; also used in Appendix B.1).
H1 = 2.0


def phase_schedule(alpha: float, T: int, d: int) -> list[tuple[int, int, int]]:
    """The completed phases ``(l, T_l, n_l)`` within ``T`` rounds under the analytic model."""
    S = math.floor(support_cap(d))
    out, t, h, l = [], 0, H1, 1
    while True:
        length = math.ceil(h - 1e-9) + S
        if t + length > T:
            return out
        out.append((l, length, math.ceil(2.0 ** (alpha * l) - 1e-9)))
        t, h, l = t + length, 2.0 * h, l + 1


def analytic_costs(
    alpha: float,
    log2_T: range,
    d: int,
    epsilon: float,
    delta: float,
    reward_bound: float = 1.0,
) -> pd.DataFrame:
    """Costs at ``T = 2^m`` for ``m`` in ``log2_T``.

    Returns
    -------
    DataFrame
        One row per horizon: ``alpha, m, T, phases, s, n_last, reals, bits, g_last, b_last,
        g_sqrt_branch`` (whether the last completed phase's ``g`` is on its ``sqrt(n)``
        branch). ``reals = sum_l s n_l``, ``bits = sum_l s n_l (g_l + b_l)``.
    """
    S = math.floor(support_cap(d))
    Delta2 = reward_bound * math.sqrt(S)
    rows = []
    for m in log2_T:
        phases = phase_schedule(alpha, 2**m, d)
        reals = bits = 0
        g = b = 0
        sqrt_branch = False
        for _, _, n in phases:
            prm = vector_params(epsilon, delta, n, S, Delta2)
            g, b = prm.g, prm.b
            reals += S * n
            bits += S * n * (g + b)
            sqrt_branch = prm.eps_hat * math.sqrt(n) / (6.0 * math.sqrt(5.0 * prm.log_term)) > max(
                math.sqrt(S), 10.0
            )
        rows.append(
            {
                "alpha": alpha,
                "m": m,
                "T": 2**m,
                "phases": len(phases),
                "s": S,
                "n_last": phases[-1][2] if phases else 0,
                "reals": float(reals),
                "bits": float(bits),
                "g_last": g,
                "b_last": b,
                "g_sqrt_branch": sqrt_branch,
            }
        )
    return pd.DataFrame(rows)


def local_slopes(costs: pd.DataFrame, column: str) -> np.ndarray:
    """Per horizon, the slope over the decade of horizons ending there (NaN before a decade)."""
    T = costs["T"].to_numpy(dtype=float)
    y = costs[column].to_numpy(dtype=float)
    out = np.full(len(T), math.nan)
    for i in range(len(T)):
        window = (T >= T[i] / 10.0) & (T <= T[i])
        if T[i] / T.min() >= 10.0:
            out[i] = loglog_slope(T[window], y[window])
    return out


def communication_audit(
    alphas: list[str],
    log2_T: tuple[int, int],
    d: int,
    epsilon: float,
    delta: float,
    reward_bound: float = 1.0,
    tolerance: float = 0.05,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The analytic audit: per-horizon costs and, per ``alpha``, the fitted exponents.

    Parameters
    ----------
    alphas : list of str
        Exponents ``alpha`` as fractions (``"2/3"``).
    log2_T : (int, int)
        First and last ``m`` of ``T = 2^m``.
    d, epsilon, delta, reward_bound
        The setting (Figure 2: 20, 10, 0.25, 1).
    tolerance : float
        An upper-bound claim is ``consistent`` when the fitted slope is at most claimed +
        tolerance (the audit's rule), ``exceeds`` otherwise.

    Returns
    -------
    (DataFrame, DataFrame)
        ``costs`` (one row per alpha and horizon, with ``slope_reals`` and ``slope_bits`` over
        the decade ending there) and ``summary`` (one row per alpha and unit: claimed exponent,
        fitted exponent over the last decade, verdict, and the first horizon where ``g`` is on
        its ``sqrt(n)`` branch).
    """
    frames, rows = [], []
    for text in alphas:
        alpha = float(Fraction(text))
        costs = analytic_costs(
            alpha, range(log2_T[0], log2_T[1] + 1), d, epsilon, delta, reward_bound
        )
        costs.insert(0, "alpha_text", text)
        costs["slope_reals"] = local_slopes(costs, "reals")
        costs["slope_bits"] = local_slopes(costs, "bits")
        frames.append(costs)
        last = costs[costs["T"] >= costs["T"].max() / 10.0]
        on = costs.loc[costs["g_sqrt_branch"], "m"]
        switch = f"2^{int(on.min())}" if len(on) else f"not by 2^{log2_T[1]}"
        for unit, claimed, claim in (
            ("reals", alpha, "O(d T^alpha) reals (Thm 5.1, 5.3, 5.4)"),
            ("bits", 1.5 * alpha, "O(d T^(3 alpha/2)) bits (Thm 5.5)"),
        ):
            slope = loglog_slope(last["T"].to_numpy(float), last[unit].to_numpy(float))
            rows.append(
                {
                    "alpha": text,
                    "unit": unit,
                    "claim": claim,
                    "claimed_exponent": claimed,
                    "fitted_exponent": slope,
                    "fit_T": f"2^{int(last['m'].min())} ... 2^{int(last['m'].max())}",
                    "verdict": "consistent" if slope <= claimed + tolerance else "exceeds",
                    "g_sqrt_branch_from_T": switch,
                }
            )
    return pd.concat(frames, ignore_index=True), pd.DataFrame(rows)


#: What the audit's tables say about themselves (the table note).
NOTE = (
    "Phase schedule of Algorithm 1 with every support size at its bound S, n_l = ceil(2^(alpha l)) "
    "clients, completed phases only; bits of Algorithm 2 (Eq. 22). Exponents are log-log slopes "
    "over the last decade of horizons; an upper-bound claim is consistent when the slope is at "
    "most the claimed exponent plus the tolerance. No simulation: the measured costs are in the "
    "rate fits."
)


def audit(settings: dict, tolerance: float = 0.05) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The audit from the ``communication`` section of config/experiments/dpdpe.yaml (the entry
    point every paper's communication module has): :func:`communication_audit`."""
    s = settings
    return communication_audit(
        s["alphas"],
        tuple(s["log2_T"]),
        s["d"],
        s["epsilon"],
        s["delta"],
        s["reward_bound"],
        tolerance=tolerance,
    )


__all__ = [
    "H1",
    "NOTE",
    "audit",
    "analytic_costs",
    "communication_audit",
    "local_slopes",
    "phase_schedule",
]
