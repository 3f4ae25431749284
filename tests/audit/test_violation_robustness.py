"""Robust or fragile: whether a contradicted claim's violation survives a smaller design.

Rate rules of the figure-less audits are refitted without their smallest horizon
(:func:`dpbandits.audit.minimax_rules.refit_robustness`); failed orderings are re-evaluated on
the two halves of the instances (:func:`dpbandits.audit.checklist.evaluate_orderings`). Each
test plants both cases: a violation that holds everywhere (``robust``) and one that one level or
one instance creates (``fragile``).
"""

import math

import numpy as np
import pandas as pd

from dpbandits.audit.checklist import evaluate_orderings
from dpbandits.audit.minimax_rules import (
    claim_robustness,
    refit_robustness,
    rule_up_t,
    secant_exponent,
)
from dpbandits.audit.overview import claim_overview
from dpbandits.audit.scoreboard import scoreboard

T_WIN = np.array([1e5, 10**5.5, 1e6, 10**6.5, 1e7])
UNIF = 1e3 * np.outer(T_WIN, np.ones(30))  # random play: far above every regret, learning


def _runs(T, f, n=30, cv=0.1, seed=0):
    rng = np.random.default_rng(seed)
    return np.array([f(t) * (1 + cv * rng.standard_normal(n)) for t in T])


def _fit(x, R, unif):
    """R-UP-T against sqrt(T) (claimed exponent 0.5 over any window, tolerance 0.10)."""
    return rule_up_t(x, R, unif, secant_exponent(math.sqrt, x[0], x[-1]))


def test_a_steady_excess_is_robust():
    R = _runs(T_WIN, lambda t: t**0.8)  # 0.3 above the claim at every horizon
    res = _fit(T_WIN, R, UNIF)
    assert res.shared == "exceeds"
    assert refit_robustness(res, _fit, T_WIN, R, UNIF) == "robust"


def test_an_excess_made_by_the_smallest_horizon_is_fragile():
    # sqrt(T) from the second horizon on; the first sits at 0.3 sqrt(T) (a warm-up transient).
    # Over the five evenly spaced ln T the low first point adds ln(1/0.3) * 2.3 / 13.2 = 0.21 to
    # the slope (0.71 > 0.5 + 0.10: exceeds); without it the slope is 0.5 again.
    R = _runs(T_WIN, lambda t: (0.3 if t == T_WIN[0] else 1.0) * math.sqrt(t))
    res = _fit(T_WIN, R, UNIF)
    assert res.shared == "exceeds" and abs(res.statistic - 0.71) < 0.03
    assert refit_robustness(res, _fit, T_WIN, R, UNIF) == "fragile"


def test_no_violation_and_too_few_levels():
    R = _runs(T_WIN, math.sqrt)
    ok = _fit(T_WIN, R, UNIF)
    assert ok.shared != "exceeds" and refit_robustness(ok, _fit, T_WIN, R, UNIF) == ""
    x3, R3 = T_WIN[:3], _runs(T_WIN[:3], lambda t: t**0.9)
    bad = _fit(x3, R3, UNIF[:3])
    assert bad.shared == "exceeds"
    assert refit_robustness(bad, _fit, x3, R3, UNIF[:3]) == "untested"  # 2 left: no slope test


def test_claim_robustness_needs_every_violating_row():
    rows = pd.DataFrame(
        {
            "verdict": ["exceeds", "exceeds", "consistent"],
            "robustness": ["robust", "fragile", ""],
        }
    )
    assert claim_robustness(rows, "exceeds") == "fragile"
    assert claim_robustness(rows.iloc[[0, 2]], "exceeds") == "robust"
    assert claim_robustness(rows.iloc[[0, 2]].assign(robustness=["untested", ""]), "exceeds") == (
        "untested"
    )
    assert claim_robustness(rows, "consistent") == ""


# -- orderings: split-half replication ----------------------------------------------------------


def _frame(a_finals, b_finals, T=100):
    rows = []
    for series, finals in (("A", a_finals), ("B", b_finals)):
        for trial, final in enumerate(finals):
            for t in (50, T):
                rows.append(
                    dict(
                        configuration="c",
                        panel="p",
                        series=series,
                        trial=trial,
                        t=t,
                        T=T,
                        d=5,
                        K=10,
                        instances="script",
                        regret_realized=final * t / T,
                        regret_pseudo=final * t / T,
                    )  # fmt: skip
                )
    return pd.DataFrame(rows)


CLAIM = {"id": "a_below_b", "kind": "ordering", "audit": {"check": "below", "panels": ["p"],
         "a": "A", "b": ["B"]}}  # fmt: skip


def _summary(res):
    return res[(res["comparison"] == "all") & (res["metric"] == "realized")].iloc[0]


def test_a_reversed_ordering_on_every_instance_is_robust():
    rng = np.random.default_rng(1)
    b = 10 + rng.standard_normal(40)
    row = _summary(evaluate_orderings([CLAIM], _frame(b + 1.0, b)))
    assert row["verdict"] == "FAIL" and row["robustness"] == "robust"


def test_a_failure_carried_by_one_half_is_fragile():
    # D = A - B is 2 +/- 0.1 on the even trials and 0.1 +/- 3 on the odd ones: the whole design's
    # interval (mean 1.05, SE ~ 0.37) lies above 0, FAIL; the odd half's (0.1 +/- 1.4) contains 0,
    # WEAK, so the violation does not replicate.
    rng = np.random.default_rng(2)
    b = 10 + rng.standard_normal(40)
    sign = np.tile([1.0, 1.0, -1.0, -1.0], 10)  # alternates within each half
    d = np.where(np.arange(40) % 2 == 0, 2.0 + 0.1 * sign, 0.1 + 3.0 * sign)
    row = _summary(evaluate_orderings([CLAIM], _frame(b + d, b)))
    assert row["verdict"] == "FAIL" and row["robustness"] == "fragile"


def test_a_point_estimate_reversal_is_weak_and_carries_no_robustness():
    # one instance 100 above moves the mean difference above 0, but the interval contains 0:
    # no demonstrated violation, so WEAK (the old rule read FAIL) and no robustness column
    rng = np.random.default_rng(2)
    b = 10 + rng.standard_normal(40)
    a = b - 1.0
    a[0] = b[0] + 100.0
    row = _summary(evaluate_orderings([CLAIM], _frame(a, b)))
    assert row["verdict"] == "WEAK" and pd.isna(row["robustness"])


def test_a_passing_ordering_has_no_robustness_and_the_scoreboard_takes_the_overview_column():
    rng = np.random.default_rng(3)
    b = 10 + rng.standard_normal(40)
    passed = evaluate_orderings([CLAIM], _frame(b - 1.0, b))
    assert _summary(passed)["verdict"] == "PASS" and pd.isna(_summary(passed)["robustness"])
    failed = evaluate_orderings([CLAIM], _frame(b + 1.0, b))
    claim = {**CLAIM, "source": "Fig. 1", "algorithm": "A"}
    overview = claim_overview([claim], pd.DataFrame(), failed, "c", "combined")
    assert overview.loc[0, "all_configurations"] == "FAIL"
    assert overview.loc[0, "robustness"] == "robust"
    board = scoreboard([("toy", overview)])
    assert board.loc[0, "status"] == "contradicted" and board.loc[0, "robustness"] == "robust"
