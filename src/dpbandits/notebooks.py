"""Notebook parameters and pages.

A parameter the pipeline passes must be declared by the notebook: papermill injects unknown
parameters silently, so a typo would run the notebook with its default value;
:func:`check_parameters` refuses them before the notebook executes. :func:`render_html` exports the
executed notebook as a report page (markdown and outputs, no code, no parameters).
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from pathlib import Path

from dpbandits.config import ConfigError
from dpbandits.runtime import worker


def declared_parameters(notebook: str | Path) -> list[str]:
    """Names assigned in the notebook's cell tagged ``parameters`` (papermill's inspection)."""
    import papermill as pm

    return list(pm.inspect_notebook(str(notebook)))


def check_parameters(notebook: str | Path, parameters: dict) -> None:
    """Raise :class:`~dpbandits.config.ConfigError` naming every parameter that ``notebook``
    does not declare, with the declared ones."""
    declared = declared_parameters(notebook)
    unknown = sorted(set(parameters) - set(declared))
    if unknown:
        raise ConfigError(
            f"{notebook}: parameter(s) {unknown} not declared in its parameters cell; "
            f"allowed: {', '.join(declared)}"
        )


#: Name of the kernel the pipeline's notebooks run on: this interpreter (the project's
#: environment), from a kernelspec written for the run, so that no ``python3`` kernelspec of the
#: user's (on JUPYTER_PATH or in ~/.local/share/jupyter) can replace it.
KERNEL_NAME = "dpbandits-pipeline"


@functools.cache
def _register_translator() -> None:
    """Make papermill write the parameters cell of :data:`KERNEL_NAME`'s notebooks unformatted.

    papermill's Python translator passes the parameters cell through Black whenever Black is
    importable (it is here: a dependency of the development tool snakefmt), which took about 2 s
    per audit page for their long parameter lists, and made the executed notebook depend on
    whether Black happens to be installed. Translators are looked up by kernel name before
    language, so registering one under our kernel's name changes nothing for other kernels. The
    cell holds the same assignments (papermill's own ``name = value`` lines); pages never show
    it (:data:`PARAMETER_TAGS`).
    """
    from papermill.translators import PythonTranslator, papermill_translators

    class _Unformatted(PythonTranslator):
        @classmethod
        def codify(cls, parameters, comment="Parameters"):
            return super(PythonTranslator, cls).codify(parameters, comment)

    papermill_translators.register(KERNEL_NAME, _Unformatted)


def execute(notebook: str | Path, output: str | Path, parameters: dict) -> None:
    """Run ``notebook`` with papermill into ``output`` on this interpreter's kernel.

    The parameters are checked first (:func:`check_parameters`). The kernel is
    :data:`KERNEL_NAME`, whose kernelspec (``sys.executable -m ipykernel_launcher``; in a job
    that the run's warm worker runs, a kernel forked from that worker,
    :func:`dpbandits.runtime.worker.kernel_argv`) is written to a temporary directory put first on
    ``JUPYTER_PATH`` for the call.
    """
    import papermill as pm

    from dpbandits.runtime.notebook_kernels import Manager

    check_parameters(notebook, parameters)
    _register_translator()
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "kernels" / KERNEL_NAME
        spec.mkdir(parents=True)
        argv = worker.kernel_argv()  # forked from the run's warm worker inside its jobs
        (spec / "kernel.json").write_text(
            json.dumps({"argv": argv, "display_name": "dpbandits", "language": "python"})
        )
        old = os.environ.get("JUPYTER_PATH")
        os.environ["JUPYTER_PATH"] = os.pathsep.join([tmp, *([old] if old else [])])
        try:
            pm.execute_notebook(
                str(notebook),
                str(output),
                parameters=parameters,
                kernel_name=KERNEL_NAME,
                language="python",
                progress_bar=False,
                # written once, when it is done (or has failed), not before and after every
                # cell: the same file, without rewriting a growing notebook of images ~2 x
                # cells times (7 s of the quick DAG's job time; docs/performance.md)
                request_save_on_cell_execute=False,
                # jupyter_client's manager without its waits on a clock (~0.3 s a job)
                kernel_manager_class=Manager,
            )
        finally:
            if old is None:
                os.environ.pop("JUPYTER_PATH", None)
            else:
                os.environ["JUPYTER_PATH"] = old


#: Cells tagged so by papermill: the defaults and the values it injected. In the executed
#: notebook, not on its page.
PARAMETER_TAGS = ("parameters", "injected-parameters")


#: The pages' template: nbconvert's ``lab`` page without the scripts it loads from a CDN
#: (require.js, MathJax, Mermaid), so that a page makes no network request (the pipeline's pages
#: hold no widgets, TeX or diagrams), and with the page's banner (:func:`render_html`) first in
#: its body.
PAGE_TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block body_header -%}{{ super() }}{{ resources.get('dpb_banner', '') }}{%- endblock -%}
"""


@functools.cache
def _exporter():
    """The pages' HTML exporter, made once per process: its compiled Jinja templates are kept
    between pages (an exporter renders any number of notebooks, as ``jupyter nbconvert`` does).

    The page is not sanitised as a whole: the project's own markup (headings, tables, badges)
    stays markup, and text from the configuration is escaped where a notebook inserts it
    (:mod:`dpbandits.textsafe`; the pandas tables escape their cells).
    """
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    config = Config()
    config.TagRemovePreprocessor.enabled = True  # one of the exporter's default preprocessors
    config.TagRemovePreprocessor.remove_cell_tags = set(PARAMETER_TAGS)
    config.HTMLExporter.exclude_input = True
    config.HTMLExporter.exclude_input_prompt = True
    config.HTMLExporter.exclude_output_prompt = True
    config.HTMLExporter.sanitize_html = False
    config.HTMLExporter.template_name = "lab"
    config.HTMLExporter.template_file = "dpbandits_page.html.j2"
    return HTMLExporter(
        config=config, extra_loaders=[DictLoader({"dpbandits_page.html.j2": PAGE_TEMPLATE})]
    )


def warm_up_html() -> None:
    """Render a small notebook and discard the page: what every page needs first (the exporter's
    templates, the sanitiser's CSS selectors and regular expressions) is then compiled in this
    process, and in the processes it forks (the warm worker's jobs,
    :mod:`dpbandits.runtime.worker`)."""
    import nbformat.v4 as nbf

    nb = nbf.new_notebook()
    code = nbf.new_code_cell("x", outputs=[])
    code.outputs = [
        nbf.new_output("display_data", {"text/html": "<table><tr><td>1</td></tr></table>"}),
        nbf.new_output("display_data", {"text/markdown": "**a** [b](c)"}),
        nbf.new_output("stream", name="stdout", text="x"),
    ]
    nb.cells = [nbf.new_markdown_cell("# A\n\n*b* `c`"), code]
    _exporter().from_notebook_node(nb)


def render_html(ipynb: str | Path, html: str | Path, banner: str = "") -> str:
    """Export the executed notebook ``ipynb`` to ``html`` as a report; return the page.

    The page keeps the markdown cells and the outputs, without the code cells' inputs and their
    In/Out prompts, and drops the cells tagged :data:`PARAMETER_TAGS` (input and output); the
    executed ``.ipynb`` keeps everything. The same notebook gives the same page (nbconvert adds no
    timestamp). The page is self-contained (:data:`PAGE_TEMPLATE`: no script from the network;
    figures are embedded). ``banner`` (HTML, e.g. :func:`dpbandits.pages.scale_banner`) opens the
    body; the verdict badges' and the banner's style are added to the page's head.
    """
    from dpbandits.audit.badges import BADGE_CSS
    from dpbandits.pages import PAGE_CSS

    body, _ = _exporter().from_filename(str(ipynb), resources={"dpb_banner": banner})
    body = body.replace("</head>", f"<style>{BADGE_CSS}{PAGE_CSS}</style>\n</head>", 1)
    Path(html).write_text(body, encoding="utf-8")
    return body
