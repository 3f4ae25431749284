"""The arena's leaderboard (docs/arena.md): per suite, dimension, horizon, contestant and
calibration, the mean final regret with its 95 % interval, the rank with ties, the nominal and
the delivered epsilon and the wall time; contestants that do not run get a row saying why."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

#: The regret the arena compares: cumulative pseudo-regret at the horizon (the expected regret
#: of the actions played; the realized regret adds the reward noise, the same for everyone).
METRIC = "regret_pseudo"
#: A contestant learns at a point when its mean final regret is at most this share of uniform
#: random play's (the audit's learning regime, docs/auditing.md).
LEARNING_SHARE = 0.5
COLUMNS = [
    "suite",
    "d",
    "T",
    "contestant",
    "paper",
    "trust",
    "calibration",
    "ranking",
    "nominal_epsilon",
    "nominal_delta",
    "delivered_epsilon",
    "privacy_verdict",
    "trials",
    "mean_regret",
    "ci_low",
    "ci_high",
    "rank",
    "random_regret",
    "learning",
    "wall_seconds",
    "status",
    "note",
]


#: The rankings of the leaderboard (column ``ranking``): ``matched`` (primary: every private
#: contestant at matched privacy, with the non-private references), ``nominal`` (the private
#: contestants under their named calibrations, at the nominal target), ``frontier`` (matched at
#: the other epsilons of the frontier; ranked per epsilon). Every ranking's ranks count the
#: point's non-private references, whose rows belong to the matched ranking.
RANKINGS = ("matched", "nominal", "frontier")


def ranking(cell, private: bool) -> str:
    """The ranking a cell's row belongs to (:data:`RANKINGS`)."""
    from dpbandits.arena.spec import MATCHED_CONFIGURATION

    if not private or cell.configuration == MATCHED_CONFIGURATION:
        return "matched"
    return "frontier" if cell.configuration.startswith(MATCHED_CONFIGURATION) else "nominal"


def random_regret(cell) -> float:
    """Expected final regret of uniform random play on the cell's instances, averaged over its
    trials: ``T`` times the audit's random-play rate (:func:`dpbandits.envs.caps.random_play_rate`,
    the cap of its learning regime)."""
    from dpbandits.envs.caps import cell_play_rates

    return float(cell.T * np.mean(cell_play_rates(cell)))


def final_regret(frame: pd.DataFrame, T: int) -> np.ndarray:
    """Per-trial final regret (:data:`METRIC` at ``t == T``), ordered by trial."""
    last = frame[frame["t"] == T].sort_values("trial")
    if last.empty:
        raise ValueError(f"no checkpoint at t = T = {T}")
    return last[METRIC].to_numpy(float)


def mean_interval(x: np.ndarray) -> tuple[float, float, float]:
    """Mean and the 95 % Student-t interval of the mean (``n - 1`` degrees of freedom)."""
    from scipy import stats

    x = np.asarray(x, float)
    n = x.size
    mean = float(x.mean())
    if n < 2:
        return mean, math.nan, math.nan
    half = float(stats.t.ppf(0.975, n - 1) * x.std(ddof=1) / math.sqrt(n))
    return mean, mean - half, mean + half


def ranks_with_ties(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Rank 1 + the number of entries whose interval lies wholly below this one's: entries
    whose intervals overlap share a rank unless a third separates them (lower is better)."""
    low, high = np.asarray(low, float), np.asarray(high, float)
    return np.array([1 + int(np.sum(high < lo)) for lo in low], dtype=int)


def delivered(cell) -> tuple[float, str]:
    """Delivered epsilon at the cell's delta (the privacy audit's accountant) and its verdict;
    ``inf`` and ``non-private`` for a non-private contestant."""
    from dpbandits.audit.privacy import release_bounds
    from dpbandits.privacy.cell_releases import cell_release

    policy = cell.policy()
    if not policy.private:
        return math.inf, "non-private"
    release = cell_release(cell, policy)[0]
    b = release_bounds(release, float(cell.epsilon), cell.delta)
    return float(b["delivered_epsilon"]), b["verdict"]


#: Columns of :func:`delivered_table`: a cell's place, then what its noise delivers.
DELIVERED_COLUMNS = (
    "suite",
    "d",
    "T",
    "contestant",
    "calibration",
    "delivered_epsilon",
    "privacy_verdict",
)


def _place(cell) -> tuple:
    return (cell.figure, int(cell.d), int(cell.T), cell.series, cell.configuration)


def delivered_table(arena) -> pd.DataFrame:
    """:func:`delivered` of every cell that runs, one row each (:data:`DELIVERED_COLUMNS`).

    It needs no simulation, so the pipeline makes it in its own job (after the simulations,
    whose matched calibrations' searches it reuses),
    and the results job reads it (the shuffle protocols' accounting takes most of its time).
    """
    rows = [(*_place(cell), *delivered(cell)) for cell in arena.cells]
    return pd.DataFrame(rows, columns=list(DELIVERED_COLUMNS))


def leaderboard(arena, frames: dict, seconds: dict, privacy=None) -> pd.DataFrame:
    """The leaderboard.

    Parameters
    ----------
    arena : dpbandits.arena.spec.Arena
    frames : dict
        Cell path -> its results (every checkpoint of every trial).
    seconds : dict
        Cell path -> wall seconds of its simulation (the job's timing table).
    privacy : pandas.DataFrame, optional
        :func:`delivered_table` of ``arena`` (computed here when not given); a cell without a row
        is an error.
    """
    if privacy is None:
        privacy = delivered_table(arena)
    got = {
        (r.suite, int(r.d), int(r.T), r.contestant, r.calibration): (
            float(r.delivered_epsilon),
            r.privacy_verdict,
        )
        for r in privacy.itertuples()
    }
    rows, random = [], {}
    for cell in arena.cells:
        c = arena.contestants[cell.series]
        mean, lo, hi = mean_interval(final_regret(frames[cell.path], cell.T))
        if _place(cell) not in got:
            raise ValueError(f"{cell.stem}: no row in the delivered-epsilon table")
        eps, verdict = got[_place(cell)]
        if cell.panel not in random:  # the panel's instances: the same for every contestant
            random[cell.panel] = random_regret(cell)
        rows.append(
            {
                "suite": cell.figure,
                "d": cell.d,
                "T": cell.T,
                "contestant": cell.series,
                "paper": c["paper"],
                "trust": c["trust"],
                "calibration": cell.configuration,
                "ranking": ranking(cell, c["trust"] != "none"),
                "nominal_epsilon": cell.epsilon if c["trust"] != "none" else math.inf,
                "nominal_delta": cell.delta,
                "delivered_epsilon": eps,
                "privacy_verdict": verdict,
                "trials": cell.trials,
                "mean_regret": mean,
                "ci_low": lo,
                "ci_high": hi,
                "random_regret": random[cell.panel],
                "learning": bool(mean <= LEARNING_SHARE * random[cell.panel]),
                "wall_seconds": seconds.get(cell.path, math.nan),
                "status": "ran",
                "note": "",
            }
        )
    board = pd.DataFrame(rows, columns=[c for c in COLUMNS if c != "rank"])
    board["rank"] = 0
    # ranks within one ranking (the frontier's per epsilon) at one suite, dimension and horizon,
    # among its rows and the point's non-private references (ranked in the matched ranking)
    at = board["nominal_epsilon"].where(board["ranking"].eq("frontier"), 0.0)
    reference = board["trust"].eq("none")
    for _, idx in board.groupby(["suite", "d", "T", "ranking", at], sort=False).groups.items():
        part = board.loc[idx]
        point = board.loc[idx[0], ["suite", "d", "T"]]
        refs = board[reference & (board[["suite", "d", "T"]] == point).all(axis=1)]
        pool = pd.concat([part, refs.drop(index=part.index, errors="ignore")])
        ranks = ranks_with_ties(pool["ci_low"], pool["ci_high"])
        board.loc[idx, "rank"] = ranks[: len(part)]
    missing = pd.DataFrame(
        [
            {
                **row,
                "ranking": "matched" if row["calibration"] == "matched" else "nominal",
                "status": "not run",
                "note": row["reason"],
            }
            for row in arena.not_run
        ]
    )
    if not missing.empty:
        missing = missing.drop(columns="reason")
    out = pd.concat([board, missing], ignore_index=True) if not missing.empty else board
    out = out.reindex(columns=COLUMNS)
    order = {s: i for i, s in enumerate(arena.suites)}
    out["_suite"] = out["suite"].map(order)
    out["_ranking"] = out["ranking"].map({r: i for i, r in enumerate(RANKINGS)})
    out = out.sort_values(
        [
            "_suite",
            "d",
            "T",
            "status",
            "_ranking",
            "nominal_epsilon",
            "rank",
            "mean_regret",
            "contestant",
        ],  # fmt: skip
        na_position="last",
        kind="mergesort",
    )
    return out.drop(columns=["_suite", "_ranking"]).reset_index(drop=True)


__all__ = [
    "COLUMNS",
    "DELIVERED_COLUMNS",
    "LEARNING_SHARE",
    "METRIC",
    "RANKINGS",
    "delivered",
    "delivered_table",
    "final_regret",
    "leaderboard",
    "mean_interval",
    "random_regret",
    "ranking",
    "ranks_with_ties",
]
