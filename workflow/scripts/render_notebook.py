"""Snakemake job: execute a parametrised notebook with papermill and export it to HTML.

The notebook writes the figure files itself; this script runs it and converts the executed
notebook. Kernel: ``python3``, which jupyter_client resolves to the interpreter running this
script (the project's environment).
"""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821

import papermill as pm
from nbconvert import HTMLExporter

from dpbandits.joblog import job_log
from dpbandits.notebooks import check_parameters

with job_log(snakemake.log[0]) as log:
    check_parameters(snakemake.input.notebook, snakemake.params.parameters)
    pm.execute_notebook(
        snakemake.input.notebook,
        snakemake.output.ipynb,
        parameters=dict(snakemake.params.parameters),
        kernel_name="python3",
        progress_bar=False,
    )
    body, _ = HTMLExporter().from_filename(snakemake.output.ipynb)
    with open(snakemake.output.html, "w") as fh:
        fh.write(body)
    log.info("rendered %s", snakemake.output.ipynb)
