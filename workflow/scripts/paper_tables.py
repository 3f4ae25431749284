"""Snakemake job: a paper's own tables (registry ``tables:``) to CSV, Markdown and LaTeX."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

from dpbandits.audit.paper_tables import render, write
from dpbandits.claims import load_registry
from dpbandits.io import read_results
from dpbandits.runtime.joblog import job_log

with job_log(snakemake.log[0]):
    registry = load_registry(snakemake.input.claims, snakemake.params.claims_schema)
    claims = {c["id"]: c for c in registry["claims"]}
    results = list(snakemake.input.results)
    df = (  # finals only
        read_results(results, at_horizon=True, expect=snakemake.params.expected)
        if results
        else None
    )
    for name in snakemake.params.tables:
        table = registry["tables"][name]
        frame = render(table, claims, df)
        write(
            table,
            frame,
            snakemake.output[f"{name}_csv"],
            snakemake.output[f"{name}_md"],
            snakemake.output[f"{name}_tex"],
        )
        print(f"{name}: {len(frame)} rows")
