"""Snakemake job: the analytic communication audit of one paper, by its module
``dpbandits.papers.<prefix>.communication`` (``audit(settings, tolerance)`` and ``NOTE``; docs:
docs/papers/<prefix>.md)."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

from dpbandits.papers import communication_module
from dpbandits.runtime.joblog import job_log
from dpbandits.tables import write_table

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    module = communication_module(p.experiment)
    costs, summary = module.audit(p.settings, tolerance=p.tolerance)
    out = snakemake.output
    for frame, csv, md, title, note in (
        (summary, out.summary_csv, out.summary_md, "communication", module.NOTE),
        (costs, out.costs_csv, out.costs_md, "communication per setting", ""),
    ):
        write_table(frame, csv, md, title=f"{p.experiment}: {title} (no simulation)", note=note)
    for row in summary.to_dict("records"):
        log.info(
            "%s: fitted %.3f, claimed %.3f -> %s",
            ", ".join(f"{k} {row[k]}" for k in ("alpha", "protocol", "calibration", "count",
                                                 "reading", "variable", "unit") if k in row),
            row["fitted_exponent"],
            row["claimed_exponent"],
            row["verdict"],
        )  # fmt: skip
