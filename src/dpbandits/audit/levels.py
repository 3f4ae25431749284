"""The sweeps' final values as the rate fits and the planted controls read them: one value per
instance at each sweep cell's horizon (:func:`final_values`), one schedule's (instances x
horizons) matrix (:func:`level_matrix`), and the T-exponent a claim predicts over the fitted
horizons, log factors included (:func:`claimed_T_exponent`)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd

from . import verdicts as vocab


def final_values(df: pd.DataFrame, metric: str = "regret_pseudo") -> pd.DataFrame:
    """Per-instance value at the horizon of every sweep cell.

    Columns ``sweep, schedule, epsilon, d, T, trial, value``, and ``cap`` (random play's regret
    of the instance, the saturation reference) when ``df`` has it and the metric is a regret.
    """
    last = df[df["t"] == df["T"]]
    cols = ["sweep", "schedule", "epsilon", "d", "T", "trial", metric]
    if "cap" in last.columns and metric.startswith("regret"):
        cols.append("cap")
    if "B" in last.columns:
        cols.append("B")
    cols += [c for c in last.columns if c.endswith(vocab.REGIME_SUFFIX)]
    return last[cols].rename(columns={metric: "value"})


def _at_eps(sel: pd.DataFrame, eps) -> pd.DataFrame:
    return sel[sel["epsilon"].isna()] if eps is None else sel[np.isclose(sel["epsilon"], eps)]


def _wide(sel: pd.DataFrame, by: str):
    """Levels, the (instances x levels) values and the mean cap per level (None: no caps)."""
    wide = sel.pivot(index="trial", columns=by, values="value").sort_index(axis=1)
    caps = None
    if "cap" in sel.columns and sel["cap"].notna().all():
        caps = sel.groupby(by)["cap"].mean().reindex(wide.columns).to_numpy(dtype=float)
    return wide, caps


def level_matrix(
    finals: pd.DataFrame, series: str, eps, d: int | None = None, with_caps: bool = False
):
    """Horizons and the (instances x horizons) final values of one schedule at one epsilon
    (and one dimension ``d``, when the sweep has several); with ``with_caps`` also the mean
    cap per horizon (None when the data have no caps)."""
    sel = _at_eps(finals[finals["schedule"] == series], eps)
    if d is not None:
        sel = sel[sel["d"] == d]
    wide, caps = _wide(sel, "T")
    x, Y = wide.columns.to_numpy(dtype=float), wide.to_numpy()
    return (x, Y, caps) if with_caps else (x, Y)


def _frac(text) -> float | None:
    return None if text is None else float(Fraction(text))


def log_factor_slope(levels, power: float) -> float:
    """Local log-log slope of ``(ln x)^power`` over ``levels``: the OLS slope of
    ``power * ln ln x`` on ``ln x``, i.e. what a ``(ln T)^p`` factor adds to a fitted exponent
    over exactly these levels (about ``p / ln T``)."""
    lx = np.log(np.asarray(levels, dtype=float))
    if power == 0 or np.any(lx <= 0):
        return 0.0
    xc = lx - lx.mean()
    return float(power * (np.log(lx) * xc).sum() / (xc**2).sum())


def claimed_T_exponent(claim: dict, options: dict, horizons) -> float:
    """The T-exponent a claim predicts on a schedule over the fitted horizons:
    ``T_exp + T_exp_alpha * alpha`` (alpha the schedule's option, dpdpe) plus the local
    slope of its ``(ln T)^logT_pow`` factor over the horizons (:func:`log_factor_slope`), so the
    fit is judged against the claimed function, log factors included."""
    out = _frac(claim["T_exp"])
    if claim.get("T_exp_alpha") is not None:
        if "alpha" not in options:
            raise ValueError(f"{claim['id']}: the schedule has no option alpha")
        out += _frac(claim["T_exp_alpha"]) * float(options["alpha"])
    if claim.get("logT_pow") is not None:
        out += log_factor_slope(horizons, _frac(claim["logT_pow"]))
    return out
