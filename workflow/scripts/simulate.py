"""Snakemake job: simulate the cells of one (panel, configuration), one parquet file per series."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821

from dpbandits.config import Cell
from dpbandits.joblog import job_log
from dpbandits.pipeline import run_cells

with job_log(snakemake.log[0]):
    cells = [Cell.from_dict(c) for c in snakemake.params.cells]
    for cell, out in zip(cells, snakemake.output, strict=True):
        if cell.path != out:
            raise RuntimeError(f"output {out} does not belong to cell {cell.stem}")
    run_cells(cells, list(snakemake.output))
