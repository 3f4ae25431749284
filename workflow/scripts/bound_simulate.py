"""Snakemake job: one run of a bound audit's plan (all its privacy values, horizons and trials)
to one parquet file, plus its timing table (kept out of the byte-reproducible parquet)."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821

from dpbandits.joblog import job_log
from dpbandits.papers.op24.plan import Run
from dpbandits.papers.op24.runs import write_run

with job_log(snakemake.log[0]):
    write_run(
        Run.from_dict(snakemake.params.run),
        snakemake.output.parquet,
        snakemake.output.timing,
        snakemake.params.tier,
        snakemake.params.scale,
    )
