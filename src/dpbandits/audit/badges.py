"""Verdict badges of the HTML pages: their colours, their style sheet and their markup.

Kept apart from :mod:`dpbandits.audit.overview` so that a page renderer can style badges without
importing the audit (and SciPy) with it.
"""

from __future__ import annotations

import html
import re

BADGE_COLORS = {
    "consistent": "#1a7f37",
    "PASS": "#1a7f37",
    "exceeds": "#cf222e",
    "below": "#cf222e",
    "FAIL": "#cf222e",
    "inconclusive": "#9a6700",
    "untestable": "#8250df",
    "supported": "#1a7f37",
    "contradicted": "#cf222e",
    "WEAK": "#9a6700",
    "INCONCLUSIVE": "#9a6700",
    "UNTESTABLE": "#8250df",
    "not audited": "#6e7781",
    "DIAGNOSTIC": "#6e7781",
    "MISSING": "#6e7781",
}


def _badge_class(verdict: str) -> str:
    return "badge-" + re.sub(r"[^a-z0-9]+", "-", str(verdict).lower()).strip("-")


#: Style of the badges (pages include it in their head; class names survive HTML sanitising,
#: inline styles do not).
BADGE_CSS = (
    ".badge{background:#6e7781;color:white;border-radius:4px;padding:1px 6px;font-size:85%}"
    + "".join(
        f".badge.{_badge_class(v)}{{background:{color}}}" for v, color in BADGE_COLORS.items()
    )
)


def badge(verdict: str) -> str:
    """An HTML badge for a verdict (styled by :data:`BADGE_CSS`)."""
    return f'<span class="badge {_badge_class(verdict)}">{html.escape(str(verdict))}</span>'


__all__ = ["BADGE_COLORS", "BADGE_CSS", "badge"]
