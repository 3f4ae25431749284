"""The scoreboard: one final status per (paper, claim) across the five papers.

Each paper's audit speaks its own words (rate fits: ``consistent`` / ``exceeds`` / ...; figure
orderings: ``PASS`` / ``WEAK`` / ``FAIL``; the figure-less studies: ``SUPPORTED`` / ...). The
scoreboard maps every word to one of :data:`STATUSES`; privacy claims take the privacy audit's
finding (delivered and empirical epsilon) where the registry names the rows that test them.
"""

from __future__ import annotations

import pandas as pd

STATUSES = ("supported", "contradicted", "inconclusive", "untestable", "not audited")
#: Every verdict word of the audits and its status.
STATUS_OF = {
    "supported": ("consistent", "PASS", "SUPPORTED", "CONSISTENT", "NO-VIOLATION", "supported"),
    "contradicted": (
        "exceeds",
        "below",
        "FAIL",
        "CONTRADICTED",
        "INCONSISTENT",
        "VIOLATION",
        "DIFFERS",
        "contradicted",
    ),
    "inconclusive": ("inconclusive", "INCONCLUSIVE", "WEAK"),
    "untestable": ("untestable", "UNTESTABLE", "PRE-ASYMPTOTIC", "UNUSABLE"),
    "not audited": (
        "not audited",
        "NOT-AUDITED",
        "NOT-RUN",
        "DESCRIPTIVE",
        "DIAGNOSTIC",
        "INFORMATIONAL",
        "INFO",
    ),
}
_LOOKUP = {word: status for status, words in STATUS_OF.items() for word in words}
COLUMNS = [
    "paper",
    "claim_id",
    "kind",
    "status",
    "robustness",
    "verdict",
    "reason",
    "statement",
    "evidence",
]


def status(word: str) -> str:
    """The scoreboard status of an audit's verdict word (``ValueError`` for an unknown word:
    a new word must be placed here, not silently counted)."""
    try:
        return _LOOKUP[str(word).strip()]
    except KeyError:
        raise ValueError(
            f"verdict {word!r} has no scoreboard status; known: {', '.join(sorted(_LOOKUP))}"
        ) from None


def _text(value) -> str:
    """A cell as text ('' for a missing value)."""
    return "" if value is None or (isinstance(value, float) and value != value) else str(value)


def _reason(row: dict, status_name: str) -> str:
    """Why a claim has its status: the audit's own reason (``reason`` or ``how``); for a claim no
    audit tests, the registry's note on why (``notes``); else the rules that decided it."""
    for key in ("reason", "how"):
        if _text(row.get(key)).strip():
            return _text(row[key]).strip()
    if status_name == "not audited" and _text(row.get("notes")).strip():
        return _text(row["notes"]).strip()
    return _text(row.get("rules")).strip()


def scoreboard(
    overviews,
    privacy: pd.DataFrame | None = None,
    robustness: dict | None = None,
    statements: dict | None = None,
    evidence: dict | None = None,
) -> pd.DataFrame:
    """One row per (paper, claim) with its final status.

    Parameters
    ----------
    overviews : iterable of (str, DataFrame)
        Per paper, its claim overview: columns ``claim_id``, ``verdict`` and optionally
        ``kind``, ``how`` / ``reason``, ``all_configurations`` (the verdict across every
        configuration a claim is checked on: a comparison that holds against untuned baselines
        but not against tuned ones is inconclusive, not supported) and ``robustness`` (of a
        contradicted claim: ``robust``, ``fragile`` or ``untested``).
    privacy : DataFrame, optional
        Privacy claims' findings (``claim_id``, ``status``, ``reason``): they replace the
        overview's verdict of those claims, since the privacy audit is what tests them.
    robustness : dict, optional
        Claim id -> ``robust`` / ``fragile`` / ``untested``, overriding the overview's column; a
        contradicted claim with neither is ``untested``.
    statements : dict, optional
        Claim id -> the claim as the paper states it (:func:`dpbandits.pages.claim_statement`).
    evidence : dict, optional
        Claim id -> list of files (relative to the build's results folder) that decided it:
        the rate fit's plot, the figure panels, the privacy page.

    Returns
    -------
    DataFrame
        Columns :data:`COLUMNS`.
    """
    found = {} if privacy is None else privacy.set_index("claim_id").to_dict("index")
    rows = []
    for paper, ov in overviews:
        for r in ov.to_dict("records"):
            cid = r["claim_id"]
            word = r.get("all_configurations") or r["verdict"]
            reason = _reason(r, status(word))
            row = {
                "paper": paper,
                "claim_id": cid,
                "kind": r.get("kind", ""),
                "status": status(word),
                "verdict": word,
                "reason": reason,
                "statement": (statements or {}).get(cid, ""),
                "evidence": ";".join((evidence or {}).get(cid, [])),
            }
            if cid in found and found[cid]["status"] != "not audited":
                row.update(
                    status=found[cid]["status"],
                    verdict=f"privacy audit: {found[cid]['status']}",
                    reason=found[cid]["reason"],
                )
            own = r.get("robustness")
            own = own if isinstance(own, str) and own else None
            row["robustness"] = (
                (robustness or {}).get(cid) or own or "untested"
                if row["status"] == "contradicted" and not str(row["verdict"]).startswith("privacy")
                else ""
            )
            rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


def counts(board: pd.DataFrame) -> pd.DataFrame:
    """Per paper, the number of claims of each status (columns :data:`STATUSES`, then total)."""
    table = pd.crosstab(board["paper"], board["status"]).reindex(columns=STATUSES, fill_value=0)
    table["total"] = table.sum(axis=1)
    return table.reset_index()


def markdown(board: pd.DataFrame, scale: str = "paper") -> str:
    """The scoreboard as Markdown: the per-paper counts, then every claim (without its
    evidence links); a quick build's says first that its verdicts are a smoke test."""
    from dpbandits.pages import QUICK_NOTE, is_quick

    title = "Scoreboard: the status of every audited claim"
    lines = [f"# {title}" + (" [QUICK]" if is_quick(scale) else ""), ""]
    if is_quick(scale):
        lines += [f"> **{QUICK_NOTE}**", ""]
    lines.append(counts(board).to_markdown(index=False))
    lines += ["", "## Claims", ""]
    lines.append(board.drop(columns=["evidence"], errors="ignore").to_markdown(index=False))
    return "\n".join(lines) + "\n"
