"""Snakemake job: one run of the PrivateLASSO audit plan (all its eps values, horizons and trials)
to its runs and episodes parquet files, plus its timing table (kept out of the byte-reproducible
parquet)."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821

from dpbandits.joblog import job_log
from dpbandits.papers.plasso.plan import PlassoRun
from dpbandits.papers.plasso.runs import write_run

with job_log(snakemake.log[0]):
    out = snakemake.output
    write_run(
        PlassoRun.from_dict(snakemake.params.run),
        out.runs,
        out.episodes,
        out.timing,
        snakemake.params.tier,
        snakemake.params.scale,
    )
