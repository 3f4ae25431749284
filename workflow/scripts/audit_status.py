"""Snakemake job: one paper's rows of the scoreboard (results/audit/<paper>_status.csv).

Every status of a claim is decided here, once: the paper's audit page, the report, the front
page and ``scoreboard.csv`` (the concatenation of these files) all read it.
"""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

from dpbandits.audit import scoreboard
from dpbandits.audit.overview import claim_overview
from dpbandits.audit.privacy_claims import privacy_claim_status
from dpbandits.bound_claims import load_bound_registry
from dpbandits.claims import load_registry
from dpbandits.io import read_csv_table, write_csv_table
from dpbandits.pages import claim_statement
from dpbandits.papers import paper
from dpbandits.runtime.joblog import job_log

with job_log(snakemake.log[0]):
    p = snakemake.params
    inp = snakemake.input
    load = load_bound_registry if p.bound_paper else load_registry
    registry = load(inp.claims, p.claims_schema)
    claims = registry["claims"]
    privacy = privacy_claim_status(
        claims, read_csv_table(inp.privacy_delivered), read_csv_table(inp.privacy_empirical)
    )
    if p.bound_paper:  # verdicts of the dedicated experiments (papers 001 and 002)
        overview = read_csv_table(inp.verdicts)
    else:
        overview = claim_overview(
            claims,
            read_csv_table(inp.rates),
            read_csv_table(inp.orderings),
            p.primary,
            registry["verdict_metric"],
            privacy=privacy,
            communication=(
                read_csv_table(inp.communication) if "communication" in inp.keys() else None
            ),
        )
    board = scoreboard.scoreboard(
        [(p.paper, overview)],
        privacy,
        statements={c["id"]: claim_statement(c) for c in claims},
        evidence=dict(p.evidence),
    )
    # a paper may add a note to some claims' reasons (e.g. olucb's constants sweep)
    notes_of = paper(p.paper).hook("claim_notes")
    for cid, note in (notes_of(inp) if notes_of else {}).items():
        hit = board["claim_id"] == cid
        board.loc[hit, "reason"] = board.loc[hit, "reason"].astype(str) + "; " + note
    write_csv_table(board, snakemake.output.csv)  # the audit pages and the scoreboard read it
