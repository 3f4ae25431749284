"""Snakemake job: execute a parametrised notebook with papermill and export it to HTML.

The notebook writes the figure files itself; this script runs it and exports the executed
notebook as a report page (``dpbandits.notebooks.render_html``: no code, no parameters). Kernel:
the interpreter running this script (the project's environment), whatever kernelspecs the user
has (``dpbandits.notebooks.execute``).
"""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

from dpbandits.notebooks import execute, render_html
from dpbandits.pages import scale_banner
from dpbandits.runtime.joblog import job_log

with job_log(snakemake.log[0]) as log:
    parameters = dict(snakemake.params.parameters)
    if "workers" in parameters:  # processes of the notebook: the job's threads
        parameters["workers"] = snakemake.threads
    execute(snakemake.input.notebook, snakemake.output.ipynb, parameters)
    # a quick build's page opens with a banner saying its numbers are a smoke test
    banner = scale_banner(snakemake.config["scale"])
    render_html(snakemake.output.ipynb, snakemake.output.html, banner=banner)
    log.info("rendered %s", snakemake.output.ipynb)
