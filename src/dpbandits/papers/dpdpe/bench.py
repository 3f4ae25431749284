"""dpdpe's ``make bench`` workload (:mod:`dpbandits.dev.bench`): every Figure 2 panel job
(configurations F and T, T = 10^6) and the calibration of DPE-FixedU's U in two processes, and
the share of the G-optimal designs in a cell."""

from __future__ import annotations

import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from dpbandits.dev.bench import paper_experiment, record
from dpbandits.pipeline import run_cells


def _task(task) -> tuple[str, float, int]:
    """Simulate a list of cells, or run a calibration (a worker of :func:`run`)."""
    kind, name, payload, out_dir, calibrated = task
    start = time.perf_counter()
    if kind == "calibration":
        from dpbandits.pipeline import run_calibration

        run_calibration(payload, Path(out_dir) / f"{name}.csv")
        return name, time.perf_counter() - start, 0
    outs = [Path(out_dir) / (c.stem.replace("/", "_") + ".parquet") for c in payload]
    run_cells(payload, outs, calibrated)
    return name, time.perf_counter() - start, len(payload)


def run(root: Path, options=None, workers: int = 2) -> None:
    """Time all Figure 2 panels of dpdpe (configurations F and T, T = 10^6, 20 runs, every
    series) and the calibration of DPE-FixedU's U in ``workers`` processes, and the share of the
    G-optimal designs in a DPE run (dpdpe, Algorithm 1 step 3)."""
    from dpbandits.engine import phased
    from dpbandits.pipeline import read_calibrations

    exp = paper_experiment(root, "dpdpe")
    table = root / "results" / "calibration" / "dpdpe" / "fixed_u.csv"
    calibrated = read_calibrations([table]) if table.exists() else {"fixed_u": 536}
    groups = [
        (f"{panel}/{conf}", cells)
        for (panel, conf), cells in exp.groups().items()
        if conf in ("faithful", "tight") and panel.startswith("dpdpe_fig2")
    ]
    cal = next(c for c in exp.calibrations if c.id == "fixed_u")
    n = sum(len(c) for _, c in groups)
    print(
        f"\nFigure 2 of dpdpe at paper scale: {len(groups)} panel jobs, {n} cells, "
        f"U = {calibrated['fixed_u']:g}, plus the calibration of U; {workers} processes"
    )
    with tempfile.TemporaryDirectory() as tmp:
        tasks = [("calibration", cal.id, cal, tmp, None)]
        tasks += [("cells", name, cells, tmp, calibrated) for name, cells in groups]
        start = time.perf_counter()
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork")) as pool:
            results = list(pool.map(_task, tasks))
        wall = time.perf_counter() - start
    for name, sec, cells in sorted(results, key=lambda r: -r[1])[:6]:
        print(f"  {name}: {sec:5.1f} s" + (f" ({cells} cells)" if cells else ""))
    print(f"  all Figure 2 jobs {wall:.1f} s wall (target <= 300 s on 2 cores)")
    record("dpdpe Figure 2 jobs + calibration of U, 2 processes", wall, 300.0)
    # share of the designs in a cell: design cache cleared, design calls timed
    original = phased.g_optimal_design
    for algorithm in ("dpe", "cdp_dpe", "sdp_dpe"):
        cell = next(
            c
            for name, cells in groups
            for c in cells
            if c.algorithm == algorithm and name.endswith("tight") and c.epsilon in (None, 10.0)
        )
        spent = [0.0]

        def timed(X, spent=spent):
            t0 = time.perf_counter()
            out = original(X)
            spent[0] += time.perf_counter() - t0
            return out

        phased._DESIGNS.clear()
        phased.g_optimal_design = timed
        try:
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.perf_counter()
                run_cells([cell], [Path(tmp) / "cell.parquet"], calibrated)
                total = time.perf_counter() - t0
        finally:
            phased.g_optimal_design = original
        print(
            f"  G-optimal designs in {cell.series} (20 runs, T = 10^6): {spent[0]:.2f} s of "
            f"{total:.2f} s ({100 * spent[0] / total:.0f} %)"
        )
