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
where the data record random play's regret (column ``regret_unif`` or ``cap``; the figure
tables add it, :func:`~dpbandits.audit.ordering_data.with_caps`), both series' mean regret at
least :data:`~dpbandits.audit.verdicts.SATURATION_SHARE` of it. Curve crossings
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
comparisons' is. ``cap_recorded`` says, for a comparison of two series' regret, whether the data
record both caps: where they do not, a saturated pair is recognised only as an exact tie, and a
claim's reason says so beside a ``FAIL``.

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

import numpy as np
import pandas as pd

from .ordering_checks import (  # noqa: F401  (re-exported: the ordering audit's public API)
    STATISTIC,
    WALL_TIME_STATISTIC,
    evaluate_claim,
)
from .ordering_data import (  # noqa: F401  (re-exported: the ordering audit's public API)
    COLUMNS,
    METRICS,
    NON_PRIVATE,
    OrderingData,
    delivered_lookup,
    unequal_privacy,
)

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
    data = OrderingData(df, timings, privacy)
    orderings = [c for c in claims if c["audit"].get("check") in FIGURE_CHECKS]
    # summaries last, so that the claims they combine are evaluated first
    orderings.sort(key=lambda c: c["audit"]["check"] == "summary")
    rows, summaries = [], {}
    present = [m for m in METRICS if m in df and df[m].notna().any()]
    for conf in df["configuration"].drop_duplicates():
        for metric in present:
            for claim in orderings:
                if conf in claim["audit"].get("configurations", [conf]):
                    rows.extend(evaluate_claim(claim, data, conf, metric, summaries))
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
