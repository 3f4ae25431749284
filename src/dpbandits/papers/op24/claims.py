"""op24's claim verdicts from the audit's rows (module :mod:`.verdicts`): each claim's
aggregate over the rows it names, with the reason where no row could decide it (per undecided
rule, how many of its rows had each reason: :func:`~dpbandits.audit.verdicts.why_undecided`).
"""

from __future__ import annotations

import pandas as pd

from dpbandits.audit.minimax_rules import (
    aggregate,
    claim_robustness,
    combine,
    combine_rules,
)
from dpbandits.audit.verdicts import UNDECIDED, why_undecided

NOT_RUN = "NOT-RUN"


def _lower_aggregate(verdicts) -> str:
    """R-LB-CONS in its own words: INCONSISTENT if any value is; PRE-ASYMPTOTIC if every value
    is saturated; else CONSISTENT (saturated values left out)."""
    used = [v for v in verdicts if v != NOT_RUN]
    if not used:
        return NOT_RUN
    if "INCONSISTENT" in used:
        return "INCONSISTENT"
    return "PRE-ASYMPTOTIC" if all(v == "PRE-ASYMPTOTIC" for v in used) else "CONSISTENT"


def _shared(verdicts) -> str:
    """Shared verdict of a rule or claim from shared per-value verdicts (NOT-RUN left out)."""
    used = [v for v in verdicts if v != NOT_RUN]
    return combine(used) if used else NOT_RUN


def claim_verdicts(rows: pd.DataFrame, claims: list[dict]) -> pd.DataFrame:
    """One row per claim: per rule the aggregated verdict, and the claim's verdict.

    ``verdict`` is shared: a rule's values aggregate with
    :func:`~dpbandits.audit.minimax_rules.combine` (a violation wins; untestable values left out
    unless every value is, then ``untestable``; ``consistent`` when every testable value is), and
    a claim aggregates its rules with :func:`~dpbandits.audit.minimax_rules.combine_rules`
    (NOT-RUN rules left out; ``consistent`` only when every rule is, so a claim whose T-exponent
    fits are all saturated is never consistent). ``rule_verdict`` keeps
    the own words' aggregate (:func:`~dpbandits.audit.minimax_rules.aggregate`; R-LB-CONS:
    INCONSISTENT wins). ``op.s2.price_negligible`` is consistent only if the R-EXC-T verdicts of
    both Table 1 upper bounds are. Descriptive rules report their per-value labels; claims
    without experiments are NOT-AUDITED. ``robustness`` of a violated claim:
    :func:`~dpbandits.audit.minimax_rules.claim_robustness` of its rows.
    """
    out = []
    per_rule: dict[tuple[str, str], str] = {}
    own: dict[tuple[str, str], str] = {}
    why: dict[tuple[str, str], str] = {}  # of an undecided rule: why its rows decide nothing
    if "rule_verdict" not in rows.columns:
        rows = rows.assign(rule_verdict=rows["verdict"])
    if "robustness" not in rows.columns:
        rows = rows.assign(robustness="")
    for (cid, rule), sub in rows.groupby(["claim_id", "rule"], sort=False):
        v, w = list(sub["verdict"]), list(sub["rule_verdict"])
        if rule in ("R-GAP-T", "R-GAP-EPS", "NOT-AUDITED", "R8-CHECKPOINTS"):
            per_rule[cid, rule] = own[cid, rule] = ", ".join(sorted(set(v)))
            continue
        per_rule[cid, rule] = _shared(v)
        if per_rule[cid, rule] in UNDECIDED and "reason" in sub:
            alike = sub[sub["verdict"] == per_rule[cid, rule]]
            why[cid, rule] = why_undecided(alike["reason"].dropna())
        if rule == "R-LB-CONS":
            own[cid, rule] = _lower_aggregate(w)
        elif all(x == NOT_RUN for x in w):
            own[cid, rule] = NOT_RUN
        else:
            own[cid, rule] = aggregate([x for x in w if x != NOT_RUN])
    for claim in claims:
        cid = claim["id"]
        rules = {r: v for (c, r), v in per_rule.items() if c == cid}
        audit = claim["audit"]
        own_verdict = None
        if cid == "op.s2.price_negligible":
            keys = [(c, "R-EXC-T") for c in ("op.t1.finite.upper", "op.t1.linear.upper")]
            parts = [per_rule.get(k, NOT_RUN) for k in keys]
            words = [own.get(k, NOT_RUN) for k in keys]
            verdict = combine_rules(parts) if NOT_RUN not in parts else NOT_RUN
            own_verdict = aggregate(words) if NOT_RUN not in words else NOT_RUN
            rules = {"R-EXC-T (finite, linear)": " / ".join(parts)}
        elif audit.get("rule") in ("NOT-AUDITED", "DESCRIPTIVE"):
            verdict = audit["rule"]
            if audit["rule"] == "DESCRIPTIVE":
                rules = {
                    "C1: R-GAP-T (JDP-LinUCB)": per_rule.get(("op.s3.gap", "R-GAP-T"), NOT_RUN),
                    "C1: R-EXC-T (AdaC-OFUL)": per_rule.get(
                        ("op.s3.adac_oful", "R-EXC-T"), NOT_RUN
                    ),
                }
                if cid == "op.q3":
                    rules["C2: R-GAP-T (JDP-LinUCB)"] = per_rule.get((cid, "R-GAP-T"), NOT_RUN)
                    rules["C2: R-EXC-T (AdaC-OFUL)"] = per_rule.get((cid, "R-EXC-T"), NOT_RUN)
        elif claim["kind"] == "regret_lower":
            verdict = rules.get("R-LB-CONS", NOT_RUN)
            own_verdict = own.get((cid, "R-LB-CONS"), NOT_RUN)
        elif cid == "op.s3.gap":
            verdict = "DESCRIPTIVE"
        else:
            live = [r for r, v in rules.items() if v != NOT_RUN and not r.startswith("R-GAP")]
            verdict = combine_rules([rules[r] for r in live]) if live else NOT_RUN
            own_verdict = aggregate([own[cid, r] for r in live]) if live else NOT_RUN
        if cid == "op.s2.price_negligible":
            mine = rows[rows["claim_id"].isin([k[0] for k in keys]) & (rows["rule"] == "R-EXC-T")]
        else:
            mine = rows[rows["claim_id"] == cid]
        out.append(
            {
                "claim_id": cid,
                "kind": claim["kind"],
                "where": claim["where"],
                "claimed": claim["latex"],
                "rules": "; ".join(
                    f"{r}: {v}" + (f" ({why[cid, r]})" if why.get((cid, r)) else "")
                    for r, v in rules.items()
                )
                or "-",
                "verdict": verdict,
                "rule_verdict": verdict if own_verdict is None else own_verdict,
                "robustness": claim_robustness(mine, verdict),
                "notes": claim.get("notes", ""),
            }
        )
    return pd.DataFrame(out)
