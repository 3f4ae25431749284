"""The checks of one ordering claim (module :mod:`.checklist`): ratios, orders of means, rank
correlations, bounds and trends between series, each giving a row with its interval and its
verdict in the audit's vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .ordering import (
    DIAGNOSTIC,
    UNTESTABLE,
    PairedStat,
    curve_below,
    mean_at_least,
    paired_below,
    quantile,
    ratio_within,
    spearman_at_most,
    tied_levels,
    worst,
)
from .ordering_data import COLUMNS, METRICS, OrderingData, unequal_privacy

# The statistic of a ``faster: true`` row: a ratio of measured run times, not a function of the
# seeds (dpbandits.checks.compare leaves these rows out when two builds are compared).
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
    data: OrderingData
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

    def emit(self, row: dict, sides=(), decides: bool = True, regret: bool = True) -> None:
        """Append ``row`` with the delivered epsilon of its ``sides`` (``(panel, series)`` of a
        and b) and, where it compares their regret (``regret``), whether both caps are
        recorded; its verdict decides the claim unless ``decides`` is False, a side is a
        diagnostic series (the row becomes ``DIAGNOSTIC``, its label ending with the verdict it
        would have had) or the row is already ``DIAGNOSTIC``."""
        sides = list(sides)
        if len(sides) >= 1:
            row["epsilon_a"] = self.data.delivered(self.conf, *sides[0])
        if len(sides) >= 2:
            row["epsilon_b"] = self.data.delivered(self.conf, *sides[1])
            row["unequal_privacy"] = unequal_privacy(row["epsilon_a"], row["epsilon_b"])
            if regret:
                row["cap_recorded"] = all(self.data.has_cap(self.conf, p, s) for p, s in sides)
                for key, (p, s) in zip(("share_a", "share_b"), sides[:2], strict=True):
                    row[key] = self.data.share(self.conf, p, s, self.metric)
        if any(s in self.diagnostic for _, s in sides) and row["verdict"] != DIAGNOSTIC:
            row["comparison"] += f" (diagnostic series; alone {row['verdict']})"
            row["verdict"] = DIAGNOSTIC
        self.rows.append(row)
        if decides and row["verdict"] != DIAGNOSTIC:
            self.verdicts.append(row["verdict"])


def project_threshold(a: dict, stat: PairedStat, label: str, refuted) -> tuple[PairedStat, str]:
    """The one rule for every thresholded check (ratio bands, ``metric_at_least``, Spearman
    cut-offs): a number the paper does not state cannot be violated on its own.

    Under ``threshold_from: project`` the threshold is this project's reading of the paper's
    words ("very close", "O(1)", "decreases"). A FAIL against it becomes WEAK, unless the claim
    declares ``refute``: the value that no reading of those words admits (e.g. a ratio of 10
    for "very close"), and the whole interval lies beyond it too (``refuted(stat, refute)``).
    PASS and WEAK are unchanged; under ``threshold_from: paper`` (the default) nothing changes.
    The label says which number decided.
    """
    if a.get("threshold_from", "paper") != "project":
        return stat, label
    label += " (our threshold; the paper states none)"
    if stat.verdict != "FAIL":
        return stat, label
    refute = a.get("refute")
    if refute is not None and refuted(stat, refute):
        shown = f"[{refute[0]:g}, {refute[1]:g}]" if isinstance(refute, list) else f"{refute:g}"
        return stat, label + f": beyond {shown} too, which no reading of the paper's words admits"
    return replace(stat, verdict="WEAK"), label + ": missed, no violation of the paper"


def _outside(stat: PairedStat, band: list) -> bool:
    """Whether the whole interval of ``stat`` lies outside ``band = [low, high]``."""
    return stat.ci_high < band[0] or stat.ci_low > band[1]


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
                stat, label = project_threshold(a, stat, label, _outside)
            else:
                stat = c.paired(sides[1], sides[0], fb, fa)
                label = f"{a['a']} > {b}"
            c.emit(_row(conf, cid, check, p, label, metric, stat), sides, regret=col == metric)
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
                c.emit(row, sides, regret=False)


def _check_metric_at_least(c: _Claim) -> None:
    """``metric_at_least``: the mean of a metric at the horizon, per panel and series."""
    a, cid, check, conf, metric, data = c.a, c.cid, c.check, c.conf, c.metric, c.data
    for p in c.panels:
        for s in a["series"]:
            x = data.finals(conf, p, s, a["metric"])
            stat = mean_at_least(x, a["threshold"], quantile(x.size, c.interval))
            label = f"{s}: mean {a['metric']} >= {a['threshold']:g}"
            stat, label = project_threshold(a, stat, label, lambda st, r: st.ci_high < r)
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
        stat, label = project_threshold(a, stat, label, lambda st, r: st.ci_low > r)
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


#: The evaluation of each figure check (``summary`` is combined in :func:`evaluate_claim`).
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


def evaluate_claim(claim, data, conf, metric, summaries) -> list[dict]:
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
    if not any((conf, p) in data.where for p in panels):
        return []  # the configuration draws none of the claim's panels (another figure)
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
