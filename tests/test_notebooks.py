"""The HTML pages of the executed notebooks read as reports: markdown and outputs, no code.

``dpbandits.notebooks.render_html`` is what ``workflow/scripts/render_notebook.py`` calls on every
papermill notebook (figure notebooks and audit pages); the executed ``.ipynb`` keeps the code.
"""

import nbformat
from nbformat.v4 import (
    new_code_cell,
    new_markdown_cell,
    new_notebook,
    new_output,
)

from dpbandits.notebooks import render_html


def _executed_notebook():
    """A small notebook as papermill leaves it: defaults, injected values, a cell with outputs."""
    nb = new_notebook(
        cells=[
            new_markdown_cell("# Audit of paper X\n\nThe verdicts hold for markdown_marker_a1."),
            new_code_cell(
                'default_param = "default_value_b2"\n'
                'files_param = ["results/sim/default_c3.parquet"]',
                metadata={"tags": ["parameters"]},
                execution_count=1,
            ),
            new_code_cell(
                '# Parameters\ndefault_param = "injected_value_d4"\n'
                'files_param = ["results/sim/injected_e5.parquet"]\n'
                "files_param",
                metadata={"tags": ["injected-parameters"]},
                execution_count=2,
                outputs=[
                    new_output(
                        "execute_result",
                        {"text/plain": "['results/sim/injected_e5.parquet']"},
                        execution_count=2,
                    )
                ],
            ),
            new_code_cell(
                "import math\nverdict_table = summarise_claims(math.pi)\nprint(verdict_table)",
                execution_count=3,
                outputs=[new_output("stream", name="stdout", text="claim r1: output_marker_f6\n")],
            ),
            new_markdown_cell("## Figures\n\nSecond markdown_marker_g7."),
            new_code_cell(
                "verdict_table",
                execution_count=4,
                outputs=[
                    new_output(
                        "execute_result", {"text/plain": "result_marker_h8"}, execution_count=4
                    )
                ],
            ),
        ],
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
    )
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i}"  # fixed, as in the project's notebooks (nbformat draws random ids)
    return nb


def _render(tmp_path):
    ipynb = tmp_path / "audit_x.ipynb"
    nbformat.write(_executed_notebook(), ipynb)
    return render_html(ipynb, tmp_path / "audit_x.html"), (tmp_path / "audit_x.html")


def test_page_shows_markdown_and_outputs_without_code_or_parameters(tmp_path):
    page, html = _render(tmp_path)
    assert html.read_text(encoding="utf-8") == page
    # markdown cells and the outputs of the code cells stay
    for kept in ("Audit of paper X", "markdown_marker_a1", "markdown_marker_g7"):
        assert kept in page, kept
    assert "output_marker_f6" in page and "result_marker_h8" in page
    # no code: neither the inputs nor the In/Out prompts
    for code in ("summarise_claims", "verdict_table"):  # identifiers survive the highlighting
        assert code not in page, code
    assert '<div class="jp-CodeMirrorEditor' not in page  # a code input (markdown: jp-InputArea)
    assert "In&nbsp;[" not in page and "Out[4]" not in page
    # the parameters cells are gone, inputs and outputs: no names, no values
    for param in ("default_param", "files_param", "default_value_b2", "default_c3", "injected"):
        assert param not in page, param
    # the executed notebook keeps them
    nb = nbformat.read(tmp_path / "audit_x.ipynb", as_version=4)
    assert "summarise_claims" in nb.cells[3].source and "injected_value_d4" in nb.cells[2].source


def test_page_is_deterministic(tmp_path):
    first, _ = _render(tmp_path)
    second, _ = _render(tmp_path)
    assert first == second


def test_a_page_is_the_same_whatever_was_rendered_before_it(tmp_path):
    """render_html keeps one exporter per process (dpbandits.notebooks._exporter) and the warm
    worker renders a page before forking its jobs (warm_up_html): neither may change a page."""
    from dpbandits import notebooks

    first = _executed_notebook()
    other = new_notebook(
        cells=[
            new_markdown_cell("# Other\n\n| a | b |\n|---|---|\n| 1 | 2 |"),
            new_code_cell(
                "x",
                outputs=[new_output("display_data", {"text/html": "<b>other_marker_z9</b>"})],
            ),
        ]
    )
    paths = {}
    for name, nb in (("first", first), ("other", other)):
        paths[name] = tmp_path / f"{name}.ipynb"
        nbformat.write(nb, paths[name])
    notebooks._exporter.cache_clear()
    alone = render_html(paths["first"], tmp_path / "alone.html")
    notebooks._exporter.cache_clear()
    notebooks.warm_up_html()
    render_html(paths["other"], tmp_path / "other.html")
    after = render_html(paths["first"], tmp_path / "after.html")
    assert notebooks._exporter.cache_info().currsize == 1  # one exporter served every page
    assert after == alone and "markdown_marker_a1" in after
    assert (tmp_path / "after.html").read_bytes() == (tmp_path / "alone.html").read_bytes()
