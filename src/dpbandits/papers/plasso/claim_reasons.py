"""What stands behind plasso's claim-level rule verdicts (module :mod:`.verdicts`), in words
a claim's reason can carry."""

from __future__ import annotations

import pandas as pd

from dpbandits.audit.verdicts import UNDECIDED, why_undecided


def family_why(rows: pd.DataFrame, cid: str, agg) -> str:
    """What stands behind a family aggregate ``agg`` of claim ``cid`` (empty where nothing
    needs saying): for ``exceeds``, the eps whose rows exceed, with their robustness; for an
    undecided aggregate, why its rows decide nothing
    (:func:`~dpbandits.audit.verdicts.why_undecided`)."""
    sub = rows[(rows["claim_id"] == cid) & (rows["rule"] == agg.rule)
               & (rows["family"] == agg.family) & (rows["role"] == agg.role)
               & (rows["verdict"] == agg.verdict)]  # fmt: skip
    if sub.empty:
        return ""
    if agg.verdict == "exceeds":
        at = [
            f"{r.eps:g}" + (f", {r.robustness}" if isinstance(r.robustness, str) and r.robustness
                            else "")
            for r in sub.itertuples()
        ]  # fmt: skip
        return f" (at eps {'; '.join(at)})"
    if agg.verdict in UNDECIDED and "reason" in sub:
        return f" ({why_undecided(sub['reason'].dropna())})"
    return ""
