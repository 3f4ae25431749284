"""The run plan of the open-problem audit (op24; ``config/experiments/op24.yaml``, the
experiments of docs/papers/op24.md): which simulation jobs exist at a tier and scale, and what
each computes.

A *run* is one simulation job: an (experiment, instance, K, d[, algorithm]) with all its privacy
values, horizons (OP-E1/E2) or checkpoints (OP-E3) and trials. The plan is validated here, before
any job starts: the schema, then the cross-field rules the schema cannot state (K for finite
instances, d for linear ones, privacy values inside the algorithm's grid, unique run ids, and
each run's memory estimate, :func:`run_megabytes`, within what a simulation job declares).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from dpbandits.config import ConfigError, check_schema, load_yaml
from dpbandits.papers.op24.algorithms import OP_E3_NON_PRIVATE
from dpbandits.papers.study import RunRecord, StudyPlan, check_tier

#: Instances of each experiment (codes of docs/papers/op24.md) and the algorithm of OP-E1/E2.
EXPERIMENT_INSTANCES = {
    "OP-E1": ("I1", "I1b", "I2", "I3"),
    "OP-E2": ("J1", "J2", "J3"),
    "OP-E3": ("C1", "C2"),
}
FIXED_ALGORITHM = {"OP-E1": "adac_ucb", "OP-E2": "adac_gope"}
#: OP-E3 checkpoints: 2^(L - CHECKPOINT_SPAN) ... 2^L (2^10 ... 2^15 at L = 15;
#: docs/papers/op24.md).
CHECKPOINT_SPAN = 5


@dataclass(frozen=True)
class Run(RunRecord):
    """One simulation job of the plan.

    Attributes
    ----------
    id : str
        Run id (job ``op24_sim_<id>``, file ``<root>/sim/op24/<id>.parquet``).
    experiment, instance, algorithm : str
    K, d : int
        Number of arms or actions and dimension (``K = 2^d`` or ``2d`` for the linear instances;
        ``d = 1`` for the finite-armed ones).
    privacy : tuple of float
        rho (AdaC-*) or epsilon (JDP-LinUCB); ``inf``: the non-private reference; LinUCB: ``(0,)``.
    privacy_index : tuple of int
        1-based positions in the algorithm's grid (0 for ``inf`` and LinUCB; docs/papers/op24.md).
    horizons : tuple of int
        OP-E1/E2: one separate run per horizon; OP-E3: ``(T_max,)``.
    checkpoints : tuple of int
        OP-E3: rounds at which regret is recorded; OP-E1/E2: equal to ``horizons``.
    trials : int
    options : dict
        AdaC-UCB's ``alpha`` and ``index``.
    """

    id: str
    experiment: str
    instance: str
    algorithm: str
    K: int
    d: int
    privacy: tuple[float, ...]
    privacy_index: tuple[int, ...]
    horizons: tuple[int, ...]
    checkpoints: tuple[int, ...]
    trials: int
    options: dict = field(default_factory=dict)

    _TUPLES = ("privacy", "privacy_index", "horizons", "checkpoints")


@dataclass(frozen=True)
class Plan(StudyPlan):
    """The runs of one tier at one scale, and the settings the audit needs (besides those of
    every study plan, :class:`dpbandits.papers.study.StudyPlan`).

    Attributes
    ----------
    horizons : tuple of int
        The OP-E1/E2 horizon grid.
    fit_checkpoints : int
        OP-E3: checkpoints of the T-fits (the last ones).
    """

    horizons: tuple[int, ...]
    fit_checkpoints: int

    def audit_parameters(self) -> dict:
        """Plain values the verdict job takes from the plan."""
        return {**super().audit_parameters(), "fit_checkpoints": self.fit_checkpoints}


#: Largest horizon of an OP-E1/E2 grid (log10): the designed grid ends at 10^7
#: (docs/papers/op24.md); one decade more is allowed, larger runs would not fit a job's time
#: and memory.
MAX_LOG10_T = 8


def horizon_grid(log10_first: float, log10_step: float, points: int) -> tuple[int, ...]:
    """``T_j = round(10^(log10_first + j log10_step))`` (docs/papers/op24.md)."""
    return tuple(round(10 ** (log10_first + j * log10_step)) for j in range(points))


def op_e3_checkpoints(log2_T_max: int) -> tuple[int, ...]:
    """``2^(L-5), ..., 2^L`` for ``T_max = 2^L``."""
    return tuple(2**k for k in range(max(1, log2_T_max - CHECKPOINT_SPAN), log2_T_max + 1))


#: Bytes of one result row of :func:`dpbandits.papers.op24.runs.simulate_run` (15 columns) while
#: its lists and the Arrow table both exist: 15 list slots of 8 bytes; a fresh float object
#: (24 bytes) in each of the 4 metric columns (``tolist()``; the other columns repeat one
#: object per cell or hold cached small ints); 8 bytes in each of the 11 numeric Arrow columns
#: and at least 6 (a 4-byte offset, 2 characters) in each of the 4 string ones.
ROW_BYTES = 15 * 8 + 4 * 24 + 11 * 8 + 4 * 6


def run_megabytes(run: Run) -> int:
    """Estimated peak memory (MiB, rounded down) of one run's simulation job
    (:func:`dpbandits.papers.op24.runs.simulate_run`), from the arrays and rows the code holds.

    The job runs its cells (privacy value x horizon) one after another and keeps every result
    row until the end, so the estimate is the larger of the result rows,
    ``trials x checkpoints x privacy values x horizons x`` :data:`ROW_BYTES`, and the working set
    of its largest cell (bytes, float64 and int64 entries of 8 bytes; ``n`` trials):

    * OP-E1 (:func:`~dpbandits.papers.op24.cells.op_e1_cell`, all trials at once, at the largest
      horizon ``T``), in :func:`~dpbandits.engine.episodic.episode_regret`: the ``n x K`` arm
      means, the episode log of :func:`~dpbandits.engine.episodic.run_adac_ucb` (4 arrays of
      ``n`` per step), its copy and two ``(steps, n)`` temporaries, ``8 n (K + 10 S)`` with
      ``S >= K + floor(log2(T - K + 1))`` steps (the round-robin, then episodes whose lengths
      double per arm: ``2^m - 1`` rounds need ``m`` episodes). While AdaC-UCB runs it holds
      less: means, gaps, estimates, two count tables, two index temporaries and the log,
      ``8 n (7 K + 4 S)``;
    * OP-E2 (one trial at a time): in the G-optimal design
      (:func:`dpbandits.g_optimal.g_optimal_design`) the ``K x d`` actions (``K = 2^d`` on J2),
      their active copy, the reduced coordinates and the Gram-Schmidt copy, ``32 K d``; J2's
      action set is first built from a list of ``K`` tuples, ``K (48 + 8 d)`` bytes beside its
      array;
    * OP-E3 (:func:`~dpbandits.papers.op24.cells.op_e3_cell`, chunks of ``c = min(n, max(1,
      OP_E3_CHUNK_BYTES // B))`` trials, ``B = 8 T_max K (d + 1)`` the decision sets and
      uniforms of one trial): the chunk's trials and their stacked copies (``2 c B``); for
      JDP-LinUCB, after the stacking, the chunk and the tree-noise tables of an inner chunk of
      :func:`~dpbandits.engine.fresh_linucb.simulate_fresh` (``c B + c' 8 T_max E``,
      ``E = d + d (d + 1) / 2``).

    Not counted: the interpreter and its libraries (about 0.4-0.8 GB,
    :mod:`dpbandits.runtime.job_memory`), the random generators, list over-allocation, the parquet
    encoding and further temporaries. This is a lower estimate (rounded down, too): a run above a
    job's memory cannot fit. Integer arithmetic throughout, so no size of the plan overflows it.

    Parameters
    ----------
    run : Run

    Returns
    -------
    int
    """
    from dpbandits.mechanisms.packing import n_entries
    from dpbandits.papers.op24.cells import OP_E3_CHUNK_BYTES
    from dpbandits.runtime.job_memory import CHUNK_BYTES

    n, K, d = run.trials, run.K, run.d
    cells = len(run.privacy) * len(run.horizons)
    per_cell = len(run.checkpoints) if run.experiment == "OP-E3" else 1
    rows = ROW_BYTES * n * per_cell * cells
    if run.experiment == "OP-E1":
        steps = K + max(max(run.horizons) - K + 1, 1).bit_length() - 1
        work = 8 * n * (K + 10 * steps)
    elif run.experiment == "OP-E2":
        work = 32 * K * d
        if run.instance == "J2":
            work = max(work, K * (48 + 16 * d))
    else:
        T = max(run.horizons)
        trial = 8 * T * K * (d + 1)
        chunk = min(n, max(1, OP_E3_CHUNK_BYTES // trial))
        work = 2 * chunk * trial
        if run.algorithm == "jdp_linucb":
            E = n_entries(d)
            inner = min(chunk, max(1, CHUNK_BYTES // (8 * T * (K * d + K + E))))
            work = max(work, chunk * trial + inner * 8 * T * E)
    return max(rows, work) // 2**20


#: What :func:`run_megabytes` counts, per experiment (refusal messages).
_MEMORY_MODEL = {
    "OP-E1": "AdaC-UCB's trials x K arm statistics and episode log, and the result rows",
    "OP-E2": "the K x d action set (K = 2^d on J2) and its G-optimal design, and the result rows",
    "OP-E3": "the decision sets and uniforms of a chunk of trials, 8 T_max K (d + 1) bytes per "
    "trial, and the result rows",
}


def _size_keys(e: dict, run: Run, tier: str, i: int, quick) -> list[str]:
    """``key = value`` of every key that sets a run's size (refusal messages)."""
    at = f"tiers.{tier}.runs.{i}"
    exp = run.experiment
    keys = [f"{at}.{k} = {e[k]}" for k in ("K", "d") if k in e]
    if exp == "OP-E3":
        if quick and quick["log2_T_max"] < e["log2_T_max"]:
            keys.append(f"quick.log2_T_max = {quick['log2_T_max']}")
        else:
            keys.append(f"{at}.log2_T_max = {e['log2_T_max']}")
    elif "T" in e:
        keys.append(f"{at}.T = {e['T']}")
    keys.append(
        f"quick.trials = {run.trials}" if quick else f"tiers.{tier}.trials.{exp} = {run.trials}"
    )
    return keys


def _check_size(e: dict, run: Run, tier: str, i: int, quick, path: str, limit_mb: float) -> None:
    """The run's memory estimate (:func:`run_megabytes`) within the job's ``limit_mb``."""
    need = run_megabytes(run)
    if need <= limit_mb:
        return
    if run.experiment == "OP-E3":
        shape = f"T_max = {run.horizons[0]}, {len(run.checkpoints)} checkpoints"
    else:
        shape = f"{len(run.horizons)} horizon(s)"
    shape += f" x {len(run.privacy)} privacy value(s)"
    if run.experiment == "OP-E2":
        shape = f"K = {run.K} actions, {shape}"
    raise ConfigError(
        f"{path}: {', '.join(_size_keys(e, run, tier, i, quick))}: run {run.id} "
        f"({run.experiment}, {shape}) needs at least {need:,} MiB "
        f"({_MEMORY_MODEL[run.experiment]}); allowed: at most {limit_mb:,.0f} MiB, the memory an "
        "op24 simulation job declares (STUDY.sim_mem_mb)"
    )


def _privacy(entry: dict, grid: list[float], where: str) -> tuple[tuple, tuple]:
    values = entry.get("privacy", grid)
    index = []
    for v in values:
        if v not in grid:
            raise ConfigError(
                f"{where}.privacy = {v!r}: not in the algorithm's grid {grid} (config key grids)"
            )
        index.append(0 if math.isinf(v) else grid.index(v) + 1)
    return tuple(float(v) for v in values), tuple(index)


def _checkpoint_run(e: dict, data: dict, quick, where: str):
    """An OP-E3 run (one horizon ``2^log2_T_max``, the regret recorded at checkpoints): its
    algorithm, privacy grid and indices, horizons, checkpoints, K and d."""
    missing = [k for k in ("K", "d", "log2_T_max", "algorithm") if k not in e]
    if missing:
        raise ConfigError(f"{where}: OP-E3 runs need {', '.join(missing)}")
    algorithm = e["algorithm"]
    if algorithm in OP_E3_NON_PRIVATE:
        if "privacy" in e:
            raise ConfigError(f"{where}.privacy: {algorithm} is not private; remove the key")
        privacy, index = (0.0,), (0,)
    else:
        privacy, index = _privacy(e, data["grids"][algorithm], where)
    L = min(e["log2_T_max"], quick["log2_T_max"]) if quick else e["log2_T_max"]
    cps = op_e3_checkpoints(L)
    horizons, K, d = (2**L,), e["K"], e["d"]
    return algorithm, privacy, index, horizons, cps, K, d


def _horizon_run(e: dict, data: dict, grid, quick, where: str):
    """An OP-E1 / OP-E2 run (separate runs per horizon, on the instances of Table 1): its
    algorithm, privacy grid and indices, horizons, K and d."""
    exp, inst = e["experiment"], e["instance"]
    algorithm = FIXED_ALGORITHM[exp]
    key = "K" if exp == "OP-E1" else "d"
    if key not in e or ("d" if exp == "OP-E1" else "K") in e:
        raise ConfigError(f"{where}: {exp} runs take {key} (and not {'d' if key == 'K' else 'K'})")
    if "T" in e and "horizons" in e:
        raise ConfigError(f"{where}: give either T or horizons, not both")
    if "T" in e:
        horizons = tuple(e["T"])
        if quick:
            horizons = tuple(T for T in horizons if T <= grid[-1]) or (grid[-1],)
    else:
        horizons = grid[-1:] if e.get("horizons") == "last" else grid
    privacy, index = _privacy(e, data["grids"][algorithm], where)
    if exp == "OP-E1":
        K, d = e["K"], 1
        if inst in ("I1", "I1b") and K != 5:
            raise ConfigError(f"{where}.K = {K}: instance {inst} has 5 arms")
    else:
        d = e["d"]
        K = 2**d if inst == "J2" else 2 * d
        if inst == "J1" and d != 5:
            raise ConfigError(f"{where}.d = {d}: instance J1 is defined for d = 5")
    return algorithm, privacy, index, horizons, K, d


def load_plan(
    path: str, schema: str, tier: str = "core", scale: str = "paper", limit_mb: float | None = None
) -> Plan:
    """Read, validate and expand the experiment file.

    Parameters
    ----------
    path, schema : str
        ``config/experiments/op24.yaml`` and its JSON schema.
    tier : {"core", "full"}
    scale : {"paper", "quick"}
        ``quick``: the tier's runs with the file's ``quick`` overrides (fewer trials, the first
        ``horizon_points`` horizons, OP-E3 at ``2^log2_T_max``).
    limit_mb : float, optional
        Largest memory estimate (:func:`run_megabytes`) a run may have; default the memory an
        op24 simulation job declares (``STUDY.sim_mem_mb``).

    Raises
    ------
    ConfigError
        Naming the key, the bad value and what is allowed.
    """
    check_tier(tier)
    if limit_mb is None:
        from .declaration import STUDY

        limit_mb = STUDY.sim_mem_mb
    data = load_yaml(path)
    check_schema(data, schema, path)
    h = data["horizons"]
    last = h["log10_first"] + (h["points"] - 1) * h["log10_step"]
    if last > MAX_LOG10_T:
        raise ConfigError(
            f"{path}: horizons = {h}: the last horizon is 10^{last:g}; allowed up to "
            f"10^{MAX_LOG10_T} (log10_first + (points - 1) log10_step <= {MAX_LOG10_T})"
        )
    if 10 ** h["log10_first"] * (10 ** h["log10_step"] - 1) < 1:
        raise ConfigError(
            f"{path}: horizons.log10_step = {h['log10_step']}: consecutive horizons from "
            f"10^{h['log10_first']:g} would round to the same T (a grid of {h['points']} points "
            "repeats runs); allowed: 10^log10_first (10^log10_step - 1) >= 1"
        )
    grid = horizon_grid(**h)
    quick = data["quick"] if scale == "quick" else None
    if quick:
        grid = grid[: quick["horizon_points"]]
    fit_points = min(data["fit_points"], len(grid))
    if fit_points < 2:
        raise ConfigError(f"{path}: fit_points = {data['fit_points']}: need at least 2 horizons")
    spec = data["tiers"][tier]
    runs, seen = [], set()
    for i, e in enumerate(spec["runs"]):
        where = f"{path}: tiers.{tier}.runs.{i}"
        exp, inst = e["experiment"], e["instance"]
        if e["id"] in seen:
            raise ConfigError(f"{where}.id = {e['id']!r}: duplicate run id")
        seen.add(e["id"])
        if inst not in EXPERIMENT_INSTANCES[exp]:
            raise ConfigError(
                f"{where}.instance = {inst!r}: {exp} allows {', '.join(EXPERIMENT_INSTANCES[exp])}"
            )
        trials = quick["trials"] if quick else spec["trials"][exp]
        if exp == "OP-E3":
            algorithm, privacy, index, horizons, cps, K, d = _checkpoint_run(e, data, quick, where)
        else:
            algorithm, privacy, index, horizons, K, d = _horizon_run(e, data, grid, quick, where)
            cps = horizons
        run = Run(
            id=e["id"],
            experiment=exp,
            instance=inst,
            algorithm=algorithm,
            K=K,
            d=d,
            privacy=privacy,
            privacy_index=index,
            horizons=tuple(int(h) for h in horizons),
            checkpoints=tuple(int(c) for c in cps),
            trials=trials,
            options=dict(data["adac_ucb"]) if algorithm == "adac_ucb" else {},
        )
        _check_size(e, run, tier, i, quick, path, limit_mb)
        runs.append(run)
    return Plan(
        title=data["title"],
        claims=data["claims"],
        tier=tier,
        scale=scale,
        runs=tuple(runs),
        horizons=grid,
        fit_points=fit_points,
        fit_checkpoints=data["fit_checkpoints"],
        grids=data["grids"],
    )


__all__ = ["Plan", "Run", "horizon_grid", "load_plan", "op_e3_checkpoints", "run_megabytes"]
