"""Pieces every HTML page of the pipeline shares: the style, the scale banner and claim rows.

A page of a quick build says so (:func:`scale_banner`, :func:`scale_title`): its verdicts come
from a 5-trial smoke run, not from the paper-scale design. A claim shown on any page is one
:func:`claim_row` built from its row of the scoreboard, with ``data-claim`` and ``data-status``
attributes that a test compares with ``scoreboard.csv``.
"""

from __future__ import annotations

import html
import os
import re

from dpbandits.audit.badges import BADGE_CSS, badge
from dpbandits.tex_text import tex_text

#: Style of the banner and the claim tables (pages add :data:`BADGE_CSS` beside it).
PAGE_CSS = (
    ".dpb-banner{background:#fff8c5;border:2px solid #9a6700;padding:6px 12px;margin:8px 0;"
    "font-weight:bold}"
    "table.dpb-claims{border-collapse:collapse;font-size:13px}"
    "table.dpb-claims td,table.dpb-claims th{border-bottom:1px solid #ddd;padding:3px 8px;"
    "text-align:left !important;vertical-align:top}"
)

#: What a quick build's banner says.
QUICK_NOTE = (
    "QUICK build (scale=quick: T = 2000, 5 trials): a smoke test of the pipeline. Its verdicts "
    "are not findings; the paper-scale build (results/) holds those."
)


def is_quick(scale: str) -> bool:
    """Whether ``scale`` is the quick smoke-test scale."""
    return str(scale) == "quick"


def quick_path(path) -> bool:
    """Whether ``path`` is an output of the quick build: it lies under ``results/quick/``
    (``dpbandits.config.results_root``). What a writer that is told paths, not the scale (a
    table, a figure), goes by."""
    from pathlib import Path

    parts = Path(path).parts
    return any(a == "results" and b == "quick" for a, b in zip(parts, parts[1:], strict=False))


def scale_banner(scale: str) -> str:
    """The banner (HTML) that opens every page of a quick build; empty at paper scale."""
    if not is_quick(scale):
        return ""
    return f'<div class="dpb-banner" data-scale="quick">{html.escape(QUICK_NOTE)}</div>'


def scale_title(title: str, scale: str) -> str:
    """``title`` with the suffix `` [QUICK]`` in a quick build (plain text, not escaped)."""
    return f"{title} [QUICK]" if is_quick(scale) else title


def claim_statement(claim: dict) -> str:
    """The claim as the paper states it, in one line: algorithm, bound and section.

    Works for both registries (figure papers: ``algorithm``, ``bound``, ``source``; bound papers:
    ``algorithm``, ``kind``, ``latex``, ``where``), whatever keys of these it has.
    """
    text = claim.get("statement") or claim.get("claim") or claim.get("bound") or ""
    if not text and claim.get("latex"):  # bound papers: the kind of bound and its formula
        formula = tex_text(claim["latex"])  # shown as text: no TeX markup on the page
        text = f"{str(claim.get('kind', '')).replace('_', ' ')} {formula}".strip()
    algorithm = claim.get("algorithm")
    if algorithm and str(algorithm) not in str(text):
        text = f"{algorithm}: {text}"
    where = claim.get("source") or claim.get("where")
    return f"{text} ({where})" if where else str(text)


def _link(href: str, label: str) -> str:
    return f'<a href="{html.escape(href, quote=True)}">{html.escape(label)}</a>'


def claim_rows_table(rows, page_dir: str, results_root: str) -> str:
    """An HTML table of claims: one :func:`claim_row` per scoreboard row.

    Parameters
    ----------
    rows : iterable of dict
        Scoreboard rows (:data:`dpbandits.audit.scoreboard.COLUMNS` plus ``statement`` and
        ``evidence``).
    page_dir : str
        Folder of the page the table is written into (links are made relative to it).
    results_root : str
        The build's results folder (``evidence`` paths are relative to it).
    """
    head = (
        "<tr><th>claim</th><th>as the paper states it</th><th>status</th><th>reason</th>"
        "<th>evidence</th></tr>"
    )
    body = "".join(claim_row(r, page_dir, results_root) for r in rows)
    return f'<table class="dpb-claims">{head}{body}</table>'


def claim_row(row: dict, page_dir: str, results_root: str, limit: int = 320) -> str:
    """One claim as a table row carrying ``data-claim`` and ``data-status`` (the scoreboard's).

    The cells: claim id, the statement, the status badge (with the audit's own verdict word
    beneath it where it differs), the reason (cut at :func:`short_reason`'s limit, the whole
    reason in the cell's title), and links to the evidence
    (paths relative to ``results_root`` listed in the row's ``evidence``, ``;``-separated).
    """
    cid, status = str(row["claim_id"]), str(row["status"])
    reason = " ".join(str(row.get("reason") or "").split())
    short = short_reason(reason, limit)
    verdict = str(row.get("verdict") or "")
    robust = str(row.get("robustness") or "")
    word = ""
    if verdict and verdict != status:
        extra = f", {html.escape(robust)}" if robust else ""
        word = f"<br><small>{html.escape(verdict)}{extra}</small>"
    links = []
    for rel in filter(None, str(row.get("evidence") or "").split(";")):
        target = os.path.relpath(os.path.join(results_root, rel), page_dir)
        links.append(_link(target, os.path.basename(rel)))
    return (
        f'<tr data-claim="{html.escape(cid, quote=True)}" '
        f'data-status="{html.escape(status, quote=True)}">'
        f"<td><code>{html.escape(cid)}</code></td>"
        f"<td>{html.escape(str(row.get('statement') or ''))}</td>"
        f"<td>{badge(status)}{word}</td>"
        f'<td title="{html.escape(reason, quote=True)}">{html.escape(short)}</td>'
        f"<td>{' '.join(links)}</td></tr>"
    )


#: Words whose period ends no sentence ("Thm. 3.2", "e.g. the"): :func:`short_reason` cuts
#: elsewhere.
ABBREVIATIONS = frozenset(
    "al alg app approx assum cf cor def e.g eq eqs etc fig figs i.e lem lemma prop ref rem resp "
    "sec sect thm vs".split()
)


def _sentence_ends(text: str, limit: int):
    """Positions of the periods before ``limit`` that end a sentence: followed by a space and
    a capital, and not after an abbreviation (:data:`ABBREVIATIONS`) or a single letter."""
    for m in re.finditer(r"(\S+)\. (?=[A-Z])", text[: limit + 2]):
        word = m.group(1).lstrip("([").lower()
        if word not in ABBREVIATIONS and len(word) > 1 and m.end(1) + 1 <= limit:
            yield m.end(1)


def short_reason(text: str, limit: int = 320) -> str:
    """``text`` on one line; longer than ``limit`` characters, cut at the last sentence end
    before it (else at a word) and marked `` …`` (the page's tooltip has the whole)."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    ends = list(_sentence_ends(text, limit - 2))
    if ends and ends[-1] > limit // 3:
        return text[: ends[-1] + 1] + " …"
    return text[: text.rfind(" ", 0, limit - 1)].rstrip() + " …"


__all__ = [
    "BADGE_CSS",
    "PAGE_CSS",
    "QUICK_NOTE",
    "claim_row",
    "claim_rows_table",
    "claim_statement",
    "is_quick",
    "quick_path",
    "scale_banner",
    "scale_title",
    "short_reason",
]
