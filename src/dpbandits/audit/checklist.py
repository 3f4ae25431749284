"""Evaluate ordering claims of the registry on simulated figure data (docs/auditing.md).

Check types (``audit.check`` of a claim):

``below``
    ``a`` below each of ``b`` in each of ``panels``: paired final-regret statistic
    (:func:`~dpbandits.audit.ordering.paired_below`) and the curve-level check.
``between``
    in each of ``panels`` every pair ``[lower, upper]`` of ``pairs`` is ordered at every curve
    checkpoint (curve-level conjunction: PASS or FAIL).
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
    verdict would change from one build to the next); with ``curve: true`` also
    ``a``'s mean curve below ``b``'s at every curve checkpoint.
``spearman_decreasing``
    for each of ``series``, the Spearman correlation between the panels' epsilon and the mean
    final regret is at most ``threshold`` (PASS); a correlation above it is FAIL, and so are
    means that all agree within one standard deviation ("flat").
``mean_above``
    ``a`` above each of ``b``: the paired statistic of "b below a".
``metric_at_least``
    for each of ``series``, the mean over instances of the recorded ``metric`` at the horizon is
    at least ``threshold`` (:func:`~dpbandits.audit.ordering.mean_at_least`; the regret metric
    plays no role, the rows are repeated under both).
``mean_order``
    ``series`` listed in increasing final regret: each consecutive pair as ``below``.

Every check is evaluated per configuration (those listed under ``configurations``, default all)
and per metric (realized and pseudo-regret); ``interval: t`` uses the Student-t quantile instead
of 1.96. :func:`verdict_matrix` adds a ``combined`` metric: the common verdict where realized
and pseudo-regret agree, ``INCONCLUSIVE`` where they differ (docs/papers/olucb.md).

Robustness of a failed ordering (issue 19): every ``FAIL`` summary row is re-evaluated on the two
halves of the instances (even and odd trial index: independent instances and noise, same panels
and pairing). It is ``robust`` when both halves fail as well (the contradiction replicates on
fresh instances), ``fragile`` when either half passes or is weak (the wrong-side mean of the
whole design rests on a part of its instances), ``untested`` when a series has fewer than
``2 * MIN_HALF`` instances; other rows leave the column empty.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from .ordering import (
    curve_below,
    curve_checkpoints,
    mean_at_least,
    paired_below,
    quantile,
    ratio_within,
    worst,
)

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
]


class _Data:
    """Per-(configuration, panel, series) final values and mean curves."""

    def __init__(self, df: pd.DataFrame, timings: pd.DataFrame | None = None):
        self.df = df
        self.epsilon = {}
        self.timing = {}
        if timings is not None:
            for row in timings.itertuples(index=False):
                self.timing[row.configuration, row.panel, row.series] = float(row.seconds)
        self.final = {}
        self.curve = {}
        self.instances = {}
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

    def has(self, conf, panel, series) -> bool:
        return (conf, panel, series) in self.final

    def seconds(self, conf, panel, series) -> float:
        """Wall time of the series' simulation (NaN when no timing is known)."""
        return self.timing.get((conf, panel, series), float("nan"))

    def finals(self, conf, panel, series, metric) -> np.ndarray:
        return self.final[conf, panel, series][metric].to_numpy()

    def mean_curve(self, conf, panel, series, metric) -> np.ndarray:
        return self.curve[conf, panel, series][metric].mean().to_numpy()


# The statistic of a ``faster: true`` row: a ratio of measured run times, not a function of the
# seeds (dpbandits.compare leaves these rows out when two builds are compared).
WALL_TIME_STATISTIC = "wall seconds a / b"

#: A ``faster: true`` row is decided only when the slower of the two series ran at least this
#: long; below it the row is WEAK ("too short to time"). A job shares two cores with other jobs,
#: so a series of a few milliseconds (the quick scale's) can measure slower than one it beats by
#: 3x, and the claim's summary verdict then depends on the build, not on the seeds (the
#: end-to-end rebuild test once found paper 000's claim table changed after a rebuild,
#: 2026-11-25). At paper scale the timed series run for seconds.
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
    rows, verdicts and curve-level results it appends."""

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

    def below(self, x, y):
        return paired_below(x, y, quantile(x.size, self.interval))


def _check_ratio(c: _Claim) -> None:
    """``ratio`` and ``mean_above``: per panel and series of ``b`` (module docstring)."""
    a, cid, check, conf, metric, data = c.a, c.cid, c.check, c.conf, c.metric, c.data
    panels, rows, verdicts, curves, below, interval = (
        c.panels,
        c.rows,
        c.verdicts,
        c.curves,
        c.below,
        c.interval,
    )
    col = a.get("metric", metric)  # ratio checks may compare another recorded column
    for p in panels:
        fa = data.finals(conf, p, a["a"], col)
        base = data.finals(conf, p, a["baseline"], col) if "baseline" in a else 0.0
        for b in a["b"]:
            fb = data.finals(conf, p, b, col)
            if check == "ratio":
                low = a.get("low", 0.0)
                stat = ratio_within(
                    fa - base, fb - base, low, a["high"], quantile(fa.size, interval)
                )
                what = f"{a['a']} / {b}"
                if "baseline" in a:
                    what = f"({a['a']} - {a['baseline']}) / ({b} - {a['baseline']})"
                if col != metric:
                    what += f" [{col}]"
                label = f"{what} in [{low:g}, {a['high']:g}]"
            else:
                stat = below(fb, fa)
                label = f"{a['a']} > {b}"
            rows.append(_row(conf, cid, check, p, label, metric, stat))
            verdicts.append(stat.verdict)
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
                    verdict="PASS" if ok else "FAIL",
                    curve=ok,
                )
                rows.append(row)
                verdicts.append(row["verdict"])
                curves.append(ok)
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
                rows.append(row)
                verdicts.append(row["verdict"])


def _check_metric_at_least(c: _Claim) -> None:
    """``metric_at_least``: the mean of a metric at the horizon, per panel and series."""
    a, cid, check, conf, metric = c.a, c.cid, c.check, c.conf, c.metric
    data, panels, rows, verdicts, interval = c.data, c.panels, c.rows, c.verdicts, c.interval
    for p in panels:
        for s in a["series"]:
            x = data.finals(conf, p, s, a["metric"])
            stat = mean_at_least(x, a["threshold"], quantile(x.size, interval))
            label = f"{s}: mean {a['metric']} >= {a['threshold']:g}"
            rows.append(_row(conf, cid, check, p, label, metric, stat))
            verdicts.append(stat.verdict)


def _check_spearman(c: _Claim) -> None:
    """``spearman_decreasing``: Spearman correlation of epsilon and mean final regret."""
    a, cid, check, conf = c.a, c.cid, c.check, c.conf
    metric, data, panels, rows, verdicts = c.metric, c.data, c.panels, c.rows, c.verdicts
    eps = np.array([data.epsilon[conf, p] for p in panels], dtype=float)
    for s in a["series"]:
        finals = [data.finals(conf, p, s, metric) for p in panels]
        means = np.array([f.mean() for f in finals])
        stds = np.array([f.std() for f in finals])
        # a constant input has no correlation: NaN, as scipy gives it (without its warning)
        constant = np.ptp(eps) == 0 or np.ptp(means) == 0
        rho = float("nan") if constant else float(stats.spearmanr(eps, means).statistic)
        flat = bool(means.max() - means.min() <= stds.max())
        ok = rho <= a["threshold"] and not flat
        label = f"{s}: Spearman(epsilon, mean R(T)) <= {a['threshold']:g}" + (
            " (flat: means within 1 std)" if flat else ""
        )
        row = _row(
            conf, cid, check, ",".join(panels), label, metric, verdict="PASS" if ok else "FAIL"
        )
        row["mean_diff"] = rho
        rows.append(row)
        verdicts.append(row["verdict"])


def _check_mean_order(c: _Claim) -> None:
    """``mean_order``: each consecutive pair of ``series`` as ``below``."""
    a, cid, check, conf, metric = c.a, c.cid, c.check, c.conf, c.metric
    data, panels, rows, verdicts, below = c.data, c.panels, c.rows, c.verdicts, c.below
    for p in panels:
        for lo, hi in zip(a["series"][:-1], a["series"][1:], strict=True):
            stat = below(data.finals(conf, p, lo, metric), data.finals(conf, p, hi, metric))
            rows.append(_row(conf, cid, check, p, f"{lo} < {hi}", metric, stat))
            verdicts.append(stat.verdict)


def _check_below(c: _Claim) -> None:
    """``below``: ``a`` below each of ``b`` (paired statistic and curve level), per panel."""
    a, cid, check, conf, metric = c.a, c.cid, c.check, c.conf, c.metric
    data, panels, rows, verdicts, curves, below = (
        c.data,
        c.panels,
        c.rows,
        c.verdicts,
        c.curves,
        c.below,
    )
    for p in panels:
        for b in a["b"]:
            stat = below(data.finals(conf, p, a["a"], metric), data.finals(conf, p, b, metric))
            curve = curve_below(
                data.mean_curve(conf, p, a["a"], metric), data.mean_curve(conf, p, b, metric)
            )
            rows.append(_row(conf, cid, check, p, f"{a['a']} < {b}", metric, stat, curve=curve))
            verdicts.append(stat.verdict)
            curves.append(curve)


def _check_between(c: _Claim) -> None:
    """``between``: every pair ordered at every curve checkpoint, per panel."""
    a, cid, check, conf, metric = c.a, c.cid, c.check, c.conf, c.metric
    data, panels, rows, verdicts, curves, below = (
        c.data,
        c.panels,
        c.rows,
        c.verdicts,
        c.curves,
        c.below,
    )
    for p in panels:
        panel_curves = []
        for lo, hi in a["pairs"]:
            stat = below(data.finals(conf, p, lo, metric), data.finals(conf, p, hi, metric))
            curve = curve_below(
                data.mean_curve(conf, p, lo, metric), data.mean_curve(conf, p, hi, metric)
            )
            rows.append(_row(conf, cid, check, p, f"{lo} < {hi}", metric, stat, curve=curve))
            panel_curves.append(curve)
        ok = all(panel_curves)
        rows.append(
            _row(
                conf,
                cid,
                check,
                p,
                "all pairs (curve level)",
                metric,
                verdict="PASS" if ok else "FAIL",
                curve=ok,
            )
        )
        verdicts.append("PASS" if ok else "FAIL")
        curves.append(ok)


def _check_decreasing(c: _Claim) -> None:
    """``decreasing`` / ``gap_decreasing``: consecutive panels, paired by instance."""
    a, cid, check, conf, metric = c.a, c.cid, c.check, c.conf, c.metric
    data, panels, rows, verdicts, below = c.data, c.panels, c.rows, c.verdicts, c.below
    shapes = {data.instances[conf, p] for p in panels}
    if len(shapes) != 1:
        raise ValueError(f"{cid}: panels {panels} do not share their instances ({shapes})")
    for s in a["series"]:
        for p, q in zip(panels[:-1], panels[1:], strict=True):
            later, earlier = data.finals(conf, q, s, metric), data.finals(conf, p, s, metric)
            if check == "gap_decreasing":
                base = a["baseline"]
                later = later - data.finals(conf, q, base, metric)
                earlier = earlier - data.finals(conf, p, base, metric)
                label = f"gap({s} - {base}): {q} < {p}"
            else:
                label = f"{s}: {q} < {p}"
            stat = below(later, earlier)
            rows.append(_row(conf, cid, check, f"{p},{q}", label, metric, stat))
            verdicts.append(stat.verdict)


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
    summary = worst(verdicts)
    rows.append(
        _row(
            conf,
            cid,
            check,
            ",".join(panels),
            "all",
            metric,
            verdict=summary,
            curve=all(curves) if curves else None,
        )
    )
    summaries[conf, metric, cid] = summary
    return rows


def evaluate_orderings(
    claims: list[dict], df: pd.DataFrame, timings: pd.DataFrame | None = None
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

    Returns
    -------
    DataFrame
        One row per comparison and one summary row (``comparison == "all"``) per claim,
        configuration and metric; columns :data:`COLUMNS`. A failed summary row carries its
        ``robustness`` (module docstring: both halves of the instances fail, or not).
    """
    results = _evaluate(claims, df, timings)
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
            _evaluate(subset, df[df["trial"] % 2 == k], timings).set_index(_KEY)["verdict"]
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


def _evaluate(claims: list[dict], df: pd.DataFrame, timings: pd.DataFrame | None) -> pd.DataFrame:
    """:func:`evaluate_orderings` without the robustness column."""
    data = _Data(df, timings)
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
