"""olucb's ``make bench`` workload (:mod:`dpbandits.dev.bench`): the three Figure 1 panels at
paper scale (configuration main, every series) in two processes."""

from __future__ import annotations

import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from dpbandits.dev.bench import paper_experiment, record
from dpbandits.pipeline import run_cells


def _run_panel(task) -> tuple[str, float, list[float]]:
    """Simulate one panel's cells into ``out_dir`` (a worker of :func:`run`)."""
    panel, cells, out_dir, calibrated = task
    start = time.perf_counter()
    outs = [Path(out_dir) / (c.stem.replace("/", "_") + ".parquet") for c in cells]
    seconds = run_cells(cells, outs, calibrated)
    return panel, time.perf_counter() - start, seconds


def run(root: Path, options=None, workers: int = 2) -> None:
    """Time the three Figure 1 panels of olucb (configuration main, every series, paper
    scale) in ``workers`` processes, as Snakemake's jobs run with ``--cores 2``.

    OnlineUCB's ``c_beta`` is the calibrated value when ``results/calibration/olucb/c_beta.csv``
    exists, else 1e-3 (a pilot value; the run time does not depend on it).
    """
    from dpbandits.pipeline import read_calibrations

    exp = paper_experiment(root, "olucb")
    table = root / "results" / "calibration" / "olucb" / "c_beta.csv"
    calibrated = read_calibrations([table]) if table.exists() else {"c_beta": 1e-3}
    groups = [(k[0], cells) for k, cells in exp.groups().items() if k[1] == "main"]
    n = sum(len(c) for _, c in groups)
    print(
        f"\nFigure 1 of olucb at paper scale: {len(groups)} panels, {n} cells "
        f"(c_beta = {calibrated['c_beta']:.3g}), {workers} processes"
    )
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        tasks = [(panel, cells, tmp, calibrated) for panel, cells in groups]
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork")) as pool:
            results = list(pool.map(_run_panel, tasks))
        wall = time.perf_counter() - start
    for (panel, sec, per_cell), (_, cells) in zip(results, groups, strict=True):
        detail = ", ".join(f"{c.series} {s:.1f}" for c, s in zip(cells, per_cell, strict=True))
        print(f"  {panel}: {sec:5.1f} s ({detail})")
    print(f"  three panels {wall:.1f} s wall (target <= 180 s on 2 cores)")
    record("olucb Figure 1, three panels, 2 processes", wall, 180.0)
