"""Loading an experiment file: validated against its schema, its references checked, expanded
into cells, figures, sweeps and calibrations.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from ..policies import POLICIES
from .calibrations import expand_calibration
from .figures import configuration_series, expand_figure
from .limits import check_seed_ranges
from .specs import Experiment
from .sweeps import expand_sweep
from .validation import check_schema
from .yamlfile import ConfigError, load_yaml


def _check_communication(comm: dict, source: str) -> None:
    """What the schema cannot say about the analytic communication audit (dpdpe, Theorems 5.1
    and 5.5; docs/papers/dpdpe.md)."""
    where = f"{source}: communication"
    if "alphas" not in comm:  # counts per user (cz22): the schema says all there is
        return
    for text in comm["alphas"]:
        if not 0 < Fraction(text) < 1:
            raise ConfigError(f"{where}.alphas: {text!r} is not in (0, 1)")
    lo, hi = comm["log2_T"]
    if hi - lo < 4:  # the exponent is fitted over T_max/10 ... T_max: 2^(hi-3) ... 2^hi
        raise ConfigError(
            f"{where}.log2_T = {[lo, hi]}: the last m must exceed the first by at least 4 "
            "(a decade of horizons)"
        )


def expand_experiment(data: dict, config: dict, source: str = "experiment") -> Experiment:
    """Expand one validated experiment file into cells and figures.

    Parameters
    ----------
    data : dict
        The experiment file (already schema-valid).
    config : dict
        The global configuration (already schema-valid).
    source : str
        File name used in error messages.

    Raises
    ------
    ConfigError
        When a reference does not resolve or a cell's policy cannot be calibrated.
    """
    name = data["experiment"]
    panels, drawn_by = _check_references(data, source)
    cells, figures = [], []
    for conf_name, conf in data["configurations"].items():
        series = configuration_series(data, conf_name, conf, panels, source)
        for fig_name in data["figures"]:
            if conf_name in drawn_by[fig_name]:
                spec = expand_figure(data, config, source, conf_name, series, fig_name, drawn_by)
                figures.append(spec)
                cells.extend(c for panel in spec.panels for c in panel.cells)
    calibrations = [
        expand_calibration(name, cid, spec, data, cells, config, source)
        for cid, spec in data.get("calibrations", {}).items()
    ]
    declared = tuple(data.get("calibrations", {}))
    for sid, sw in data.get("sweeps", {}).items():
        if "view" in sw:
            raise ConfigError(
                f"{source}: sweeps.{sid}.view: {sw['view']!r}: a view is a privacy check's "
                "(privacy_checks.<id>.view); a sweep is simulated"
            )
    for sid, sw in data.get("privacy_checks", {}).items():
        for sched, entry in sw["schedules"].items() if sw.get("view") == "local" else ():
            if getattr(POLICIES[entry["algorithm"]], "stated_local_level", None) is None:
                allowed = sorted(
                    a for a, c in POLICIES.items() if getattr(c, "stated_local_level", None)
                )
                raise ConfigError(
                    f"{source}: privacy_checks.{sid}.schedules.{sched}.algorithm: "
                    f"{entry['algorithm']!r} has no stated local level; allowed with view "
                    f"local: {', '.join(allowed)}"
                )
    sweeps = [
        expand_sweep(name, sid, sw, config, source, declared)
        for sid, sw in data.get("sweeps", {}).items()
    ]
    # settings the privacy accountant audits without simulation: expanded as sweeps, never run
    checks = [
        expand_sweep(name, sid, sw, config, source, declared)
        for sid, sw in data.get("privacy_checks", {}).items()
    ]
    privacy_cells = tuple(c for sw in checks for c in sw.cells)
    return Experiment(name, data, cells, figures, sweeps, calibrations, privacy_cells)


def _check_references(data: dict, source: str) -> tuple[dict, dict]:
    """Check the experiment's cross-references (primary, figures' configurations, every
    configuration drawn) and return its panels (id -> (figure, letter, figure dict, settings))
    and, per figure, the configurations that draw it."""
    confs = data["configurations"]
    if data["primary"] not in confs:
        raise ConfigError(
            f"{source}: primary = {data['primary']!r}: not a configuration; "
            f"allowed: {', '.join(confs)}"
        )
    if "communication" in data:
        _check_communication(data["communication"], source)
    panels = {}
    for fig_name, fig in data["figures"].items():
        for letter, settings in fig["panels"].items():
            panels[f"{fig_name}{letter}"] = (fig_name, letter, fig, settings)
    drawn_by = {}
    for fig_name, fig in data["figures"].items():
        listed = fig.get("configurations", list(confs))
        unknown = [c for c in listed if c not in confs]
        if unknown:
            raise ConfigError(
                f"{source}: figures.{fig_name}.configurations: unknown {unknown}; "
                f"allowed: {', '.join(confs)}"
            )
        drawn_by[fig_name] = listed
    for conf_name in confs:
        if not any(conf_name in listed for listed in drawn_by.values()):
            raise ConfigError(
                f"{source}: configurations.{conf_name}: no figure draws it "
                "(see figures.*.configurations)"
            )
    return panels, drawn_by


def load_experiment(path: str | Path, config: dict, schema: str | Path) -> Experiment:
    """Load, validate and expand one experiment file (see :func:`expand_experiment`)."""
    data = load_yaml(path)
    check_schema(data, schema, str(path))
    if data["experiment"] != Path(path).stem:
        raise ConfigError(
            f"{path}: experiment = {data['experiment']!r}: must equal the file name "
            f"({Path(path).stem!r})"
        )
    experiment = expand_experiment(data, config, str(path))
    check_seed_ranges(experiment, str(path))
    return experiment
