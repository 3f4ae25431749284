"""One simulation job: a cell in, a parquet file out (called by the Snakemake rule)."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import numpy as np

from dpbandits.runtime.joblog import progress

from .config import Cell
from .engine import checkpoint_rounds, simulate
from .envs import HORIZON_DEPENDENT, make_instances, reward_tables
from .io import read_csv_rows, result_table, write_csv_table, write_result
from .policies import POLICIES
from .seeds import noise_generator, noise_spawn_key

log = logging.getLogger("dpbandits")


def cell_instances(cell: Cell):
    """Instances ``first_trial .. first_trial + trials - 1`` of the cell's family."""
    hi = cell.first_trial + cell.trials
    inst = make_instances(
        cell.instances, hi, cell.K, cell.d, cell.instance_seed, T=cell.T, **cell.instance_options
    )
    return inst.take(cell.first_trial, hi)


def _reward_seeds(cell: Cell) -> list[int]:
    return [cell.reward_seed_offset + cell.first_trial + i for i in range(cell.trials)]


def read_calibrations(paths) -> dict[str, float]:
    """Chosen value of every calibration table in ``paths``, by calibration id (file stem)."""
    out = {}
    for path in paths:  # csv, not pandas: a simulation job should not pay for importing it
        chosen = [row for row in read_csv_rows(path) if row["chosen"] == "True"]
        if len(chosen) != 1:
            raise ValueError(f"{path}: {len(chosen)} rows with chosen = True, expected one")
        out[Path(path).stem] = float(chosen[0]["value"])
    return out


def run_calibration(spec, out: str | Path) -> float:
    """Search of one option (:class:`~dpbandits.config.CalibrationSpec`), written to ``out``;
    returns the chosen value.

    ``min_regret`` (docs/papers/olucb.md, "Calibration"): every grid value is run on the
    calibration trials; the smallest mean final pseudo-regret wins (ties: the larger value). At
    an end of the grid, ``spec.extend`` more values beyond it are tried once. ``match``:
    :func:`_match_calibration`.
    """
    import pandas as pd

    if spec.objective == "match":
        return _match_calibration(spec, out)
    base = spec.base
    instances = cell_instances(base)
    rewards = (
        None if instances.contextual else reward_tables(instances.mu, base.T, _reward_seeds(base))
    )
    rows = {}

    def evaluate(values):
        for v in values:
            cell = spec.cell(v)
            res = _simulate_cell(cell, instances, rewards, {})
            final = res.metrics["regret_pseudo"][:, -1]
            rows[v] = (float(final.mean()), float(final.std(ddof=1) / np.sqrt(len(final))))
            log.info(
                "calibration %s: %s = %.3g -> mean final %.1f", spec.id, spec.option, v, rows[v][0]
            )

    def choose():
        values = sorted(rows, reverse=True)  # larger first: ties go to the larger value
        return min(values, key=lambda v: rows[v][0])

    evaluate(spec.grid)
    best = choose()
    if spec.extend and best in (spec.grid[0], spec.grid[-1]):
        factor = 1 / spec.step if best == spec.grid[0] else spec.step
        evaluate([best * factor ** (j + 1) for j in range(spec.extend)])
        best = choose()
    table = pd.DataFrame(
        [
            {"value": v, "mean_final": m, "se_final": s, "chosen": v == best}
            for v, (m, s) in sorted(rows.items(), reverse=True)
        ]
    )
    write_csv_table(table, out)
    return best


def _match_calibration(spec, out: str | Path) -> int:
    """The integer option whose mean final ``spec.metric`` is closest to the reference cell's
    (DPE-FixedU's U, dpdpe, Sec. 7; docs/papers/dpdpe.md): bisection on ``spec.search``
    assuming the metric increases with the option, then the neighbours of the bracket; ties go to
    the smaller value. Every evaluated value is a row of the table (``value, mean_final,
    se_final, chosen, target, relative_difference``)."""
    import pandas as pd

    instances = cell_instances(spec.base)

    def mean_final(cell) -> tuple[float, float]:
        x = _simulate_cell(cell, instances, None, {}).metrics[spec.metric][:, -1]
        return float(x.mean()), float(x.std(ddof=1) / np.sqrt(len(x)))

    target, target_se = mean_final(spec.reference)
    rows: dict[int, tuple[float, float]] = {}

    def f(v: int) -> float:
        if v not in rows:
            rows[v] = mean_final(spec.cell(v))
            log.info(
                "calibration %s: %s = %d -> %s %.1f (target %.1f)",
                spec.id,
                spec.option,
                v,
                spec.metric,
                rows[v][0],
                target,
            )
        return rows[v][0]

    lo, hi = spec.search
    if f(lo) >= target:
        hi = lo
    elif f(hi) <= target:
        lo = hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if f(mid) < target:
            lo = mid
        else:
            hi = mid
    for v in {lo - 1, lo, hi, hi + 1}:
        if spec.search[0] <= v <= spec.search[1]:
            f(v)
    best = min(sorted(rows), key=lambda v: abs(rows[v][0] - target))
    table = pd.DataFrame(
        [
            {
                "value": v,
                "mean_final": m,
                "se_final": se,
                "chosen": v == best,
                "target": target,
                "target_se": target_se,
                "relative_difference": (m - target) / target,
            }
            for v, (m, se) in sorted(rows.items())
        ]
    )
    write_csv_table(table, out)
    return best


def run_cells(
    cells: list[Cell],
    outs: list[str | Path],
    calibrated: dict[str, float] | None = None,
    shared: dict[str, tuple[Cell, str | Path, float]] | None = None,
) -> list[float]:
    """Simulate several cells (one job), drawing shared inputs once.

    Cells with the same instances and reward streams share one set of reward tables, drawn at
    their longest horizon (a shorter horizon's table is its prefix, :func:`reward_tables`);
    the numbers are the same as cell by cell.

    Parameters
    ----------
    cells, outs : the job's cells and their output files
    calibrated : chosen values of the calibrations the cells' options refer to
    shared : ``{stem: (source, source_file, source_seconds)}`` for the cells an earlier job
        already simulated (:meth:`dpbandits.config.Experiment.shared_sources`): written by
        :func:`copy_cell` from the source's file, with the source's wall seconds.

    Returns
    -------
    list of float
        Wall seconds of each cell's simulation, in the order of ``cells``.
    """
    seconds = {}
    cells_in = list(cells)
    shared = shared or {}
    for cell, out in zip(cells, outs, strict=True):
        if cell.stem in shared:
            source, source_file, source_seconds = shared[cell.stem]
            copy_cell(cell, out, source, source_file)
            seconds[cell.stem] = source_seconds
    todo = [(c, o) for c, o in zip(cells, outs, strict=True) if c.stem not in shared]
    if not todo:
        return [seconds[c.stem] for c in cells_in]
    cells, outs = [c for c, _ in todo], [o for _, o in todo]
    _warm_up(cells, calibrated)
    groups: dict[tuple, list[tuple[Cell, str | Path]]] = {}
    for cell, out in zip(cells, outs, strict=True):
        key = (
            cell.instances,
            cell.trials,
            cell.first_trial,
            cell.K,
            cell.d,
            cell.instance_seed,
            cell.reward_seed_offset,
            json.dumps(cell.instance_options, sort_keys=True),
            cell.T if cell.instances in HORIZON_DEPENDENT else None,  # instances depend on T
        )
        groups.setdefault(key, []).append((cell, out))
    bar = progress(desc=f"{len(cells)} cells", total=len(cells))
    for members in groups.values():
        first = members[0][0]
        instances = cell_instances(first)
        rewards = None
        # contextual rewards are drawn by the engine per chunk; phased runs draw no reward tables
        phased = all(POLICIES[c.algorithm].phase_level for c, _ in members)
        if not instances.contextual and not phased:
            start = time.perf_counter()
            rewards = reward_tables(
                instances.mu, max(c.T for c, _ in members), _reward_seeds(first)
            )
            log.info(
                "reward tables %s drawn once for %d cells (%.1f s)",
                rewards.shape,
                len(members),
                time.perf_counter() - start,
            )
        for cell, out in members:
            meta = run_cell(cell, out, instances=instances, rewards=rewards, calibrated=calibrated)
            seconds[cell.stem] = meta["seconds"]
            bar.update()
    bar.close()
    return [seconds[c.stem] for c in cells_in]


def copy_cell(cell: Cell, out: str | Path, source: Cell, source_file: str | Path) -> None:
    """Write ``cell``'s results file from ``source_file``, the results of ``source``, a cell
    with the same :meth:`~dpbandits.config.Cell.computation_key` (the same simulation).

    The file is what :func:`run_cell` would write for ``cell``, byte for byte in the same
    environment: the source's table with the label columns (figure, panel, configuration) set
    to ``cell``'s, and its metadata with ``cell`` and ``config_hash`` replaced (every other
    entry, seeds, constants, checkpoints, phase logs, is a function of the computation key).

    Raises
    ------
    ValueError
        If the two cells do not share a computation key, or ``source_file`` was not written
        for ``source`` (a stale or misplaced input).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .config import LABEL_FIELDS
    from .io import META_KEY

    start = time.perf_counter()
    if cell.computation_key() != source.computation_key():
        raise ValueError(f"{cell.stem} is not a repeat of {source.stem}: their settings differ")
    table = pq.read_table(source_file)
    meta = json.loads(table.schema.metadata[META_KEY])
    if meta.get("cell") != source.as_dict():
        raise ValueError(f"{source_file} was not written for {source.stem}; rebuild it")
    for key in ("schema_version", "package_version", "provenance", "content"):  # write_result adds
        meta.pop(key, None)
    meta["cell"] = cell.as_dict()
    meta["config_hash"] = cell.config_hash()
    table = table.replace_schema_metadata(None)
    for name in LABEL_FIELDS:
        i = table.schema.get_field_index(name)
        field = table.schema.field(i)
        table = table.set_column(
            i, field, pa.array([getattr(cell, name)] * table.num_rows, type=field.type)
        )
    write_result(out, table, meta)
    log.info(
        "wrote %s: the results of %s relabelled (the same simulation; %.1f s)",
        out,
        source.stem,
        time.perf_counter() - start,
    )


def read_shared(
    cells: list[Cell], sources: list[dict | None], files, timing_files
) -> dict[str, tuple[Cell, str, float]]:
    """The argument ``shared`` of :func:`run_cells` for a simulation job.

    Parameters
    ----------
    cells : the job's cells
    sources : per cell, the ``as_dict()`` of its source cell, or None (simulated here)
    files : the sources' results files, in the order of the non-None ``sources``
    timing_files : the timing tables of the sources' jobs (any order)

    Returns
    -------
    dict
        ``{stem: (source, source_file, source_seconds)}``; the seconds are those the source's
        job measured for it.
    """
    measured = {}
    for path in timing_files:
        for row in read_csv_rows(path):
            measured[(row["configuration"], row["panel"], row["series"])] = float(row["seconds"])
    pairs = [(c, Cell.from_dict(s)) for c, s in zip(cells, sources, strict=True) if s]
    if len(pairs) != len(files):
        raise ValueError(f"{len(pairs)} shared cells but {len(files)} source files")
    out = {}
    for (cell, source), path in zip(pairs, files, strict=True):
        if Path(path) != Path(source.path):
            raise ValueError(f"source file {path} does not belong to {source.stem}")
        key = (source.configuration, source.panel, source.series)
        if key not in measured:
            raise ValueError(f"no timing row for {source.stem} in {list(timing_files)}")
        out[cell.stem] = (source, str(path), measured[key])
    return out


def _warm_up(cells: list[Cell], calibrated) -> None:
    """Run each distinct kind of cell once on a tiny problem (1 trial, two batches), so that the
    wall time of the real runs excludes loading the compiled kernels."""
    import dataclasses

    seen = set()
    for cell in cells:
        key = (cell.algorithm, cell.instances)
        if key in seen or not POLICIES[cell.algorithm].compiled:
            continue
        seen.add(key)
        tiny = dataclasses.replace(cell, T=2 * cell.B, trials=1, checkpoints=1)
        try:
            _simulate_cell(tiny, cell_instances(tiny), None, calibrated, quiet=True)
        except ValueError as exc:  # a policy that cannot run this small: time it cold
            log.info("no warm-up for %s (%s): its wall time includes loading", cell.stem, exc)


def write_timings(cells: list[Cell], seconds: list[float], out: str | Path) -> None:
    """Wall seconds of each cell's simulation as CSV (the cell's place: configuration, panel,
    series for figure cells, sweep, schedule, point for sweep cells; then algorithm, ...)."""
    rows = [
        {
            **c.place(),
            "algorithm": c.algorithm,
            "T": c.T,
            "trials": c.trials,
            "seconds": s,
        }
        for c, s in zip(cells, seconds, strict=True)
    ]
    write_csv_table(rows, out)


def _simulate_cell(cell: Cell, instances, rewards, calibrated, quiet: bool = False):
    """Simulate all trials of ``cell``; the noise streams are keyed by ``cell.seed_panel``."""
    policy = cell.policy(calibrated)
    if not quiet:
        log.info("cell %s: %s", cell.stem, policy.describe())
    rngs = [
        noise_generator(cell.root_seed, cell.experiment, cell.seed_panel, cell.algorithm, i)
        for i in range(cell.trials)
    ]
    cps = checkpoint_rounds(cell.T, cell.checkpoints)

    def progress(done: int, total: int, seconds: float) -> None:
        log.info("  trials %d/%d done (%.1f s)", done, total, seconds)

    return simulate(
        policy,
        instances,
        _reward_seeds(cell),
        rngs,
        cps,
        progress=None if quiet else progress,
        rewards=rewards,
    )


def run_cell(
    cell: Cell,
    out: str | Path,
    instances=None,
    rewards=None,
    calibrated: dict[str, float] | None = None,
) -> dict:
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
    calibrated : dict, optional
        Chosen values of the calibrations the cell's options refer to.

    Returns
    -------
    dict
        The metadata written to the file.
    """
    start = time.perf_counter()
    if instances is None:
        instances = cell_instances(cell)
    result = _simulate_cell(cell, instances, rewards, calibrated)
    policy = cell.policy(calibrated)
    reward_seeds = _reward_seeds(cell)
    cps = result.checkpoints
    L = float(np.max(instances.L))
    settings = {**cell.as_dict(), "n_trials": cell.trials, "private": policy.private}
    metadata = {
        "cell": cell.as_dict(),
        "config_hash": cell.config_hash(),
        "seeds": {
            "root_seed": cell.root_seed,
            "noise_stream": "SeedSequence(root_seed, spawn_key=(h(experiment), h(panel), "
            "h(algorithm), trial)), h = first 4 bytes of SHA-256",
            "noise_panel": cell.seed_panel,
            "noise_spawn_key_trial0": list(
                noise_spawn_key(cell.experiment, cell.seed_panel, cell.algorithm, 0)
            ),
            "instance_seed": cell.instance_seed,
            "reward_seeds": reward_seeds,
        },
        "calibrated": {cid: float(calibrated[cid]) for cid in cell.calibration_ids},
        "constants": policy.constants(L),
        "quirks": policy.quirks.as_dict(),
        "conditions": [{"condition": c, "holds": bool(ok)} for c, ok in policy.conditions()],
        "checkpoints": [int(c) for c in cps],
    }
    if "phases" in result.extra:  # phased engines: every run's phase log (Algorithm 1 of dpdpe)
        metadata["phases"] = result.extra["phases"]
    write_result(out, result_table(settings, result), metadata)
    log.info("wrote %s (%.1f s)", out, time.perf_counter() - start)
    # not in the file (its bytes must not depend on the machine): returned for the timing table
    return {**metadata, "seconds": result.seconds}
