"""The planted contestant run of the rate audit: an explore-then-commit schedule with a known
worse rate on a claim's sweep must read ``exceeds`` against the claim, or the claim's
``consistent`` T fits become ``untestable`` (audit/controls.py)."""

import numpy as np
import pandas as pd
import pytest

from dpbandits.audit.controls import (
    CONTESTANT,
    CONTESTANT_MISSED,
    CONTROL_COLUMNS,
    contestant_control,
)
from dpbandits.audit.rates import evaluate_rate_claims

T = np.array([2520, 5040, 10080, 20160, 40320], dtype=float)


def _curves(exponent, scale, n=25, seed=0):
    rng = np.random.default_rng(seed)
    c = scale * rng.lognormal(0.0, 0.1, size=(n, 1))
    return c * T**exponent * rng.lognormal(0.0, 0.02, size=(n, T.size))


def _frame(contestant_exponent: float | None, n=25):
    """A claim's schedule ``alg`` at regret 3 T^(1/2), and (unless None) the contestant
    ``etc_a`` at 0.3 T^e; caps T (random play), so both are in the learning regime."""
    rows = []
    series = [("alg", "linucb", 0.5, 3.0)]
    if contestant_exponent is not None:
        series.append(("etc_a", "etc", contestant_exponent, 0.3))
    for k, (sched, alg, e, scale) in enumerate(series):
        Y = _curves(e, scale, n, seed=k)
        for i in range(n):
            for j, t in enumerate(T):
                rows.append(dict(sweep="s", schedule=sched, algorithm=alg, epsilon=np.nan, d=5,
                                 T=int(t), t=int(t), trial=i, regret_pseudo=Y[i, j],
                                 cap=float(t)))  # fmt: skip
    return pd.DataFrame(rows)


CLAIM = {
    "id": "x.rate",
    "direction": "upper",
    "T_exp": "1/2",
    "eps_exp": None,
    "audit": {
        "experiment": "x",
        "sweep": "s",
        "check": "slope",
        "schedules": ["alg"],
        "fit": ["T"],
    },  # fmt: skip
}


def _audit(df):
    controls = []
    rates = evaluate_rate_claims([CLAIM], df, n_boot=500, seed=1, controls=controls)
    fit = rates[(rates["schedule"] == "alg") & (rates["variable"] == "T")].iloc[0]
    planted = [c for c in controls if c["control"] == CONTESTANT]
    return fit, planted


def test_a_planted_worse_rate_is_detected_and_the_verdict_stands():
    alone, none = _audit(_frame(None))
    assert alone["verdict"] == "consistent" and none == []  # no contestant: nothing to judge
    fit, planted = _audit(_frame(0.9))
    (row,) = planted
    assert set(row) == set(CONTROL_COLUMNS)
    assert row["passed"] and row["detected"] and row["verdict"] == "exceeds"
    assert row["schedule"] == "etc_a" and row["claimed"] == pytest.approx(0.5)
    assert row["slope"] == pytest.approx(0.9, abs=0.02)
    assert fit["verdict"] == "consistent"
    assert CONTESTANT_MISSED not in fit["reason"]


def test_an_undetected_contestant_turns_consistent_into_untestable():
    fit, planted = _audit(_frame(0.53))  # within claimed + tolerance: not told apart
    (row,) = planted
    assert not row["passed"] and row["verdict"] != "exceeds"
    assert fit["verdict"] == "untestable"
    assert CONTESTANT_MISSED in fit["reason"]
    rates = evaluate_rate_claims([CLAIM], _frame(0.53), n_boot=500, seed=1)
    assert rates[rates["schedule"] == "all"].iloc[0]["verdict"] == "untestable"


def test_the_control_needs_the_learning_regime():
    """A contestant whose regret reaches half of random play's is saturated: not detected,
    however steep its slope."""
    Y = _curves(0.99, 0.3)
    caps = 0.5 * T  # share 0.3 T^0.99 / (0.5 T) = 0.6 T^-0.01 > 0.5
    row = contestant_control(T, Y, caps, 0.5, 0.05, 500, 3)
    assert row["verdict"].startswith("exceeds (saturated") and not row["passed"]
    row = contestant_control(T, Y, T, 0.5, 0.05, 500, 3)
    assert row["verdict"] == "exceeds" and row["passed"]
    assert row["planted_excess"] == pytest.approx(row["slope"] - 0.5)
