"""The op24 plan's rows of the delivered-epsilon audit (:mod:`dpbandits.audit.privacy`): one per
algorithm, privacy level and horizon, with the release each algorithm's noise makes."""

from __future__ import annotations

import math

from ...audit.privacy import release_row
from ...privacy import releases as rel
from .algorithms import OP_E3_NON_PRIVATE


def privacy_rows(plan, account: bool = True) -> list[dict]:
    """Rows of the op24 plan (one per algorithm, privacy level and horizon)."""
    from ...mechanisms.zcdp import zcdp_to_dp

    rows, seen = [], set()
    for run in plan.runs:
        if run.algorithm in OP_E3_NON_PRIVATE:
            continue
        for priv in run.privacy:
            if math.isinf(priv):
                continue
            for T in run.horizons:
                key = (run.experiment, run.algorithm, priv, T)
                if key in seen:
                    continue
                seen.add(key)
                zcdp = run.algorithm != "jdp_linucb"
                nominal = zcdp_to_dp(priv, rel.OP24_DELTA) if zcdp else priv
                base = {
                    "experiment": "op24",
                    "figure": run.experiment,
                    "configuration": f"rho = {priv:g}" if zcdp else f"epsilon = {priv:g}",
                    "series": run.algorithm,
                    "algorithm": run.algorithm,
                    "calibration": "zcdp" if zcdp else "op24 (zCDP tree)",
                    "instances": run.instance,
                    "d": run.d,
                    "B": 1,
                    "universe": "instances (||a|| <= 1, rewards in [-1, 1] or {0, 1})",
                }
                release = rel.op24_release(run.algorithm, priv, T)
                rows.append(release_row(base, release, nominal, rel.OP24_DELTA, T, account=account))
    return rows
