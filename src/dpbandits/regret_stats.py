"""Summaries of simulation results: mean curves with standard errors, final-regret tables."""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Standard deviations over instances use ddof = 0, as the published figures' band (cz22's
#: script; docs/papers/cz22.md).
DDOF = 0


def curve_stats(df: pd.DataFrame, metric: str = "regret_realized") -> pd.DataFrame:
    """Mean, std and standard error over trials at every checkpoint, per series.

    Parameters
    ----------
    df : DataFrame
        Results in the parquet layout (:mod:`dpbandits.io`).
    metric : str
        Column to summarise.

    Returns
    -------
    DataFrame
        Columns ``series, t, n, mean, std, se`` (``std`` with ``ddof = 0``,
        ``se = std / sqrt(n)``).
    """
    g = df.groupby(["series", "t"], sort=False)[metric]
    out = g.agg(n="count", mean="mean", std=lambda x: float(np.std(x, ddof=DDOF))).reset_index()
    out["se"] = out["std"] / np.sqrt(out["n"])
    return out


def final_regret_table(df: pd.DataFrame, timings: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (figure, panel, configuration, series) with regret at the horizon.

    Parameters
    ----------
    df : DataFrame
        Results (parquet layout).
    timings : DataFrame, optional
        Wall seconds per ``configuration, panel, series`` (the simulation jobs' timing tables);
        adds a column ``wall_seconds``.

    Returns
    -------
    DataFrame
        Columns ``figure, panel, configuration, algorithm, epsilon, d, n_trials,
        mean_realized, std_realized, se_realized, median_realized, mean_pseudo, std_pseudo,
        se_pseudo, median_pseudo, algorithm_id`` (and ``wall_seconds``); ``algorithm`` is the
        series label, ``panel`` the panel letter.
    """
    seconds = {}
    if timings is not None:
        seconds = {
            (r.configuration, r.panel, r.series): float(r.seconds)
            for r in timings.itertuples(index=False)
        }
    last = df[df["t"] == df["T"]]
    rows = []
    keys = ["figure", "panel", "configuration", "series"]
    for (figure, panel, conf, series), grp in last.groupby(keys, sort=False):
        row = {
            "figure": figure,
            "panel": panel[len(figure) :],
            "configuration": conf,
            "algorithm": series,
            "epsilon": grp["epsilon"].iat[0],
            "d": int(grp["d"].iat[0]),
            "n_trials": len(grp),
        }
        for metric, short in (
            ("regret_realized", "realized"),
            ("regret_pseudo", "pseudo"),
            ("comm_reals", "comm_reals"),
            ("comm_bits", "comm_bits"),
        ):
            if metric not in grp or grp[metric].isna().all():
                continue
            x = grp[metric].to_numpy()
            sd = float(np.std(x, ddof=DDOF))
            row.update(
                {
                    f"mean_{short}": float(x.mean()),
                    f"std_{short}": sd,
                    f"se_{short}": sd / np.sqrt(len(x)),
                    f"median_{short}": float(np.median(x)),
                }
            )
        row["algorithm_id"] = grp["algorithm"].iat[0]
        if timings is not None:
            row["wall_seconds"] = seconds.get((conf, panel, series), float("nan"))
        rows.append(row)
    return pd.DataFrame(rows)


def loglog_slope(t: np.ndarray, regret: np.ndarray) -> float:
    """OLS slope of ``ln(regret)`` on ``ln(t)`` (points with non-positive regret dropped)."""
    t, regret = np.asarray(t, float), np.asarray(regret, float)
    ok = regret > 0
    if ok.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(t[ok]), np.log(regret[ok]), 1)[0])
