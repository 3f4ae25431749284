"""Snakemake job: fit every rate claim of one paper on its horizon sweeps, and write the sweeps'
final rows (with each instance's saturation cap) for the audit page."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

import numpy as np
import pandas as pd

from dpbandits.audit.controls import CONTROL_COLUMNS
from dpbandits.audit.rates import evaluate_rate_claims
from dpbandits.audit.sweeps import read_sweeps, write_finals
from dpbandits.claims import load_claims
from dpbandits.runtime.joblog import job_log
from dpbandits.tables import write_table

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    claims = load_claims(snakemake.input.claims, p.claims_schema)
    df, options = read_sweeps(list(snakemake.input.sweeps), expect=p.expected)
    write_finals(df, snakemake.output.finals, p.experiment)  # before the fits: as read
    controls = []
    rates = evaluate_rate_claims(
        claims,
        df,
        tol=p.tolerance,
        n_boot=p.bootstrap,
        seed=p.seed,
        schedule_options=options,
        max_detectable=p.max_detectable,
        controls=controls,
        grids={(sweep, entry): series for sweep, entry, series, _ in p.grids},
        grid_steps={  # ln of the largest ratio between neighbouring gaps of each grid
            (sweep, entry): float(np.log(np.max(np.array(gaps[:-1]) / np.array(gaps[1:]))))
            for sweep, entry, _, gaps in p.grids
        },
    )
    write_table(
        rates,
        snakemake.output.csv,
        snakemake.output.md,
        title=f"{p.experiment}: fitted exponents of the rate claims",
    )
    write_table(
        pd.DataFrame(controls, columns=CONTROL_COLUMNS),
        snakemake.output.controls_csv,
        snakemake.output.controls_md,
        title=f"{p.experiment}: planted violations and claim-meeting controls of the rate fits",
    )
    missed = sum(c["control"] == "planted violation" and not c["passed"] for c in controls)
    log.info(
        "%d fits, %d controls, %d planted violations undetected", len(rates), len(controls), missed
    )
