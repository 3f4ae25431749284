"""Snakemake job: final-regret table, claim checklist and audit metrics of one experiment."""

from dpbandits.joblog import job_log
from dpbandits.tables import write_experiment_tables

with job_log(snakemake.log[0]):  # noqa: F821
    write_experiment_tables(
        experiment=snakemake.params.experiment,  # noqa: F821
        cells=snakemake.params.cells,  # noqa: F821
        claims_file=snakemake.input.claims,  # noqa: F821
        claims_schema=snakemake.params.claims_schema,  # noqa: F821
        outputs=dict(snakemake.output),  # noqa: F821
    )
