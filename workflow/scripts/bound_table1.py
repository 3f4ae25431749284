"""Snakemake job: Table 1 of paper 002 as stated (claims registry) with the measured columns of
OP-E1 / OP-E2, to CSV, Markdown and LaTeX."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821

import pandas as pd

from dpbandits.audit.paper_tables import write
from dpbandits.bound_claims import load_bound_registry
from dpbandits.joblog import job_log
from dpbandits.papers.op24.table1 import table1

with job_log(snakemake.log[0]):
    registry = load_bound_registry(snakemake.input.claims, snakemake.params.claims_schema)
    rows = pd.read_csv(snakemake.input.verdicts)
    claims = pd.read_csv(snakemake.input.claims_verdicts)
    table, frame = table1(registry["claims"], rows, claims)
    table["footnotes"].append(
        f"Tier {snakemake.params.tier}, scale {snakemake.params.scale} (README, paper 002)."
    )
    out = snakemake.output
    write(table, frame, out.csv, out.md, out.tex)
