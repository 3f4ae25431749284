"""Execute one run of the PrivateLASSO audit plan (:mod:`dpbandits.papers.plasso.plan`) and
write its tables (described in docs/papers/plasso.md):

* runs: one row per (eps, T, trial) — ``paper, experiment, family, d, s0, K, T, eps, eps_index,
  delta, algorithm, trial, env_seed_words, regret_T, regret_unif_T``;
* episodes: one row per (eps, T, trial, episode) — ``t_l, lambda_t, size_S0, size_S, true_in_S,
  xi, Gamma, sigma_B, Delta, s1_l, tree_side`` plus the run keys (``tree_side``: side of the
  matrix the TBAP tree aggregates, ``d + 1`` for the paper's full tree, ``|S_l| + 1`` for the
  support-block ablation; ``Delta`` and ``sigma_B`` are calibrated to it);
* the run constants (``s_bar, s_under, c_max, alpha, eps1, eps2, delta1, delta2, n_L``, ...) per
  (eps, T) in the parquet metadata.

Wall times go to a separate timing table (the parquet bytes must not depend on the machine).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pyarrow as pa

from dpbandits.engine.private_lasso import simulate_cell
from dpbandits.envs.sparse import EXPERIMENTS, FAMILIES, ROOT
from dpbandits.io import write_csv_table, write_result
from dpbandits.papers.plasso.plan import Run
from dpbandits.policies.private_lasso import plasso_constants
from dpbandits.runtime.joblog import progress

log = logging.getLogger("dpbandits")

SEEDS = (
    "environment SeedSequence([1001, exp, fam, d, s0, K, T, trial])"
    ".spawn(6) -> g_inst, g_ctx, g_noise, g_a, g_v, g_h; algorithm SeedSequence([..., trial, alg, "
    "eps_index]).spawn(3) -> g_svt, g_tbap, g_tie; trials 0-based (dpbandits.envs.sparse)"
)
EPISODE_KEYS = (
    "t_l", "lambda_t", "size_S0", "size_S", "true_in_S", "xi", "Gamma", "sigma_B", "Delta", "s1_l",
    "tree_side",
)  # fmt: skip
INT_COLUMNS = {
    "d", "s0", "K", "T", "eps_index", "trial", "t_l", "size_S0", "size_S", "true_in_S", "tree_side",
}  # fmt: skip
STR_COLUMNS = {"paper", "experiment", "family", "algorithm", "env_seed_words"}


def _table(cols: dict) -> pa.Table:
    def kind(c):
        return pa.int64() if c in INT_COLUMNS else pa.string() if c in STR_COLUMNS else pa.float64()

    return pa.table({c: pa.array(v, type=kind(c)) for c, v in cols.items()})


def simulate_run(run: Run) -> tuple[pa.Table, pa.Table, list[dict], list[dict]]:
    """All cells of ``run``: (runs table, episodes table, constants per (eps, T), timings)."""
    keys = ("paper", "experiment", "family", "d", "s0", "K", "T", "eps", "eps_index", "delta",
            "algorithm", "trial")  # fmt: skip
    rows = {c: [] for c in (*keys, "env_seed_words", "regret_T", "regret_unif_T")}
    ep_rows = {c: [] for c in (*keys, *EPISODE_KEYS)}
    constants, timings = [], []
    params = dict(run.parameters)
    bar = progress(desc=run.id, total=len(run.eps) * len(run.horizons))
    for eps, idx in zip(run.eps, run.eps_index, strict=True):
        for T in run.horizons:
            start = time.perf_counter()
            regret, unif, episodes = simulate_cell(
                run.experiment, run.family, run.d, run.s0, run.K, T, run.algorithm, eps, idx,
                run.trials, params,
            )  # fmt: skip
            seconds = time.perf_counter() - start
            bar.update()
            timings.append({"run": run.id, "eps": eps, "T": T, "trials": run.trials,
                            "seconds": seconds})  # fmt: skip
            log.info("%s eps=%g T=%d: %.2f s", run.id, eps, T, seconds)
            const = {k: v for k, v in params.items() if k != "sigma"}
            constants.append(plasso_constants(T, run.d, run.s0, run.K, eps, **const).as_dict())
            for trial in range(run.trials):
                values = {
                    "paper": "001", "experiment": run.experiment, "family": run.family,
                    "d": run.d, "s0": run.s0, "K": run.K, "T": T, "eps": eps, "eps_index": idx,
                    "delta": params["delta"], "algorithm": run.algorithm, "trial": trial,
                }  # fmt: skip
                for k in keys:
                    rows[k].append(values[k])
                words = [ROOT, EXPERIMENTS[run.experiment], FAMILIES[run.family], run.d, run.s0,
                         run.K, T, trial]  # fmt: skip
                rows["env_seed_words"].append(",".join(str(w) for w in words))
                rows["regret_T"].append(float(regret[trial]))
                rows["regret_unif_T"].append(float(unif[trial]))
                for ep in episodes[trial]:
                    for k in keys:
                        ep_rows[k].append(values[k])
                    for k in EPISODE_KEYS:
                        ep_rows[k].append(ep[k])
    bar.close()
    return _table(rows), _table(ep_rows), constants, timings


def write_run(
    run: Run,
    out: str | Path,
    episodes_out: str | Path,
    timing_out: str | Path,
    tier: str,
    scale: str,
) -> None:
    """Simulate ``run`` and write its runs and episodes parquet files (atomically) and timings."""
    runs, episodes, constants, timings = simulate_run(run)
    metadata = {
        "run": run.as_dict(), "tier": tier, "scale": scale, "seeds": SEEDS, "constants": constants,
    }  # fmt: skip
    write_result(out, runs, metadata)
    write_result(episodes_out, episodes, metadata)
    write_csv_table(timings, timing_out)


__all__ = ["simulate_run", "write_run"]
