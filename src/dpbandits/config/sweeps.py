"""Expanding an experiment's rate sweeps: the runs of each schedule at each horizon, as cells."""

from __future__ import annotations

import itertools
import math

from ..policies import POLICIES
from .limits import MAX_JOB_MB, calibration_refusal, check_cell, check_shape
from .schedules import grid_series, resolve_schedule
from .specs import Cell, SweepSpec
from .yamlfile import ConfigError


def _sweep_runs(sid: str, sw: dict, horizons, scale: str, source: str) -> tuple[dict, list]:
    """A sweep's schedules as runs: per schedule its series (one per gap of a ``gap_grid``: the
    worst case over instances, the grid shrunk at a short scale so its widest gap is at most 1),
    and the list of (series, schedule entry) to simulate."""
    grids, runs = {}, []
    for sched, entry in sw["schedules"].items():
        if "gap_grid" in entry:  # one series per gap scale (worst case over instances)
            if sw["instances"] != "two_action":
                raise ConfigError(
                    f"{source}: sweeps.{sid}.schedules.{sched}.gap_grid: needs instances "
                    f"two_action (gap_scale is its option), got {sw['instances']!r}"
                )
            power = float(
                {**sw.get("instance_options", {}), **entry.get("instance_options", {})}.get(
                    "gap_power", 0.0
                )
            )
            members = grid_series(sched, entry["gap_grid"])
            # gap_scale * T^-power <= 1 at the shortest horizon (a limit beyond any float: none)
            decades = power * math.log10(min(horizons))
            limit = min(horizons) ** power if decades < 300 else math.inf
            if members[0][1] > limit:
                if scale == "paper":
                    raise ConfigError(
                        f"{source}: sweeps.{sid}.schedules.{sched}.gap_grid: gap scale "
                        f"{members[0][1]:g} gives a gap above 1 at T = {min(horizons)} "
                        f"(gap_scale * T^-{power:g}); allowed: at most {limit:.4g}"
                    )
                # other scales (short horizons): the grid shrunk so its widest gap is 1
                shrink = limit / members[0][1]
                members = [(series, gap * shrink) for series, gap in members]
            grids[sched] = tuple(series for series, _ in members)
            for series, gap in members:
                inst = {**entry.get("instance_options", {}), "gap_scale": gap}
                runs.append((series, {**entry, "instance_options": inst}))
        else:
            grids[sched] = (sched,)
            runs.append((sched, entry))
    return grids, runs


def check_sweep_cell(cell, declared, config: dict, where: str) -> None:
    """Refuse a sweep cell whose calibration is undeclared, whose policy cannot be built or whose
    job is too large."""
    missing = set(cell.calibration_ids) - set(declared)
    if missing:
        raise ConfigError(
            f"{where}: calibration {sorted(missing)} is not declared under calibrations; "
            f"declared: {', '.join(declared)}"
        )
    at = f"{where} (epsilon {cell.epsilon}, T {cell.T})"
    check_shape(cell, config.get("max_job_mb", MAX_JOB_MB), at)
    try:
        policy = cell.policy(search=False)
    except (ValueError, ArithmeticError) as exc:  # ArithmeticError: extreme epsilon or delta
        raise ConfigError(f"{at} (delta {cell.delta}): " + calibration_refusal(exc)) from None
    check_cell(cell, policy, config.get("max_job_mb", MAX_JOB_MB), at)


def expand_sweep(
    name: str, sid: str, sw: dict, config: dict, source: str, declared=()
) -> SweepSpec:
    """One sweep of an experiment: a checked cell per (series, epsilon, d, T) of its schedules at
    the configured scale (``declared``: the experiment's calibration ids)."""
    scale = config["scale"]
    horizons, trials = sw["T"], sw["trials"]
    if scale != "paper":
        over = config["scales"][scale]
        horizons, trials = over["sweep_T"], over["sweep_trials"]
        if len(sw["T"]) == 1:
            horizons = [max(horizons)]
    dims = sw["d"] if isinstance(sw["d"], list) else [sw["d"]]
    grids, runs = _sweep_runs(sid, sw, horizons, scale, source)
    cells = []
    for sched, entry in runs:
        private = POLICIES[entry["algorithm"]].private
        for eps, d, T in itertools.product(sw["epsilon"] if private else [None], dims, horizons):
            try:
                B, options = resolve_schedule(entry, T)
            except ValueError as exc:
                raise ConfigError(f"{source}: sweeps.{sid}.schedules.{sched}: {exc}") from None
            point = "" if eps is None else f"eps{eps:g}_"
            point += f"d{d}_T{T}" if isinstance(sw["d"], list) else f"T{T}"
            cell = Cell(
                experiment=name,
                figure="",
                panel="",
                configuration="",
                series="",
                algorithm=entry["algorithm"],
                calibration=sw["calibration"],
                fidelity=sw["fidelity"],
                instances=sw["instances"],
                T=T,
                trials=trials,
                K=sw["K"],
                d=d,
                epsilon=None if eps is None else float(eps),
                delta=float(sw["delta"]),
                B=B,
                instance_seed=sw["instance_seed"],
                reward_seed_offset=sw["reward_seed_offset"],
                checkpoints=config["checkpoints"],
                root_seed=config["root_seed"],
                scale=scale,
                quirks=dict(sw.get("quirks", {})),
                options=options,
                kind="sweep",
                sweep=sid,
                schedule=sched,
                point=point,
                first_trial=sw.get("first_trial", 0),
                instance_options={
                    **sw.get("instance_options", {}),
                    **entry.get("instance_options", {}),
                },
            )
            check_sweep_cell(cell, declared, config, f"{source}: sweeps.{sid}.schedules.{sched}")
            cells.append(cell)
    return SweepSpec(
        id=sid,
        experiment=name,
        title=sw["title"],
        description=sw.get("description", "").strip(),
        T=tuple(horizons),
        epsilon=tuple(float(e) for e in sw["epsilon"]),
        trials=trials,
        schedules=tuple(series for series, _ in runs),
        cells=tuple(cells),
        grids=grids,
    )
