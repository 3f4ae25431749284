"""Snakemake job: final-regret table, claim checklist and audit metrics of one experiment."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

from dpbandits.runtime.joblog import job_log
from dpbandits.tables import write_experiment_tables

with job_log(snakemake.log[0]):
    write_experiment_tables(
        experiment=snakemake.params.experiment,
        cells=snakemake.params.cells,
        claims_file=snakemake.input.claims,
        claims_schema=snakemake.params.claims_schema,
        outputs=dict(snakemake.output),
        timings=list(snakemake.input.timings),
        privacy=snakemake.input.get("privacy"),
    )
