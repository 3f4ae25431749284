"""Snakemake job: every verdict rule of a figure-less study on the results of one tier (the
study's package does the work, ``dpbandits.papers.<prefix>.write_verdicts``): its verdict
tables, among them one verdict per claim."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

from dpbandits.bound_claims import load_bound_registry
from dpbandits.papers import paper
from dpbandits.runtime.joblog import job_log

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    registry = load_bound_registry(snakemake.input.claims, p.claims_schema)
    claims = paper(p.prefix).module.write_verdicts(
        {kind: list(getattr(snakemake.input, kind)) for kind in p.kinds},
        registry["claims"],
        p.parameters,
        p.max_detectable,
        p.expected,
        dict(snakemake.output.items()),
    )
    for r in claims.itertuples():
        log.info("%s: %s (%s)", r.claim_id, r.verdict, r.rules)
