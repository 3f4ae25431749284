"""The papers' pairwise claims that the arena can check (``claims:`` of config/arena.yaml), as
verdict rows in the audit's vocabulary (docs/arena.md).

Each comparison "A below B" is evaluated at every suite, dimension, horizon and calibration
where both ran, on the per-trial final regrets paired by trial (common random numbers): the
paired 95 % t-interval of ``R_A - R_B`` gives **PASS** (wholly below 0), **WEAK** (interval
contains 0) or **FAIL** (wholly above 0), and **UNTESTABLE** for an exact tie on every trial
(:func:`dpbandits.audit.ordering.paired_below`). Every row states its power:
``detectable_excess = z_0.8 SE``, the true excess of A over B that the design reads as FAIL
with probability 0.8 (the mean difference is normal with standard error ``SE``); a violation
smaller than that may read WEAK or PASS.

A row counts only where both contestants learn (mean final regret at most half of uniform
random play's, the audit's learning regime): near random play every algorithm's regret is the
same and an ordering says nothing about the claim. Rows outside it keep their statistic with
``regime = not learning``. A claim is ``supported`` when every counted row passes,
``contradicted`` when a counted row fails, ``inconclusive`` otherwise, and ``untestable``
without a counted row.
"""

from __future__ import annotations

import pandas as pd

#: Normal quantile of power 0.8.
Z80 = 0.8416212335729143
ROW_COLUMNS = [
    "claim_id",
    "paper",
    "suite",
    "d",
    "T",
    "calibration",
    "a",
    "b",
    "n",
    "mean_diff",
    "ci_low",
    "ci_high",
    "detectable_excess",
    "verdict",
    "regime",
]
CLAIM_COLUMNS = [
    "claim_id",
    "paper",
    "statement",
    "rows",
    "counted",
    "pass",
    "weak",
    "fail",
    "status",
]


def claim_rows(arena, finals: dict, learning: dict) -> pd.DataFrame:
    """Every comparison of every claim (module docstring); ``finals``: cell path -> per-trial
    final regrets (ordered by trial); ``learning``: cell path -> whether it learns."""
    from dpbandits.audit.ordering import paired_below, quantile

    by_key = {(c.figure, c.d, c.T, c.configuration, c.series): c for c in arena.cells}
    rows = []
    for claim in arena.data["claims"]:
        for a, b in claim["below"]:
            for (suite, d, T, cal, series), cell in by_key.items():
                other = by_key.get((suite, d, T, cal, b))
                if series != a or other is None:
                    continue
                x, y = finals[cell.path], finals[other.path]
                q = quantile(len(x), "t")
                stat = paired_below(x, y, q)
                rows.append(
                    {
                        "claim_id": claim["id"],
                        "paper": claim["paper"],
                        "suite": suite,
                        "d": d,
                        "T": T,
                        "calibration": cal,
                        "a": a,
                        "b": b,
                        "n": stat.n,
                        "mean_diff": stat.mean,
                        "ci_low": stat.ci_low,
                        "ci_high": stat.ci_high,
                        "detectable_excess": Z80 * stat.se,
                        "verdict": stat.verdict,
                        "regime": "learning"
                        if learning[cell.path] and learning[other.path]
                        else "not learning",
                    }
                )
    return pd.DataFrame(rows, columns=ROW_COLUMNS)


def status(verdicts) -> str:
    """Claim status from its rows' verdicts (module docstring)."""
    verdicts = list(verdicts)
    if not verdicts:
        return "untestable"
    if "FAIL" in verdicts:
        return "contradicted"
    return "supported" if all(v == "PASS" for v in verdicts) else "inconclusive"


def claim_table(arena, rows: pd.DataFrame) -> pd.DataFrame:
    """One row per claim: its statement, the verdict counts and its status."""
    out = []
    for claim in arena.data["claims"]:
        mine = rows[rows["claim_id"] == claim["id"]]
        v = mine.loc[mine["regime"] == "learning", "verdict"].tolist()
        out.append(
            {
                "claim_id": claim["id"],
                "paper": claim["paper"],
                "statement": " ".join(claim["statement"].split()),
                "rows": len(mine),
                "counted": len(v),
                "pass": v.count("PASS"),
                "weak": v.count("WEAK"),
                "fail": v.count("FAIL"),
                "status": status(v),
            }
        )
    return pd.DataFrame(out, columns=CLAIM_COLUMNS)


__all__ = ["CLAIM_COLUMNS", "ROW_COLUMNS", "claim_rows", "claim_table", "status"]
