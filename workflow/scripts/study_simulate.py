"""Snakemake job: one run of a figure-less study's plan (all its privacy values, horizons and
trials) to its parquet files, plus its timing table (kept out of the byte-reproducible parquet).
The study's package does the work (``dpbandits.papers.<prefix>.simulate``)."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

from dpbandits.papers import paper
from dpbandits.runtime.joblog import job_log

with job_log(snakemake.log[0]):
    p = snakemake.params
    paper(p.prefix).module.simulate(
        p.run,
        {kind: getattr(snakemake.output, kind) for kind in p.kinds},
        snakemake.output.timing,
        p.tier,
        p.scale,
    )
