"""The plasso plan's rows of the delivered-epsilon audit (:mod:`dpbandits.audit.privacy`): one
per algorithm, epsilon, configuration and horizon, with the release PrivateLASSO's noise makes
under the paper's constants."""

from __future__ import annotations

import math

from ...audit.privacy import release_row
from ...policies.private_lasso import plasso_constants
from ...privacy import releases as rel


def privacy_rows(plan, account: bool = True) -> list[dict]:
    """Rows of the plasso plan (one per algorithm, epsilon, configuration and horizon)."""
    rows, seen = [], set()
    for run in plan.runs:
        prm = run.parameters
        for eps in run.eps:
            if math.isinf(eps):
                continue
            for T in run.horizons:
                key = (run.algorithm, eps, T, run.d, run.K, run.s0)
                if key in seen:
                    continue
                seen.add(key)
                const = plasso_constants(
                    T,
                    run.d,
                    run.s0,
                    run.K,
                    eps,
                    prm["delta"],
                    prm["lambda0"],
                    prm["C_theta"],
                    prm["C_X"],
                    prm["C_r"],
                    prm["phi2"],
                )
                base = {
                    "experiment": "plasso",
                    "figure": run.experiment,
                    "configuration": f"{run.family} d={run.d} K={run.K} s0={run.s0}",
                    "series": run.algorithm,
                    "algorithm": run.algorithm,
                    "calibration": "paper (Algorithms 1-2, TBAP of Sec. 3)",
                    "instances": run.family,
                    "d": run.d,
                    "B": 1,
                    "universe": "contexts clipped to [-C_X, C_X], rewards to [-C_r, C_r]",
                }
                release = rel.plasso_release(run.algorithm, const)
                rows.append(release_row(base, release, eps, prm["delta"], T, account=account))
    return rows
