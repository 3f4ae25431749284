"""Pages that read: rendered in headless Chromium, offline, with one status per claim.

Each check has a planted case it catches (a page rendered the old way, sanitised as a whole; a
script from a CDN; a link to a missing file; a status that differs from the scoreboard) and a
normal page it passes. Chromium comes from Debian's package (`make browser`).
"""

from __future__ import annotations

import functools

import nbformat
import pandas as pd
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from dpbandits.audit.overview import write_index
from dpbandits.audit.scoreboard import markdown as board_markdown
from dpbandits.checks import browser as page_check
from dpbandits.front_page import write_front_page
from dpbandits.io import write_csv_table
from dpbandits.notebooks import render_html
from dpbandits.pages import claim_rows_table, scale_banner
from dpbandits.runtime.run_summary import build_summary
from dpbandits.textsafe import md_text

HOSTILE = '<script>alert("x")</script> *bold* <iframe src=x></iframe> [l](javascript:x) $x$'


@functools.cache
def _browser() -> bool:
    page_check.chromium()  # raises, saying how to install it, when it is missing
    return True


def _notebook(tmp_path, caption: str = HOSTILE):
    """An executed notebook as the pipeline leaves it: a heading, a caption from configuration
    (escaped where it is inserted, as the notebooks do) and a table."""
    table = pd.DataFrame({"claim": ["a.b"], "verdict": ["<b>x</b>"]})
    nb = new_notebook(
        cells=[
            new_markdown_cell("# Claim audit of one paper\n\nSome **text**."),
            new_code_cell(
                "display(...)",
                execution_count=1,
                outputs=[
                    new_output("display_data", {"text/markdown": f"Caption: {md_text(caption)}"}),
                    new_output("display_data", {"text/html": table.to_html(index=False)}),
                ],
            ),
        ]
    )
    path = tmp_path / "page.ipynb"
    nbformat.write(nb, path)
    return path


def test_a_page_renders_its_markup_and_shows_a_hostile_caption_as_text(tmp_path):
    _browser()
    html = tmp_path / "page.html"
    render_html(_notebook(tmp_path), html, banner=scale_banner("quick"))
    rendered = page_check.render(html)
    assert page_check.problems(rendered) == []
    dom = page_check.read_dom(rendered.dom)
    text = "".join(dom.text)
    assert HOSTILE.replace("*", "") in text.replace("*", "")  # the caption, character for character
    assert "<script" not in rendered.dom.split("<body")[1].replace("&lt;script", "")
    assert "<h1" in rendered.dom and dom.headers == ["claim", "verdict"]
    assert "QUICK build" in text


def test_the_old_whole_page_sanitiser_is_caught(tmp_path):
    """The planted case: nbconvert's sanitize_html escaped the page's own headings and tables."""
    _browser()
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    config = Config()
    config.HTMLExporter.sanitize_html = True
    config.HTMLExporter.exclude_input = True
    body, _ = HTMLExporter(config=config).from_filename(str(_notebook(tmp_path, "plain")))
    page = tmp_path / "old.html"
    page.write_text(body)
    found = page_check.problems(page_check.render(page))
    assert any("markup shown as text" in p for p in found)
    assert any("network request" in p and "cdnjs" in p for p in found)  # require.js, MathJax


def test_network_requests_and_missing_files_are_caught(tmp_path):
    _browser()
    (tmp_path / "here.png").write_bytes(b"\x89PNG")
    page = tmp_path / "p.html"
    page.write_text(
        "<html><body><h1>t</h1><img src='here.png'><a href='gone.html'>x</a>"
        "<script src='https://cdn.example.org/lib.js'></script></body></html>"
    )
    found = page_check.problems(page_check.render(page))
    assert "link to a missing file: gone.html" in found
    assert any(p.startswith("network request: https://cdn.example.org/lib.js") for p in found)
    assert len(found) == 2  # here.png resolves


def _board():
    return pd.DataFrame(
        [
            ["px", "px.a", "rate", "contradicted", "robust", "exceeds", "fit above", "A: O(T)",
             "audit/px_rates_a.png"],
            ["px", "px.b", "ordering", "inconclusive", "", "FAIL", "other config", "<b>B</b>", ""],
            ["py", "py.c", "privacy", "supported", "", "privacy audit: supported", "ok", "C",
             "audit/privacy.html"],
        ],
        columns=["paper", "claim_id", "kind", "status", "robustness", "verdict", "reason",
                 "statement", "evidence"],
    )  # fmt: skip


def test_claim_rows_carry_the_scoreboards_status_and_escape_the_statement(tmp_path):
    html = claim_rows_table(_board().to_dict("records"), str(tmp_path / "audit"), str(tmp_path))
    dom = page_check.read_dom(html)
    assert dom.claims == [("px.a", "contradicted"), ("px.b", "inconclusive"), ("py.c", "supported")]
    assert "&lt;b&gt;B&lt;/b&gt;" in html and "<b>B</b>" not in html
    assert 'href="px_rates_a.png"' in html and 'href="privacy.html"' in html
    assert "exceeds, robust" in html  # the audit's own word under the status


def test_status_mismatches_are_caught(tmp_path):
    board = dict(zip(_board()["claim_id"], _board()["status"], strict=True))
    ok = '<tr data-claim="px.a" data-status="contradicted"></tr>'
    assert page_check.status_mismatches(tmp_path, ok, board) == []
    planted = '<tr data-claim="px.a" data-status="supported"></tr><tr data-claim="zz"></tr>'
    found = page_check.status_mismatches(tmp_path, planted, board)
    assert len(found) == 2 and "scoreboard says 'contradicted'" in found[0]


def test_a_nested_quick_build_is_left_to_its_own_check(tmp_path):
    # `dpb pages results` once compared results/quick's pages with the paper scoreboard
    for root in (tmp_path, tmp_path / "quick"):
        (root / "audit").mkdir(parents=True)
        (root / "audit" / "scoreboard.csv").write_text("paper,claim_id,status\n")
        (root / "index.html").write_text("<p>x</p>")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "page.html").write_text("<p>y</p>")
    outer = [tmp_path / "index.html", tmp_path / "notes" / "page.html"]
    assert page_check.build_pages(tmp_path) == outer
    assert page_check.build_pages(tmp_path / "quick") == [tmp_path / "quick" / "index.html"]


def test_a_build_without_its_scoreboard_is_reported_not_a_traceback(tmp_path, capsys):
    # `dpb pages results/quick` on a tree whose audit was never built raised FileNotFoundError
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "page.html").write_text('<tr data-claim="px.a" data-status="x"></tr>')
    found = page_check.check_build(tmp_path, screenshots=False)
    assert any(f.startswith(f"{tmp_path / 'audit' / 'scoreboard.csv'}: missing") for f in found)
    assert not any("px.a" in f for f in found)  # no board: claim rows are not judged
    from dpbandits.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["pages", str(tmp_path / "absent")])
    assert exit_.value.code == 2 and "absent: no such folder" in capsys.readouterr().err


def test_the_report_counts_only_the_scoreboard(tmp_path):
    (tmp_path / "audit").mkdir()
    out = tmp_path / "audit" / "report.html"
    papers = [{"name": "px", "title": "Paper X", "page": "px.html"},
              {"name": "py", "title": "Paper Y", "page": "py.html"}]  # fmt: skip
    write_index(_board(), papers, str(out), str(tmp_path), scale="quick")
    text = out.read_text()
    board = dict(zip(_board()["claim_id"], _board()["status"], strict=True))
    assert page_check.status_mismatches(out, text, board) == []
    assert len(page_check.read_dom(text).claims) == 3
    assert "FAIL" not in text.split("</table>")[0]  # counts are statuses, not verdict words
    assert "QUICK" in text and "Claim audit [QUICK]" in text
    write_index(_board(), papers, str(out), str(tmp_path), scale="paper")
    assert "QUICK" not in out.read_text()


def test_the_front_page_links_resolve_and_show_the_published_configuration(tmp_path):
    root = tmp_path / "results"
    for f in ("figures/px_fig1_r2.png", "figures/px_fig1.png", "audit/px.html", "notebooks/px.html",
              "audit/report.html"):  # fmt: skip
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_bytes(b"\x89PNG")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "px.md").write_text("x")
    card = {
        "figure": "px_fig1",
        "title": "Figure 1",
        "caption": "Regret <against> T",
        "published_note": "R2 matches the published figure.",
        "claims": ["px.b"],
        "main": {"configuration": "r2", "label": "best guess",
                 "image": f"{root}/figures/px_fig1_r2.png",
                 "notebook": f"{root}/notebooks/px.html"},
        "others": [{"configuration": "r1", "label": "as coded",
                    "image": f"{root}/figures/px_fig1.png"}],
    }  # fmt: skip
    papers = [
        {"name": "px", "title": "Paper X", "audit_page": f"{root}/audit/px.html",
         "docs": f"{tmp_path}/docs/px.md", "links": {}, "cards": [card]},
    ]  # fmt: skip
    sections = [{"id": "audit", "title": "Claims", "text": "t",
                 "links": {"report": f"{root}/audit/report.html"}}]  # fmt: skip
    out = root / "index.html"
    write_front_page(str(out), str(root), _board(), papers, sections, scale="quick")
    page = page_check.Rendered(out, out.read_text())
    assert page_check.problems(page) == []
    assert page_check.read_dom(page.dom).claims == [("px.b", "inconclusive")]
    assert 'src="figures/px_fig1_r2.png"' in page.dom and "R2 matches the published" in page.dom
    assert "Regret &lt;against&gt; T" in page.dom and "QUICK" in page.dom
    (root / "figures/px_fig1.png").unlink()  # planted: a card's other image is missing
    assert page_check.problems(page) == ["link to a missing file: figures/px_fig1.png"]


def test_a_quick_scoreboard_says_it_is_a_smoke_test():
    text = board_markdown(_board(), "quick")
    assert text.startswith("# Scoreboard: the status of every audited claim [QUICK]")
    assert "smoke test" in text.splitlines()[2] and "audit/px_rates_a.png" not in text
    assert "QUICK" not in board_markdown(_board(), "paper")


def test_the_run_summary_names_the_front_page_first_and_the_report_only_when_asked(tmp_path):
    (tmp_path / "index.html").write_text("x")
    (tmp_path / "audit").mkdir()
    write_csv_table(_board(), tmp_path / "audit" / "scoreboard.csv")
    text = build_summary(tmp_path, 0.0, report=None, quick=True)
    opened = text.split("Open:\n")[1].splitlines()
    assert opened[0].strip().startswith(str(tmp_path / "index.html"))
    assert "--report" not in text and "make report" not in text
    assert "QUICK build" in text
    assert "make report" in build_summary(tmp_path, 0.0, report="make report")


@pytest.mark.parametrize("scale", ["quick", "paper"])
def test_the_banner_marks_only_quick_builds(scale):
    assert bool(scale_banner(scale)) == (scale == "quick")


def test_a_quick_builds_markdown_table_says_quick_and_its_csv_is_untouched(tmp_path, monkeypatch):
    from dpbandits.tables import write_table

    monkeypatch.chdir(tmp_path)
    frame = pd.DataFrame({"a": [1.0]})
    for root in ("results", "results/quick"):
        (tmp_path / root / "tables").mkdir(parents=True, exist_ok=True)
        write_table(frame, f"{root}/tables/t.csv", f"{root}/tables/t.md", "Table 1")
    quick = (tmp_path / "results/quick/tables/t.md").read_text()
    paper = (tmp_path / "results/tables/t.md").read_text()
    assert quick.startswith("# Table 1 [QUICK]\n\n**QUICK build") and "QUICK" not in paper
    csvs = [(tmp_path / r / "tables/t.csv").read_text() for r in ("results", "results/quick")]
    assert csvs[0] == csvs[1]


def test_a_card_shows_the_configuration_matching_the_published_figure_first(root, global_config):
    from dpbandits.config import load_experiment
    from dpbandits.front_page import figure_cards

    exp = load_experiment(
        root / "config/experiments/cz22.yaml",
        global_config,
        root / "workflow/schemas/experiment.schema.yaml",
    )
    claims = [{"id": "c.a", "audit": {"panels": ["cz22_fig1a"]}}, {"id": "c.x", "audit": {}}]
    cards = figure_cards(exp, claims, lambda f: f.id, lambda f: f"{f.id}.html")
    fig1 = next(c for c in cards if c["figure"] == "cz22_fig1")
    assert fig1["main"]["configuration"] == exp.data["published"]["configuration"] == "r2"
    assert fig1["published_note"].startswith("This configuration matches the published figure")
    assert {o["configuration"] for o in fig1["others"]} >= {"r1", "r3"}
    assert fig1["claims"] == ["c.a"]
    # the matched companion: its own card right after, with the same claims, never an "other"
    assert "matched" not in {o["configuration"] for o in fig1["others"]}
    after = cards[cards.index(fig1) + 1]
    assert after["figure"] == "cz22_fig1_matched" and after["main"]["image"] == "cz22_fig1_matched"
    assert (
        after["claims"] == ["c.a"]
        and after["matched"]
        and "calibration = matched" in after["caption"]
    )
    # without `published`: the primary first, and the card says that none is matched
    data = {k: v for k, v in exp.data.items() if k != "published"}
    bare = type("Exp", (), {"data": data, "figures": exp.figures})
    fig1 = next(c for c in figure_cards(bare, claims, str, str) if c["figure"] == "cz22_fig1")
    assert fig1["main"]["configuration"] == exp.data["primary"]
    assert fig1["published_note"].startswith("No configuration is matched")


def test_a_matched_card_shows_what_each_claim_finds_at_matched_privacy():
    from dpbandits.audit.overview import matched_phrase
    from dpbandits.front_page import matched_part

    reason = "figure data (below, realized regret, configuration r1)" + matched_phrase(
        "PASS", "FAIL"
    )
    assert matched_part(reason) == (
        "At matched privacy (configuration matched) FAIL: the paper's ordering holds at nominal "
        "epsilon only"
    )
    assert matched_part("figure data (below)").startswith("not read at matched privacy")
