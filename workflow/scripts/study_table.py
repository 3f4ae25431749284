"""Snakemake job: one table of a figure-less study's paper, made from its verdict tables (the
study's package does the work, ``dpbandits.papers.<prefix>.write_table``)."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

from dpbandits.bound_claims import load_bound_registry
from dpbandits.papers import paper
from dpbandits.runtime.joblog import job_log

with job_log(snakemake.log[0]):
    p = snakemake.params
    registry = load_bound_registry(snakemake.input.claims, p.claims_schema)
    inputs = {k: v for k, v in snakemake.input.items() if k != "claims"}
    paper(p.prefix).module.write_table(
        p.table, registry["claims"], inputs, dict(snakemake.output.items()), p.tier, p.scale
    )
