"""The arena page of the report (results/arena/arena.html): the target, the claims, the
leaderboard and one frontier figure per suite."""

from __future__ import annotations

import base64
import os
from pathlib import Path

from dpbandits.audit.badges import BADGE_CSS, badge
from dpbandits.pages import PAGE_CSS, scale_banner, scale_title
from dpbandits.textsafe import html_text


def _table(frame) -> str:
    return frame.to_html(index=False, escape=True, na_rep="", float_format=lambda v: f"{v:.4g}")


def _claims_table(claims) -> str:
    """The arena's claims, one row each with ``data-arena-claim`` and ``data-arena-status`` (the
    arena's own statuses, from claims.csv: they are not rows of the audit's scoreboard)."""
    cols = list(claims.columns)
    head = "".join(f"<th>{html_text(c)}</th>" for c in cols)
    body = "".join(
        f'<tr data-arena-claim="{html_text(r["claim_id"])}" '
        f'data-arena-status="{html_text(r["status"])}">'
        + "".join(
            f"<td>{badge(r[c]) if c == 'status' else html_text(_cell(r[c]))}</td>" for c in cols
        )
        + "</tr>"
        for r in claims.to_dict("records")
    )
    return f'<table class="dpb-claims"><tr>{head}</tr>{body}</table>'


def _image(figures: dict | None, suite: str) -> str:
    """A suite's figure embedded in the page (empty without one)."""
    if not figures or suite not in figures or not Path(figures[suite]).exists():
        return ""
    data = base64.b64encode(Path(figures[suite]).read_bytes()).decode()
    return f"<img style='max-width:100%' src='data:image/png;base64,{data}'>"


def _cell(value) -> str:
    if isinstance(value, float):
        return "" if value != value else f"{value:.4g}"
    return str(value)


def write_page(
    arena,
    board,
    claims,
    rows,
    figures: dict,
    out: str,
    scale: str = "paper",
    links: dict | None = None,
    matched_figures: dict | None = None,
    leaders=None,
) -> None:
    """Write the page; ``figures``: suite -> PNG path of the frontier at the nominal
    calibrations, ``matched_figures``: suite -> PNG path of the frontier at matched privacy
    (both embedded, so the page stands alone); ``leaders``: who leads at each matched epsilon
    (:func:`dpbandits.arena.frontier.leaders`).

    ``scale``: a quick build's page says so (:func:`dpbandits.pages.scale_banner`); ``links``:
    label -> path relative to ``out`` (the front page, the arena's documentation).
    """
    target = arena.data["target"]
    title = scale_title(arena.data["title"], scale)
    nav = " · ".join(
        f'<a href="{html_text(href)}">{html_text(label)}</a>'
        for label, href in (links or {}).items()
    )
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>{html_text(title)}</title>",
        "<style>body{font-family:sans-serif;max-width:1200px;margin:auto}"
        "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;"
        f"padding:2px 6px}}{BADGE_CSS}{PAGE_CSS}</style></head><body>",
        scale_banner(scale),
        f"<h1>{html_text(title)}</h1>",
        f"<p>{nav}</p>" if nav else "",
        f"<p>The primary ranking (<code>ranking = matched</code>) puts every private contestant "
        f"at matched privacy: its own calibration's map from epsilon to noise, evaluated where "
        f"the privacy audit's accountant certifies epsilon = {target['epsilon']:g} within 1 % "
        f"at delta = {target['delta']:g} in its trust model, beside the non-private references. "
        "The contestants' named calibrations at the nominal target are the companion ranking "
        "(<code>ranking = nominal</code>): their labels deliver other epsilons. Regret is the "
        "final pseudo-regret with its 95 % interval over the trials; contestants whose "
        "intervals overlap share a rank. The frontier (<code>ranking = frontier</code>) repeats "
        "the matched ranking at other epsilons at each suite's first dimension and horizon; a "
        "contestant whose calibration cannot reach the 1 % band (a discrete knob makes its "
        "certificate jump over it) runs with more privacy there, and one whose epsilon the "
        "privacy audit does not certify may run with less: the figure rings both, and the "
        "leaders' table says which. "
        "How to read it: the arena's documentation (docs/arena.md, linked above).</p>",
        "<h2>Claims of the papers</h2>",
        _claims_table(claims),
    ]
    for sid, suite in arena.suites.items():
        parts.append(f"<h2>Suite {html_text(sid)}: {html_text(suite['title'])}</h2>")
        parts.append(f"<p>{html_text(' '.join(suite['description'].split()))}</p>")
        mine = board[board["suite"] == sid]
        parts.append("<h3>At matched privacy (primary ranking)</h3>")
        parts.append(_table(mine[mine["ranking"] == "matched"]))
        if matched_figures and sid in matched_figures:
            parts.append("<h3>Privacy-utility frontier at matched privacy</h3>")
            parts.append(_image(matched_figures, sid))
            if leaders is not None and len(leaders[leaders["suite"] == sid]):
                parts.append(_table(leaders[leaders["suite"] == sid]))
        parts.append("<h3>At the nominal target (companion ranking)</h3>")
        parts.append(_image(figures, sid))
        parts.append(_table(mine[mine["ranking"] == "nominal"]))
        frontier = mine[mine["ranking"] == "frontier"]
        if len(frontier):
            parts.append("<h3>Frontier rows (matched, other epsilons)</h3>")
            parts.append(_table(frontier))
    parts += ["<h2>Every claim row</h2>", _table(rows), "</body></html>"]
    tmp = f"{out}.{os.getpid()}.tmp"
    Path(tmp).write_text("\n".join(parts), encoding="utf-8")
    os.replace(tmp, out)


__all__ = ["write_page"]
