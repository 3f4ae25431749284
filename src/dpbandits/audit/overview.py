"""The audit report: one row per claim of a paper, a plain-language summary, and the index page."""

from __future__ import annotations

import html
from collections import Counter

import numpy as np
import pandas as pd

from dpbandits.audit.badges import BADGE_CSS, badge
from dpbandits.audit.rates import FINITE_T_CAVEAT
from dpbandits.audit.scoreboard import counts as status_counts
from dpbandits.privacy.matching import MATCHED

VERDICT_SEMANTICS = (
    "Rate claims (log-log slope of mean final pseudo-regret on T, or of the privacy cost on "
    "1/epsilon, with a 95 % bootstrap interval over instances): an upper-bound claim is "
    "**consistent** when the interval's upper end is at most the claimed exponent plus the "
    "tolerance, **exceeds** when its lower end is above that and stays above without the "
    "smallest level (else it rests on one level: inconclusive), **inconclusive** otherwise; a "
    "lower-bound claim mirrors this (**below** when the interval's upper end is under the claimed "
    "exponent minus the tolerance). The claimed exponent includes the local slope of the "
    "bound's (ln T)^p factor over the fitted horizons. Two gates follow: a fit with a level "
    "whose mean regret is at least half random play's (its **regime** is saturated) is "
    "**untestable**, and **consistent** further needs the learning regime and power: the "
    "smallest exponent excess the design detects with 80 % probability (**detectable_excess**) "
    "must be within the configured maximum, and the family's planted violation "
    "(results/audit/controls.csv) must have been detected. Ordering claims (paired by instance "
    "at T): **PASS** if the "
    "95 % interval of the difference is below 0, **FAIL** if it is wholly above 0, **WEAK** if it "
    "contains 0; **UNTESTABLE** when both series sit at their cap (each at least half random "
    "play's regret, or tied exactly); curve crossings and "
    "diagnostic series never decide; each comparison shows both series' delivered epsilon. "
    f"Every rate verdict is a {FINITE_T_CAVEAT}."
)


def _rate_summaries(rates: pd.DataFrame) -> tuple[dict, dict, dict]:
    """Per rate claim: its summary verdict, the range of its fitted exponents per variable, and
    its robustness."""
    if rates.empty:
        return {}, {}, {}
    top = rates[rates["schedule"] == "all"]
    rate_sum = top.set_index("claim_id")["verdict"].to_dict()
    detail = {}
    for cid, grp in rates[rates["schedule"] != "all"].groupby("claim_id", sort=False):
        parts = [
            f"{var}: fitted {g['slope'].min():.2f} to {g['slope'].max():.2f} over {len(g)} fit(s)"
            for var, g in grp.groupby("variable", sort=False)
        ]
        detail[cid] = "; ".join(parts)
        # why, first (pages shorten long reasons): the gate's clause of the first fit whose
        # verdict is the claim's, the one that decides ([literal] rows are never verdicts)
        if "reason" in grp:
            deciding = grp[
                (grp["verdict"] == rate_sum.get(cid))
                & grp["reason"].notna()
                & ~grp["variable"].astype(str).str.endswith("[literal]")
            ]
            if not deciding.empty:
                r = deciding.iloc[0]
                fit, _, rest = str(r["reason"]).partition(": ")
                why = rest.split("; so ", 1)[1] if "; so " in rest else rest
                detail[cid] = f"{why} ({r['schedule']}, {r['variable']}: {fit}). " + detail[cid]
    rate_rob = {}
    if "robustness" in rates:
        marked = top[top["robustness"].notna()]
        rate_rob = dict(zip(marked["claim_id"], marked["robustness"], strict=True))
    return rate_sum, detail, rate_rob


def _ordering_summaries(orderings: pd.DataFrame, metric: str) -> tuple[dict, dict]:
    """Per (claim, configuration) the summary verdict of an ordering claim under ``metric``
    (``combined``: the common verdict of realized and pseudo-regret, INCONCLUSIVE where they
    differ), and per failed claim its robustness (``fragile`` if any failed row is)."""
    if orderings.empty:
        return {}, {}
    o = orderings[
        (orderings["comparison"].str.startswith("all"))
        & ~orderings["comparison"].str.contains("curve level")
    ]
    by = {
        m: {(r.claim_id, r.configuration): r.verdict for r in g.itertuples()}
        for m, g in o.groupby("metric")
    }
    if metric == "combined":
        real, pseudo = by.get("realized", {}), by.get("pseudo", {})
        order_sum = {k: v if pseudo.get(k) == v else "INCONCLUSIVE" for k, v in real.items()}
    else:
        order_sum = by.get(metric, {})
    order_rob = {}
    if "robustness" in o:
        used = ("realized", "pseudo") if metric == "combined" else (metric,)
        failed = o[o["metric"].isin(used) & o["robustness"].isin(["robust", "fragile"])]
        for cid, g in failed.groupby("claim_id"):
            order_rob[cid] = "fragile" if (g["robustness"] == "fragile").any() else "robust"
    return order_sum, order_rob


def _fmt_epsilon(value) -> str:
    """An epsilon of the orderings table to 3 significant digits (the column mixes numbers,
    read back as text, with ``non-private``)."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return value
    return "?" if pd.isna(value) else f"{float(value):.3g}"


def _truthy(value) -> bool:
    """A boolean column of the orderings table is true (read back from CSV as text, or
    blank)."""
    return str(value).lower() == "true"


def _truthy_false(value) -> bool:
    """A boolean column of the orderings table is false (blank: not applicable)."""
    return str(value).lower() == "false"


def _ordering_privacy(orderings: pd.DataFrame, cid: str, conf: str, metric: str) -> str:
    """The delivered epsilon of both series of each comparison of a claim on one configuration
    (empty without them), flagged where they differ by more than 10 %."""
    if orderings.empty or "epsilon_a" not in orderings:
        return ""
    used = ("realized", "pseudo") if metric == "combined" else (metric,)
    rows = orderings[
        (orderings["claim_id"] == cid)
        & (orderings["configuration"] == conf)
        & orderings["metric"].isin(used)
        & orderings["epsilon_b"].notna()
    ].drop_duplicates(["comparison", "panels"])
    if rows.empty:
        return ""
    parts = [
        f"{r['comparison']} ({r['panels']}): {_fmt_epsilon(r['epsilon_a'])} vs "
        f"{_fmt_epsilon(r['epsilon_b'])}"
        for r in rows.head(3).to_dict("records")
    ]
    more = f" and {len(rows) - 3} more" if len(rows) > 3 else ""
    flags = rows["unequal_privacy"].map(_truthy)
    flag = "; unequal privacy (delivered epsilon differs by > 10 %)" if flags.any() else ""
    return "; delivered epsilon " + "; ".join(parts) + more + flag


def _fmt_value(value) -> str:
    """A statistic of the orderings table for a reason: whole numbers from 100 on, else 3
    significant digits."""
    value = float(value)
    if not np.isfinite(value):
        return str(value)
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"


#: What a failing claim's reason adds where a failing comparison of two series' regret lacks
#: their caps (:func:`_ordering_failures`).
NO_CAP = "no cap recorded (random play's regret), so a saturated pair shows only as an exact tie"


def _comparisons(orderings: pd.DataFrame, cid: str, conf: str, metric: str, verdict: str):
    """The comparison rows (not the summaries) of a claim on one configuration with ``verdict``,
    under the first metric of ``metric`` that has any."""
    used = ("realized", "pseudo") if metric == "combined" else (metric,)
    rows = orderings[
        (orderings["claim_id"] == cid)
        & (orderings["configuration"] == conf)
        & (orderings["verdict"] == verdict)
        & ~orderings["comparison"].astype(str).str.startswith("all")
    ]
    return rows[rows["metric"] == used[0]] if (rows["metric"] == used[0]).any() else rows


def _stated(rows: pd.DataFrame, epsilon: bool = False, shares: bool = False) -> str:
    """The first two comparisons of ``rows`` with their statistic and 95 % interval (with both
    series' delivered epsilon where ``epsilon``, their shares of random play's regret where
    ``shares``), then a count of the rest."""
    parts = []
    for r in rows.head(2).to_dict("records"):
        stat = f"{r['comparison']} ({r['panels']}; {r['statistic']})"
        if pd.notna(r.get("ci_low")) and pd.notna(r.get("ci_high")):
            stat += (
                f": {_fmt_value(r['mean_diff'])} "
                f"[{_fmt_value(r['ci_low'])}, {_fmt_value(r['ci_high'])}]"
            )
        if shares and pd.notna(r.get("share_a")) and pd.notna(r.get("share_b")):
            stat += (
                f", at {float(r['share_a']):.2f} and {float(r['share_b']):.2f} of random "
                "play's regret"
            )
        if epsilon and pd.notna(r.get("epsilon_b")):
            stat += (
                f", delivered epsilon {_fmt_epsilon(r['epsilon_a'])} vs "
                f"{_fmt_epsilon(r['epsilon_b'])}"
            )
        parts.append(stat)
    more = f" and {len(rows) - 2} more" if len(rows) > 2 else ""
    return "; ".join(parts) + more


#: How a reason introduces the comparisons that leave an ordering claim undecided
#: (:func:`_ordering_undecided`).
AT_THE_CAP = "at the cap (both series at >= half of random play's regret, or tied exactly)"


def _ordering_failures(
    orderings: pd.DataFrame, cid: str, conf: str, metric: str, epsilon: bool = False
) -> tuple[str, bool]:
    """What makes an ordering claim FAIL on one configuration (empty when nothing fails): its
    failing comparisons with their statistic and 95 % interval (the first two, then a count),
    with both series' delivered epsilon where ``epsilon``; and whether a failing comparison of
    two series' regret lacks their caps (the reason then adds :data:`NO_CAP`)."""
    if orderings.empty:
        return "", False
    rows = _comparisons(orderings, cid, conf, metric, "FAIL")
    if rows.empty:
        return "", False
    no_cap = "cap_recorded" in rows and rows["cap_recorded"].map(_truthy_false).any()
    return "; failing: " + _stated(rows, epsilon), bool(no_cap)


def _ordering_undecided(orderings: pd.DataFrame, cid: str, conf: str, metric: str) -> str:
    """Why an ordering claim that does not fail is undecided on one configuration: its WEAK
    comparisons (interval across the claimed side), else, when every deciding comparison is
    UNTESTABLE, those with both series' shares of random play's regret (empty otherwise)."""
    if orderings.empty:
        return ""
    weak = _comparisons(orderings, cid, conf, metric, "WEAK")
    if not weak.empty:
        return "; undecided: " + _stated(weak)
    mine = orderings[(orderings["claim_id"] == cid) & (orderings["configuration"] == conf)]
    deciding = mine[~mine["verdict"].isin(["DIAGNOSTIC"])
                    & ~mine["comparison"].astype(str).str.startswith("all")]  # fmt: skip
    capped = _comparisons(orderings, cid, conf, metric, "UNTESTABLE")
    if capped.empty or (deciding["verdict"] != "UNTESTABLE").any():
        return ""
    return f"; {AT_THE_CAP}: " + _stated(capped, shares=True)


def _same_data(orderings: pd.DataFrame, cid: str, conf: str, other: str) -> bool:
    """Whether a claim's comparisons on ``other`` are those on ``conf``, value for value (the
    same simulations under another configuration's name, e.g. cz22's r2 in Figure 1(a))."""
    cols = ["metric", "panels", "comparison", "mean_diff", "ci_low", "ci_high"]
    if orderings.empty or not set(cols) <= set(orderings.columns):
        return False

    def rows(name):
        mine = orderings[(orderings["claim_id"] == cid) & (orderings["configuration"] == name)]
        mine = mine[~mine["comparison"].astype(str).str.startswith("all")]
        return sorted(map(tuple, mine[cols].astype(str).to_numpy()))

    here = rows(conf)
    return bool(here) and here == rows(other)


def _ordering_verdict(
    c: dict, order_sum: dict, primary: str, metric: str, lead: str = "", twins=()
):
    """An ordering claim's verdict on the configuration shown (the primary, or the first the
    claim lists), how it was reached (``lead`` right after the data it was read on: what fails,
    first, since a page shows the reason's beginning; ``twins``: configurations whose data are the
    shown one's, named as such), and ``INCONCLUSIVE`` when another
    configuration's verdict differs (else None): an ``UNTESTABLE`` one (both series at their
    cap there) too, since a verdict that holds on one configuration and cannot be tested on
    another is not established across them."""
    audit = c["audit"]
    shown = primary
    if "configurations" in audit and primary not in audit["configurations"]:
        shown = audit["configurations"][0]
    verdict = order_sum.get((c["id"], shown), "MISSING")
    others = {
        conf: v
        for (cid, conf), v in order_sum.items()
        if cid == c["id"] and conf not in (shown, MATCHED)
    }
    how = f"figure data ({audit.get('check')}, {metric} regret, configuration {shown})" + lead
    across = None
    if others:
        how += "; other configurations: " + ", ".join(
            f"{k} {v}" + (f" (the same simulations as {shown})" if k in twins else "")
            for k, v in others.items()
        )
        differing = {v for v in others.values() if v != verdict}
        if differing:
            across = "INCONCLUSIVE"
            how += (
                " (not testable on every configuration)"
                if differing == {"UNTESTABLE"}
                else " (the verdict depends on the configuration)"
            )
    how += matched_phrase(verdict, order_sum.get((c["id"], MATCHED)))
    return verdict, how, across


#: How an ordering claim's reason introduces its matched verdict (:func:`matched_phrase`).
MATCHED_WORDS = "at matched privacy"
#: Whether a paper's ordering holds, by (at nominal epsilon, at matched epsilon).
_HOLDS = {
    (True, True): "holds at nominal and at matched epsilon",
    (True, False): "holds at nominal epsilon only",
    (False, True): "holds at matched epsilon only",
    (False, False): "is established at neither nominal nor matched epsilon",
}


def matched_phrase(nominal: str, matched: str | None) -> str:
    """What an ordering claim's reason adds about its matched companion (the configuration
    ``matched``: every private series at the delivered epsilon of its label): the matched verdict
    and whether the paper's ordering holds at nominal epsilon, at matched epsilon, both or
    neither (holds = PASS). The matched verdict never decides the claim: it answers another
    question (which algorithm learns better at the same real privacy)."""
    if matched is None:
        return ""
    holds = _HOLDS[(nominal == "PASS", matched == "PASS")]
    return f"; {MATCHED_WORDS} (configuration matched) {matched}: the paper's ordering {holds}"


def communication_verdict(summary: pd.DataFrame | None, claim_id: str) -> tuple[str, str]:
    """A claim's verdict from the rows of an analytic communication audit that decide it
    (``counts``): ``exceeds`` if one count's exponent exceeds the statement's (an exact count,
    so a demonstrated violation), ``consistent`` if every one is within it, ``MISSING`` without
    such rows; and the reason."""
    if summary is None or "claim_id" not in summary:
        return "MISSING", "no communication audit"
    rows = summary[(summary["claim_id"] == claim_id) & summary["counts"].astype(bool)]
    if rows.empty:
        return "MISSING", "no row of the communication audit decides it"
    bad = rows[rows["verdict"] != "consistent"]
    what = "analytic count (no simulation)"
    if len(bad):
        where = "; ".join(
            " ".join(str(v) for v in r if isinstance(v, str))
            for r in bad[[c for c in ("protocol", "count", "variable") if c in bad]].itertuples(
                index=False
            )
        )
        return "exceeds", f"{what}: above the statement in {where}"
    return "consistent", f"{what}: all {len(rows)} deciding counts within the statement"


def claim_overview(
    claims: list[dict],
    rates: pd.DataFrame,
    orderings: pd.DataFrame,
    primary: str,
    metric: str = "realized",
    privacy: pd.DataFrame | None = None,
    communication: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per claim of the registry with its verdict.

    Parameters
    ----------
    claims : list of dict
        The paper's registry.
    rates : DataFrame
        Output of :func:`dpbandits.audit.rates.evaluate_rate_claims`.
    orderings : DataFrame
        Output of :func:`dpbandits.audit.checklist.evaluate_orderings` (figure data).
    primary : str
        Configuration whose ordering verdict is shown (others are in the ordering table); a
        claim checked only on other configurations shows the first of its ``configurations``.
    metric : str
        ``realized``, ``pseudo`` or ``combined`` (:data:`dpbandits.claims.VERDICT_METRICS`).
    privacy : DataFrame, optional
        The privacy audit's finding per privacy claim
        (:func:`dpbandits.audit.privacy_claims.privacy_claim_status`): a claim it audits shows
        that status (``supported``, ``contradicted``, ``inconclusive``) and its reason.
    communication : DataFrame, optional
        The analytic communication audit's summary (``claim_id``, ``verdict``, ``counts``):
        claims with ``check: communication`` take :func:`communication_verdict`.

    Returns
    -------
    DataFrame
        One row per claim; ``robustness`` is set for a contradicted claim (``exceeds``,
        ``below``, ``FAIL``): ``robust`` / ``fragile`` from the rate refit without the smallest
        level or the ordering's split-half replication (every failed configuration and metric
        must replicate), ``untested`` where neither applies.
    """
    found = {} if privacy is None else privacy.set_index("claim_id").to_dict("index")
    rate_sum, detail, rate_rob = _rate_summaries(rates)
    order_sum, order_rob = _ordering_summaries(orderings, metric)
    rows = []
    for c in claims:
        audit = c["audit"]
        claimed = ", ".join(f"{k} {c[k]}" for k in ("T_exp", "eps_exp") if c.get(k) is not None)
        check = audit.get("check")
        across = None  # the verdict across configurations, where it differs from the primary's
        if "none" in audit:
            verdict, how = "not audited", audit["none"]
        elif check == "communication":
            verdict, how = communication_verdict(communication, c["id"])
        elif check in ("slope", "slope_between", "slope_trend"):
            verdict = rate_sum.get(c["id"], "MISSING")
            schedules = ", ".join(audit["schedules"])
            how = f"sweep {audit['sweep']}: {schedules}. {detail.get(c['id'], '')}"
        else:
            audit_conf = primary
            if "configurations" in audit and primary not in audit["configurations"]:
                audit_conf = audit["configurations"][0]
            lead, no_cap = "", False
            if check == "summary":
                for part in audit["of"]:  # what fails in each claim it summarises
                    said, lacks = _ordering_failures(orderings, part, audit_conf, metric, True)
                    lead += f"; {part} {said[2:]}" if said else ""
                    no_cap |= lacks
            else:
                lead, no_cap = _ordering_failures(orderings, c["id"], audit_conf, metric)
                lead = lead or _ordering_undecided(orderings, c["id"], audit_conf, metric)
            lead += f"; {NO_CAP}" if no_cap else ""
            twins = {
                conf
                for (cid, conf) in order_sum
                if cid == c["id"] and conf != audit_conf
                and _same_data(orderings, cid, audit_conf, conf)
            }  # fmt: skip
            verdict, how, across = _ordering_verdict(c, order_sum, primary, metric, lead, twins)
            if check != "summary":
                how += _ordering_privacy(orderings, c["id"], audit_conf, metric)
        if c["id"] in found and found[c["id"]]["status"] != "not audited":
            verdict = found[c["id"]]["status"]
            how = f"privacy audit: {found[c['id']]['reason']}"
        overall = verdict if across is None else across
        robustness = ""
        if overall in ("exceeds", "below"):
            robustness = rate_rob.get(c["id"], "untested")
        elif overall == "FAIL":
            robustness = order_rob.get(c["id"], "untested")
        rows.append(
            {
                "claim_id": c["id"],
                "kind": c["kind"],
                "source": c["source"],
                "algorithm": c["algorithm"],
                "claimed": claimed,
                "verdict": verdict,
                "all_configurations": overall,
                "robustness": robustness,
                "how": how.strip(),
            }
        )
    return pd.DataFrame(rows)


def plain_summary(board: pd.DataFrame, rates: pd.DataFrame, primary: str) -> str:
    """A short plain-language summary (Markdown) of what held and what did not.

    ``board`` is the paper's rows of the scoreboard: the counts and the list of claims not
    borne out are its statuses, never recomputed.
    """
    lines = []
    by_kind = pd.crosstab(board["kind"], board["status"])
    for kind, counts in by_kind.iterrows():
        parts = ", ".join(f"{int(n)} {v}" for v, n in counts.items() if n)
        lines.append(f"- **{kind}** claims: {parts}.")
    if not rates.empty:
        fits = rates[(rates["schedule"] != "all") & (rates["variable"] == "T")]
        for sched, g in fits.groupby("schedule", sort=False):
            claimed = sorted(set(g["claimed"].round(3)))
            lines.append(
                f"- Schedule `{sched}`: fitted T-exponents {g['slope'].min():.2f} to "
                f"{g['slope'].max():.2f} across epsilon (claimed {', '.join(map(str, claimed))})."
            )
    bad = board[board["status"] == "contradicted"]
    if len(bad):
        lines.append("- Not borne out: " + ", ".join(f"`{c}`" for c in bad["claim_id"]) + ".")
    lines.append(
        f"- A claim checked on several configurations is supported or contradicted only where "
        f"every configuration agrees (the primary is `{primary}`); the ordering table below has "
        "every configuration."
    )
    lines.append(f"- Every rate verdict is a {FINITE_T_CAVEAT}.")
    return "\n".join(lines)


def write_index(
    board: pd.DataFrame, papers: list[dict], out: str, results_root: str, scale: str = "paper"
) -> None:
    """The report's index: the scoreboard's counts, then per paper its counts, a link to its
    page and every claim as the scoreboard states it.

    Parameters
    ----------
    board : DataFrame
        The scoreboard (:func:`dpbandits.audit.scoreboard.scoreboard`): the only source of the
        statuses and counts shown.
    papers : list of dict
        Keys ``name``, ``title``, ``page`` (link relative to ``out``), in the order shown.
    out : str
        HTML file to write.
    results_root : str
        The build's results folder (the scoreboard's evidence paths are relative to it).
    scale : str
        The build's scale; a quick build's page says so (:func:`dpbandits.pages.scale_banner`).
    """
    import os

    from dpbandits.pages import PAGE_CSS, claim_rows_table, scale_banner, scale_title
    from dpbandits.provenance import one_line

    title = scale_title("Claim audit", scale)
    page_dir = os.path.dirname(os.path.abspath(out))
    root = os.path.abspath(results_root)
    body = [
        scale_banner(scale),
        f"<h1>{html.escape(title)}</h1>",
        f"<p><small>Made by {html.escape(one_line())}.</small></p>",
        f'<p><a href="{html.escape(os.path.relpath(os.path.join(root, "index.html"), page_dir))}">'
        "Front page</a></p>",
    ]
    table = status_counts(board)
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in table.columns)
    rows = "".join(
        f'<tr data-paper="{html.escape(str(r[0]))}">'
        + "".join(f"<td>{html.escape(str(v))}</td>" for v in r)
        + "</tr>"
        for r in table.itertuples(index=False)
    )
    body.append(
        "<h2>Scoreboard</h2><p>Claims per final status (scoreboard.csv has each claim with its "
        f'reason).</p><table class="dpb-claims dpb-counts"><tr>{head}</tr>{rows}</table>'
    )
    body.append(f"<p>{html.escape(VERDICT_SEMANTICS).replace('**', '')}</p>")
    for p in papers:
        mine = board[board["paper"] == p["name"]]
        chips = " ".join(f"{badge(v)}&nbsp;{n}" for v, n in Counter(mine["status"]).most_common())
        body.append(
            f'<h2 id="{html.escape(p["name"])}"><a href="{html.escape(p["page"])}">'
            f"{html.escape(p['title'])}</a> ({html.escape(p['name'])})</h2><p>{chips}</p>"
        )
        body.append(claim_rows_table(mine.to_dict("records"), page_dir, root))
    style = "body{font-family:sans-serif;max-width:75em;margin:2em auto}" + BADGE_CSS + PAGE_CSS
    with open(out, "w") as fh:
        fh.write(
            f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            f"</title><style>{style}</style></head><body>{''.join(body)}</body></html>\n"
        )
