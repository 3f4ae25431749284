"""Execute one run of the open-problem audit plan (:mod:`dpbandits.papers.op24.plan`) and write its
parquet file: one row per (privacy value, horizon, checkpoint, trial) (docs/papers/op24.md).

Columns: ``experiment, instance, algorithm, K, d, privacy_kind, privacy, privacy_index, T, t,
trial, regret, regret_unif, n_episodes, floor_events``. ``T`` is the run's horizon (``T_max`` in
OP-E3), ``t`` the round of the record (``t = T`` in OP-E1/E2, every checkpoint in OP-E3). Wall
times go to a separate timing table (the parquet bytes must not depend on the machine).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from dpbandits.io import write_csv_table, write_result
from dpbandits.papers.op24.cells import op_e1_cell, op_e2_cell, op_e3_cell
from dpbandits.papers.op24.plan import Run
from dpbandits.runtime.joblog import progress

log = logging.getLogger("dpbandits")

PRIVACY_KIND = {"adac_ucb": "rho", "adac_gope": "rho", "adac_oful": "rho", "jdp_linucb": "eps"}
COLUMNS = (
    "experiment", "instance", "algorithm", "K", "d", "privacy_kind", "privacy", "privacy_index",
    "T", "t", "trial", "regret", "regret_unif", "n_episodes", "floor_events",
)  # fmt: skip
SEEDS = (
    "instance SeedSequence([2002, exp, inst, K, d, T, trial]); "
    "rewards [..., alg, privacy_index, 1]; privacy noise [..., alg, privacy_index, 2]; OP-E3 "
    "contexts [2002, 3, ctx, K, d, T_max, trial, 3] and reward uniforms [..., 4] "
    "(dpbandits.papers.op24.streams)"
)


def simulate_run(run: Run) -> tuple[pa.Table, list[dict]]:
    """All cells of ``run``.

    Returns
    -------
    (pyarrow.Table, list of dict)
        The rows, and the wall seconds of each (privacy value, horizon) cell.
    """
    cols: dict[str, list] = {c: [] for c in COLUMNS}
    timings = []
    n = run.trials
    kind = PRIVACY_KIND.get(run.algorithm, "none")
    bar = progress(desc=run.id, total=len(run.privacy) * len(run.horizons))
    for p, p_idx in zip(run.privacy, run.privacy_index, strict=True):
        for T in run.horizons:
            start = time.perf_counter()
            if run.experiment == "OP-E1":
                regret, unif = op_e1_cell(run.instance, run.K, T, p, p_idx, n, **run.options)
                res = {"regret": regret[:, None], "regret_unif": unif[:, None]}
                cps = np.array([T])
            elif run.experiment == "OP-E2":
                regret, unif = op_e2_cell(run.instance, run.d, T, p, p_idx, n)
                res = {"regret": regret[:, None], "regret_unif": unif[:, None]}
                cps = np.array([T])
            else:
                cps = np.array(run.checkpoints)
                res = op_e3_cell(run.instance, run.K, run.d, T, run.algorithm, p, p_idx, n, cps)
            seconds = time.perf_counter() - start
            bar.update()
            timings.append({"run": run.id, "privacy": p, "T": T, "trials": n, "seconds": seconds})
            log.info("%s %s=%g T=%d: %.2f s", run.id, kind, p, T, seconds)
            C = cps.size
            rows = n * C
            for key, value in (
                ("experiment", run.experiment),
                ("instance", run.instance),
                ("algorithm", run.algorithm),
                ("K", run.K),
                ("d", run.d),
                ("privacy_kind", kind),
                ("privacy", p),
                ("privacy_index", p_idx),
                ("T", T),
            ):
                cols[key].extend([value] * rows)
            cols["t"].extend(np.tile(cps, n).tolist())
            cols["trial"].extend(np.repeat(np.arange(n), C).tolist())
            for key in ("regret", "regret_unif", "n_episodes", "floor_events"):
                values = res.get(key, np.zeros((n, C)))
                cols[key].extend(np.asarray(values, dtype=float).reshape(-1).tolist())
    types = {
        "K": pa.int64(), "d": pa.int64(), "privacy_index": pa.int64(), "T": pa.int64(),
        "t": pa.int64(), "trial": pa.int64(), "privacy": pa.float64(), "regret": pa.float64(),
        "regret_unif": pa.float64(), "n_episodes": pa.float64(), "floor_events": pa.float64(),
    }  # fmt: skip
    table = pa.table({c: pa.array(cols[c], type=types.get(c, pa.string())) for c in COLUMNS})
    bar.close()
    return table, timings


def write_run(run: Run, out: str | Path, timing_out: str | Path, tier: str, scale: str) -> None:
    """Simulate ``run``, write its parquet file (atomically) and its timing table."""
    table, timings = simulate_run(run)
    metadata = {"run": run.as_dict(), "tier": tier, "scale": scale, "seeds": SEEDS}
    write_result(out, table, metadata)
    write_csv_table(timings, timing_out)


__all__ = ["COLUMNS", "simulate_run", "write_run"]
