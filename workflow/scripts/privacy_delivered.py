"""Snakemake job: the delivered-epsilon audit of every privatised series (results/audit/privacy)."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

from dpbandits.audit.privacy import delivered_table
from dpbandits.config import load_experiment
from dpbandits.papers import paper
from dpbandits.runtime.joblog import job_log
from dpbandits.tables import write_table

NOTE = (
    "Delivered epsilon: the certified upper bound on the epsilon at the nominal delta that the "
    "noise as calibrated delivers (dp-accounting: analytic Gaussian, privacy loss distributions, "
    "RDP for zCDP), under the bounds of the simulated instances; also at delta = 1/T and under "
    "the paper's bounds. Lower epsilon: a lower bound on the true epsilon where one is known. "
    "Verdicts: DELIVERED, NOT-CERTIFIED, VIOLATED, NOT-PRIVATE (docs/auditing.md)."
)

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    config = p.config
    experiments = {
        name: load_experiment(f"config/experiments/{name}.yaml", config, p.experiment_schema)
        for name in config["experiments"]
    }
    plans = {  # the figure-less papers' run plans, through their registry entries
        name: paper(name).module.load_plan(
            f"config/experiments/{name}.yaml", schema, p.tier, config["scale"]
        )
        for name, schema in p.plan_schemas.items()
    }
    table = delivered_table(experiments, plans)
    log.info("%d privatised series; %s", len(table), table["verdict"].value_counts().to_dict())
    out = snakemake.output
    write_table(table, out.csv, out.md, "Delivered epsilon of every privatised series", NOTE)
