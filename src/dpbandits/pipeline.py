"""One simulation job: a cell in, a parquet file out (called by the Snakemake rule)."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from .config import Cell
from .engine import checkpoint_rounds, simulate
from .envs import make_instances
from .io import result_table, write_result
from .seeds import noise_generator, noise_spawn_key

log = logging.getLogger("dpbandits")


def run_cell(cell: Cell, out: str | Path) -> dict:
    """Simulate all trials of ``cell`` and write ``out``.

    Parameters
    ----------
    cell : Cell
    out : path
        Parquet file to write (atomically).

    Returns
    -------
    dict
        The metadata written to the file.
    """
    start = time.perf_counter()
    policy = cell.policy()
    log.info("cell %s: %s", cell.stem, policy.describe())
    instances = make_instances(cell.instances, cell.trials, cell.K, cell.d, cell.instance_seed)
    reward_seeds = [cell.reward_seed_offset + i for i in range(cell.trials)]
    rngs = [
        noise_generator(cell.root_seed, cell.experiment, cell.panel, cell.algorithm, i)
        for i in range(cell.trials)
    ]
    cps = checkpoint_rounds(cell.T, cell.checkpoints)

    def progress(done: int, total: int, seconds: float) -> None:
        log.info("  trials %d/%d done (%.1f s)", done, total, seconds)

    result = simulate(policy, instances, reward_seeds, rngs, cps, progress=progress)
    L = float(np.max(instances.L))
    settings = {**cell.as_dict(), "n_trials": cell.trials, "private": policy.private}
    metadata = {
        "cell": cell.as_dict(),
        "config_hash": cell.config_hash(),
        "seeds": {
            "root_seed": cell.root_seed,
            "noise_stream": "SeedSequence(root_seed, spawn_key=(h(experiment), h(panel), "
            "h(algorithm), trial)), h = first 4 bytes of SHA-256",
            "noise_spawn_key_trial0": list(
                noise_spawn_key(cell.experiment, cell.panel, cell.algorithm, 0)
            ),
            "instance_seed": cell.instance_seed,
            "reward_seeds": reward_seeds,
        },
        "constants": policy.constants(L),
        "quirks": policy.quirks.as_dict(),
        "conditions": [{"condition": c, "holds": bool(ok)} for c, ok in policy.conditions()],
        "checkpoints": [int(c) for c in cps],
    }
    write_result(out, result_table(settings, result), metadata)
    log.info("wrote %s (%.1f s)", out, time.perf_counter() - start)
    return metadata
