"""plasso's ``make bench`` workload (:mod:`dpbandits.dev.bench`): the core tier's runs in two
processes."""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from dpbandits.dev.bench import record


def _task(run) -> tuple[str, float, int]:
    """Simulate one run of the PrivateLASSO plan (a worker of :func:`run`)."""
    from dpbandits.papers.plasso.runs import simulate_run

    start = time.perf_counter()
    simulate_run(run)
    rounds = len(run.eps) * sum(run.horizons) * run.trials
    return run.id, time.perf_counter() - start, rounds


def run(root: Path, options=None, workers: int = 2) -> None:
    """Time the core tier of the PrivateLASSO audit (plasso, every PL-E1 run of
    docs/papers/plasso.md) in ``workers`` processes against the budget of 6 minutes on 2 cores."""
    from dpbandits.papers.plasso.plan import load_plan

    plan = load_plan(
        root / "config" / "experiments" / "plasso.yaml",
        root / "workflow" / "schemas" / "plasso.schema.yaml",
    )
    runs = sorted(plan.runs, key=lambda r: -len(r.eps))  # longest first
    print(f"\nPrivateLASSO core tier: {len(runs)} runs, {workers} processes")
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork")) as pool:
        results = list(pool.map(_task, runs))
    wall = time.perf_counter() - start
    for name, sec, rounds in results:
        print(f"  {name}: {sec:5.1f} s ({1e6 * sec / rounds:.0f} µs per round per trial)")
    print(f"  all runs {wall:.1f} s wall (target <= 360 s on 2 cores, simulation only)")
    record("plasso core tier, 2 processes", wall, 360.0)
