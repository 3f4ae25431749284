"""Snakemake job: the delivered-epsilon audit of every privatised series (results/audit/privacy)."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821

from dpbandits.audit.privacy import delivered_table
from dpbandits.config import load_experiment
from dpbandits.joblog import job_log
from dpbandits.papers.op24.plan import load_plan
from dpbandits.papers.plasso.plan import load_plasso_plan
from dpbandits.tables import write_table

NOTE = (
    "Delivered epsilon: the smallest epsilon at the nominal delta that the noise as calibrated "
    "delivers (dp-accounting: analytic Gaussian, privacy loss distributions, RDP for zCDP), under "
    "the bounds of the simulated instances; also at delta = 1/T and under the paper's bounds."
)

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    config = p.config
    experiments = {
        name: load_experiment(f"config/experiments/{name}.yaml", config, p.experiment_schema)
        for name in config["experiments"]
    }
    op24 = plasso = None
    if "op24" in config["bound_audits"]:
        op24 = load_plan("config/experiments/op24.yaml", p.op24_schema, p.tier, config["scale"])
    if "plasso" in config["bound_audits"]:
        plasso = load_plasso_plan(
            "config/experiments/plasso.yaml", p.plasso_schema, p.tier, config["scale"]
        )
    table = delivered_table(experiments, op24, plasso)
    log.info("%d privatised series; %s", len(table), table["verdict"].value_counts().to_dict())
    out = snakemake.output
    write_table(table, out.csv, out.md, "Delivered epsilon of every privatised series", NOTE)
