"""Snakemake job: the front page of a build (results/index.html)."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

from dpbandits.front_page import write_front_page
from dpbandits.io import read_csv_table
from dpbandits.provenance import one_line
from dpbandits.runtime.joblog import job_log

with job_log(snakemake.log[0]):
    p = snakemake.params
    write_front_page(
        snakemake.output.html,
        p.results_root,
        read_csv_table(snakemake.input.scoreboard, keep_default_na=False),
        list(p.papers),
        list(p.sections),
        scale=p.scale,
        provenance=one_line(),
    )
