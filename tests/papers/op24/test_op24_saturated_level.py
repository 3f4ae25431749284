"""The saturation gate of the open-problem audit on a saturated *privacy level* of a fixed-gap
family (the audit design of docs/papers/op24.md), with random play's regret as the engine
records it.

The older tests planted ``regret_unif = 1e9``, so no level was ever saturated and the gate of
R-EXC-T and R-RHO was never reached. Here I1's random play is realistic, ``T (max mu - mean mu)
= 0.25 T`` (means 0.75, 0.625, 0.5, 0.375, 0.25), and at rho = 1e-4 the private run has not
learnt (0.95 of random play's regret at every T: a linear regret).
"""

import math

import numpy as np
import pandas as pd
import pytest

from dpbandits.bound_claims import load_bound_registry
from dpbandits.papers.op24.verdicts import Op24Audit

T = np.array([1e5, 10**5.5, 1e6, 10**6.5, 1e7])  # the OP-E1 fit window (5 points)
RHOS = [1e-4, 1e-3, 1e-2, math.inf]
SATURATED_RHO = 1e-4


def _i1_rows(n=40, seed=0):
    """R_inf = 30 ln T; at rho = 1e-3, 1e-2 a constant excess 200 rho^{-1/2} (privacy-dominated:
    6.3 10^3 and 2 10^3 against R_inf = 480 at T = 1e7; at most 0.27 of random play's regret at
    any T, so unsaturated); at rho = 1e-4 0.95 x 0.25 T. Each trial x (1 + 0.05 N(0, 1))."""
    rng = np.random.default_rng(seed)
    out = []
    for k, rho in enumerate(RHOS):
        for t in T:
            unif = 0.25 * t
            if rho == SATURATED_RHO:
                mean = 0.95 * unif
            else:
                mean = 30 * math.log(t) + (0 if math.isinf(rho) else 200 / math.sqrt(rho))
            R = mean * (1 + 0.05 * rng.standard_normal(n))
            for i in range(n):
                out.append({
                    "experiment": "OP-E1", "instance": "I1", "algorithm": "adac_ucb", "K": 5,
                    "d": 1, "privacy_kind": "rho", "privacy": rho,
                    "privacy_index": 0 if math.isinf(rho) else k + 1, "T": int(t), "t": int(t),
                    "trial": i, "regret": R[i], "regret_unif": unif, "n_episodes": 0.0,
                    "floor_events": 0.0,
                })  # fmt: skip
    return out


def _own_words(rows: pd.DataFrame) -> pd.Series:
    """The rules' own words (SUPPORTED, UNUSABLE, ...): column ``rule_verdict`` where the audit
    also reports the shared vocabulary of issue 19 in ``verdict``, else ``verdict``."""
    return rows["rule_verdict"] if "rule_verdict" in rows else rows["verdict"]


@pytest.fixture(scope="module")
def audited():
    claims = load_bound_registry(
        "config/claims/op24.yaml", "workflow/schemas/bound_claims.schema.yaml"
    )["claims"]
    rows, _ = Op24Audit(pd.DataFrame(_i1_rows()), claims, fit_points=5, fit_checkpoints=4).run()
    rows = rows[(rows.claim_id == "op.t1.finite.upper") & (rows.instance == "I1")].copy()
    rows["own"] = _own_words(rows)
    return rows


def test_saturated_level_is_unusable_for_the_excess_slope(audited):
    """R-EXC-T: the saturated level's excess over the non-private run is linear in T (slope ~1,
    which would read CONTRADICTED against the privacy term's ~0.04); the gate makes it UNUSABLE
    ("saturated"), while the two learning levels (flat excess) are SUPPORTED."""
    exc = audited[audited.rule == "R-EXC-T"].set_index("privacy")
    assert len(exc) == 3
    assert exc.loc[SATURATED_RHO, "own"] == "UNUSABLE"
    assert "saturated" in exc.loc[SATURATED_RHO, "note"]
    assert list(exc.loc[[1e-3, 1e-2], "own"]) == ["SUPPORTED", "SUPPORTED"]


def test_saturated_level_is_left_out_of_the_rho_slope(audited):
    """R-RHO fits the excess at T_max over the privacy-dominated, unsaturated rho only: 1e-3 and
    1e-2, excess exactly 200 rho^{-1/2}, slope -1/2 (SUPPORTED). With the saturated rho = 1e-4
    (excess 2.4 10^6 at T_max) the slope would be about -1.5 and the verdict not SUPPORTED.
    Tolerance: the excess at each rho has a 5 % per-trial spread over 40 trials (0.8 % standard
    error of the mean, 0.005 in log10) so the two-point slope is within 0.02 of -1/2."""
    rho = audited[audited.rule == "R-RHO"]
    assert len(rho) == 1
    assert rho.own.iloc[0] == "SUPPORTED"
    assert rho.statistic.iloc[0] == pytest.approx(-0.5, abs=0.02)
