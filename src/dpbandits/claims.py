"""The claims registry: one YAML file per paper (``config/claims/<prefix>.yaml``)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from .config import ConfigError, check_schema, load_yaml

#: Regret metrics an ordering verdict of the overview can rest on (registry key
#: ``verdict_metric``): ``combined`` is the common verdict of realized and pseudo-regret, and
#: INCONCLUSIVE where they differ.
VERDICT_METRICS = ("realized", "pseudo", "combined")


def load_claims(path: str | Path, schema: str | Path) -> list[dict]:
    """Load and validate one paper's claims (the entries of :func:`load_registry`, file order)."""
    return load_registry(path, schema)["claims"]


def _is_fraction(text: str) -> bool:
    """Whether ``text`` reads as a fraction (``"3/5"``), not a claim id."""
    try:
        Fraction(text)
    except ValueError:
        return False
    return True


def load_registry(path: str | Path, schema: str | Path) -> dict:
    """Load and validate one paper's registry file.

    Checks the schema, then that ids are unique and start with the file's prefix (the paper's
    one id, :mod:`dpbandits.papers`).

    Returns
    -------
    dict
        The file, with ``verdict_metric`` filled in (default ``realized``).
    """
    data = load_yaml(path)
    check_schema(data, schema, str(path))
    prefix = data["prefix"]
    seen = set()
    problems = []
    for i, claim in enumerate(data["claims"]):
        cid = claim["id"]
        if cid in seen:
            problems.append(f"claims.{i}.id = {cid!r}: duplicate id")
        seen.add(cid)
        if not cid.startswith(prefix + "."):
            problems.append(f"claims.{i}.id = {cid!r}: must start with the prefix {prefix!r}.")
        audit = claim["audit"]
        if audit.get("check") == "summary":
            for ref in audit["of"]:
                if ref not in {c["id"] for c in data["claims"]}:
                    problems.append(f"claims.{i}.audit.of: {ref!r} is not a claim id of this file")
        used = _check_series(audit)
        for j, name in enumerate(audit.get("diagnostic", [])):
            if name not in used:
                problems.append(
                    f"claims.{i}.audit.diagnostic.{j} = {name!r}: not a series of the check; "
                    f"allowed: {', '.join(sorted(used)) or 'none'}"
                )
    ids = {c["id"] for c in data["claims"]}
    for i, claim in enumerate(data["claims"]):  # references of the rate verdicts' principle
        audit = claim["audit"]
        refs = ([audit["term_of"]] if "term_of" in audit else []) + [
            c for c in audit.get("contrasts", []) if not _is_fraction(c)
        ]
        for ref in refs:
            if ref not in ids:
                problems.append(f"claims.{i}.audit: {ref!r} is not a claim id of this file")
    for name, table in data.get("tables", {}).items():
        width = len(table["columns"])
        for j, row in enumerate(table["rows"]):
            where = f"tables.{name}.rows.{j}"
            if len(row["cells"]) != width:
                problems.append(f"{where}.cells: {len(row['cells'])} cells for {width} columns")
            refs = row.get("claims", {})
            for ref in [
                *refs.get("regret", []),
                *([refs["communication"]] if "communication" in refs else []),
            ]:
                if ref not in ids:
                    problems.append(f"{where}.claims: {ref!r} is not a claim id of this file")
            if "measured" in row and "measured" not in table:
                problems.append(
                    f"{where}.measured: the table needs a measured section (at_T, note)"
                )
            if "evaluate" in row and "evaluate_at" not in table:
                problems.append(f"{where}.evaluate: the table needs an evaluate_at section")
    if problems:
        raise ConfigError(f"{path}: invalid claims\n  " + "\n  ".join(problems))
    data.setdefault("verdict_metric", "realized")
    return data


def _check_series(audit: dict) -> set[str]:
    """The series a figure check compares (``a``, ``b``, ``pairs``, ``series``, ``baseline``)."""
    names = {audit["a"]} if "a" in audit else set()
    names |= set(audit.get("b", [])) | set(audit.get("series", []))
    names |= {s for pair in audit.get("pairs", []) for s in pair}
    if isinstance(audit.get("baseline"), str):
        names.add(audit["baseline"])
    return names


def recorded_metrics() -> list[str]:
    """Every per-trial column some engine records (a check's ``metric`` must be one of them)."""
    from .engine.contextual import CONTEXTUAL_METRICS
    from .engine.op24_cells import OP24_METRICS
    from .engine.phased import PHASED_METRICS
    from .engine.plasso_cells import PLASSO_METRICS
    from .engine.run import EXTRA_METRICS
    from .result_columns import METRICS

    names = {*METRICS, *CONTEXTUAL_METRICS, *PHASED_METRICS, *OP24_METRICS, *PLASSO_METRICS}
    for extra in EXTRA_METRICS.values():
        names.update(extra)
    return sorted(names)


def _series_refs(audit: dict) -> list[tuple[str, str]]:
    """Every series a figure check names, with its key path below ``audit`` (``a``, ``b.1``,
    ``pairs.0.1``, ``series``, ``baseline``): the names :func:`_check_series` collects."""
    out = []
    for key in ("a", "b", "series", "baseline"):
        value = audit.get(key)
        if isinstance(value, str):
            out.append((key, value))
        elif isinstance(value, list):
            out += [(f"{key}.{j}", v) for j, v in enumerate(value) if isinstance(v, str)]
    for j, pair in enumerate(audit.get("pairs", [])):
        out += [(f"pairs.{j}.{k}", v) for k, v in enumerate(pair)]
    return out


def check_claim_targets(claims: list[dict], experiment, path: str | Path) -> None:
    """Every claim's audit must point at things the experiment file defines: its experiment, the
    sweep and schedules of a fit, the panels, configurations and series of a figure check.

    Raises
    ------
    ConfigError
        Listing every dangling reference with its key, value and what is allowed.
    """
    panels = sorted({c.panel for c in experiment.cells})
    series = sorted({c.series for c in experiment.cells})
    confs = sorted({c.configuration for c in experiment.cells})
    sweeps = {s.id: list(s.schedules) for s in experiment.sweeps}
    every_schedule = sorted({s for v in sweeps.values() for s in v})
    grids = {
        s.id: {g: m for g, m in s.grids.items() if len(m) > 1 or m[0] != g}
        for s in experiment.sweeps
    }
    problems = []

    def need(where: str, value, allowed) -> None:
        if value not in allowed:
            problems.append(f"{where} = {value!r}: allowed: {', '.join(map(str, allowed))}")

    for i, claim in enumerate(claims):
        audit = claim["audit"]
        where = f"claims.{i}.audit"
        if "experiment" in audit:
            need(f"{where}.experiment", audit["experiment"], [experiment.name])
        if "sweep" in audit:
            need(f"{where}.sweep", audit["sweep"], sorted(sweeps))
            grid_names = sorted(grids.get(audit["sweep"], {}))
            for j, s in enumerate(audit.get("schedules", [])):
                if audit.get("worst_case"):  # names gap grids: the worst case over each
                    need(f"{where}.schedules.{j}", s, grid_names)
                else:
                    need(f"{where}.schedules.{j}", s, sweeps.get(audit["sweep"], []))
            if isinstance(audit.get("baseline"), str):
                need(
                    f"{where}.baseline",
                    audit["baseline"],
                    grid_names if audit.get("worst_case") else every_schedule,
                )
        for j, p in enumerate(audit.get("panels", [])):
            need(f"{where}.panels.{j}", p, panels)
        for j, c in enumerate(audit.get("configurations", [])):
            need(f"{where}.configurations.{j}", c, confs)
        if "panels" in audit:
            for key, name in _series_refs(audit):
                need(f"{where}.{key}", name, series)
        if "metric" in audit:
            need(f"{where}.metric", audit["metric"], recorded_metrics())
    if problems:
        raise ConfigError(
            f"{path}: claims refer to what the experiment does not define\n  "
            + "\n  ".join(problems)
        )
