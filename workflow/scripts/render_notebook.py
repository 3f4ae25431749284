"""Snakemake job: execute a parametrised notebook with papermill and export it to HTML.

The notebook writes the figure files itself; this script runs it and converts the executed
notebook. Kernel: ``python3``, which jupyter_client resolves to the interpreter running this
script (the project's environment).
"""

import papermill as pm
from nbconvert import HTMLExporter

from dpbandits.joblog import job_log

with job_log(snakemake.log[0]) as log:  # noqa: F821
    pm.execute_notebook(
        snakemake.input.notebook,  # noqa: F821
        snakemake.output.ipynb,  # noqa: F821
        parameters=dict(snakemake.params.parameters),  # noqa: F821
        kernel_name="python3",
        progress_bar=False,
    )
    body, _ = HTMLExporter().from_filename(snakemake.output.ipynb)  # noqa: F821
    with open(snakemake.output.html, "w") as fh:  # noqa: F821
        fh.write(body)
    log.info("rendered %s", snakemake.output.ipynb)  # noqa: F821
