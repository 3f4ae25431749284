"""Text from the configuration is shown literally wherever it lands (issue: no code from config).

Each escaper is checked through the renderer it guards: nbconvert's Markdown renderer for
notebook cells, the sanitised HTML page of an executed notebook, and (tests/test_report.py)
Snakemake's Jinja + reStructuredText path for report captions.
"""

import html as html_lib
import os
import re

import nbformat
import pytest
from nbconvert.filters.markdown_mistune import markdown2html_mistune

from dpbandits.audit.overview import badge
from dpbandits.notebooks import render_html
from dpbandits.textsafe import html_text, md_text, one_line, rst_text

HOSTILE = [
    "<script>alert(1)</script> and <img src=x onerror=alert(2)>",
    "[click](javascript:alert(1)) ![x](javascript:alert(2)) <javascript:alert(3)>",
    "**bold** _it_ `code` # not a heading $x^2$ \\(math\\) | a | b |",
    "{{ 7 * 7 }} {% if 1 %}x{% endif %} {# c #}",
    "line one\n\n# heading?\n- item\n1. item",
    "Regret O(T^{3/4}) for eps = 1.0, d = 5 (Fig. 2(b)); 50% of 10^4 - ok!",
]


def _visible(rendered: str) -> str:
    return html_lib.unescape(re.sub(r"<[^>]+>", "", rendered)).strip()


@pytest.mark.parametrize("text", HOSTILE)
def test_md_text_renders_literally_in_notebook_markdown(text):
    rendered = markdown2html_mistune(md_text(text))
    assert "<script" not in rendered and "<img" not in rendered and "<a " not in rendered
    assert "<strong>" not in rendered and "<em>" not in rendered and "<h1" not in rendered
    assert "<code>" not in rendered and "<li>" not in rendered and "<table" not in rendered
    assert _visible(rendered) == one_line(text)


@pytest.mark.parametrize("text", HOSTILE)
def test_html_text_is_inert(text):
    out = html_text(text)
    assert "<" not in out and ">" not in out and '"' not in out
    assert html_lib.unescape(out) == text


def test_rst_text_escapes_every_ascii_punctuation_mark():
    assert rst_text("a_b *c*\n.. raw::") == "a\\_b \\*c\\* \\.\\. raw\\:\\:"
    assert rst_text("é ± ≥ 3") == "é ± ≥ 3"  # not markup in reStructuredText


def test_notebook_pages_escape_configuration_text_and_keep_their_own_markup(tmp_path):
    """Text from the configuration is escaped where a notebook inserts it (md_text in Markdown,
    html_text in HTML); the page's own markup (headings, badges) stays markup, and the page
    loads no script at all (no CDN)."""
    hostile = "caption <script>alert(1)</script> [x](javascript:alert(2)) <p onclick='a()'>"
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("display(...)")
    cell.outputs = [
        nbformat.v4.new_output("display_data", {"text/markdown": md_text(hostile)}),
        nbformat.v4.new_output(
            "display_data",
            {"text/html": f"<p>{html_text(hostile)}</p>{badge('consistent')}"},
        ),
    ]
    nb.cells = [nbformat.v4.new_markdown_cell("# Page of one paper"), cell]
    path = tmp_path / "page.ipynb"
    nbformat.write(nb, path)
    page = render_html(path, tmp_path / "page.html")
    body = page[page.index("<body") :]
    assert "<script" not in page  # no hostile script, and no script of the page's own
    assert not re.search(r"<[^>]*\son[a-z]+=", body)  # no event handler in any tag
    assert not re.search(r"<a [^>]*href=.javascript:", body)
    assert body.count("&lt;script&gt;alert(1)") == 2  # the hostile text is shown, as text
    assert re.search(r"<h1[^>]*>Page of one paper", body)  # the page's own heading renders
    assert 'class="badge badge-consistent"' in body  # badges survive as classes
    assert ".badge.badge-consistent{background:#1a7f37}" in page  # and are styled


def test_notebooks_run_on_the_project_interpreter_whatever_kernelspecs_the_user_has(
    tmp_path, monkeypatch
):
    # issue 20, class 10: a `python3` kernelspec of the user's (here a broken one, first on
    # JUPYTER_PATH) must not replace the project's kernel
    import sys

    from dpbandits.notebooks import execute

    user = tmp_path / "user" / "kernels" / "python3"
    user.mkdir(parents=True)
    (user / "kernel.json").write_text(
        '{"argv": ["/nonexistent/python", "-m", "ipykernel_launcher", "-f", "{connection_file}"],'
        ' "display_name": "someone else", "language": "python"}'
    )
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "user"))
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python", "display_name": "P"}
    params = nbformat.v4.new_code_cell("x = 1")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell("import sys\nprint(sys.executable, x)")]
    src, out = tmp_path / "in.ipynb", tmp_path / "out.ipynb"
    nbformat.write(nb, src)
    execute(src, out, {"x": 2})
    text = nbformat.read(out, as_version=4).cells[-1].outputs[0]["text"]
    assert text.split() == [sys.executable, "2"]
    assert os.environ["JUPYTER_PATH"] == str(tmp_path / "user")  # restored
