"""Expanding an experiment's calibrations: the cells each calibration searches over."""

from __future__ import annotations

import math

from .limits import MAX_GRID_POINTS
from .specs import CalibrationSpec, Cell
from .yamlfile import ConfigError


def _cells_of(cells: list[Cell], conf: str, panel: str, series: str, where: str) -> list[Cell]:
    """The cells of one (configuration, panel, series); a ConfigError if there are none."""
    out = [c for c in cells if (c.configuration, c.panel, c.series) == (conf, panel, series)]
    if not out:
        raise ConfigError(
            f"{where}: no cell of series {series!r} in panel {panel!r} of configuration {conf!r}"
        )
    return out


def expand_calibration(
    name: str, cid: str, spec: dict, data: dict, cells: list[Cell], config: dict, source: str
) -> CalibrationSpec:
    where = f"{source}: calibrations.{cid}"
    conf = spec.get("configuration", data["primary"])
    base = _cells_of(cells, conf, spec["panel"], spec["series"], where)
    objective = spec.get("objective", "min_regret")
    grid, step, search, reference = (), 1.0, None, None
    if objective == "min_regret":
        g = spec["grid"]
        if g["to"] >= g["from"]:
            raise ConfigError(f"{where}.grid: to = {g['to']} must be below from = {g['from']}")
        decades = math.log10(g["from"]) - math.log10(g["to"])  # finite: both are finite, > 0
        n = round(decades * g["per_decade"])
        if n > MAX_GRID_POINTS:
            raise ConfigError(
                f"{where}.grid: from = {g['from']}, to = {g['to']}, per_decade = "
                f"{g['per_decade']}: {n + 1} grid points, each a simulated cell of the "
                f"calibration job; allowed: at most {MAX_GRID_POINTS + 1}"
            )
        step = 10 ** (-1.0 / g["per_decade"])
        grid = tuple(g["from"] * step**j for j in range(n + 1))
    else:
        lo, hi = spec["search"]["from"], spec["search"]["to"]
        if hi <= lo:
            raise ConfigError(f"{where}.search: to = {hi} must be above from = {lo}")
        search = (lo, hi)
        reference = _cells_of(cells, conf, spec["panel"], spec["reference"], f"{where}.reference")[
            0
        ]
    trials = spec["trials"]
    if config["scale"] != "paper":
        trials = min(trials, config["scales"][config["scale"]]["trials"])
    options = {k: v for k, v in base[0].options.items()}
    options.pop(spec["option"], None)
    cell = type(base[0])(
        **{
            **base[0].as_dict(),
            "kind": "calibration",
            "calibration_id": cid,
            "first_trial": spec["first_trial"],
            "trials": trials,
            "options": options,
        }
    )
    if reference is not None:
        reference = type(reference)(
            **{
                **reference.as_dict(),
                "kind": "calibration",
                "calibration_id": cid,
                "point": "reference",
                "first_trial": spec["first_trial"],
                "trials": trials,
            }
        )
    return CalibrationSpec(
        id=cid,
        experiment=name,
        title=spec["title"],
        series=spec["series"],
        option=spec["option"],
        grid=grid,
        step=step,
        extend=spec.get("extend", 0),
        base=cell,
        objective=objective,
        reference=reference,
        metric=spec.get("metric", "regret_pseudo"),
        search=search,
    )
