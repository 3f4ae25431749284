"""Snakemake job: every verdict rule of the PrivateLASSO audit (docs/papers/plasso.md) on
the results of one tier: the verdict rows (results/tables/plasso_claims.*), one verdict per claim
(results/audit/plasso_claims.*) and the constants of Algorithms 1-2 of paper 001
(results/tables/plasso_constants.*).
"""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821

from dpbandits.bound_claims import load_bound_registry
from dpbandits.io import read_results
from dpbandits.joblog import job_log
from dpbandits.papers.plasso.verdicts import VERDICT_SEMANTICS, PlassoAudit, constants_table
from dpbandits.tables import write_table

with job_log(snakemake.log[0]) as log:
    p, inp, out = snakemake.params, snakemake.input, snakemake.output
    registry = load_bound_registry(inp.claims, p.claims_schema)
    expect = snakemake.params.expected
    runs = read_results(inp.runs, required=("trial",), expect=expect)
    episodes = read_results(inp.episodes, required=("trial",), expect=expect)
    rows, claims = PlassoAudit(
        runs, episodes, registry["claims"], p.fit_points, p.max_detectable
    ).run()
    write_table(rows, out.rows_csv, out.rows_md, "Paper 001: verdict rows", VERDICT_SEMANTICS)
    write_table(
        claims, out.claims_csv, out.claims_md, "Paper 001: claim verdicts", VERDICT_SEMANTICS
    )
    e1 = runs[runs["experiment"] == "PL-E1"]
    T_max, first = int(e1["T"].max()), e1.iloc[0]
    consts = constants_table(
        p.grids["private_lasso"], T_max, int(first["d"]), int(first["s0"]), int(first["K"]),
        dict(p.parameters),
    )  # fmt: skip
    write_table(
        consts, out.constants_csv, out.constants_md,
        f"Paper 001: constants at T = {T_max} (Algorithms 1-2)",
        "Budget split, SVT scale and threshold, TBAP noise of the longest episode (m = s0).",
    )  # fmt: skip
    for r in claims.itertuples():
        log.info("%s: %s (%s)", r.claim_id, r.verdict, r.rules)
