"""Audit metrics of cz22 (not claims of the paper, derived from its Lemma 3.9; listed in
docs/papers/cz22.md).

* privacy-cost ratio ``rho_A = gap_A / gap_LDP`` at the horizon, with
  ``gap_A = mean_i(R_i^A - R_i^LinUCB)``; Lemma 3.9's privacy term ``sqrt(sigma~ T)`` predicts
  ``sqrt(sigma~_A / sigma~_LDP)`` for the experiment noise levels;
* the log-log slope of each mean regret curve over ``t in [T/10, T]`` (indicative only: finite
  horizons cannot establish an exponent).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpbandits.config import Cell
from dpbandits.regret_stats import loglog_slope


def privacy_cost_ratios(
    df: pd.DataFrame, cells: list[Cell], baseline: str = "LinUCB", local: str = "LinUCB-LDP"
) -> pd.DataFrame:
    """Measured and predicted ``rho_A`` per (configuration, panel, private series).

    Parameters
    ----------
    df : DataFrame
        Results (all series of each panel).
    cells : list of Cell
        The cells behind ``df`` (to compute the predicted noise ratio).
    baseline, local : str
        Series labels of the non-private and the local-model algorithm.
    """
    by_key = {(c.configuration, c.panel, c.series): c for c in cells}
    rows = []
    last = df[df["t"] == df["T"]]
    for (conf, panel), grp in last.groupby(["configuration", "panel"], sort=False):
        finals = {s: g.sort_values("trial") for s, g in grp.groupby("series")}
        if baseline not in finals or local not in finals:
            continue
        for series in finals:
            if series in (baseline, local):
                continue
            row = {"configuration": conf, "panel": panel, "series": series}
            for metric, short in (("regret_realized", "realized"), ("regret_pseudo", "pseudo")):
                base = finals[baseline][metric].to_numpy()
                gap_a = float(np.mean(finals[series][metric].to_numpy() - base))
                gap_l = float(np.mean(finals[local][metric].to_numpy() - base))
                row[f"rho_{short}"] = gap_a / gap_l if gap_l != 0 else math.nan
            cell_a, cell_l = by_key[(conf, panel, series)], by_key[(conf, panel, local)]
            L = _max_norm(cell_a)
            s_a = cell_a.policy().cumulative_noise_std(L)
            s_l = cell_l.policy().cumulative_noise_std(L)
            row["rho_predicted"] = math.sqrt(s_a / s_l) if s_a is not None and s_l else math.nan
            rows.append(row)
    return pd.DataFrame(rows)


def _max_norm(cell: Cell) -> float:
    from dpbandits.envs import make_instances

    return float(make_instances(cell.instances, 1, cell.K, cell.d, cell.instance_seed).L[0])


def curve_slopes(
    df: pd.DataFrame, metric: str = "regret_realized", start: float = 0.1
) -> pd.DataFrame:
    """Log-log slope of every mean curve over ``t in [start T, T]``."""
    rows = []
    for (conf, panel, series), grp in df.groupby(["configuration", "panel", "series"], sort=False):
        T = int(grp["T"].iat[0])
        mean = grp[grp["t"] >= start * T].groupby("t")[metric].mean()
        rows.append(
            {
                "configuration": conf,
                "panel": panel,
                "series": series,
                "metric": metric,
                "slope": loglog_slope(mean.index.to_numpy(), mean.to_numpy()),
            }
        )
    return pd.DataFrame(rows)
