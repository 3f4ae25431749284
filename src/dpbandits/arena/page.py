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
) -> None:
    """Write the page; ``figures``: suite -> PNG path (embedded, so the page stands alone).

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
        f"<p>Every private contestant is calibrated to epsilon = {target['epsilon']:g}, "
        f"delta = {target['delta']:g} in its trust model; the delivered epsilon comes from the "
        "privacy audit's accountant. Regret is the final pseudo-regret with its 95 % interval "
        "over the trials; contestants whose intervals overlap share a rank. How to read it: "
        "the arena's documentation (docs/arena.md, linked above).</p>",
        "<h2>Claims of the papers</h2>",
        _claims_table(claims),
    ]
    for sid, suite in arena.suites.items():
        parts.append(f"<h2>Suite {html_text(sid)}: {html_text(suite['title'])}</h2>")
        parts.append(f"<p>{html_text(' '.join(suite['description'].split()))}</p>")
        if sid in figures and Path(figures[sid]).exists():
            data = base64.b64encode(Path(figures[sid]).read_bytes()).decode()
            parts.append(f"<img style='max-width:100%' src='data:image/png;base64,{data}'>")
        parts.append(_table(board[board["suite"] == sid]))
    parts += ["<h2>Every claim row</h2>", _table(rows), "</body></html>"]
    tmp = f"{out}.{os.getpid()}.tmp"
    Path(tmp).write_text("\n".join(parts), encoding="utf-8")
    os.replace(tmp, out)


__all__ = ["write_page"]
