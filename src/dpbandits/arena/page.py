"""The arena page of the report (results/arena/arena.html): the target, the claims, the
leaderboard and one frontier figure per suite."""

from __future__ import annotations

import base64
import os
from pathlib import Path

from dpbandits.textsafe import html_text


def _table(frame) -> str:
    return frame.to_html(index=False, escape=True, na_rep="", float_format=lambda v: f"{v:.4g}")


def write_page(arena, board, claims, rows, figures: dict, out: str) -> None:
    """Write the page; ``figures``: suite -> PNG path (embedded, so the page stands alone)."""
    target = arena.data["target"]
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>{html_text(arena.data['title'])}</title>",
        "<style>body{font-family:sans-serif;max-width:1200px;margin:auto}"
        "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;"
        "padding:2px 6px}</style></head><body>",
        f"<h1>{html_text(arena.data['title'])}</h1>",
        f"<p>Every private contestant is calibrated to epsilon = {target['epsilon']:g}, "
        f"delta = {target['delta']:g} in its trust model; the delivered epsilon comes from the "
        "privacy audit's accountant. Regret is the final pseudo-regret with its 95 % interval "
        "over the trials; contestants whose intervals overlap share a rank. How to read it: "
        "docs/arena.md.</p>",
        "<h2>Claims of the papers</h2>",
        _table(claims),
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
