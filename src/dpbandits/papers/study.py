"""The protocol of a figure-less study: a paper whose claims are audited by dedicated
experiments (op24, plasso, and any later one), built by one rules file
(``workflow/rules/studies.smk``).

A study's package ``dpbandits.papers.<prefix>`` provides

* ``STUDY``: a :class:`Study`, the declaration the workflow reads while it parses (file kinds
  of a run, the verdict job's tables, the paper's own tables, the figures with their captions,
  resources). It imports nothing heavy.
* ``load_plan(path, schema, tier, scale)``: the validated :class:`StudyPlan` of
  ``config/experiments/<prefix>.yaml`` at a tier and scale; each run has an ``id`` and
  :meth:`RunRecord.as_dict`.
* ``simulate(run, files, timing, tier, scale)``: one run (a plain dict) to its parquet files
  (``files``: kind -> path, the kinds of ``STUDY.run_files``) and its timing table.
* ``write_verdicts(results, claims, parameters, max_detectable, outputs)``: every verdict rule on
  the results (``results``: kind -> list of paths), to ``outputs`` (``<key>_csv``, ``<key>_md``
  for each key of ``STUDY.verdict_files``). ``parameters`` is :meth:`StudyPlan.audit_parameters`.
* ``write_table(name, claims, inputs, outputs, tier, scale)`` when ``STUDY.tables`` is not empty:
  one table of the paper from the verdict tables (``inputs``: key -> path).
* ``privacy_rows(plan, account=True)``: the plan's rows of the delivered-epsilon audit
  (``account=False``: their identities, without accounting).

Targets (uniform): ``<prefix>`` (everything of the paper), ``<prefix>_audit`` (its audit page,
which draws the figures), ``<prefix>_verdicts``, ``<prefix>_<table>`` and ``<prefix>_<figure>``.
The page is the notebook ``notebooks/<prefix>_audit.ipynb`` with the parameters of
:func:`page_parameters`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from dpbandits.config import ConfigError

#: Tiers of a study's plan: ``core`` (the default build) and ``full`` (every experiment).
TIERS = ("core", "full")
#: Target suffixes the workflow itself uses; a table or figure may not take one of them.
RESERVED = ("audit", "verdicts", "sim")


def check_tier(tier: str) -> None:
    """Refuse a tier that is not in :data:`TIERS` (the config key, the value, what is allowed)."""
    if tier not in TIERS:
        raise ConfigError(f"config key tier = {tier!r}: allowed {', '.join(TIERS)}")


class RunRecord:
    """Conversions of a frozen run dataclass to and from the plain dict Snakemake passes as a
    job parameter (and the parquet metadata stores); ``_TUPLES`` lists the tuple fields."""

    _TUPLES: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        """Plain dict (Snakemake params, parquet metadata); ``inf`` stays a float."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict):
        """Inverse of :meth:`as_dict`."""
        data = dict(data)
        for key in cls._TUPLES:
            data[key] = tuple(data[key])
        return cls(**data)


@dataclass(frozen=True)
class StudyPlan:
    """What every study plan holds: the runs of one tier at one scale and the audit's settings.

    Attributes
    ----------
    title : str
    claims : str
        Path of the claims registry (``config/claims/<prefix>.yaml``).
    tier, scale : str
    runs : tuple
        The runs (one simulation job each), with unique ``id``.
    fit_points : int
        Horizons of the log-log fits.
    grids : dict
        Privacy grid of each algorithm (the random streams are keyed by the position in it).
    """

    title: str
    claims: str
    tier: str
    scale: str
    runs: tuple
    fit_points: int
    grids: dict

    def run(self, run_id: str):
        """The run with this id."""
        for r in self.runs:
            if r.id == run_id:
                return r
        raise KeyError(run_id)

    def audit_parameters(self) -> dict:
        """Plain values the verdict job takes from the plan (besides the results)."""
        return {"fit_points": self.fit_points, "grids": self.grids}


@dataclass(frozen=True)
class Study:
    """The declaration of a figure-less study (module docstring).

    Attributes
    ----------
    run_files : dict
        Kind of a run's parquet file -> suffix of its name, ``<root>/sim/<prefix>/<id><suffix>
        .parquet`` (one kind with suffix ``""`` at least).
    verdict_files : dict
        Key -> (path stem below the results root, report caption) of each table the verdict job
        writes (CSV and Markdown; report label ``<prefix>_<key>``). Must contain ``claims``: one
        verdict per claim (its CSV feeds the scoreboard).
    tables : dict
        Name -> (path stem, extensions, report caption) of the paper's own tables, each made by
        a job ``<prefix>_<name>`` from the verdict tables.
    figures : dict
        Name -> report caption of each figure the audit page draws
        (``<root>/figures/<prefix>_<name>.pdf`` and ``.png``).
    page : str
        Report caption of the audit page.
    sim_mem_mb, sim_runtime : int
        Resources of one simulation job (MB, minutes).
    canonical : dict
        Name -> (path below the results root, key columns, value columns) of each table whose
        rows ``make verify`` compares with the canonical run (:mod:`dpbandits.checks.verify`).
    experiments : tuple
        Names of the plan's experiments (e.g. ``OP-E1``), the values a claim's
        ``audit.experiment`` may take besides ``unit-tests`` and ``none``.
    """

    run_files: dict
    verdict_files: dict
    figures: dict
    page: str
    tables: dict = field(default_factory=dict)
    canonical: dict = field(default_factory=dict)
    experiments: tuple = ()
    sim_mem_mb: int = 2048
    sim_runtime: int = 60

    def check(self, prefix: str) -> None:
        """Refuse a declaration the rules cannot build (``ValueError`` naming the field)."""
        if "" not in self.run_files.values():
            raise ValueError(f"{prefix}: STUDY.run_files needs one kind with suffix ''")
        if {"claims", "timing"} & set(self.run_files):
            raise ValueError(f"{prefix}: STUDY.run_files may not name a kind claims or timing")
        if "claims" not in self.verdict_files:
            raise ValueError(f"{prefix}: STUDY.verdict_files needs a 'claims' table")
        names = [*self.tables, *self.figures]
        clash = sorted({n for n in names if n in RESERVED or names.count(n) > 1})
        if clash:
            raise ValueError(
                f"{prefix}: table or figure names {clash} clash with each other or with the "
                f"workflow's target suffixes {', '.join(RESERVED)}"
            )


def run_paths(prefix: str, study: Study, plan: StudyPlan, root: str) -> dict[str, list[str]]:
    """Kind -> the file of that kind of every run of the plan, in the plan's order."""
    return {
        kind: [f"{root}/sim/{prefix}/{run.id}{suffix}.parquet" for run in plan.runs]
        for kind, suffix in study.run_files.items()
    }


def timing_path(prefix: str, run, root: str) -> str:
    """Timing table of one run's simulation job (kept out of the byte-reproducible parquet)."""
    return f"{root}/timing/{prefix}/{run.id}.csv"


def outputs(prefix: str, study: Study, root: str) -> dict[str, str]:
    """Every output of the study after the simulations: key -> path (the one place the paths
    are made). Keys: ``<verdict key>_{csv,md}``, ``<table>_<ext>``, ``<figure>_{pdf,png}``,
    ``ipynb`` and ``page``."""
    out = {}
    for key, (stem, *_caption) in study.verdict_files.items():
        for ext in ("csv", "md"):
            out[f"{key}_{ext}"] = f"{root}/{stem}.{ext}"
    for name, (stem, exts, _caption) in study.tables.items():
        for ext in exts:
            out[f"{name}_{ext}"] = f"{root}/{stem}.{ext}"
    for fig in study.figures:
        for ext in ("pdf", "png"):
            out[f"{fig}_{ext}"] = f"{root}/figures/{prefix}_{fig}.{ext}"
    out["ipynb"] = f"{root}/audit/{prefix}.ipynb"
    out["page"] = f"{root}/audit/{prefix}.html"
    return out


def expected_runs(plan: StudyPlan, paths: dict[str, list[str]]) -> dict:
    """Path -> the run its file must hold (``dpbandits.io.read_results(expect=...)``), as plain
    JSON values (Snakemake passes a nested tuple to a job as its string)."""
    expected = {
        path: {"run": run.as_dict(), "tier": plan.tier, "scale": plan.scale}
        for files in paths.values()
        for path, run in zip(files, plan.runs, strict=True)
    }
    return json.loads(json.dumps(expected))


def page_parameters(prefix: str, study: Study, plan: StudyPlan, root: str) -> dict:
    """The audit notebook's parameters: ``title``, ``tier``, ``scale``, ``grids``,
    ``run_files`` (kind -> paths), ``expected``, ``files`` (key -> path of every verdict and
    paper table) and ``figures`` (name -> {"pdf", "png"})."""
    out = outputs(prefix, study, root)
    paths = run_paths(prefix, study, plan, root)
    figure_keys = {f"{fig}_{ext}" for fig in study.figures for ext in ("pdf", "png")}
    return {
        "title": plan.title,
        "tier": plan.tier,
        "scale": plan.scale,
        "grids": plan.grids,
        "run_files": paths,
        "expected": expected_runs(plan, paths),
        "files": {
            k: v for k, v in out.items() if k not in figure_keys and k not in ("ipynb", "page")
        },
        "figures": {fig: {e: out[f"{fig}_{e}"] for e in ("pdf", "png")} for fig in study.figures},
    }


__all__ = [
    "RESERVED",
    "TIERS",
    "RunRecord",
    "Study",
    "StudyPlan",
    "check_tier",
    "expected_runs",
    "outputs",
    "page_parameters",
    "run_paths",
    "timing_path",
]
