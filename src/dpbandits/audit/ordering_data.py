"""The figure data an ordering claim is checked on (module :mod:`.checklist`): each series' final
values per trial, its caps, and the privacy each series actually delivers, so that a comparison
between series of unequal delivered privacy is flagged.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .ordering import (
    curve_checkpoints,
)
from .verdicts import SATURATION_SHARE

METRICS = {"regret_realized": "realized", "regret_pseudo": "pseudo"}

COLUMNS = [
    "configuration",
    "claim_id",
    "check",
    "panels",
    "comparison",
    "metric",
    "statistic",
    "n",
    "mean_diff",
    "se_diff",
    "ci_low",
    "ci_high",
    "verdict",
    "curve_below",
    "robustness",
    "epsilon_a",
    "epsilon_b",
    "unequal_privacy",
    "cap_recorded",
    "share_a",
    "share_b",
]

#: Relative difference of two delivered epsilons above which a comparison is flagged
#: ``unequal_privacy``.
UNEQUAL_PRIVACY = 0.10

#: Columns of random play's regret (the cap) a results frame may record.
CAP_COLUMNS = ("regret_unif", "cap")

#: ``epsilon_a`` / ``epsilon_b`` of a series that is not private.
NON_PRIVATE = "non-private"


def _epsilon_key(value) -> float:
    """A nominal epsilon as a join key (rounded: CSV and parquet spell the same double)."""
    return round(float(value), 9)


def delivered_lookup(privacy: pd.DataFrame | None) -> dict:
    """The privacy audit's delivered epsilon by ``(experiment, figure, configuration, series,
    nominal epsilon, d)``, and by the same key without ``d`` where that key has one value
    (figures whose panels differ in d alone have one row per d)."""
    if privacy is None or privacy.empty:
        return {}
    out, values = {}, {}
    for r in privacy.to_dict("records"):
        try:
            key = (
                str(r["experiment"]),
                str(r["figure"]),
                str(r["configuration"]),
                str(r["series"]),
                _epsilon_key(r["nominal_epsilon"]),
            )
            value = float(r["delivered_epsilon"])
        except (KeyError, TypeError, ValueError):
            continue
        if np.isnan(value):
            continue
        d = r.get("d")
        if d is not None and not pd.isna(d):
            out[(*key, int(d))] = max(value, out.get((*key, int(d)), value))
        values.setdefault(key, set()).add(value)
    out.update({k: v.pop() for k, v in values.items() if len(v) == 1})
    return out


def with_caps(df: pd.DataFrame, cells) -> pd.DataFrame:
    """``df`` (figure results, column ``trial`` numbering each cell's trials from 0) with the
    column ``regret_unif``: random play's expected pseudo-regret at the cell's horizon on the
    trial's instance (:func:`dpbandits.envs.caps.cell_caps`).

    The instances are rebuilt from each cell's settings (the simulation's own builder), once per
    distinct instance draw; a frame that already records a cap (:data:`CAP_COLUMNS`) is
    returned as it is. Rows of a cell that is not in ``cells`` get NaN (no cap known).
    """
    if any(c in df and df[c].notna().any() for c in CAP_COLUMNS):
        return df
    from ..envs.caps import cell_caps

    caps_of, parts = {}, []
    for cell in cells:
        options = repr(sorted(cell.instance_options.items()))
        draw = (cell.instances, cell.first_trial, cell.trials, cell.K, cell.d, cell.T, options,
                cell.instance_seed)  # fmt: skip
        if draw not in caps_of:
            caps_of[draw] = cell_caps(cell)
        parts.append(
            pd.DataFrame(
                {
                    "configuration": cell.configuration,
                    "panel": cell.panel,
                    "series": cell.series,
                    "trial": np.arange(cell.trials, dtype=np.int64),
                    "regret_unif": caps_of[draw],
                }
            )
        )
    if not parts:
        return df.assign(regret_unif=np.nan)
    caps = pd.concat(parts, ignore_index=True)
    keys = ["configuration", "panel", "series", "trial"]
    caps = caps.astype({k: df[k].dtype for k in keys if k in df})
    return df.merge(caps, on=keys, how="left", validate="many_to_one")


def unequal_privacy(eps_a, eps_b):
    """Whether two delivered epsilons differ by more than :data:`UNEQUAL_PRIVACY` relative to the
    smaller (``non-private`` counts as infinite; two infinite ones do not differ); None when
    either is unknown."""

    def value(e):
        if isinstance(e, str):
            return float("inf") if e == NON_PRIVATE else None
        if e is None or np.isnan(e):
            return None
        return float(e)

    a, b = value(eps_a), value(eps_b)
    if a is None or b is None:
        return None
    if np.isinf(a) or np.isinf(b):
        return bool(np.isinf(a) != np.isinf(b))
    # a relative slack of 1e-9 keeps a difference of exactly 10 % (in decimal) unflagged
    return bool(abs(a - b) > UNEQUAL_PRIVACY * min(a, b) * (1 + 1e-9))


class OrderingData:
    """Per-(configuration, panel, series) final values, mean curves, caps and delivered
    epsilon."""

    def __init__(
        self,
        df: pd.DataFrame,
        timings: pd.DataFrame | None = None,
        privacy: pd.DataFrame | None = None,
    ):
        self.df = df
        self.epsilon = {}
        self.timing = {}
        if timings is not None:
            for row in timings.itertuples(index=False):
                self.timing[row.configuration, row.panel, row.series] = float(row.seconds)
        self.final = {}
        self.curve = {}
        self.instances = {}
        self.where = {}  # (conf, panel) -> (experiment, figure)
        self.private = {}
        self.cap = {}
        self.delivered_of = delivered_lookup(privacy)
        cap_col = next((c for c in CAP_COLUMNS if c in df and df[c].notna().any()), None)
        for (conf, panel, series), grp in df.groupby(
            ["configuration", "panel", "series"], sort=False
        ):
            T = int(grp["T"].iat[0])
            grp = grp.sort_values(["trial", "t"])
            last = grp[grp["t"] == T]
            self.final[conf, panel, series] = last
            tt = curve_checkpoints(np.unique(grp["t"].to_numpy()), T)
            self.curve[conf, panel, series] = grp[grp["t"].isin(tt)].groupby("t")
            self.instances[conf, panel] = (
                int(grp["d"].iat[0]),
                int(grp["K"].iat[0]),
                str(grp["instances"].iat[0]),
            )
            self.epsilon[conf, panel] = grp["epsilon"].iat[0] if "epsilon" in grp else np.nan
            self.where[conf, panel] = tuple(
                str(grp[c].iat[0]) if c in grp else "" for c in ("experiment", "figure")
            )
            if "private" in grp:
                self.private[conf, panel, series] = bool(grp["private"].iat[0])
            if cap_col is not None:
                self.cap[conf, panel, series] = float(last[cap_col].mean())

    def has(self, conf, panel, series) -> bool:
        return (conf, panel, series) in self.final

    def seconds(self, conf, panel, series) -> float:
        """Wall time of the series' simulation (NaN when no timing is known)."""
        return self.timing.get((conf, panel, series), float("nan"))

    def finals(self, conf, panel, series, metric) -> np.ndarray:
        return self.final[conf, panel, series][metric].to_numpy()

    def mean_curve(self, conf, panel, series, metric) -> np.ndarray:
        return self.curve[conf, panel, series][metric].mean().to_numpy()

    def has_cap(self, conf, panel, series) -> bool:
        """Whether the data record the series' cap (random play's regret, a positive finite
        mean): without it a saturated pair is recognised only as an exact tie."""
        cap = self.cap.get((conf, panel, series), float("nan"))
        return bool(np.isfinite(cap) and cap > 0)

    def share(self, conf, panel, series, metric) -> float:
        """The series' mean final regret as a share of its cap (random play's), on the
        pseudo-regret where it is recorded (:meth:`saturated`); NaN without a cap."""
        cap = self.cap.get((conf, panel, series), float("nan"))
        if not np.isfinite(cap) or cap <= 0 or metric not in METRICS:
            return float("nan")
        last = self.final[conf, panel, series]
        if "regret_pseudo" in last and last["regret_pseudo"].notna().all():
            metric = "regret_pseudo"
        return float(self.finals(conf, panel, series, metric).mean() / cap)

    def saturated(self, conf, panel, series, metric) -> bool:
        """Whether the series' mean final regret is at least ``SATURATION_SHARE`` of its cap
        (False where the data record no cap). The cap is random play's expected pseudo-regret,
        so the pseudo-regret decides where it is recorded, for either ``metric``: a comparison
        is untestable under both metrics or under neither."""
        return bool(self.share(conf, panel, series, metric) >= SATURATION_SHARE)

    def delivered(self, conf, panel, series):
        """The series' delivered epsilon (:data:`NON_PRIVATE` when it is not private; NaN when
        the privacy audit has no row for it)."""
        if self.private.get((conf, panel, series)) is False:
            return NON_PRIVATE
        experiment, figure = self.where.get((conf, panel), ("", ""))
        eps = self.epsilon.get((conf, panel), np.nan)
        try:
            key = (experiment, figure, str(conf), str(series), _epsilon_key(eps))
        except (TypeError, ValueError):
            return float("nan")
        d = self.instances.get((conf, panel), (None,))[0]
        found = self.delivered_of.get((*key, d))
        return found if found is not None else self.delivered_of.get(key, float("nan"))
