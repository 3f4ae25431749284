"""The HTML report's captions and labels, the end-of-run summary, and the rules' conventions."""

import os
import re
import time

import pytest

from dpbandits.config import load_experiment
from dpbandits.report_captions import caption_file, entries, figure_entries
from dpbandits.runtime.run_summary import build_summary

from .conftest import ROOT, SCHEMAS

EXPERIMENTS = ("cz22", "olucb", "dpdpe")


def _render_like_snakemake(path):
    """Snakemake's report: the caption file as a Jinja template, then reStructuredText to HTML
    with docutils' default settings (snakemake/report/__init__.py)."""
    import jinja2
    from docutils.core import publish_parts

    text = jinja2.Environment().from_string(open(path).read()).render(snakemake=None)
    return publish_parts(text, writer="html")["body"]


def _visible(html_body):
    import html as html_lib

    return html_lib.unescape(re.sub(r"<[^>]+>", "", html_body)).strip()


def test_caption_files_are_raw_jinja_named_by_content_and_written_once(tmp_path):
    text = "Regret O(T^{1/2}) with {{ not a template }} and *emphasis*."
    path = caption_file(text, tmp_path)
    body = open(path).read()
    assert body.startswith("{% raw %}\n") and body.endswith("{% endraw %}\n")
    assert _visible(_render_like_snakemake(path)) == text  # shown literally
    mtime = os.stat(path).st_mtime_ns
    time.sleep(0.01)
    assert caption_file(text, tmp_path) == path and os.stat(path).st_mtime_ns == mtime
    assert caption_file(text + " ", tmp_path) == path  # the stripped text names the file
    assert caption_file("another caption", tmp_path) != path
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".rst", ".rst"]  # no temporaries


def test_a_caption_that_cannot_be_written_stops_the_parse(tmp_path):
    """The report needs the file the rule points at: a folder that cannot be made is an error
    (a file stands where the folder would be), not a caption path that does not exist."""
    blocker = tmp_path / "captions"
    blocker.write_text("not a folder")
    with pytest.raises(OSError, match="cannot write the report caption"):
        caption_file("a caption", blocker)


HOSTILE_CAPTIONS = [
    # closes the raw block and runs Python through the template engine
    "x {% endraw %}{{ self.__init__.__globals__.__builtins__.__import__('os').getpid() }}"
    "{% raw %} y",
    "x {%- endraw -%}{{ 7 * 7 }}{%- raw -%} y",
    "x {%endraw%}{{ 7*7 }}{%raw%} y",
    # reStructuredText directives (a new line) and inline markup
    "x\n\n.. raw:: html\n\n   <script>alert(1)</script>\n",
    "x\n\n.. include:: /etc/hostname\n",
    "x `click <javascript:alert(1)>`_ and <script>alert(2)</script> |sub| :raw:`<b>`",
]


@pytest.mark.parametrize("text", HOSTILE_CAPTIONS)
def test_a_caption_from_config_cannot_run_code_or_inject_markup(tmp_path, text):
    from dpbandits.textsafe import one_line

    rendered = _render_like_snakemake(caption_file(text, tmp_path))
    assert "49" not in rendered and str(os.getpid()) not in rendered
    assert "<script" not in rendered and "javascript:" not in rendered.split(">")[0]
    assert "<a " not in rendered and "<b>" not in rendered
    assert _visible(rendered) == one_line(text)  # every character shown as written


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_figure_image_has_a_caption_naming_paper_panel_configuration_calibration(
    global_config, name
):
    exp = load_experiment(
        ROOT / f"config/experiments/{name}.yaml", global_config, SCHEMAS / "experiment.schema.yaml"
    )
    for fig in exp.figures:
        items = figure_entries(fig, exp.data["title"])
        # one entry per combined PNG (per metric) the notebook writes; the single panels stay
        # out of the report (workflow/rules/common.smk: figure_outputs)
        assert set(items) == {f"{fig.names(m)[0]}_png" for m in fig.metrics}
        assert set(items) <= {f"{n}_png" for n in fig.image_names}
        for entry in items.values():
            assert entry.caption.startswith(exp.data["title"])
            assert f"Configuration {fig.configuration}" in entry.caption
            assert f"calibration = {entry.labels['calibration']}" in entry.caption
            assert entry.labels["configuration"] == fig.configuration
            assert set(entry.labels) == {"figure", "panel", "metric", "configuration",
                                         "calibration"}  # fmt: skip
            assert not any("{" in v or "}" in v for v in entry.labels.values())
            assert entry.labels["panel"] == "all"
            for p in fig.panels:  # every panel's caption is in the combined figure's
                assert p.caption in entry.caption


def test_table_entries_label_what_and_keep_braces_out_of_labels():
    items = entries("Paper", {"csv": ("t{1}", "Table with O(T^{1/2}).")}, tier="core")
    assert items["csv"].caption == "Paper. Table with O(T^{1/2})."
    assert items["csv"].labels == {"what": "t(1)", "tier": "core"}


def test_the_summary_lists_what_this_run_wrote_and_where_to_look(tmp_path):
    old = tmp_path / "tables/old.csv"
    old.parent.mkdir()
    old.write_text("x")
    past = time.time() - 100
    os.utime(old, (past, past))
    start = time.time() - 1
    for rel in ("figures/a.png", "figures/a.pdf", "figures/b.png", "audit/report.html"):
        (tmp_path / rel).parent.mkdir(exist_ok=True)
        (tmp_path / rel).write_text("x")
    (tmp_path / "figures/.hidden.tmp").write_text("x")
    text = build_summary(tmp_path, start, report="make report")
    assert f"Built this run: 4 files in {tmp_path}/" in text
    assert re.search(r"figures/\s+1 pdf, 2 png", text) and re.search(r"audit/\s+1 html", text)
    assert "tables/" not in text.split("Open:")[0]  # older than the run
    assert f"{tmp_path}/audit/report.html" in text and "make report" in text
    assert "Nothing new" in build_summary(tmp_path, time.time() + 10)


def _rule_blocks(text):
    """(name, body) of every rule in a .smk file (named `rule x:` or `rule:` + `name:`)."""
    starts = [m.start() for m in re.finditer(r"^\s*rule\b[^\n]*:\s*$", text, flags=re.M)]
    for a, b in zip(starts, [*starts[1:], len(text)][: len(starts)], strict=True):
        body = text[a:b]
        named = re.match(r"\s*rule\s+(\w+)", body) or re.search(r"name:\s+(.+)", body)
        yield named.group(1), body


def test_every_rule_that_runs_a_job_declares_threads_resources_log_benchmark():
    checked = 0
    for path in [ROOT / "Snakefile", *sorted((ROOT / "workflow/rules").glob("*.smk"))]:
        for name, body in _rule_blocks(path.read_text()):
            if not re.search(r"^\s*(script|shell|run|notebook):", body, flags=re.M):
                continue  # a target: it runs nothing
            checked += 1
            for directive in ("threads", "resources", "log", "benchmark"):
                assert re.search(rf"^\s*{directive}:", body, flags=re.M), (path.name, name)
            res = re.search(r"resources:\s*\n((?:\s+\w+=.*\n)+)", body)
            assert res and {"mem_mb", "runtime"} <= set(re.findall(r"(\w+)=", res.group(1)))
    assert checked >= 15  # 18 job rules in the workflow today
