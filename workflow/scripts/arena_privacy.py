"""Snakemake job: the delivered epsilon of every arena cell (the privacy audit's accountant), made
next to the simulations because it needs none of them; the results job reads it."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

from dpbandits.arena.leaderboard import delivered_table
from dpbandits.arena.spec import load_arena_for_job
from dpbandits.io import write_csv_table
from dpbandits.runtime.joblog import job_log

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    arena = load_arena_for_job(snakemake.input.arena, p)
    table = delivered_table(arena)
    write_csv_table(table, snakemake.output.csv)  # arena_results reads it
    log.info("delivered epsilon of %d cells", len(table))
