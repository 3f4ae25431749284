"""Snakemake job: simulate the cells of one (panel, configuration), one parquet file per series."""

from dpbandits.config import Cell
from dpbandits.joblog import job_log
from dpbandits.pipeline import run_cell

with job_log(snakemake.log[0]):  # noqa: F821
    for cell_dict, out in zip(snakemake.params.cells, snakemake.output, strict=True):  # noqa: F821
        cell = Cell.from_dict(cell_dict)
        if cell.path != out:
            raise RuntimeError(f"output {out} does not belong to cell {cell.stem}")
        run_cell(cell, out)
