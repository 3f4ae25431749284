"""Snakemake job: one calibration (grid search of one option of one series, on its own trials)."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

from dpbandits.config import load_experiment
from dpbandits.pipeline import run_calibration
from dpbandits.runtime.joblog import job_log

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    experiment = load_experiment(p.config_file, snakemake.config, p.schema)
    chosen = run_calibration(experiment.calibration(p.calibration), snakemake.output[0])
    log.info("chosen value %.6g", chosen)
