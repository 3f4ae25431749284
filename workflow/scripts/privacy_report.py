"""Snakemake job: the privacy audit's report page (results/audit/privacy.html)."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

from dpbandits.audit.privacy import write_page
from dpbandits.io import read_csv_table
from dpbandits.runtime.joblog import job_log

with job_log(snakemake.log[0]):
    inp = snakemake.input
    write_page(
        read_csv_table(inp.delivered),
        read_csv_table(inp.empirical),
        snakemake.output.html,
        scale=snakemake.config["scale"],
        front=snakemake.params.front,
    )
