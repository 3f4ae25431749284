"""Snakemake job: the cross-paper audit tables, the scoreboard and the report index.

The scoreboard is the papers' status files (``audit_<paper>_status``) stacked: no status is
recomputed here.
"""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

import os

import pandas as pd

from dpbandits.audit import scoreboard
from dpbandits.audit.overview import write_index
from dpbandits.io import read_csv_table, write_csv_table
from dpbandits.runtime.joblog import job_log

with job_log(snakemake.log[0]):
    p, inp, out = snakemake.params, snakemake.input, snakemake.output
    rates = [read_csv_table(f) for f in inp.rates]
    write_csv_table(pd.concat(rates, ignore_index=True), out.rates)  # verify reads it
    controls = [read_csv_table(f) for f in inp.controls]
    # controls.csv and orderings.csv: read by no job or notebook, no content record needed
    pd.concat(controls, ignore_index=True).to_csv(out.controls, index=False)
    orderings = [
        read_csv_table(f).assign(experiment=name)
        for f, name in zip(inp.orderings, [pg["name"] for pg in p.papers], strict=False)
    ]
    cols = ["experiment"] + [c for c in orderings[0].columns if c != "experiment"]
    pd.concat(orderings, ignore_index=True)[cols].to_csv(out.orderings, index=False)
    board = pd.concat(
        [read_csv_table(f, keep_default_na=False) for f in inp.status], ignore_index=True
    )
    write_csv_table(board, out.scoreboard_csv)  # the front page, verify and `dpb pages` read it
    with open(out.scoreboard_md, "w") as fh:
        fh.write(scoreboard.markdown(board, p.scale))
    results_root = os.path.dirname(os.path.dirname(out.report))
    write_index(board, p.papers, out.report, results_root, p.scale)
