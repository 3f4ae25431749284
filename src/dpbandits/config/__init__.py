"""Configuration: load and validate the YAML files, expand experiments into cells and figures.

Used by the Snakefile (to build the DAG) and by the simulation jobs, so both see the same
cells. Nothing here imports Snakemake. One module per concern:

* :mod:`.yamlfile`: the strict YAML loader, its parse cache and ``--config`` values;
* :mod:`.validation`: schema validation, refusals naming the file, key path and line;
* :mod:`.specs`: cells, panels, figures, sweeps, calibrations and the experiment;
* :mod:`.schedules`: batch schedules and sweep grids;
* :mod:`.limits`: what a cell may ask for (memory, instances, seeds);
* :mod:`.figures`, :mod:`.sweeps`, :mod:`.calibrations`: expanding each section of an
  experiment file;
* :mod:`.experiment`: loading one experiment file.
"""

from __future__ import annotations

from .experiment import expand_experiment, load_experiment
from .limits import (
    MAX_GRID_POINTS,
    MAX_JOB_MB,
    MAX_LEGACY_SEED,
    check_cell,
    check_seed_ranges,
    check_shape,
    job_mem_mb,
)
from .schedules import grid_members, grid_series, nearest_divisor, parse_power, resolve_schedule
from .specs import (
    LABEL_FIELDS,
    CalibrationSpec,
    Cell,
    Experiment,
    FigureSpec,
    PanelSpec,
    SweepSpec,
    results_root,
)
from .validation import (
    VALID_CACHE,
    check_config,
    check_schema,
    config_origin,
    config_refusal,
    schema_errors,
    yaml_line,
)
from .yamlfile import (
    CACHE_ENTRIES,
    MAX_EXPANDED_VALUES,
    YAML_CACHE,
    ConfigError,
    exit_if_unreadable,
    load_yaml,
    typed_overrides,
)

__all__ = [
    "MAX_EXPANDED_VALUES",
    "ConfigError",
    "load_yaml",
    "exit_if_unreadable",
    "YAML_CACHE",
    "CACHE_ENTRIES",
    "typed_overrides",
    "schema_errors",
    "yaml_line",
    "check_schema",
    "config_origin",
    "config_refusal",
    "check_config",
    "VALID_CACHE",
    "results_root",
    "Cell",
    "LABEL_FIELDS",
    "PanelSpec",
    "FigureSpec",
    "SweepSpec",
    "CalibrationSpec",
    "Experiment",
    "grid_members",
    "grid_series",
    "parse_power",
    "nearest_divisor",
    "resolve_schedule",
    "MAX_GRID_POINTS",
    "MAX_JOB_MB",
    "job_mem_mb",
    "check_shape",
    "check_cell",
    "MAX_LEGACY_SEED",
    "check_seed_ranges",
    "expand_experiment",
    "load_experiment",
]
