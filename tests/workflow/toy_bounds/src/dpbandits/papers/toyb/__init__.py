"""toyb: a toy figure-less paper (docs/adding-a-paper.md, "A paper without figures").

Its one claim: uniform random play on two arms with gap ``Delta`` has expected regret
``E R_T = Delta T / 2`` (each round picks the worse arm with probability 1/2). The plan
(``config/experiments/toyb.yaml``) is one run over a few horizons; the verdict compares the
mean regret at each horizon with ``Delta T / 2`` through its 95 % normal interval. The package
provides the protocol of :mod:`dpbandits.papers.study` and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from dpbandits.config import ConfigError, check_schema, load_yaml
from dpbandits.io import read_results, write_csv_table, write_result
from dpbandits.papers.study import RunRecord, Study, StudyPlan, check_tier
from dpbandits.tables import write_table

STUDY = Study(
    run_files={"runs": ""},
    verdict_files={"claims": ("audit/toyb_claims", "The verdict of the toy paper's claim.")},
    figures={"regret": "Mean regret of uniform random play against T, with Delta T / 2."},
    page="Audit page of the toy bounds paper.",
    experiments=("TB-E1",),
    sim_mem_mb=512,
    sim_runtime=5,
)

#: The 97.5 % standard normal quantile (the verdict's two-sided 95 % interval).
Z = 1.959963984540054


@dataclass(frozen=True)
class Run(RunRecord):
    """The plan's one run: every horizon and trial of uniform random play."""

    id: str
    gap: float
    horizons: tuple
    trials: int
    seed: int

    _TUPLES = ("horizons",)


def load_plan(path, schema, tier: str = "core", scale: str = "paper") -> StudyPlan:
    """The validated plan of ``path`` (``ConfigError`` naming the key otherwise)."""
    check_tier(tier)
    data = load_yaml(path)
    check_schema(data, schema, path)
    if len(data["horizons"]) < 2:
        raise ConfigError(f"{path}: horizons = {data['horizons']}: at least two are needed")
    trials = data["quick_trials"] if scale == "quick" else data["trials"]
    run = Run("random", float(data["gap"]), tuple(data["horizons"]), trials, data["seed"])
    return StudyPlan(
        title=data["title"],
        claims=data["claims"],
        tier=tier,
        scale=scale,
        runs=(run,),
        fit_points=len(run.horizons),
        grids={},
    )


def simulate(run: dict, files: dict, timing: str, tier: str, scale: str) -> None:
    """Every (horizon, trial) of the run: the regret ``gap x (pulls of the worse arm)``."""
    r = Run.from_dict(run)
    rng = np.random.default_rng(r.seed)
    T = np.repeat(np.asarray(r.horizons, dtype=np.int64), r.trials)
    trial = np.tile(np.arange(r.trials, dtype=np.int64), len(r.horizons))
    regret = r.gap * rng.binomial(T, 0.5).astype(float)
    table = pa.table({"trial": trial, "t": T, "T": T, "regret": regret})
    write_result(files["runs"], table, {"run": r.as_dict(), "tier": tier, "scale": scale})
    write_csv_table(pd.DataFrame({"run": [r.id], "trials": [r.trials]}), timing)


def verdict_rows(runs: pd.DataFrame, gap: float) -> pd.DataFrame:
    """Per horizon: mean regret, its 95 % interval and whether ``gap T / 2`` is inside."""
    g = runs.groupby("T")["regret"]
    out = pd.DataFrame({"mean": g.mean(), "sd": g.std(ddof=1), "n": g.size()}).reset_index()
    half = Z * out["sd"] / np.sqrt(out["n"])
    out["ci_low"], out["ci_high"] = out["mean"] - half, out["mean"] + half
    out["claimed"] = gap * out["T"] / 2
    out["inside"] = (out["ci_low"] <= out["claimed"]) & (out["claimed"] <= out["ci_high"])
    return out


def write_verdicts(results, claims, parameters, max_detectable, expected, outputs):
    """The claim's verdict: SUPPORTED when every horizon's interval holds ``gap T / 2``,
    CONTRADICTED when one lies wholly on one side of it."""
    runs = read_results(results["runs"], required=("trial",), expect=expected)
    gap = next(iter(expected.values()))["run"]["gap"]
    rows = verdict_rows(runs, gap)
    word = "SUPPORTED" if rows["inside"].all() else "CONTRADICTED"
    worst = rows.loc[(rows["mean"] / rows["claimed"] - 1).abs().idxmax()]
    verdicts = pd.DataFrame(
        [
            {
                "claim_id": c["id"],
                "verdict": word,
                "rules": f"mean regret vs Delta T / 2 at {len(rows)} horizons; largest "
                f"relative gap {abs(worst['mean'] / worst['claimed'] - 1):.3f} at T = "
                f"{int(worst['T'])}",
            }
            for c in claims
        ]
    )
    write_table(verdicts, outputs["claims_csv"], outputs["claims_md"], "toyb: claim verdicts",
                "SUPPORTED: every interval holds Delta T / 2.")  # fmt: skip
    return verdicts


def privacy_rows(plan, account: bool = True) -> list[dict]:
    """Random play releases nothing private: no rows."""
    return []
