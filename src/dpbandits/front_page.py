"""The front door of a build: ``results/index.html``.

Per paper: its scoreboard counts, a card per figure (the image of the configuration that matches
the published figure, the other configurations one click away, what is drawn, and the statuses
of the claims read off it), and links to its audit page, notebooks, tables and data; then the
privacy audit, the arena, the claim report and the docs. Every status shown is the scoreboard's
(``data-claim``/``data-status`` as on every page); every link is relative, so the page works
offline and wherever the results folder is moved.
"""

from __future__ import annotations

import html
import os
from collections import Counter

import pandas as pd

from dpbandits.audit.badges import BADGE_CSS, badge
from dpbandits.audit.overview import MATCHED_WORDS
from dpbandits.pages import PAGE_CSS, claim_row, scale_banner, scale_title
from dpbandits.privacy.matching import MATCHED

_STYLE = (
    "body{font-family:sans-serif;max-width:80em;margin:1em auto;padding:0 1em}"
    ".cards{display:flex;flex-wrap:wrap;gap:12px}"
    ".card{border:1px solid #ccc;border-radius:6px;padding:8px;flex:1 1 100%;display:flex;"
    "gap:12px;flex-wrap:wrap}"
    ".card .pic{flex:1 1 40em;max-width:56em}.card .txt{flex:1 1 30em}"
    ".card img{max-width:100%;border:1px solid #eee}"
    ".card h3{margin:4px 0;font-size:110%}"
    "nav a{margin-right:1em}"
)


def _a(href: str, label: str) -> str:
    return f'<a href="{html.escape(href, quote=True)}">{html.escape(label)}</a>'


def _counts(rows: pd.DataFrame) -> str:
    return " ".join(f"{badge(s)}&nbsp;{n}" for s, n in Counter(rows["status"]).most_common())


def _card(card: dict, board: pd.DataFrame, rel, page_dir: str, root: str) -> str:
    """One figure's card (see :func:`write_front_page` for the keys of ``card``)."""
    main = card["main"]
    parts = [f'<div class="card" data-figure="{html.escape(card["figure"], quote=True)}">']
    parts.append(f'<div class="pic"><h3>{html.escape(card["title"])}</h3>')
    parts.append(
        f'<a href="{html.escape(rel(main["image"]), quote=True)}">'
        f'<img src="{html.escape(rel(main["image"]), quote=True)}" '
        f'alt="{html.escape(card["title"], quote=True)}" loading="lazy"></a></div>'
        '<div class="txt">'
    )
    parts.append(
        f"<p><b>Shown:</b> configuration <code>{html.escape(main['configuration'])}</code> "
        f"({html.escape(main['label'])}). {html.escape(card['published_note'])}</p>"
    )
    if card.get("caption"):
        parts.append(f"<p><b>What is drawn:</b> {html.escape(card['caption'])}</p>")
    if card.get("others"):
        links = ", ".join(
            _a(rel(o["image"]), f"{o['configuration']} ({o['label']})") for o in card["others"]
        )
        parts.append(f"<p><b>Other configurations:</b> {links}</p>")
    mine = board[board["claim_id"].isin(card.get("claims", []))]
    if card.get("matched") and len(mine):  # what the claim's reason says at matched privacy
        mine = mine.assign(reason=mine["reason"].map(matched_part))
    if len(mine):
        parts.append(
            "<p><b>What the paper says it shows, and what this build finds</b> "
            f"({_counts(mine)}):</p>"
        )
        parts.append('<table class="dpb-claims">')
        parts.append("".join(claim_row(r, page_dir, root, 140) for r in mine.to_dict("records")))
        parts.append("</table>")
    else:
        parts.append("<p>No claim of the paper is read off this figure.</p>")
    notebook = main.get("notebook")
    if notebook:
        parts.append(f"<p>{_a(rel(notebook), 'Notebook page of this figure')}</p>")
    parts.append("</div></div>")
    return "".join(parts)


def matched_part(reason) -> str:
    """The part of a claim's reason about its matched companion
    (:func:`dpbandits.audit.overview.matched_phrase`), or why there is none."""
    text = " ".join(str(reason or "").split())
    at = text.find(MATCHED_WORDS)
    if at < 0:
        return "not read at matched privacy (the claim does not list the configuration matched)"
    return text[at].upper() + text[at + 1 :]


def figure_cards(exp, claims: list[dict], image, notebook) -> list[dict]:
    """The cards of one figure paper's figures, as :func:`write_front_page` takes them.

    Per figure (its configurations grouped): the main entry is the configuration that the
    experiment file's ``published`` names as matching the published figure, else the primary;
    the card says which and why, lists the other configurations, and names the claims whose
    audit reads one of the figure's panels.

    Parameters
    ----------
    exp : dpbandits.config.Experiment
    claims : list of dict
        The paper's claims registry.
    image, notebook : callable
        FigureSpec -> path of its main PNG, of its notebook page.
    """
    published = exp.data.get("published", {"configuration": None, "note": ""})
    wanted = published["configuration"]
    configurations = exp.data["configurations"]
    by_figure: dict[str, list] = {}
    for fig in exp.figures:
        by_figure.setdefault(fig.figure, []).append(fig)
    cards = []
    for figure, all_figs in by_figure.items():
        figs = [f for f in all_figs if f.configuration != MATCHED] or all_figs
        first = wanted if any(f.configuration == wanted for f in figs) else exp.data["primary"]
        order = sorted(figs, key=lambda f: f.configuration != first)
        main = order[0]
        if main.configuration == wanted:
            note = f"This configuration matches the published figure: {published['note']}"
        elif wanted is None:
            note = (
                "No configuration is matched to the published figure "
                "(`published` in the experiment file); shown: the primary."
            )
        else:
            note = (
                f"The configuration that matches the published figure ({wanted}) does not "
                "draw this figure; shown: the primary."
            )
        panels = {p.id for f in figs for p in f.panels} | {figure}
        entries = [
            {
                "configuration": f.configuration,
                "label": configurations.get(f.configuration, {}).get("title", f.configuration),
                "image": image(f),
                "notebook": notebook(f),
            }
            for f in order
        ]
        cards.append(
            {
                "figure": figure,
                "title": main.title,
                "caption": " ".join(str(main.caption).split()),
                "published_note": note,
                "claims": [c["id"] for c in claims if panels & set(c["audit"].get("panels", []))],
                "main": entries[0],
                "others": entries[1:],
            }
        )
        cards += _matched_cards(
            figure, [f for f in all_figs if f not in figs], cards[-1], image, notebook
        )
    return cards


def _matched_cards(figure: str, matched: list, original: dict, image, notebook) -> list[dict]:
    """The card of a figure's matched companion (configuration ``matched``), after the
    figure's own card: the same claims, read at the privacy actually delivered."""
    return [
        {
            "figure": f"{figure}_{MATCHED}",
            "title": f"{original['title']}, at matched privacy",
            "caption": " ".join(str(f.caption).split()),
            "matched": True,
            "published_note": (
                "Matched companion of the card above: the same panels, instances and seeds, every "
                "private series at the delivered epsilon of the panel's label (certified within "
                "1 %, docs/auditing.md). Each ordering claim's reason says whether the paper's "
                "ordering holds at nominal epsilon, at matched epsilon, both or neither."
            ),
            "claims": original["claims"],
            "main": {
                "configuration": f.configuration,
                "label": "Matched privacy",
                "image": image(f),
                "notebook": notebook(f),
            },
            "others": [],
        }
        for f in matched
    ]


def write_front_page(
    out: str,
    results_root: str,
    board: pd.DataFrame,
    papers: list[dict],
    sections: list[dict],
    scale: str = "paper",
    provenance: str = "",
) -> None:
    """Write the front page ``out``.

    Parameters
    ----------
    out : str
        The HTML file (``<results_root>/index.html``).
    results_root : str
        The build's results folder; every path below is relative to the repository (as the
        workflow names files) and is linked relative to ``out``.
    board : DataFrame
        The scoreboard (``scoreboard.csv``): every status and count shown.
    papers : list of dict
        Per paper: ``name``, ``title``, ``audit_page``, ``docs`` and ``links`` (label -> path:
        tables, notebooks, data) and ``cards``, each with ``figure``, ``title``, ``caption``,
        ``published_note`` (which configuration matches the published figure), ``claims`` (ids
        read off the figure), ``main`` and ``others`` (each ``configuration``, ``label``,
        ``image`` and optionally ``notebook``).
    sections : list of dict
        After the papers: ``title``, ``text`` and ``links`` (label -> path): the privacy audit,
        the arena, the claim report, the docs.
    scale : str
        The build's scale; a quick build's page says QUICK.
    provenance : str
        One line naming the code and configuration that made the build.
    """
    page_dir = os.path.dirname(os.path.abspath(out))
    root = os.path.abspath(results_root)

    def rel(path: str) -> str:
        return os.path.relpath(os.path.abspath(path), page_dir)

    title = scale_title("dpbandits: every figure, table and audit of this build", scale)
    body = [scale_banner(scale), f"<h1>{html.escape(title)}</h1>"]
    if provenance:
        body.append(f"<p><small>Made by {html.escape(provenance)}.</small></p>")
    nav = [_a(f"#{p['name']}", p["name"]) for p in papers]
    nav += [_a(f"#{s['id']}", s["title"]) for s in sections]
    body.append(f"<nav>{' '.join(nav)}</nav>")
    for p in papers:
        mine = board[board["paper"] == p["name"]]
        body.append(f'<h2 id="{html.escape(p["name"])}">{html.escape(p["title"])}</h2>')
        body.append(
            f'<p data-paper="{html.escape(p["name"])}">Claims ({len(mine)}): {_counts(mine)} — '
            f"{_a(rel(p['audit_page']), 'audit page (every claim with its reason)')} · "
            f"{_a(rel(p['docs']), 'what is built and how (docs)')}</p>"
        )
        links = " · ".join(_a(rel(path), label) for label, path in p.get("links", {}).items())
        if links:
            body.append(f"<p>{links}</p>")
        if p.get("cards"):
            body.append('<div class="cards">')
            body.extend(_card(c, board, rel, page_dir, root) for c in p["cards"])
            body.append("</div>")
    for s in sections:
        body.append(f'<h2 id="{html.escape(s["id"])}">{html.escape(s["title"])}</h2>')
        body.append(f"<p>{html.escape(s['text'])}</p>")
        body.append(
            "<p>" + " · ".join(_a(rel(path), label) for label, path in s["links"].items()) + "</p>"
        )
    style = _STYLE + BADGE_CSS + PAGE_CSS
    text = (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>"
        f"{html.escape(title)}</title><style>{style}</style></head><body>{''.join(body)}"
        "</body></html>\n"
    )
    tmp = f"{out}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, out)


__all__ = ["figure_cards", "write_front_page"]
