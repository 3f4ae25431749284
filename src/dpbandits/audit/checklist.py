"""Evaluate ordering claims of the registry on simulated figure data (docs/auditing.md).

Check types (``audit.check`` of a claim):

``below``
    ``a`` below each of ``b`` in each of ``panels``: paired final-regret statistic
    (:func:`~dpbandits.audit.ordering.paired_below`) and the curve-level check.
``between``
    in each of ``panels`` every pair ``[lower, upper]`` of ``pairs`` is ordered: the paired
    final-regret statistic of each pair decides; the curve-level conjunction per panel ("all
    pairs (curve level)") is a ``DIAGNOSTIC`` row.
``decreasing``
    for each of ``series``, final regret decreases from one panel to the next (paired by
    instance; the panels must share their instances).
``gap_decreasing``
    as ``decreasing`` for the gap ``R^A - R^baseline``.
``summary``
    the weakest verdict among the claims listed in ``of``.
``ratio``
    ``low <= mean(a)/mean(b) <= high`` for each of ``b`` in each of ``panels``
    (:func:`~dpbandits.audit.ordering.ratio_within`; ``low`` defaults to 0); with ``baseline``
    the ratio of the gaps ``(a - baseline)/(b - baseline)``; with ``metric`` another recorded
    column (e.g. ``comm_reals``) instead of the regret; with ``faster: true`` also the wall time
    of ``a``'s simulation below ``b``'s (from the jobs' timing files; ``WEAK`` when neither ran
    for :data:`MIN_TIMED_SECONDS`: milliseconds of a quick run are scheduling noise, and the
    verdict would change from one build to the next); with ``curve: true`` a
    ``DIAGNOSTIC`` row: whether ``a``'s mean curve is below ``b``'s at every curve checkpoint.
``spearman_decreasing``
    for each of ``series``, the Spearman correlation between the panels' epsilon and the mean
    final regret is at most ``threshold``, with a seeded bootstrap interval over instances
    (:func:`~dpbandits.audit.ordering.spearman_at_most`); the label notes means that all agree
    within one standard deviation ("flat"), which do not decide.
``mean_above``
    ``a`` above each of ``b``: the paired statistic of "b below a".
``metric_at_least``
    for each of ``series``, the mean over instances of the recorded ``metric`` at the horizon is
    at least ``threshold`` (:func:`~dpbandits.audit.ordering.mean_at_least`; the regret metric
    plays no role, the rows are repeated under both).
``mean_order``
    ``series`` listed in increasing final regret: each consecutive pair as ``below``.

Verdicts follow one rule (:mod:`.ordering`): FAIL only when the whole 95 % interval is on the
wrong side, PASS when it is on the claimed side, WEAK otherwise. A comparison is ``UNTESTABLE``
when both series sit at their cap: an exact tie with zero spread of the paired difference, or,
where the data record random play's regret (column ``regret_unif`` or ``cap``), both series'
mean regret at least :data:`~dpbandits.audit.verdicts.SATURATION_SHARE` of it. Curve crossings
(the curve-level rows) and comparisons with a series the claim lists under ``diagnostic`` are
``DIAGNOSTIC`` rows: recorded, never deciding (a diagnostic row's label ends with the verdict
it would have had). :func:`~dpbandits.audit.ordering.worst` combines a claim's deciding
comparisons (untestable ones set aside; every one untestable: ``UNTESTABLE``).

Delivered privacy (``privacy``, the privacy audit's ``privacy.csv``): each comparison row carries
the certified delivered epsilon of both series (``epsilon_a``, ``epsilon_b``; joined on
experiment, figure, configuration, series and the panel's nominal epsilon; ``non-private`` for a
series without privacy; blank where the audit has no row) and ``unequal_privacy``, true when they
differ by more than :data:`UNEQUAL_PRIVACY` relative to the smaller (an infinite or non-private
side against a finite one counts as differing); a summary row's flag is true when any of its
comparisons' is.

Every check is evaluated per configuration (those listed under ``configurations``, default all)
and per metric (realized and pseudo-regret); ``interval: t`` uses the Student-t quantile instead
of 1.96. :func:`verdict_matrix` adds a ``combined`` metric: the common verdict where realized
and pseudo-regret agree, ``INCONCLUSIVE`` where they differ (docs/papers/olucb.md).

Robustness of a failed ordering: every ``FAIL`` summary row (a demonstrated violation) is
re-evaluated on the two halves of the instances (even and odd trial index: independent instances
and noise, same panels and pairing). It is ``robust`` when both halves fail as well (the
contradiction replicates on fresh instances), ``fragile`` when either half does not, ``untested``
when a series has fewer than ``2 * MIN_HALF`` instances; other rows (PASS, WEAK, UNTESTABLE,
DIAGNOSTIC) leave the column empty.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .ordering import (
    DIAGNOSTIC,
    UNTESTABLE,
    PairedStat,
    curve_below,
    curve_checkpoints,
    mean_at_least,
    paired_below,
    quantile,
    ratio_within,
    spearman_at_most,
    tied_levels,
    worst,
)
from .verdicts import SATURATION_SHARE

METRICS = {"regret_realized": "realized", "regret_pseudo": "pseudo"}
#: Checks evaluated on figure data (sweep checks are in :mod:`.rates`).
FIGURE_CHECKS = (
    "below",
    "between",
    "decreasing",
    "gap_decreasing",
    "summary",
    "ratio",
    "mean_above",
    "metric_at_least",
    "mean_order",
    "spearman_decreasing",
)
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


class _Data:
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

    def saturated(self, conf, panel, series, metric) -> bool:
        """Whether the series' mean final regret is at least ``SATURATION_SHARE`` of its cap
        (False where the data record no cap)."""
        cap = self.cap.get((conf, panel, series), float("nan"))
        if not np.isfinite(cap) or cap <= 0 or metric not in METRICS:
            return False
        return bool(self.finals(conf, panel, series, metric).mean() >= SATURATION_SHARE * cap)

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


# The statistic of a ``faster: true`` row: a ratio of measured run times, not a function of the
# seeds (dpbandits.compare leaves these rows out when two builds are compared).
WALL_TIME_STATISTIC = "wall seconds a / b"

#: A ``faster: true`` row is decided only when the slower of the two series ran at least this
#: long; below it the row is WEAK ("too short to time"). A job shares two cores with other jobs,
#: so a series of a few milliseconds (the quick scale's) can measure slower than one it beats by
#: 3x, and the claim's summary verdict would then depend on the build, not on the seeds. At
#: paper scale the timed series run for seconds.
MIN_TIMED_SECONDS = 1.0

STATISTIC = {
    "below": "paired difference a - b",
    "between": "paired difference lower - upper",
    "decreasing": "paired difference later - earlier panel",
    "gap_decreasing": "paired difference of gaps, later - earlier panel",
    "ratio": "ratio of means a / b",
    "mean_above": "paired difference b - a",
    "metric_at_least": "mean of the metric at T",
    "mean_order": "paired difference, consecutive series",
    "spearman_decreasing": "Spearman correlation of epsilon and mean final regret",
    "summary": "",
}


def _row(conf, cid, check, panels, comparison, metric, stat=None, verdict=None, curve=None):
    row = dict.fromkeys(COLUMNS)
    row.update(
        configuration=conf,
        claim_id=cid,
        check=check,
        panels=panels,
        comparison=comparison,
        metric=METRICS[metric],
        statistic=STATISTIC[check],
        curve_below=curve,
    )
    if stat is not None:
        row.update(
            n=stat.n,
            mean_diff=stat.mean,
            se_diff=stat.se,
            ci_low=stat.ci_low,
            ci_high=stat.ci_high,
            verdict=stat.verdict,
        )
    if verdict is not None:
        row["verdict"] = verdict
    return row


def _missing(data, conf, panels, series) -> list[str]:
    return [f"{p}/{s}" for p in panels for s in series if not data.has(conf, p, s)]


@dataclass
class _Claim:
    """One claim under evaluation (one configuration and metric): what a check reads, and the
    rows, deciding verdicts and curve-level results it appends (:meth:`emit`)."""

    a: dict
    cid: str
    check: str
    conf: str
    metric: str
    data: _Data
    panels: list
    rows: list
    verdicts: list = field(default_factory=list)
    curves: list = field(default_factory=list)

    @property
    def interval(self) -> str:
        return self.a.get("interval", "z")

    @property
    def diagnostic(self) -> set:
        """Series the claim lists as diagnostics (never deciding)."""
        return set(self.a.get("diagnostic", []))

    def below(self, x, y):
        return paired_below(x, y, quantile(x.size, self.interval))

    def saturated(self, *sides) -> bool:
        """Whether every ``(panel, series)`` of ``sides`` sits at its cap (False without caps)."""
        return all(self.data.saturated(self.conf, p, s, self.metric) for p, s in sides)

    def paired(self, side_a, side_b, x, y) -> PairedStat:
        """:meth:`below` of ``x`` (series ``side_a``) against ``y`` (``side_b``), UNTESTABLE when
        both sides are saturated."""
        stat = self.below(x, y)
        if stat.verdict != UNTESTABLE and self.saturated(side_a, side_b):
            stat = replace(stat, verdict=UNTESTABLE)
        return stat

    def emit(self, row: dict, sides=(), decides: bool = True) -> None:
        """Append ``row`` with the delivered epsilon of its ``sides`` (``(panel, series)`` of a
        and b); its verdict decides the claim unless ``decides`` is False, a side is a
        diagnostic series (the row becomes ``DIAGNOSTIC``, its label ending with the verdict it
        would have had) or the row is already ``DIAGNOSTIC``."""
        sides = list(sides)
        if len(sides) >= 1:
            row["epsilon_a"] = self.data.delivered(self.conf, *sides[0])
        if len(sides) >= 2:
            row["epsilon_b"] = self.data.delivered(self.conf, *sides[1])
            row["unequal_privacy"] = unequal_privacy(row["epsilon_a"], row["epsilon_b"])
        if any(s in self.diagnostic for _, s in sides) and row["verdict"] != DIAGNOSTIC:
            row["comparison"] += f" (diagnostic series; alone {row['verdict']})"
            row["verdict"] = DIAGNOSTIC
        self.rows.append(row)
        if decides and row["verdict"] != DIAGNOSTIC:
            self.verdicts.append(row["verdict"])


def _check_ratio(c: _Claim) -> None:
    """``ratio`` and ``mean_above``: per panel and series of ``b`` (module docstring)."""
    a, cid, check, conf, metric, data = c.a, c.cid, c.check, c.conf, c.metric, c.data
    col = a.get("metric", metric)  # ratio checks may compare another recorded column
    for p in c.panels:
        fa = data.finals(conf, p, a["a"], col)
        base = data.finals(conf, p, a["baseline"], col) if "baseline" in a else 0.0
        for b in a["b"]:
            sides = ((p, a["a"]), (p, b))
            fb = data.finals(conf, p, b, col)
            if check == "ratio":
                low = a.get("low", 0.0)
                stat = ratio_within(
                    fa - base, fb - base, low, a["high"], quantile(fa.size, c.interval)
                )
                tie = col == metric and np.array_equal(fa, fb)  # both pinned at one value
                if stat.verdict != UNTESTABLE and (tie or (col == metric and c.saturated(*sides))):
                    stat = replace(stat, verdict=UNTESTABLE)
                what = f"{a['a']} / {b}"
                if "baseline" in a:
                    what = f"({a['a']} - {a['baseline']}) / ({b} - {a['baseline']})"
                if col != metric:
                    what += f" [{col}]"
                label = f"{what} in [{low:g}, {a['high']:g}]"
            else:
                stat = c.paired(sides[1], sides[0], fb, fa)
                label = f"{a['a']} > {b}"
            c.emit(_row(conf, cid, check, p, label, metric, stat), sides)
            if a.get("curve"):
                ok = curve_below(
                    data.mean_curve(conf, p, a["a"], metric),
                    data.mean_curve(conf, p, b, metric),
                )
                row = _row(
                    conf,
                    cid,
                    check,
                    p,
                    f"{a['a']} below {b} at every curve checkpoint",
                    metric,
                    verdict=DIAGNOSTIC,
                    curve=ok,
                )
                c.emit(row, sides)
                c.curves.append(ok)
            if a.get("faster"):
                sa, sb = data.seconds(conf, p, a["a"]), data.seconds(conf, p, b)
                ok = bool(sa < sb)  # False when a timing is missing (NaN)
                # a missing timing (NaN) stays FAIL: not shown to be faster
                short = bool(
                    np.isfinite(sa) and np.isfinite(sb) and max(sa, sb) < MIN_TIMED_SECONDS
                )
                row = _row(
                    conf,
                    cid,
                    check,
                    p,
                    f"wall time {a['a']} < {b} ({sa:.3g} s vs {sb:.3g} s"
                    + (", too short to time)" if short else ")"),
                    metric,
                    verdict="WEAK" if short else ("PASS" if ok else "FAIL"),
                )
                row["statistic"] = WALL_TIME_STATISTIC
                row["mean_diff"] = sa / sb if sb > 0 else float("nan")
                c.emit(row, sides)


def _check_metric_at_least(c: _Claim) -> None:
    """``metric_at_least``: the mean of a metric at the horizon, per panel and series."""
    a, cid, check, conf, metric, data = c.a, c.cid, c.check, c.conf, c.metric, c.data
    for p in c.panels:
        for s in a["series"]:
            x = data.finals(conf, p, s, a["metric"])
            stat = mean_at_least(x, a["threshold"], quantile(x.size, c.interval))
            label = f"{s}: mean {a['metric']} >= {a['threshold']:g}"
            c.emit(_row(conf, cid, check, p, label, metric, stat), [(p, s)])


def _check_spearman(c: _Claim) -> None:
    """``spearman_decreasing``: Spearman correlation of epsilon and mean final regret, with a
    bootstrap interval over instances (:func:`~dpbandits.audit.ordering.spearman_at_most`)."""
    a, cid, check, conf, metric, data, panels = (
        c.a,
        c.cid,
        c.check,
        c.conf,
        c.metric,
        c.data,
        c.panels,
    )
    eps = np.array([data.epsilon[conf, p] for p in panels], dtype=float)
    for s in a["series"]:
        finals = [data.finals(conf, p, s, metric) for p in panels]
        means = np.array([f.mean() for f in finals])
        stds = np.array([f.std() for f in finals])
        flat = bool(means.max() - means.min() <= stds.max())
        stat = spearman_at_most(eps, finals, a["threshold"])
        if stat.verdict != UNTESTABLE and c.saturated(*((p, s) for p in panels)):
            stat = replace(stat, verdict=UNTESTABLE)
        tied = int(tied_levels(finals).sum())
        label = f"{s}: Spearman(epsilon, mean R(T)) <= {a['threshold']:g}" + (
            " (flat: means within 1 std)" if flat else ""
        )
        if tied:
            label += f" ({tied} of {len(panels)} panels tied exactly, set aside)"
        row = _row(conf, cid, check, ",".join(panels), label, metric, stat)
        c.emit(row, [(panels[0], s)] if s in c.diagnostic else ())


def _check_mean_order(c: _Claim) -> None:
    """``mean_order``: each consecutive pair of ``series`` as ``below``."""
    a, cid, check, conf, metric, data = c.a, c.cid, c.check, c.conf, c.metric, c.data
    for p in c.panels:
        for lo, hi in zip(a["series"][:-1], a["series"][1:], strict=True):
            sides = ((p, lo), (p, hi))
            x, y = data.finals(conf, p, lo, metric), data.finals(conf, p, hi, metric)
            stat = c.paired(*sides, x, y)
            c.emit(_row(conf, cid, check, p, f"{lo} < {hi}", metric, stat), sides)


def _check_below(c: _Claim) -> None:
    """``below``: ``a`` below each of ``b`` (paired statistic; the curve level is recorded in
    ``curve_below``), per panel."""
    a, cid, check, conf, metric, data = c.a, c.cid, c.check, c.conf, c.metric, c.data
    for p in c.panels:
        for b in a["b"]:
            sides = ((p, a["a"]), (p, b))
            x, y = data.finals(conf, p, a["a"], metric), data.finals(conf, p, b, metric)
            stat = c.paired(*sides, x, y)
            curve = curve_below(
                data.mean_curve(conf, p, a["a"], metric), data.mean_curve(conf, p, b, metric)
            )
            c.emit(_row(conf, cid, check, p, f"{a['a']} < {b}", metric, stat, curve=curve), sides)
            c.curves.append(curve)


def _check_between(c: _Claim) -> None:
    """``between``: every pair ordered by its paired statistic, per panel; the curve-level
    conjunction is a diagnostic row."""
    a, cid, check, conf, metric, data = c.a, c.cid, c.check, c.conf, c.metric, c.data
    for p in c.panels:
        panel_curves = []
        for lo, hi in a["pairs"]:
            sides = ((p, lo), (p, hi))
            x, y = data.finals(conf, p, lo, metric), data.finals(conf, p, hi, metric)
            stat = c.paired(*sides, x, y)
            curve = curve_below(
                data.mean_curve(conf, p, lo, metric), data.mean_curve(conf, p, hi, metric)
            )
            c.emit(_row(conf, cid, check, p, f"{lo} < {hi}", metric, stat, curve=curve), sides)
            panel_curves.append(curve)
        ok = all(panel_curves)
        row = _row(
            conf,
            cid,
            check,
            p,
            "all pairs (curve level)",
            metric,
            verdict=DIAGNOSTIC,
            curve=ok,
        )
        c.emit(row, decides=False)
        c.curves.append(ok)


def _check_decreasing(c: _Claim) -> None:
    """``decreasing`` / ``gap_decreasing``: consecutive panels, paired by instance."""
    a, cid, check, conf, metric, data, panels = (
        c.a,
        c.cid,
        c.check,
        c.conf,
        c.metric,
        c.data,
        c.panels,
    )
    shapes = {data.instances[conf, p] for p in panels}
    if len(shapes) != 1:
        raise ValueError(f"{cid}: panels {panels} do not share their instances ({shapes})")
    for s in a["series"]:
        for p, q in zip(panels[:-1], panels[1:], strict=True):
            sides = ((q, s), (p, s))
            later, earlier = data.finals(conf, q, s, metric), data.finals(conf, p, s, metric)
            if check == "gap_decreasing":
                base = a["baseline"]
                later = later - data.finals(conf, q, base, metric)
                earlier = earlier - data.finals(conf, p, base, metric)
                label = f"gap({s} - {base}): {q} < {p}"
            else:
                label = f"{s}: {q} < {p}"
            stat = c.paired(*sides, later, earlier)
            c.emit(_row(conf, cid, check, f"{p},{q}", label, metric, stat), sides)


#: The evaluation of each figure check (``summary`` is combined in :func:`_evaluate_claim`).
_CHECKS = {
    "ratio": _check_ratio,
    "mean_above": _check_ratio,
    "metric_at_least": _check_metric_at_least,
    "spearman_decreasing": _check_spearman,
    "mean_order": _check_mean_order,
    "below": _check_below,
    "between": _check_between,
    "decreasing": _check_decreasing,
    "gap_decreasing": _check_decreasing,
}


def _evaluate_claim(claim, data, conf, metric, summaries) -> list[dict]:
    a = claim["audit"]
    cid, check = claim["id"], a["check"]
    rows = []
    if check == "summary":
        found = [summaries.get((conf, metric, ref)) for ref in a["of"]]
        if all(v is None for v in found):
            return []  # none of its parts applies to this configuration
        if any(v is None for v in found):
            return [_row(conf, cid, check, "", "all", metric, verdict="MISSING")]
        return [
            _row(conf, cid, check, "", "all of " + ", ".join(a["of"]), metric, verdict=worst(found))
        ]
    panels = a["panels"]
    needed = {
        "below": [a.get("a")] + list(a.get("b", [])),
        "ratio": [a.get("a"), *a.get("b", []), *([a["baseline"]] if "baseline" in a else [])],
        "mean_above": [a.get("a")] + list(a.get("b", [])),
        "between": sorted({s for pair in a.get("pairs", []) for s in pair}),
        "decreasing": a.get("series", []),
        "metric_at_least": a.get("series", []),
        "mean_order": a.get("series", []),
        "spearman_decreasing": a.get("series", []),
        "gap_decreasing": list(a.get("series", [])) + [a.get("baseline")],
    }[check]
    missing = _missing(data, conf, panels, needed)
    if missing:
        return [
            _row(
                conf,
                cid,
                check,
                ",".join(panels),
                "missing: " + ", ".join(missing),
                metric,
                verdict="MISSING",
            )
        ]
    c = _Claim(a, cid, check, conf, metric, data, panels, rows)
    _CHECKS[check](c)
    verdicts, curves = c.verdicts, c.curves
    summary = worst(verdicts) if verdicts else DIAGNOSTIC
    flags = [r["unequal_privacy"] for r in rows if r["unequal_privacy"] is not None]
    row = _row(
        conf,
        cid,
        check,
        ",".join(panels),
        "all",
        metric,
        verdict=summary,
        curve=all(curves) if curves else None,
    )
    row["unequal_privacy"] = any(flags) if flags else None
    rows.append(row)
    summaries[conf, metric, cid] = summary
    return rows


def evaluate_orderings(
    claims: list[dict],
    df: pd.DataFrame,
    timings: pd.DataFrame | None = None,
    privacy: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Evaluate every ordering claim for every configuration present in ``df``.

    Parameters
    ----------
    claims : list of dict
        Registry entries (:func:`dpbandits.claims.load_claims`); only those with a figure-data
        check (:data:`FIGURE_CHECKS`) are evaluated.
    df : DataFrame
        Results of the claims' experiment (all panels and configurations).
    timings : DataFrame, optional
        Wall seconds per ``configuration, panel, series`` (for ``faster`` ratio checks).
    privacy : DataFrame, optional
        The privacy audit's delivered epsilon (``privacy.csv``: ``experiment``, ``figure``,
        ``configuration``, ``series``, ``nominal_epsilon``, ``delivered_epsilon``), joined onto
        each comparison as ``epsilon_a`` / ``epsilon_b`` (module docstring).

    Returns
    -------
    DataFrame
        One row per comparison and one summary row (``comparison == "all"``) per claim,
        configuration and metric; columns :data:`COLUMNS`. A failed summary row carries its
        ``robustness`` (module docstring: both halves of the instances fail, or not).
    """
    results = _evaluate(claims, df, timings, privacy)
    summary = results["comparison"].str.startswith("all") & ~results["comparison"].str.contains(
        "curve level"
    )
    failed = summary & (results["verdict"] == "FAIL")
    if not failed.any():
        return results
    smallest = df.groupby(["configuration", "panel", "series"])["trial"].nunique().min()
    if smallest < 2 * MIN_HALF:
        results.loc[failed, "robustness"] = "untested"
    else:
        # only the failed claims (and the claims a failed summary combines) are re-evaluated
        wanted = set(results.loc[failed, "claim_id"])
        by_id = {c["id"]: c for c in claims}
        todo = list(wanted)
        while todo:  # summaries of summaries: every claim a wanted one combines
            for ref in by_id[todo.pop()]["audit"].get("of", []):
                if ref not in wanted:
                    wanted.add(ref)
                    todo.append(ref)
        subset = [c for c in claims if c["id"] in wanted]
        halves = [
            _evaluate(subset, df[df["trial"] % 2 == k], timings, privacy).set_index(_KEY)["verdict"]
            for k in (0, 1)
        ]
        key = pd.MultiIndex.from_frame(results.loc[failed, _KEY])
        both = pd.concat([h[~h.index.duplicated()].reindex(key) for h in halves], axis=1)
        replicated = (both == "FAIL").all(axis=1).to_numpy()
        results.loc[failed, "robustness"] = np.where(replicated, "robust", "fragile")
    return results


#: Fewest instances per series a half needs for the split-half replication (else ``untested``).
MIN_HALF = 5
#: The columns that identify a summary row (one per claim, configuration and metric).
_KEY = ["configuration", "claim_id", "metric", "comparison"]


def _evaluate(
    claims: list[dict],
    df: pd.DataFrame,
    timings: pd.DataFrame | None,
    privacy: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """:func:`evaluate_orderings` without the robustness column."""
    data = _Data(df, timings, privacy)
    orderings = [c for c in claims if c["audit"].get("check") in FIGURE_CHECKS]
    # summaries last, so that the claims they combine are evaluated first
    orderings.sort(key=lambda c: c["audit"]["check"] == "summary")
    rows, summaries = [], {}
    present = [m for m in METRICS if m in df and df[m].notna().any()]
    for conf in df["configuration"].drop_duplicates():
        for metric in present:
            for claim in orderings:
                if conf in claim["audit"].get("configurations", [conf]):
                    rows.extend(_evaluate_claim(claim, data, conf, metric, summaries))
    return pd.DataFrame(rows, columns=COLUMNS)


def verdict_matrix(results: pd.DataFrame, metric: str = "realized") -> pd.DataFrame:
    """Summary verdicts as a claim x configuration matrix.

    ``metric`` is ``realized``, ``pseudo`` or ``combined`` (the common verdict of the two where
    they agree, ``INCONCLUSIVE`` where they differ).
    """
    if metric == "combined":
        if not (results["metric"] == "realized").any():  # phase-level runs: pseudo-regret only
            return verdict_matrix(results, "pseudo")
        r = verdict_matrix(results, "realized").set_index("claim_id")
        p = verdict_matrix(results, "pseudo").set_index("claim_id").reindex_like(r)
        out = r.where(r == p, "INCONCLUSIVE").where(r.notna() | p.notna())
        return out.reset_index()
    s = results[(results["comparison"].str.startswith("all")) & (results["metric"] == metric)]
    s = s[~s["comparison"].str.contains("curve level")]
    m = s.pivot_table(
        index="claim_id", columns="configuration", values="verdict", aggfunc="first", sort=False
    )
    return m.reset_index()
