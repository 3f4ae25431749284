"""Tests that kill mutants left alive in audit/rates.py (docs/mutation.md).

The sweeps here are noiseless power laws with instance factors: trial ``i`` has regret
``c_i T^e (1/epsilon)^(1/2) d`` (``c_i = 1 + i / 10``). Every bootstrap resample of the rows then
has column means ``mean(c) T^e ...``, so each fitted T-exponent and its whole interval equal ``e``
up to rounding (1e-9 relative), and a slope difference of two schedules is the difference of
their exponents. The rate audit's rules are those of docs/auditing.md (module docstring of
:mod:`dpbandits.audit.rates`).
"""

import math

import numpy as np
import pandas as pd
import pytest

from dpbandits.audit.rates import (
    Fit,
    batch_exponent,
    evaluate_rate_claims,
    judge,
    log_factor_slope,
)

HORIZONS = (100, 1000, 10000)
N_TRIALS = 6


def _sweep(exponents: dict, eps=(1.0, 4.0), dims=(5,)):
    """Final regrets of a sweep ``s``: a non-private ``linucb`` (``0.1 c_i T^(1/2) d``, below
    every private schedule) and one private schedule per entry of ``exponents``."""
    rows = []
    for i in range(N_TRIALS):
        c = 1.0 + i / 10
        for d in dims:
            for T in HORIZONS:
                base = dict(sweep="s", d=d, T=T, t=T, trial=i)
                rows.append(dict(base, schedule="linucb", epsilon=np.nan,
                                 regret_pseudo=0.1 * c * T**0.5 * d))  # fmt: skip
                for name, e in exponents.items():
                    for ep in eps:
                        value = c * T**e * ep**-0.5 * d
                        rows.append(dict(base, schedule=name, epsilon=ep, regret_pseudo=value))
    return pd.DataFrame(rows)


def _claim(cid, schedules, T_exp="1/2", eps_exp="-1/2", fit=("T",), check="slope", **extra):
    audit = {"experiment": "x", "sweep": "s", "check": check, "schedules": schedules, **extra}
    if check == "slope":
        audit["fit"] = list(fit)
    claim = {"id": cid, "direction": "upper", "T_exp": T_exp, "eps_exp": eps_exp, "d_exp": "1"}
    return {**claim, "audit": audit}


def _fits(res, cid):
    return res[(res["claim_id"] == cid) & (res["schedule"] != "all")]


# ---- judge without per-instance values: the normal approximation of the interval -------------


def test_judge_without_values_uses_the_normal_approximation_on_the_violating_side():
    # interval (0.3, 0.3 + 2 z_0.975 0.1): se = width / (2 z_0.975) = 0.1 exactly. Detectable
    # excess = tol + half + z_0.8 se with z_0.8 = 0.841621 (80 % power, docs/auditing.md):
    # upper bound: half = slope - lo = 0.2 -> 0.05 + 0.2 + 0.0841621 = 0.3341621;
    # lower bound: half = hi - slope = 0.1919928 -> 0.05 + 0.1919928 + 0.0841621 = 0.3261549
    fit = Fit(0.5, 0.3, 0.3 + 2 * 1.959964 * 0.1, math.nan, 2, 10)
    up = judge(fit, 0.5, "upper", 0.05, [1.0, 2.0], [1.0, 1.0], None)
    low = judge(fit, 0.5, "lower", 0.05, [1.0, 2.0], [1.0, 1.0], None)
    assert up["detectable_excess"] == pytest.approx(0.3341621, abs=1e-12)
    assert low["detectable_excess"] == pytest.approx(0.3261549, abs=1e-12)


# ---- batch_exponent: the simulated batch schedule of one schedule (and one d) -----------------


def test_batch_exponent_reads_only_the_named_schedule_and_dimension():
    # schedule "a" at d = 2: B = 2, 4, 8 at T = 4, 16, 64, i.e. B = T^(1/2) exactly; at d = 3 and
    # in schedule "b" B is constant (no growth: None)
    rows = []
    for T, B in ((4, 2), (16, 4), (64, 8)):
        rows.append(dict(schedule="a", epsilon=np.nan, d=2, T=T, B=B))
        rows.append(dict(schedule="a", epsilon=np.nan, d=3, T=T, B=1))
        rows.append(dict(schedule="b", epsilon=np.nan, d=2, T=T, B=1))
    finals = pd.DataFrame(rows)
    assert batch_exponent(finals, "a", None, d=2) == pytest.approx(0.5, rel=1e-12)
    assert batch_exponent(finals, "a", None, d=3) is None
    assert batch_exponent(finals, "b", None) is None


# ---- log_factor_slope: a (ln T)^p factor's local exponent, for any sign of p -----------------


@pytest.mark.parametrize("power", [-1.0, 0.0, 2.0])
def test_log_factor_slope_is_p_over_e_minus_1_between_e_and_e_to_the_e(power):
    # ln x = 1, e and ln ln x = 0, 1: the OLS slope of p ln ln x on ln x is p / (e - 1); a
    # negative power (a 1 / ln T factor) is a slope like any other
    got = log_factor_slope([math.e, math.e**math.e], power)
    assert got == pytest.approx(power / (math.e - 1), rel=1e-12, abs=1e-15)


# ---- evaluate_rate_claims: which fits a claim gets, their labels and summary ------------------


def test_a_claim_gets_only_the_fits_it_asks_for():
    # two epsilon levels and two dimensions: a claim with eps_exp and d_exp that asks only for
    # the T fit gets one T row per (epsilon, d) and no 1/epsilon or d rows
    df = _sweep({"p": 0.5}, dims=(2, 4))
    res = evaluate_rate_claims([_claim("x.t", ["p"])], df, n_boot=50)
    fits = _fits(res, "x.t")
    assert set(fits["variable"]) == {"T"}
    assert len(fits) == 4


def test_the_T_fit_label_names_the_gap_baseline_only_for_a_gap_fit():
    df = _sweep({"p": 0.5}, eps=(1.0,))
    plain = _claim("x.plain", ["p"])
    gap = _claim("x.gap", ["p"], T_fit="gap", baseline="linucb")
    res = evaluate_rate_claims([plain, gap], df, n_boot=50)
    assert list(_fits(res, "x.plain")["variable"]) == ["T"]
    assert list(_fits(res, "x.gap")["variable"]) == ["T (gap to linucb)"]


def test_a_literal_epsilon_exponent_adds_a_row_only_when_it_differs():
    df = _sweep({"p": 0.5})
    # the registry's literal reading sits next to eps_exp: "-0.5" is the same exponent as -1/2
    same = {**_claim("x.same", ["p"], fit=("epsilon",)), "eps_exp_literal": "-0.5"}
    other = {**_claim("x.other", ["p"], fit=("epsilon",)), "eps_exp_literal": "-1"}
    res = evaluate_rate_claims([same, other], df, n_boot=50)
    assert list(_fits(res, "x.same")["variable"]) == ["1/epsilon"]
    rows = _fits(res, "x.other").set_index("variable")
    assert list(rows.index) == ["1/epsilon", "1/epsilon [literal]"]
    assert rows.loc["1/epsilon [literal]", "claimed"] == 1.0  # exponent of 1/epsilon


def test_a_robust_violation_says_so_and_the_summary_takes_the_largest_detectable_excess():
    # T^0.9 against a claimed T^(1/2): the interval is the point 0.9 > 0.5 + 0.05 (exceeds), and
    # without the smallest horizon the slope is still 0.9 (robust)
    df = _sweep({"p": 0.9})
    bad = _claim("x.bad", ["p"])
    bad["audit"]["bound_scope"] = "instance"  # fixed instances can violate an instance bound
    res = evaluate_rate_claims([bad], df, n_boot=50)
    fits = _fits(res, "x.bad")
    assert (fits["verdict"] == "exceeds").all() and (fits["robustness"] == "robust").all()
    for reason in fits["reason"]:
        assert "robust: the violation holds without the smallest level" in reason
        assert "fragile" not in reason
    summary = res[(res["claim_id"] == "x.bad") & (res["schedule"] == "all")].iloc[0]
    assert np.isfinite(fits["detectable_excess"]).all()
    assert summary["detectable_excess"] == fits["detectable_excess"].max()


def test_a_slope_trend_compares_each_consecutive_pair_of_schedules():
    # schedules T^0.9 then T^0.5: slope(second) - slope(first) = -0.4 at each epsilon, exactly
    df = _sweep({"fast": 0.9, "slow": 0.5})
    claim = _claim("x.trend", ["fast", "slow"], check="slope_trend", trend="decreasing")
    res = evaluate_rate_claims([claim], df, n_boot=50)
    fits = _fits(res, "x.trend")
    assert list(fits["schedule"]) == ["slow vs fast"] * 2
    assert list(fits["fixed"]) == ["epsilon=1", "epsilon=4"]
    for col in ("slope", "ci_low", "ci_high"):
        assert fits[col].to_numpy() == pytest.approx([-0.4, -0.4], rel=1e-9)
    assert (fits["verdict"] == "consistent").all()  # an upper bound at 0: -0.4 <= 0.05
