"""``config/arena.yaml``: read, validated and expanded into simulation cells (docs/arena.md).

An arena cell is an ordinary simulation cell (:class:`dpbandits.config.Cell`) of experiment
``arena``: its figure is the suite, its panel one (suite, d, T) point, its configuration the
named calibration and its series the contestant. Cells of one panel share instances and reward
streams (the pipeline keys both by the panel's settings and the trial, not by the series), so
contestants are compared on common random numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

from dpbandits.config import MAX_JOB_MB, Cell, ConfigError, check_schema, load_yaml
from dpbandits.privacy.matching import matched_name
from dpbandits.runtime.job_memory import instance_megabytes

EXPERIMENT = "arena"
#: Words for the settings a contestant declares (the reason of a not-run row).
SETTING_WORDS = {"fixed": "fixed arm sets", "fresh": "fresh contexts", "sparse": "sparse contexts"}
#: The instance families that give each suite setting.
SETTING_FAMILIES = {
    "fixed": ("script", "paper_text", "illcond", "fixed_sphere"),
    "fresh": ("fresh_sphere",),
    "sparse": ("sparse",),
}
#: Fidelity of every arena cell: the algorithms as the papers state them, without the quirks of
#: any published script.
FIDELITY = "corrected"


@dataclass(frozen=True)
class Arena:
    """The arena at one scale.

    Attributes
    ----------
    data : dict
        The validated file.
    cells : tuple of Cell
        Every simulation cell (suite, d, T, contestant, calibration).
    not_run : tuple of dict
        One row per (suite, contestant[, calibration]) that does not run, with the reason.
    calibrations : dict
        Calibration id -> the paper whose calibration table it reads (e.g. ``c_beta`` ->
        ``olucb``).
    """

    data: dict
    cells: tuple
    not_run: tuple
    calibrations: dict

    def panels(self) -> dict[str, list[Cell]]:
        """Cells by panel (suite, d, T): the contestants that share instances and rewards."""
        out: dict[str, list[Cell]] = {}
        for cell in self.cells:
            out.setdefault(cell.panel, []).append(cell)
        return out

    def jobs(self) -> dict[str, list[Cell]]:
        """Cells by simulation job: one job per suite and dimension, ``<suite>_d<d>``, running
        both horizons' panels one after the other (each from its own seeds, so the grouping
        changes no number). A job per panel cost a process start (~3 s of imports and kernel
        loading) for panels of 5-10 s; the name is the same at every scale."""
        out: dict[str, list[Cell]] = {}
        for cell in self.cells:
            out.setdefault(f"{cell.figure}_d{cell.d}", []).append(cell)
        return out

    def job_priorities(self) -> dict[str, int]:
        """Snakemake priority of each simulation job: its rank by cost (the rounds of its cells
        but the frontier's, which are at the smaller horizon and cheaper per round than most;
        then d), so that the longest jobs start first and none is left alone at the end of a
        build (longest-first scheduling)."""
        cost = {
            j: (sum(c.T for c in cells if "_e" not in c.configuration), cells[0].d)
            for j, cells in self.jobs().items()
        }
        return {j: rank for rank, j in enumerate(sorted(cost, key=cost.get))}

    @property
    def suites(self) -> dict:
        """The suites of the file, by id."""
        return self.data["suites"]

    @property
    def contestants(self) -> dict:
        """The contestants of the file, by id."""
        return self.data["contestants"]


def _check(data: dict, papers: set[str], path: str) -> None:
    """What the schema cannot say: known papers and algorithms, valid policy calibrations,
    claims naming contestants that run."""
    from dpbandits.policies import POLICIES
    from dpbandits.policies import runs_on as policy_runs_on

    for cid, c in data["contestants"].items():
        where = f"{path}: contestants.{cid}"
        if c["paper"] not in papers:
            raise ConfigError(
                f"{where}.paper = {c['paper']!r}: allowed {', '.join(sorted(papers))}"
            )
        if "algorithm" not in c:
            continue
        if c["algorithm"] not in POLICIES:
            raise ConfigError(
                f"{where}.algorithm = {c['algorithm']!r}: allowed {', '.join(POLICIES)}"
            )
        allowed = POLICIES[c["algorithm"]].calibrations
        for name, cal in c["calibrations"].items():
            policy_cal = cal.get("calibration", name)
            if policy_cal not in allowed:
                raise ConfigError(
                    f"{where}.calibrations.{name}: policy calibration {policy_cal!r} is not "
                    f"available for {c['algorithm']}; allowed {', '.join(allowed)}"
                )
            runs_on = policy_runs_on(c["algorithm"], policy_cal)
            if not set(c["settings"]) <= runs_on:
                raise ConfigError(
                    f"{where}.settings = {c['settings']}: {c['algorithm']} under calibration "
                    f"{policy_cal!r} runs on {' and '.join(sorted(runs_on))} only"
                )
            if "calibrated_by" in cal and cal["calibrated_by"] not in papers:
                raise ConfigError(
                    f"{where}.calibrations.{name}.calibrated_by = {cal['calibrated_by']!r}: "
                    f"allowed {', '.join(sorted(papers))}"
                )
    for sid, suite in data["suites"].items():
        family, allowed = suite.get("instances"), SETTING_FAMILIES[suite["setting"]]
        if family is not None and family not in allowed:
            raise ConfigError(
                f"{path}: suites.{sid}.instances = {family!r} does not give the setting "
                f"{suite['setting']!r}; allowed {', '.join(allowed)}"
            )
    running = {cid for cid, c in data["contestants"].items() if "algorithm" in c}
    for i, claim in enumerate(data["claims"]):
        for pair in claim["below"]:
            for name in pair:
                if name not in running:
                    raise ConfigError(
                        f"{path}: claims.{i}.below names {name!r}: allowed the contestants that "
                        f"run ({', '.join(sorted(running))})"
                    )


def _not_run_row(suite: str, cid: str, c: dict, reason: str, calibration: str = "") -> dict:
    return {
        "suite": suite,
        "contestant": cid,
        "paper": c["paper"],
        "trust": c["trust"],
        "calibration": calibration,
        "reason": " ".join(reason.split()),
    }


def _probe_suite(sid: str, suite: dict, d: int, T: int, path: str) -> None:
    """Build one instance of the suite at dimension ``d``, so that an impossible shape or
    instance option is refused while the arena file is read, not inside a job."""
    from dpbandits.envs.linear import make_instances

    options = dict(suite.get("instance_options") or {})
    try:
        make_instances(suite["instances"], 1, int(suite["K"]), d, int(suite["instance_seed"]),
                       T=T, **options)  # fmt: skip
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            f"{path}: suites.{sid} (instances {suite['instances']!r}, K = {suite['K']}, "
            f"d = {d}, instance_options = {options}): {exc}"
        ) from None


def _check_arms(sid: str, suite: dict, d: int, max_job_mb: int, path: str) -> None:
    """Refuse a suite whose arms alone would not fit a job, before any instance is built."""
    need = instance_megabytes(int(suite["K"]), d)
    if need > max_job_mb:
        raise ConfigError(
            f"{path}: suites.{sid}.K = {suite['K']} at d = {d}: the arms alone (K x d float64) "
            f"need about {need:,.0f} MiB, above max_job_mb = {max_job_mb} MiB; allowed: "
            "K x d x 8 bytes within max_job_mb (config/config.yaml)"
        )


def _check_memory(cell: Cell, max_job_mb: int, path: str) -> None:
    """Refuse a contestant's cell whose job would need more than ``max_job_mb`` (the estimate of
    :mod:`dpbandits.runtime.job_memory`), naming the suite, the contestant and the sizes; or whose
    policy cannot be built (a batch size that does not divide T, an epsilon whose calibration
    overflows)."""
    try:
        need = cell.memory_mb()
    except (ValueError, ArithmeticError) as exc:
        raise ConfigError(
            f"{path}: suites.{cell.figure} (contestant {cell.series}, calibration "
            f"{cell.configuration}; T = {cell.T}, B = {cell.B}, epsilon = {cell.epsilon}, "
            f"delta = {cell.delta}): {exc}"
        ) from None
    if need > max_job_mb:
        raise ConfigError(
            f"{path}: suites.{cell.figure} (contestant {cell.series}, calibration "
            f"{cell.configuration}): T = {cell.T}, trials = {cell.trials}, K = {cell.K}, "
            f"d = {cell.d}, checkpoints = {cell.checkpoints}: the job would need about {need} MiB "
            f"(dpbandits.runtime.job_memory), above max_job_mb = {max_job_mb} MiB; reduce T, "
            "trials or checkpoints, or raise max_job_mb in config/config.yaml"
        )


def _suite_not_run(sid: str, suite: dict, contestants: dict) -> list[dict]:
    """The not-run rows of one suite: contestants that do not run at all, every contestant of a
    suite that is not built, and contestants that do not run on the suite's setting."""
    rows = []
    for cid, c in contestants.items():
        if "not_run" in c:
            rows.append(_not_run_row(sid, cid, c, c["not_run"]))
        elif "not_built" in suite:
            rows.append(_not_run_row(sid, cid, c, f"suite not built: {suite['not_built']}"))
        elif suite["setting"] not in c["settings"]:
            words = " and ".join(SETTING_WORDS[s] for s in c["settings"])
            rows.append(_not_run_row(sid, cid, c, f"runs on {words} only"))
    return rows


#: Configuration of the matched cells at the target (the primary ranking), and the prefix of
#: the frontier's (``matched_e<epsilon>``).
MATCHED_CONFIGURATION = "matched"


def frontier_configuration(epsilon: float) -> str:
    """The configuration name of a frontier cell at matched ``epsilon``."""
    return f"{MATCHED_CONFIGURATION}_e{epsilon:g}"


def matched_entry(c: dict) -> tuple[str, dict]:
    """The calibration whose map a contestant's matched cells evaluate: its ``experiment``
    calibration, else its first; returns (matched policy calibration, the entry's settings)."""
    name = "experiment" if "experiment" in c["calibrations"] else next(iter(c["calibrations"]))
    cal = c["calibrations"][name]
    return matched_name(cal.get("calibration", name)), cal


def _matched_cells(data, suite, point, cid, c, root_seed, first: bool, not_run: list) -> list:
    """A private contestant's matched cells at one point: at the target, and where ``first``
    (the suite's first dimension and horizon) at every other epsilon of the frontier; none, with
    a not-run row, when no noise level of its calibration delivers the target."""
    from dpbandits.policies import POLICIES
    from dpbandits.privacy.matching import NotMatchable

    if not POLICIES[c["algorithm"]].private or "matched" not in data:
        return []
    policy_cal, cal = matched_entry(c)
    entry = {**cal, "calibration": policy_cal}
    target = float(data["target"]["epsilon"])
    cell = _cell(data, suite, point, cid, c, MATCHED_CONFIGURATION, entry, root_seed)
    try:
        cell.policy(search=False)
    except NotMatchable as exc:
        not_run.append(_not_run_row(point["suite"], cid, c, exc.reason, MATCHED_CONFIGURATION))
        return []
    except (ValueError, ArithmeticError):  # refused with the key by the size check below
        pass
    cells = [cell]
    if first:
        for eps in data["matched"]["frontier"]:
            if float(eps) != target:
                name = frontier_configuration(float(eps))
                cells.append(_cell(data, suite, point, cid, c, name, entry, root_seed, float(eps)))
    return cells


def _cell(data: dict, suite: dict, point: dict, cid: str, c: dict, name: str, cal: dict,
          root_seed: int, epsilon: float | None = None) -> Cell:  # fmt: skip
    """The simulation cell of contestant ``cid`` under calibration ``name`` at one ``point``
    (suite, d, T, scale) of the arena (module docstring)."""
    quick = data["quick"] if point["scale"] == "quick" else None
    sid, d, T = point["suite"], point["d"], point["T"]
    return Cell(
        experiment=EXPERIMENT,
        figure=sid,
        panel=f"{sid}_d{d}_T{T}",
        configuration=name,
        series=cid,
        algorithm=c["algorithm"],
        calibration=cal.get("calibration", name),
        fidelity=FIDELITY,
        instances=suite["instances"],
        T=T,
        trials=int(quick["trials"] if quick else data["trials"]),
        K=int(suite["K"]),
        d=d,
        epsilon=float(data["target"]["epsilon"] if epsilon is None else epsilon),
        delta=float(data["target"]["delta"]),
        B=int(suite["B"]),
        instance_seed=int(suite["instance_seed"]),
        reward_seed_offset=0,
        checkpoints=int(data["checkpoints"]),
        root_seed=int(root_seed),
        scale=point["scale"],
        options=dict(cal.get("options") or {}),
        instance_options=dict(suite.get("instance_options") or {}),
    )


def load_arena(
    path: str,
    schema: str,
    scale: str = "paper",
    root_seed: int = 0,
    papers: set[str] | None = None,
    calibrations_built: set[str] | None = None,
    max_job_mb: int = MAX_JOB_MB,
) -> Arena:
    """Read, validate and expand the arena file.

    Parameters
    ----------
    path, schema : str
        ``config/arena.yaml`` and its JSON schema.
    scale : {"paper", "quick"}
        ``quick``: the file's ``quick`` trials and horizons.
    root_seed : int
        The pipeline's root seed (``config.yaml``).
    papers : set of str, optional
        Registered paper prefixes (default: the registry's).
    calibrations_built : set of str, optional
        Papers whose calibration tables the build makes (default: every paper); a calibration
        of another paper gives a not-run row saying so.
    max_job_mb : int
        The most memory one simulation job may need (``config.yaml``'s ``max_job_mb``): a suite
        whose arms, or a contestant whose job, would need more is refused.

    Raises
    ------
    ConfigError
        Naming the key, the bad value and what is allowed.
    """
    if papers is None:
        from dpbandits.papers import PAPERS

        papers = set(PAPERS)
    built = papers if calibrations_built is None else set(calibrations_built)
    data = load_yaml(path)
    check_schema(data, schema, path)
    _check(data, papers, path)
    quick = data["quick"] if scale == "quick" else None
    cells, not_run, calibrations = [], [], {}
    for sid, suite in data["suites"].items():
        not_run.extend(_suite_not_run(sid, suite, data["contestants"]))
        if "not_built" in suite:
            continue
        horizons = quick["T"] if quick else suite["T"]
        for d in suite["d"]:
            _check_arms(sid, suite, int(d), max_job_mb, path)
            _probe_suite(sid, suite, int(d), int(min(horizons)), path)
            for T in horizons:
                for cid, c in data["contestants"].items():
                    if "not_run" in c or suite["setting"] not in c["settings"]:
                        continue
                    point = {"suite": sid, "d": int(d), "T": int(T), "scale": scale}
                    for name, cal in c["calibrations"].items():
                        paper = cal.get("calibrated_by")
                        if paper is not None and paper not in built:
                            reason = (
                                f"needs paper {paper}'s calibration table, which this build "
                                "does not make (add the paper to `experiments`)"
                            )
                            not_run.append(_not_run_row(sid, cid, c, reason, name))
                            continue
                        for opt in (cal.get("options") or {}).values():
                            if isinstance(opt, dict) and "calibrated" in opt:
                                calibrations[opt["calibrated"]] = paper
                        cells.append(_cell(data, suite, point, cid, c, name, cal, root_seed))
                    needs = matched_entry(c)[1].get("calibrated_by")
                    every = data.get("matched", {}).get("horizons") == "all"
                    if (needs is None or needs in built) and (every or T == horizons[0]):
                        first = d == suite["d"][0] and T == horizons[0]
                        cells += _matched_cells(
                            data, suite, point, cid, c, root_seed, first, not_run
                        )
    for cell in cells:
        _check_memory(cell, max_job_mb, path)
    rows = list({tuple(r.values()): r for r in not_run}.values())  # a calibration missing at
    # every (d, T) gives one row
    return Arena(data, tuple(cells), tuple(rows), calibrations)


def load_arena_for_job(path: str, params) -> Arena:
    """:func:`load_arena` with a Snakemake job's ``params`` (``schema``, ``scale``, ``root_seed``,
    ``calibrations_built``): the arena as the rules that made the job's DAG read it."""
    return load_arena(
        path,
        params.schema,
        params.scale,
        params.root_seed,
        calibrations_built=set(params.calibrations_built),
    )


__all__ = ["EXPERIMENT", "Arena", "load_arena", "load_arena_for_job"]
