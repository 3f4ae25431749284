"""Snakemake job: the cross-paper audit tables, the scoreboard and the report index."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.worker)

import pandas as pd

from dpbandits.audit import scoreboard
from dpbandits.audit.overview import claim_overview, write_index
from dpbandits.audit.privacy_claims import privacy_claim_status
from dpbandits.bound_claims import load_bound_registry
from dpbandits.claims import load_registry
from dpbandits.joblog import job_log

with job_log(snakemake.log[0]):
    p = snakemake.params
    # privacy claims take the privacy audit's finding (delivered and empirical epsilon)
    delivered = pd.read_csv(snakemake.input.privacy_delivered)
    empirical = pd.read_csv(snakemake.input.privacy_empirical)
    bound_names = {b["name"] for b in p.bound_audits}
    privacy = pd.concat(
        [
            privacy_claim_status(
                (load_bound_registry if name in bound_names else load_registry)(path, schema)[
                    "claims"
                ],
                delivered,
                empirical,
            )
            for name, path, schema in p.privacy_registries
        ],
        ignore_index=True,
    )
    rates, orderings, pages, controls = [], [], [], []
    for exp in p.experiments:
        r = pd.read_csv(exp["rates"])
        controls.append(pd.read_csv(exp["controls"]))
        o = pd.read_csv(exp["orderings"]).assign(experiment=exp["name"])
        rates.append(r)
        orderings.append(o)
        registry = load_registry(exp["claims"], p.claims_schema)
        overview = claim_overview(
            registry["claims"], r, o, exp["primary"], registry["verdict_metric"], privacy=privacy
        )
        pages.append(
            {
                "experiment": exp["name"],
                "title": exp["title"],
                "page": exp["page"],
                "overview": overview,
            }
        )
    for audit in p.bound_audits:  # papers audited by dedicated experiments (paper 002)
        pages.append(
            {
                "experiment": audit["name"],
                "title": audit["title"],
                "page": audit["page"],
                "overview": pd.read_csv(audit["claims"]).assign(claimed=lambda f: f["where"]),
            }
        )
    pd.concat(rates, ignore_index=True).to_csv(snakemake.output.rates, index=False)
    pd.concat(controls, ignore_index=True).to_csv(snakemake.output.controls, index=False)
    board = scoreboard.scoreboard(((pg["experiment"], pg["overview"]) for pg in pages), privacy)
    board.to_csv(snakemake.output.scoreboard_csv, index=False)
    with open(snakemake.output.scoreboard_md, "w") as fh:
        fh.write(scoreboard.markdown(board))
    cols = ["experiment"] + [c for c in orderings[0].columns if c != "experiment"]
    pd.concat(orderings, ignore_index=True)[cols].to_csv(snakemake.output.orderings, index=False)
    write_index(pages, snakemake.output.report, board)
