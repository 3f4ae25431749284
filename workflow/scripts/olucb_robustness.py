"""Snakemake job: the on-demand robustness study of OnlineUCB's Figure 1 ordering (issue 19)."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

import time

from dpbandits.config import load_experiment
from dpbandits.papers.olucb.robustness import classify, comparison_table, run_study, write_outputs
from dpbandits.pipeline import read_calibrations
from dpbandits.runtime.joblog import job_log

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    experiment = load_experiment(p.config_file, snakemake.config, p.schema)
    study = experiment.data["robustness"]
    start = time.perf_counter()
    finals = run_study(
        experiment, snakemake.config, read_calibrations(snakemake.input.calibrations)
    )
    table = comparison_table(finals, study["series"], study["reference"])
    verdict = classify(table)
    write_outputs(table, verdict, study, snakemake.output.csv, snakemake.output.md)
    log.info(
        "robustness: %s (reproducing: %s); %.1f s",
        verdict["verdict"],
        verdict["reproducing"],
        time.perf_counter() - start,
    )
