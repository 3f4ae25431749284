"""Snakemake job: the empirical privacy auditor on every mechanism and the negative controls."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

from dpbandits.audit.privacy import empirical_table
from dpbandits.privacy.cases import all_cases
from dpbandits.runtime.joblog import job_log
from dpbandits.tables import write_table

NOTE = (
    "Lower bounds on epsilon at the case's delta from a threshold test (selection half / "
    "evaluation half, Clopper-Pearson limits), valid with probability 1 - alpha. "
    "`lb_le_delivered` must hold; `caught` is required of the negative controls."
)

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    table = empirical_table(all_cases(), p.samples, p.seed, p.alpha)
    bad = table[~table["lb_le_delivered"]]
    missed = table[table["control"] & ~table["caught"]]
    out = snakemake.output
    write_table(table, out.csv, out.md, "Empirical privacy audit", NOTE)
    if len(bad) or len(missed):
        raise RuntimeError(
            f"privacy audit failed: lower bound above the delivered epsilon for {list(bad['case'])}"
            f"; negative controls not caught: {list(missed['case'])}"
        )
    log.info("%d cases audited with %d samples per input and half", len(table), p.samples)
