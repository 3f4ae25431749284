"""Snakemake job: every verdict rule of the open-problem audit (docs/papers/op24.md) on
the results of one tier: one row per (claim, rule, configuration, privacy value), and one row
per claim."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821

from dpbandits.bound_claims import load_bound_registry
from dpbandits.io import read_results
from dpbandits.joblog import job_log
from dpbandits.papers.op24.verdicts import VERDICT_SEMANTICS, Op24Audit
from dpbandits.tables import write_table

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    registry = load_bound_registry(snakemake.input.claims, p.claims_schema)
    results = read_results(snakemake.input.results, expect=snakemake.params.expected)
    rows, claims = Op24Audit(
        results, registry["claims"], p.fit_points, p.fit_checkpoints, p.max_detectable
    ).run()
    out = snakemake.output
    write_table(rows, out.csv, out.md, "Paper 002: verdict rows", VERDICT_SEMANTICS)
    write_table(
        claims, out.claims_csv, out.claims_md, "Paper 002: claim verdicts", VERDICT_SEMANTICS
    )
    for r in claims.itertuples():
        log.info("%s: %s (%s)", r.claim_id, r.verdict, r.rules)
