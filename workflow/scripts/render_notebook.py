"""Snakemake job: execute a parametrised notebook with papermill and export it to HTML.

The notebook writes the figure files itself; this script runs it and exports the executed
notebook as a report page (``dpbandits.notebooks.render_html``: no code, no parameters). Kernel:
``python3``, which jupyter_client resolves to the interpreter running this script (the project's
environment).
"""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821

import papermill as pm

from dpbandits.joblog import job_log
from dpbandits.notebooks import check_parameters, render_html

with job_log(snakemake.log[0]) as log:
    check_parameters(snakemake.input.notebook, snakemake.params.parameters)
    pm.execute_notebook(
        snakemake.input.notebook,
        snakemake.output.ipynb,
        parameters=dict(snakemake.params.parameters),
        kernel_name="python3",
        progress_bar=False,
    )
    render_html(snakemake.output.ipynb, snakemake.output.html)
    log.info("rendered %s", snakemake.output.ipynb)
