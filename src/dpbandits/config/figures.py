"""Expanding an experiment's figures: the series of each configuration, the panels' cells and
the captions.
"""

from __future__ import annotations

import copy

from ..policies import POLICIES
from ..privacy.matching import BASE as MATCHED_BASE
from ..privacy.matching import MATCHED
from .limits import MAX_JOB_MB, calibration_refusal, check_cell, check_shape
from .specs import Cell, FigureSpec, PanelSpec
from .yamlfile import ConfigError


def _merge_series(base: dict, override: dict, where: str) -> dict:
    out = copy.deepcopy(base)
    for label, entry in (override or {}).items():
        if label not in out:
            raise ConfigError(f"{where}.{label}: unknown series; allowed: {', '.join(out)}")
        merged = dict(out[label])
        for key in ("algorithm", "instances"):
            if key in entry:
                merged[key] = entry[key]
        merged["options"] = {**merged.get("options", {}), **entry.get("options", {})}
        out[label] = merged
    return out


def _panel_label(letter: str, settings: dict) -> str:
    """``(a) epsilon = 1, d = 5`` (+ the panel's own T or instance family, if it sets one)."""
    parts = [] if settings["epsilon"] is None else [f"epsilon = {settings['epsilon']:g}"]
    parts.append(f"d = {settings['d']}")
    if "T" in settings:
        parts.append(f"T = {settings['T']:g}")
    if "instances" in settings:
        parts.append(str(settings["instances"]))
    return f"({letter}) " + ", ".join(parts)


def _curves_sentence(fig: dict, n_trials: int) -> str:
    """What the lines and the band of a figure are (its ``plot`` and ``band``)."""
    what = {
        "cumulative": "Curves: mean cumulative regret",
        "per_round": "Curves: mean per-round regret R(t)/t",
        "final_vs_epsilon": "Points: mean final regret R(T), against epsilon,",
        "final_vs_T": "Points: mean final regret R(T), against the horizon T,",
    }[fig.get("plot", "cumulative")]
    if fig.get("band", "se") == "std":
        band = "+/- 1 standard deviation over the runs (ddof = 0)"
    else:
        band = (
            "+/- 1 standard error of the mean (standard deviation over instances with ddof = 0, "
            f"divided by sqrt({n_trials}))"
        )
    return f"{what} over {n_trials} runs; shaded band: {band}."


def _caption(fig: dict, conf_name: str, conf: dict, n_trials: int, scale: str, T: int) -> str:
    parts = [
        f"[Scale {scale}: T = {T} and {n_trials} trials; the settings stated below are the "
        "paper's.]"
        if scale != "paper"
        else "",
        fig["caption"].strip(),
        f"Configuration {conf_name}: {conf['title']} (calibration = {conf['calibration']}, "
        f"fidelity = {conf['fidelity']}, instances = {conf['instances']}).",
        _curves_sentence(fig, n_trials),
    ]
    if conf.get("description"):
        parts.append(conf["description"].strip())
    return " ".join(p for p in parts if p)


def configuration_series(data, conf_name, conf, panels, source) -> dict:
    """The series a configuration shows (the experiment's, merged with its own overrides)."""
    where = f"{source}: configurations.{conf_name}"
    series = _merge_series(data["series"], conf.get("series", {}), f"{where}.series")
    shown = conf.get("show") or [k for k, v in series.items() if not v.get("extra")]
    unknown = [s for s in shown if s not in series]
    if unknown:
        allowed = ", ".join(series)
        raise ConfigError(f"{where}.show: unknown series {unknown}; allowed: {allowed}")
    for pid in conf.get("panels", {}):
        if pid not in panels:
            raise ConfigError(f"{where}.panels.{pid}: unknown panel; allowed: {', '.join(panels)}")
    return {k: series[k] for k in shown}


def expand_figure(data, config, source, conf_name, series, fig_name, drawn_by) -> FigureSpec:
    """One figure under one configuration: its panels' cells and its spec."""
    conf, fig = data["configurations"][conf_name], data["figures"][fig_name]
    # a figure keeps its own name under the primary configuration or when it is the only
    # configuration drawing it
    own = conf_name == data["primary"] or len(drawn_by[fig_name]) == 1
    suffix = "" if own else f"_{conf_name}"
    fig_series = fig.get("series")
    if fig_series is not None:
        unknown = [s for s in fig_series if s not in data["series"]]
        if unknown:
            raise ConfigError(
                f"{source}: figures.{fig_name}.series: unknown {unknown}; "
                f"allowed: {', '.join(data['series'])}"
            )
    drawn = [s for s in (fig_series or series) if s in series]
    if not drawn:
        raise ConfigError(
            f"{source}: figures.{fig_name}: configuration {conf_name} draws none of its series"
        )
    panel_specs = [
        _expand_panel(data, config, source, conf_name, {k: series[k] for k in drawn}, fig_name,
                      letter, settings)
        for letter, settings in fig["panels"].items()
    ]  # fmt: skip
    pcells = panel_specs[-1].cells
    n_trials = panel_specs[0].cells[0].trials
    if all(POLICIES[c.algorithm].phase_level for c in pcells):
        metrics = ("regret_pseudo",)  # phase-level runs have no realized rewards
    elif own:
        metrics = ("regret_realized", "regret_pseudo")
    else:
        metrics = ("regret_realized",)
    return FigureSpec(
        id=f"{fig_name}{suffix}",
        experiment=data["experiment"],
        figure=fig_name,
        configuration=conf_name,
        suffix=suffix,
        title=(
            fig["title"] if len(drawn_by[fig_name]) == 1 else f"{fig['title']} [{conf['title']}]"
        ),
        caption=_caption(
            fig, conf_name, conf, n_trials, config["scale"], panel_specs[0].cells[0].T
        ),
        series=tuple(drawn),
        panels=tuple(panel_specs),
        metrics=metrics,
        plot=fig.get("plot", "cumulative"),
        band=fig.get("band", "se"),
        calibration=conf["calibration"],
    )


def _expand_panel(data, config, source, conf_name, series, fig_name, letter, settings):
    """One panel of a figure under one configuration: a checked cell per series, and the
    panel's spec (its caption notes the series outside their theorem's conditions)."""
    conf = data["configurations"][conf_name]
    where = f"{source}: configurations.{conf_name}"
    pid = f"{fig_name}{letter}"
    scale = config["scale"]
    scale_over = config["scales"].get(scale, {}) if scale != "paper" else {}
    conf_over = {k: conf[k] for k in ("T",) if k in conf}
    panel_over = conf.get("panels", {}).get(pid, {})
    panel_series = _merge_series(series, panel_over, f"{where}.panels.{pid}")
    merged = {**data["defaults"], **conf_over, **settings, **scale_over}
    pcells, notes = [], []
    for label, entry in panel_series.items():
        cell = Cell(
            experiment=data["experiment"],
            figure=fig_name,
            panel=pid,
            configuration=conf_name,
            series=label,
            algorithm=entry["algorithm"],
            calibration=_cell_calibration(conf["calibration"], entry["algorithm"]),
            fidelity=conf["fidelity"],
            instances=settings.get("instances", entry.get("instances", conf["instances"])),
            T=merged["T"],
            trials=merged["trials"],
            K=merged["K"],
            d=merged["d"],
            epsilon=None if merged["epsilon"] is None else float(merged["epsilon"]),
            delta=float(merged["delta"]),
            B=merged["B"],
            instance_seed=merged["instance_seed"],
            reward_seed_offset=merged["reward_seed_offset"],
            checkpoints=merged.get("checkpoints", config["checkpoints"]),
            root_seed=config["root_seed"],
            scale=scale,
            quirks=dict(conf.get("quirks", {})),
            options=dict(entry.get("options", {})),
            instance_options=dict(merged.get("instance_options", {})),
            noise_key=merged.get("noise_key", "panel"),
        )
        notes += check_figure_cell(cell, data, config, where, pid)
        overrides = panel_over.get(label, {}).get("options")
        if overrides:
            notes.append(f"{label}: options {overrides} in this panel.")
        pcells.append(cell)
    label = _panel_label(letter, settings)
    return PanelSpec(
        id=pid,
        letter=letter,
        epsilon=None if settings["epsilon"] is None else float(settings["epsilon"]),
        d=int(settings["d"]),
        caption=" ".join([label + "."] + notes),
        cells=tuple(pcells),
        title=label,
        T=int(pcells[0].T),
    )


def _cell_calibration(calibration: str, algorithm: str) -> str:
    """A configuration's calibration for one series: a non-private series of a matched
    configuration has no noise to match and runs under the calibration the matched one evaluates
    (its cell is then the same simulation as in the published configuration)."""
    cls = POLICIES.get(algorithm)
    if calibration == MATCHED and cls is not None and not cls.private:
        return MATCHED_BASE
    return calibration


def check_figure_cell(cell, data, config, where: str, pid: str) -> list[str]:
    """Refuse a cell whose calibration is undeclared, whose policy cannot be built or whose job
    is too large (``where``: the configuration, for messages); return the caption note when the
    cell is outside its theorem's conditions."""
    missing = set(cell.calibration_ids) - set(data.get("calibrations", {}))
    if missing:
        declared = ", ".join(data.get("calibrations", {}))
        raise ConfigError(
            f"{where}, series {cell.series}: calibration {sorted(missing)} is not declared "
            f"under calibrations; declared: {declared}"
        )
    where = f"{where} (panel {pid}), series {cell.series}"
    check_shape(cell, config.get("max_job_mb", MAX_JOB_MB), where)
    try:
        policy = cell.policy(search=False)
    except (ValueError, ArithmeticError) as exc:  # ArithmeticError: extreme epsilon or delta
        raise ConfigError(
            f"{where} (algorithm {cell.algorithm!r}, epsilon {cell.epsilon}, delta {cell.delta}): "
            + calibration_refusal(exc)
        ) from None
    check_cell(cell, policy, config.get("max_job_mb", MAX_JOB_MB), where)
    failed = [txt for txt, ok in policy.conditions() if not ok]
    if failed:
        return [f"{cell.series} is outside its theorem's conditions ({'; '.join(failed)})."]
    return []
