"""Rate audit: fitted exponents of regret in T (and in 1/epsilon) against the claimed ones.

Fit. For levels ``x_j`` (horizons, or privacy levels) and per-instance final pseudo-regrets
``R_ij`` (instance ``i``; instances are shared by every level, so the data are paired), the
exponent is the OLS slope of ``ln(mean_i R_ij)`` on ``ln x_j``. Its 95 % interval is the
percentile interval of the same slope over bootstrap resamples of the *instances* (rows of ``R``
resampled together across levels).

The epsilon fit uses the privacy cost ``gap_j = mean_i (R_ij^A - R_i^LinUCB)`` at the largest
horizon (``eps_fit: gap``, the default), or the regret itself (``eps_fit: regret``, for claims
whose bound is the whole regret). A claim ``regret = O(epsilon^e)`` with ``e < 0`` says the cost
grows like ``(1/epsilon)^{-e}``; the audit fits the exponent of ``1/epsilon`` (minus the slope in
``epsilon``) so that "larger than claimed" means "worse than claimed" for both fits. Where the
registry gives a literal reading of the epsilon exponent (``eps_exp_literal``), the same fit is
also compared with it in an extra row (``variable`` ends in ``[literal]``) that does not enter the
claim's summary verdict. The ``d`` fit is the slope of the final regret in ``d`` at the largest
horizon, per epsilon (sweeps over several dimensions).

Verdicts (``tol`` = configured tolerance):

upper-bound claim
    ``consistent`` if the interval's upper end <= claimed + tol; ``exceeds`` if its lower end
    > claimed + tol; ``inconclusive`` otherwise.
lower-bound claim
    ``consistent`` if the interval's lower end >= claimed - tol; ``below`` if its upper end
    < claimed - tol; ``inconclusive`` otherwise.

A finite-horizon slope cannot establish an asymptotic rate: a verdict says whether the growth
seen over the simulated range is compatible with the claim, nothing more.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

#: Shown next to every rate verdict.
FINITE_T_CAVEAT = (
    "finite-horizon fit: indicates whether the growth over the simulated range is compatible "
    "with the claim; it cannot prove or refute an asymptotic rate"
)
VERDICT_ORDER = ("exceeds", "below", "inconclusive", "consistent")
#: Columns of the rate table (also when it is empty).
RATE_COLUMNS = [
    "claim_id",
    "experiment",
    "sweep",
    "direction",
    "check",
    "schedule",
    "variable",
    "fixed",
    "slope",
    "ci_low",
    "ci_high",
    "intercept",
    "n_levels",
    "n_trials",
    "claimed",
    "tolerance",
    "verdict",
    "caveat",
]


@dataclass(frozen=True)
class Fit:
    """A fitted exponent with its bootstrap interval."""

    slope: float
    ci_low: float
    ci_high: float
    intercept: float
    n_levels: int
    n_trials: int

    def as_dict(self) -> dict:
        """Plain dict."""
        return asdict(self)


def _slopes(x: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """OLS slopes of each row of ``Y`` (shape (..., n_levels)) on ``x``; NaN where Y <= 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.where(Y > 0, np.log(Y), np.nan)
    lx = np.log(x)
    xc = lx - lx.mean()
    return (y * xc).sum(axis=-1) / (xc**2).sum()


def bootstrap_means(
    Y: np.ndarray, n_boot: int, rng: np.random.Generator, paired: bool = True
) -> np.ndarray:
    """Bootstrap replicates of the column means of ``Y`` (shape (n, L)), shape (n_boot, L).

    ``paired``: resample whole rows (instance ``i`` at every level: common random numbers or
    checkpoints of one run); otherwise resample each column on its own (independent runs per
    level)."""
    n, L = Y.shape
    if paired:
        return Y[rng.integers(0, n, size=(n_boot, n))].mean(axis=1)
    out = np.empty((n_boot, L))
    for j in range(L):
        out[:, j] = Y[rng.integers(0, n, size=(n_boot, n)), j].mean(axis=1)
    return out


def fit_exponent(
    levels,
    values,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    paired: bool = True,
) -> Fit:
    """Log-log slope of the mean of ``values`` against ``levels``, with a bootstrap interval.

    Parameters
    ----------
    levels : array_like, shape (L,)
        Positive levels (horizons T, or 1/epsilon), at least two distinct.
    values : ndarray, shape (n, L)
        Per-instance values at each level; row ``i`` is instance ``i`` at every level.
    n_boot : int
        Bootstrap resamples of the instances.
    seed : int
        Seed of the bootstrap.
    level : float
        Coverage of the percentile interval.
    paired : bool
        Resample instances across levels (default) or each level on its own
        (:func:`bootstrap_means`).

    Returns
    -------
    Fit
        ``slope`` is NaN when a mean is not positive; the interval then is NaN too.
    """
    x = np.asarray(levels, dtype=float)
    Y = np.asarray(values, dtype=float)
    if Y.ndim != 2 or Y.shape[1] != x.shape[0] or len(np.unique(x)) < 2 or np.any(x <= 0):
        raise ValueError(
            f"need values of shape (n, {x.shape[0]}) and >= 2 distinct positive levels"
        )
    n = Y.shape[0]
    means = Y.mean(axis=0)
    slope = float(_slopes(x, means))
    if not np.isfinite(slope):
        return Fit(float("nan"), float("nan"), float("nan"), float("nan"), len(x), n)
    intercept = float(np.log(means).mean() - slope * np.log(x).mean())
    boot = _slopes(x, bootstrap_means(Y, n_boot, np.random.default_rng(seed), paired))
    alpha = (1 - level) / 2
    if np.isnan(boot).mean() > alpha:  # too many resamples with a non-positive mean
        lo, hi = float("nan"), float("nan")
    else:
        lo, hi = np.nanquantile(boot, [alpha, 1 - alpha])
    return Fit(slope, float(lo), float(hi), intercept, len(x), n)


def verdict(fit: Fit, claimed: float, direction: str = "upper", tol: float = 0.05) -> str:
    """Verdict of a fitted exponent against a claimed one (module docstring)."""
    if not (np.isfinite(fit.ci_low) and np.isfinite(fit.ci_high)):
        return "inconclusive"
    if direction == "upper":
        if fit.ci_high <= claimed + tol:
            return "consistent"
        return "exceeds" if fit.ci_low > claimed + tol else "inconclusive"
    if direction == "lower":
        if fit.ci_low >= claimed - tol:
            return "consistent"
        return "below" if fit.ci_high < claimed - tol else "inconclusive"
    raise ValueError(f"direction must be 'upper' or 'lower', got {direction!r}")


def combine(verdicts) -> str:
    """One verdict for several fits of a claim: any violation wins, then any inconclusive."""
    verdicts = list(verdicts)
    return min(verdicts, key=VERDICT_ORDER.index) if verdicts else "inconclusive"


def final_values(df: pd.DataFrame, metric: str = "regret_pseudo") -> pd.DataFrame:
    """Per-instance value at the horizon of every sweep cell.

    Columns ``sweep, series, epsilon, d, T, trial, value`` (``sweep`` is the cell's ``figure``).
    """
    last = df[df["t"] == df["T"]]
    cols = ["figure", "series", "epsilon", "d", "T", "trial", metric]
    return last[cols].rename(columns={metric: "value", "figure": "sweep"})


def _at_eps(sel: pd.DataFrame, eps) -> pd.DataFrame:
    return sel[sel["epsilon"].isna()] if eps is None else sel[np.isclose(sel["epsilon"], eps)]


def level_matrix(
    finals: pd.DataFrame, series: str, eps, d: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Horizons and the (instances x horizons) final values of one schedule at one epsilon
    (and one dimension ``d``, when the sweep has several)."""
    sel = _at_eps(finals[finals["series"] == series], eps)
    if d is not None:
        sel = sel[sel["d"] == d]
    wide = sel.pivot(index="trial", columns="T", values="value").sort_index(axis=1)
    return wide.columns.to_numpy(dtype=float), wide.to_numpy()


def eps_gap(
    finals: pd.DataFrame, series: str, baseline: str | None, d: int | None = None
) -> tuple[np.ndarray, np.ndarray, int]:
    """Epsilon levels and the (instances x epsilon) privacy cost at the largest horizon.

    With ``baseline=None`` the regret itself instead of the gap to the baseline schedule.
    """
    if d is not None:
        finals = finals[finals["d"] == d]
    Tmax = int(finals["T"].max())
    at = finals[finals["T"] == Tmax]
    sel = at[at["series"] == series]
    wide = sel.pivot(index="trial", columns="epsilon", values="value").sort_index(axis=1)
    values = wide.to_numpy()
    if baseline is not None:
        base = at[at["series"] == baseline].set_index("trial")["value"].sort_index()
        values = values - base.loc[wide.index].to_numpy()[:, None]
    return wide.columns.to_numpy(dtype=float), values, Tmax


def d_matrix(finals: pd.DataFrame, series: str, eps) -> tuple[np.ndarray, np.ndarray, int]:
    """Dimensions and the (instances x d) final values at the largest horizon and one epsilon."""
    Tmax = int(finals["T"].max())
    sel = _at_eps(finals[(finals["series"] == series) & (finals["T"] == Tmax)], eps)
    wide = sel.pivot(index="trial", columns="d", values="value").sort_index(axis=1)
    return wide.columns.to_numpy(dtype=float), wide.to_numpy(), Tmax


def _frac(text) -> float | None:
    return None if text is None else float(Fraction(text))


def claimed_T_exponent(claim: dict, options: dict, horizons) -> float:
    """The T-exponent a claim predicts on a schedule: ``T_exp + T_exp_alpha * alpha`` (alpha the
    schedule's option, paper 004) plus ``logT_pow / ln(T_bar)``, the local log-log slope of a
    ``(ln T)^p`` factor at the geometric mean ``T_bar`` of the fitted horizons."""
    out = _frac(claim["T_exp"])
    if claim.get("T_exp_alpha") is not None:
        if "alpha" not in options:
            raise ValueError(f"{claim['id']}: the schedule has no option alpha")
        out += _frac(claim["T_exp_alpha"]) * float(options["alpha"])
    if claim.get("logT_pow") is not None:
        out += _frac(claim["logT_pow"]) / float(np.mean(np.log(np.asarray(horizons, float))))
    return out


def evaluate_rate_claims(
    claims: list[dict],
    df: pd.DataFrame,
    baseline: str = "linucb",
    tol: float = 0.05,
    n_boot: int = 2000,
    seed: int = 0,
    schedule_options: dict | None = None,
) -> pd.DataFrame:
    """Fit every ``slope``, ``slope_between`` and ``slope_trend`` claim of a sweep.

    Parameters
    ----------
    claims : list of dict
        Registry entries; only those whose ``audit.check`` is ``slope``, ``slope_between`` or
        ``slope_trend`` are evaluated.
    df : DataFrame
        Results of the sweep (the parquet layout, one series per schedule).
    baseline : str
        Non-private schedule the epsilon fits subtract.
    tol, n_boot, seed
        Tolerance of the verdicts, bootstrap resamples and seed.
    schedule_options : dict, optional
        ``(sweep, schedule) -> options`` of the schedules (for claims whose exponent depends on
        an option, e.g. ``alpha``).

    Returns
    -------
    DataFrame
        One row per fit (claim, schedule, variable, fixed level) and one summary row per claim
        (``schedule == "all"``), with the fitted exponent, its interval, the claimed exponent,
        the verdict and the finite-horizon caveat.
    """
    rows = []
    if df is None or df.empty:
        return pd.DataFrame(rows, columns=RATE_COLUMNS)
    schedule_options = schedule_options or {}
    by_metric: dict[str, pd.DataFrame] = {}
    for claim in claims:
        audit = claim["audit"]
        check = audit.get("check")
        if check not in ("slope", "slope_between", "slope_trend"):
            continue
        metric = audit.get("metric", "regret_pseudo")
        if metric not in by_metric:
            by_metric[metric] = final_values(df, metric)
        all_finals = by_metric[metric]
        finals = all_finals[all_finals["sweep"] == audit["sweep"]]
        if finals.empty:
            raise ValueError(f"{claim['id']}: no data of sweep {audit['sweep']!r}")
        base = {
            "claim_id": claim["id"],
            "experiment": audit["experiment"],
            "sweep": audit["sweep"],
            "direction": claim["direction"],
            "check": check,
        }
        verdicts = []
        add = _Adder(rows, verdicts, base, claim["direction"], tol)

        if check == "slope":
            for sched in audit["schedules"]:
                mine = finals[finals["series"] == sched]
                eps_levels = sorted(mine["epsilon"].dropna().unique())
                dims = sorted(int(d) for d in mine["d"].unique())
                several_d = len(dims) > 1

                def where(eps, d, _several=several_d):
                    parts = [] if eps is None else [f"epsilon={eps:g}"]
                    return ", ".join(parts + ([f"d={d}"] if _several else []))

                if "T" in audit["fit"] and claim["T_exp"] is not None:
                    opts = schedule_options.get((audit["sweep"], sched), {})
                    gap_to = audit.get("baseline") if audit.get("T_fit") == "gap" else None
                    label = "T" if gap_to is None else f"T (gap to {gap_to})"
                    if metric != "regret_pseudo":
                        label += f" [{metric}]"
                    for d in dims:
                        for eps in eps_levels or [None]:
                            x, Y = level_matrix(finals, sched, eps, d)
                            if len(x) < 2:
                                continue
                            if gap_to is not None:  # privacy cost: paired by trial and horizon
                                xb, Yb = level_matrix(finals, gap_to, None, d)
                                if not np.array_equal(xb, x):
                                    raise ValueError(f"{claim['id']}: {gap_to} lacks horizons {x}")
                                Y = Y - Yb
                            claimed = claimed_T_exponent(claim, opts, x)
                            add(
                                sched,
                                label,
                                where(eps, d),
                                fit_exponent(x, Y, n_boot, seed),
                                claimed,
                            )
                if (
                    "epsilon" in audit["fit"]
                    and claim["eps_exp"] is not None
                    and len(eps_levels) > 1
                ):
                    claimed = -_frac(claim["eps_exp"])  # exponent of 1/epsilon
                    literal = claim.get("eps_exp_literal")
                    ref = None if audit.get("eps_fit", "gap") == "regret" else baseline
                    for d in dims:
                        e, Y, Tmax = eps_gap(finals, sched, ref, d)
                        fit = fit_exponent(1.0 / e, Y, n_boot, seed)
                        fixed = f"T={Tmax}" + (f", d={d}" if several_d else "")
                        add(sched, "1/epsilon", fixed, fit, claimed)
                        if literal is not None and _frac(literal) != _frac(claim["eps_exp"]):
                            add(
                                sched,
                                "1/epsilon [literal]",
                                fixed,
                                fit,
                                -_frac(literal),
                                counts=False,
                            )
                if "d" in audit["fit"] and claim["d_exp"] is not None and several_d:
                    claimed = _frac(claim["d_exp"])
                    for eps in eps_levels or [None]:
                        x, Y, Tmax = d_matrix(finals, sched, eps)
                        fixed = f"T={Tmax}" + ("" if eps is None else f", epsilon={eps:g}")
                        add(sched, "d", fixed, fit_exponent(x, Y, n_boot, seed), claimed)
        elif check == "slope_trend":  # fitted exponents move monotonically along the schedules
            eps_levels = sorted(finals["epsilon"].dropna().unique()) or [None]
            for eps in eps_levels:
                for s0, s1 in zip(audit["schedules"][:-1], audit["schedules"][1:], strict=True):
                    x, Y0 = level_matrix(finals, s0, eps)
                    _, Y1 = level_matrix(finals, s1, eps)
                    if audit.get("T_fit") == "gap":  # privacy costs over the baseline schedule
                        Yb = level_matrix(finals, audit["baseline"], None)[1]
                        Y0, Y1 = Y0 - Yb, Y1 - Yb
                    fit = _difference_fit(x, Y1, Y0, n_boot, seed)
                    # decreasing: slope(s1) - slope(s0) <= 0 (an upper bound at 0); increasing: >= 0
                    direction = "upper" if audit["trend"] == "decreasing" else "lower"
                    v = verdict(fit, 0.0, direction, tol)
                    verdicts.append(v)
                    rows.append(
                        {
                            **base,
                            "schedule": f"{s1} vs {s0}",
                            "variable": f"T slope difference [{metric}]",
                            "fixed": "" if eps is None else f"epsilon={eps:g}",
                            **fit.as_dict(),
                            "claimed": 0.0,
                            "tolerance": tol,
                            "verdict": v,
                        }
                    )
        else:  # slope_between: lower <= schedule <= upper in T, paired bootstrap of differences
            eps_levels = sorted(finals["epsilon"].dropna().unique())
            for sched in audit["schedules"]:
                for eps in eps_levels:
                    x, Y = level_matrix(finals, sched, eps)
                    _, Ylo = level_matrix(finals, audit["lower"], eps)
                    _, Yhi = level_matrix(finals, audit["upper"], eps)
                    for label, A, Bm in (
                        (f"{sched} - {audit['lower']}", Y, Ylo),
                        (f"{audit['upper']} - {sched}", Yhi, Y),
                    ):
                        fit = _difference_fit(x, A, Bm, n_boot, seed)
                        # the difference must not be negative: "below" means the order is reversed
                        v = verdict(fit, 0.0, "lower", tol)
                        verdicts.append(v)
                        rows.append(
                            {
                                **base,
                                "schedule": sched,
                                "variable": f"T slope of {label}",
                                "fixed": f"epsilon={eps:g}",
                                **fit.as_dict(),
                                "claimed": 0.0,
                                "tolerance": tol,
                                "verdict": v,
                            }
                        )
        if verdicts:
            rows.append(
                {
                    **base,
                    "schedule": "all",
                    "variable": "",
                    "fixed": "",
                    "n_levels": None,
                    "n_trials": None,
                    "claimed": None,
                    "tolerance": tol,
                    "verdict": combine(verdicts),
                }
            )
    out = pd.DataFrame(rows, columns=RATE_COLUMNS)
    out["caveat"] = FINITE_T_CAVEAT
    return out


class _Adder:
    """Appends one fit row (and its verdict, unless ``counts=False``) for one claim."""

    def __init__(self, rows, verdicts, base, direction, tol):
        self.rows, self.verdicts, self.base = rows, verdicts, base
        self.direction, self.tol = direction, tol

    def __call__(self, sched, variable, fixed, fit, claimed, counts=True):
        v = verdict(fit, claimed, self.direction, self.tol)
        if counts:
            self.verdicts.append(v)
        self.rows.append(
            {
                **self.base,
                "schedule": sched,
                "variable": variable,
                "fixed": fixed,
                **fit.as_dict(),
                "claimed": claimed,
                "tolerance": self.tol,
                "verdict": v,
            }
        )


def _difference_fit(x, A, B, n_boot, seed) -> Fit:
    """Difference of two paired slopes, with the same bootstrap resamples for both."""
    fa, fb = fit_exponent(x, A, n_boot, seed), fit_exponent(x, B, n_boot, seed)
    rng = np.random.default_rng(seed)
    n = A.shape[0]
    idx = rng.integers(0, n, size=(n_boot, n))
    diff = _slopes(x, A[idx].mean(axis=1)) - _slopes(x, B[idx].mean(axis=1))
    if np.isnan(diff).mean() > 0.025:
        lo = hi = float("nan")
    else:
        lo, hi = (float(v) for v in np.nanquantile(diff, [0.025, 0.975]))
    return Fit(fa.slope - fb.slope, lo, hi, float("nan"), len(x), n)
