"""Snakemake job: simulate the cells of one (panel, configuration), one parquet file per series,
and a timing table (wall seconds per series; kept out of the parquet files, which are
byte-reproducible)."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

from dpbandits.config import Cell
from dpbandits.pipeline import read_calibrations, read_shared, run_cells, write_timings
from dpbandits.runtime.joblog import job_log
from dpbandits.settings_params import unflatten

with job_log(snakemake.log[0]):
    # the cells' settings, one rule parameter per setting (dpbandits.settings_params)
    params = list(snakemake.params.items())
    cells = [Cell.from_dict(c) for c in unflatten(params, "cell")]
    if not cells:
        raise RuntimeError("the rule passes no cell settings (parameters cell<i>__<key>)")
    outs = list(snakemake.output.parquet)
    for cell, out in zip(cells, outs, strict=True):
        if cell.path != out:
            raise RuntimeError(f"output {out} does not belong to cell {cell.stem}")
    calibrated = read_calibrations(snakemake.input.calibrations)
    # cells an earlier job simulated (figure jobs only; a sweep job has no such inputs)
    shared = read_shared(
        cells,
        unflatten(params, "source") or [None] * len(cells),
        snakemake.input.get("shared", []),
        snakemake.input.get("shared_timing", []),
    )
    seconds = run_cells(cells, outs, calibrated, shared)
    write_timings(cells, seconds, snakemake.output.timing)
