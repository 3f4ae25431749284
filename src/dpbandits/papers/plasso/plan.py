"""The run plan of the PrivateLASSO audit (plasso; ``config/experiments/plasso.yaml``, tiers
in docs/papers/plasso.md): which simulation jobs exist at a tier and scale.

A *run* is one simulation job: one (experiment, family, d, K, s0, algorithm) with all its eps
values, horizons (separate runs per T: the budgets of Algorithm 1, line 2 depend on T) and
trials. The plan is validated before any job starts: the schema, then what the schema cannot
state (eps values inside the algorithm's grid, non-private algorithms at eps = inf only, at
least two horizons for a T fit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpbandits.config import ConfigError, check_schema, load_yaml
from dpbandits.papers.study import RunRecord, StudyPlan, check_tier

#: Algorithms without privacy noise: their only eps is inf (eps index 0).
NON_PRIVATE = ("np_th_lasso", "oracle_ols")
#: Ablations without a grid of their own: their eps values and indices are those of another
#: algorithm's grid (the support-block tree plays with PrivateLASSO's streams, so a cell is paired
#: with PrivateLASSO's cell at the same eps). At eps = inf they would be that algorithm.
GRID_OF = {"support_block_tree": "private_lasso"}
#: Display name of the ablation whose key does not say what it is (figures, report).
LABELS = {"support_block_tree": "PrivateLASSO (support-block tree, ablation)"}
SHORT = {"PL-E1": "e1", "PL-E2": "e2"}


@dataclass(frozen=True)
class Run(RunRecord):
    """One simulation job of the plan.

    Attributes
    ----------
    id : str
        Run id (job ``plasso_sim_<id>``, file ``<root>/sim/plasso/<id>.parquet``).
    experiment, family, algorithm : str
    d, K, s0 : int
    eps, eps_index : tuple
        Privacy levels (``inf``: non-private) and their 1-based positions in the algorithm's grid
        (0 for ``inf``); the index keys the algorithm's random streams (``envs/sparse.py``).
    horizons : tuple of int
        One independent run per horizon.
    trials : int
    parameters : dict
        Fixed parameters (sigma, C_theta, C_X, C_r, lambda0, delta, phi2).
    """

    id: str
    experiment: str
    family: str
    algorithm: str
    d: int
    K: int
    s0: int
    eps: tuple
    eps_index: tuple
    horizons: tuple
    trials: int
    parameters: dict

    _TUPLES = ("eps", "eps_index", "horizons")


@dataclass(frozen=True)
class Plan(StudyPlan):
    """The runs of one tier at one scale and the settings of the audit (besides those of every
    study plan, :class:`dpbandits.papers.study.StudyPlan`).

    Attributes
    ----------
    parameters : dict
        Fixed parameters of every run (sigma, C_theta, C_X, C_r, lambda0, delta, phi2).
    """

    parameters: dict

    def audit_parameters(self) -> dict:
        """Plain values the verdict job takes from the plan."""
        return {**super().audit_parameters(), "parameters": dict(self.parameters)}


def _eps(algorithm: str, values, grids: dict, where: str) -> tuple[tuple, tuple]:
    if algorithm in NON_PRIVATE:
        if list(values) != [math.inf]:
            raise ConfigError(f"{where} = {values!r}: {algorithm} is non-private; allowed [.inf]")
        return (math.inf,), (0,)
    owner = GRID_OF.get(algorithm, algorithm)
    grid = grids[owner]
    values = grid if values == "grid" else values
    index = []
    for v in values:
        if v not in grid:
            raise ConfigError(f"{where} = {v!r}: not in grids.{owner} = {grid}")
        if owner != algorithm and math.isinf(v):
            raise ConfigError(
                f"{where} = {v!r}: {algorithm} at eps = inf is {owner}(inf) (no TBAP noise); "
                "allowed: the finite values of grids." + owner
            )
        index.append(0 if math.isinf(v) else grid.index(v) + 1)
    return tuple(float(v) for v in values), tuple(index)


def run_megabytes(d: int, K: int, T: int) -> float:
    """Estimated peak memory (MiB) of one trial of a run at horizon ``T`` (trials run one after
    another, :func:`dpbandits.engine.private_lasso.simulate_cell`) from the float64 arrays every
    trial allocates: the history ``Z`` (T x d), its Gram matrix (d x d) and one block of contexts
    with its support copy (2 x BLOCK x K x d). The tree's node noise, (d + 1)^2 per node over the
    selected support only, is not counted (the support is capped far below d), so this is a
    lower estimate: a run above the limit cannot fit."""
    from dpbandits.engine.private_lasso import BLOCK

    values = T * d + d * d + 2 * BLOCK * K * d
    return 8.0 * values / 2**20


def _check_config(c: dict, where: str, T: int, limit_mb: float) -> None:
    """``s0 <= d`` and the run's memory estimate within the job's ``limit_mb``."""
    if c["s0"] > c["d"]:
        raise ConfigError(
            f"{where}: s0 = {c['s0']} is above d = {c['d']}: the support has at most d "
            "coordinates; allowed: 1 <= s0 <= d"
        )
    need = run_megabytes(c["d"], c["K"], T)
    if need > limit_mb:
        raise ConfigError(
            f"{where}: d = {c['d']}, K = {c['K']} at T = {T} need at least {need:,.0f} MiB per "
            f"trial (history T x d, Gram matrix d x d, a block of contexts); allowed: at most "
            f"{limit_mb:,.0f} MiB, the memory a plasso job declares"
        )


def _configs(entry: dict) -> list[dict]:
    base = entry["config"]
    out = [dict(base)]
    for key, values in entry.get("scans", {}).items():
        for v in values:
            c = {**base, key: v}
            if c not in out:
                out.append(c)
    return out


def load_plan(
    path: str, schema: str, tier: str = "core", scale: str = "paper", limit_mb: float | None = None
):
    """Read, validate and expand ``config/experiments/plasso.yaml``.

    Parameters
    ----------
    path, schema : str
        The experiment file and its JSON schema.
    tier : {"core", "full"}
    scale : {"paper", "quick"}
        ``quick``: horizons up to ``2^quick.log2_T_max``, ``quick.trials`` trials.
    limit_mb : float, optional
        Largest memory estimate (:func:`run_megabytes`) a run may have; default the memory a
        plasso simulation job declares (``STUDY.sim_mem_mb``).

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
    quick = data["quick"] if scale == "quick" else None
    spec = data["tiers"][tier]
    fit_points = min(spec["fit_points"], quick["fit_points"]) if quick else spec["fit_points"]
    runs = []
    for i, e in enumerate(spec["experiments"]):
        where = f"{path}: tiers.{tier}.experiments.{i}"
        log2_T = sorted(e["log2_T"])
        if quick:
            log2_T = [k for k in log2_T if k <= quick["log2_T_max"]] or [quick["log2_T_max"]]
        if e["experiment"] == "PL-E1" and len(log2_T) < fit_points:
            raise ConfigError(
                f"{where}.log2_T = {e['log2_T']}: PL-E1 needs at least fit_points = {fit_points}"
                " horizons"
            )
        trials = quick["trials"] if quick else e["trials"]
        for c in _configs(e):
            _check_config(c, f"{where}.config", 2 ** max(log2_T), limit_mb)
        for family in e["families"]:
            for c in _configs(e):
                for algorithm, values in e["algorithms"].items():
                    eps, index = _eps(
                        algorithm, values, data["grids"], f"{where}.algorithms.{algorithm}"
                    )
                    run_id = (
                        f"{SHORT[e['experiment']]}_{family}_d{c['d']}_K{c['K']}_s{c['s0']}_"
                        f"{algorithm}"
                    )
                    runs.append(
                        Run(
                            run_id,
                            e["experiment"],
                            family,
                            algorithm,
                            c["d"],
                            c["K"],
                            c["s0"],
                            eps,
                            index,
                            tuple(2**k for k in log2_T),
                            trials,
                            dict(data["parameters"]),
                        )  # fmt: skip
                    )
    ids = [r.id for r in runs]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ConfigError(f"{path}: tiers.{tier}: duplicate runs {dup} (same experiment/config)")
    return Plan(
        title=data["title"],
        claims=data["claims"],
        tier=tier,
        scale=scale,
        runs=tuple(runs),
        fit_points=fit_points,
        grids=data["grids"],
        parameters=dict(data["parameters"]),
    )


__all__ = ["GRID_OF", "LABELS", "Plan", "Run", "load_plan"]
