"""Snakemake job: fit every rate claim of one paper on its horizon sweeps."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821

from dpbandits.audit.rates import evaluate_rate_claims
from dpbandits.claims import load_claims
from dpbandits.io import read_metadata, read_results
from dpbandits.joblog import job_log
from dpbandits.tables import write_table

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    claims = load_claims(snakemake.input.claims, p.claims_schema)
    sweep_files = list(snakemake.input.sweeps)
    df = read_results(sweep_files, at_horizon=True) if sweep_files else None  # finals
    options = {}
    for path in sweep_files:  # the schedules' options (alpha, ...) from the files' metadata
        cell = read_metadata(path)["cell"]
        options.setdefault((cell["figure"], cell["series"]), cell["options"])
    rates = evaluate_rate_claims(
        claims,
        df,
        tol=p.tolerance,
        n_boot=p.bootstrap,
        seed=p.seed,
        schedule_options=options,
    )
    write_table(
        rates,
        snakemake.output.csv,
        snakemake.output.md,
        title=f"{p.experiment}: fitted exponents of the rate claims",
    )
    log.info("%d fits", len(rates))
