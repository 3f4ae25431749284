"""One simulation job: a cell in, a parquet file out (called by the Snakemake rule)."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from .config import Cell
from .engine import checkpoint_rounds, simulate
from .envs import make_instances, reward_tables
from .io import result_table, write_result
from .seeds import noise_generator, noise_spawn_key

log = logging.getLogger("dpbandits")


def _instances(cell: Cell):
    return make_instances(cell.instances, cell.trials, cell.K, cell.d, cell.instance_seed)


def _reward_seeds(cell: Cell) -> list[int]:
    return [cell.reward_seed_offset + i for i in range(cell.trials)]


def run_cells(cells: list[Cell], outs: list[str | Path]) -> None:
    """Simulate several cells (one job), drawing shared inputs once.

    Cells with the same instances and reward streams share one set of reward tables, drawn at
    their longest horizon (a shorter horizon's table is its prefix, :func:`reward_tables`);
    the numbers are the same as cell by cell.
    """
    groups: dict[tuple, list[tuple[Cell, str | Path]]] = {}
    for cell, out in zip(cells, outs, strict=True):
        key = (
            cell.instances,
            cell.trials,
            cell.K,
            cell.d,
            cell.instance_seed,
            cell.reward_seed_offset,
        )
        groups.setdefault(key, []).append((cell, out))
    for members in groups.values():
        first = members[0][0]
        instances = _instances(first)
        start = time.perf_counter()
        rewards = reward_tables(instances.mu, max(c.T for c, _ in members), _reward_seeds(first))
        log.info(
            "reward tables %s drawn once for %d cells (%.1f s)",
            rewards.shape,
            len(members),
            time.perf_counter() - start,
        )
        for cell, out in members:
            run_cell(cell, out, instances=instances, rewards=rewards)


def run_cell(cell: Cell, out: str | Path, instances=None, rewards=None) -> dict:
    """Simulate all trials of ``cell`` and write ``out``.

    Parameters
    ----------
    cell : Cell
    out : path
        Parquet file to write (atomically).
    instances : FixedArmInstances, optional
        The cell's instances, if already generated.
    rewards : ndarray, optional
        The cell's reward tables (at least ``cell.T`` rounds), if already drawn.

    Returns
    -------
    dict
        The metadata written to the file.
    """
    start = time.perf_counter()
    policy = cell.policy()
    log.info("cell %s: %s", cell.stem, policy.describe())
    if instances is None:
        instances = _instances(cell)
    reward_seeds = _reward_seeds(cell)
    rngs = [
        noise_generator(cell.root_seed, cell.experiment, cell.panel, cell.algorithm, i)
        for i in range(cell.trials)
    ]
    cps = checkpoint_rounds(cell.T, cell.checkpoints)

    def progress(done: int, total: int, seconds: float) -> None:
        log.info("  trials %d/%d done (%.1f s)", done, total, seconds)

    result = simulate(
        policy, instances, reward_seeds, rngs, cps, progress=progress, rewards=rewards
    )
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
