"""Snakemake job: the analytic communication audit of a phased experiment (docs/papers/dpdpe.md)."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.worker)

from dpbandits.joblog import job_log
from dpbandits.papers.dpdpe.communication import communication_audit
from dpbandits.tables import write_table

NOTE = (
    "Phase schedule of Algorithm 1 with every support size at its bound S, n_l = ceil(2^(alpha l)) "
    "clients, completed phases only; bits of Algorithm 2 (Eq. 22). Exponents are log-log slopes "
    "over the last decade of horizons; an upper-bound claim is consistent when the slope is at "
    "most the claimed exponent plus the tolerance. No simulation: the measured costs are in the "
    "rate fits."
)

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    s = p.settings
    costs, summary = communication_audit(
        s["alphas"],
        tuple(s["log2_T"]),
        s["d"],
        s["epsilon"],
        s["delta"],
        s["reward_bound"],
        tolerance=p.tolerance,
    )
    out = snakemake.output
    for frame, csv, md, title, note in (
        (summary, out.summary_csv, out.summary_md, "communication exponents", NOTE),
        (costs, out.costs_csv, out.costs_md, "communication per horizon", ""),
    ):
        write_table(frame, csv, md, title=f"{p.experiment}: {title} (no simulation)", note=note)
    for row in summary.itertuples():
        log.info(
            "alpha %s %s: fitted %.3f, claimed %.3f -> %s",
            row.alpha,
            row.unit,
            row.fitted_exponent,
            row.claimed_exponent,
            row.verdict,
        )
