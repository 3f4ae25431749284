"""Verdict rules of the open-problem audit (docs/papers/op24.md, 'Verdicts').

Also pinned (docs/mutation.md): the half-width :func:`~dpbandits.audit.minimax_rules.judge` takes
on the violating side and the regime sentence it adds, and the rules' own settings (the configured
bootstrap and seed 0, R-GAP-T's joint resampling of trials, R-SCALE's claimed linear growth). The
rules' statistics are those of docs/audit/rates.md ("Statistics of the figure-less audits": 95 %
percentile bootstrap, B = 2000, seed 0, paired or independent resampling). Regret matrices of those
tests are noiseless power laws with trial factors, ``R[j, i] = c_i x_j^b``: a paired resample (the
same trials at every level) has means ``mean(c) x^b``, so its slope and interval are exactly ``b``
(up to rounding, 1e-9). With ``log_sd = 0`` the power draws of
:func:`dpbandits.audit.verdicts.detectable_excess` are all 0, so the detectable excess is exactly
``tol + half-width``.
"""

import math
from pathlib import Path

import numpy as np
import pytest

from dpbandits.audit.fits import fit_exponent
from dpbandits.audit.minimax_rules import (
    RuleResult,
    aggregate,
    judge,
    loglog_slope,
    rule_exc_t,
    rule_gap_eps,
    rule_gap_t,
    rule_lb_cons,
    rule_rho,
    rule_scale,
    rule_up_t,
    secant_exponent,
)
from dpbandits.config import load_yaml

T_WIN = np.array([1e5, 10**5.5, 1e6, 10**6.5, 1e7])  # the OP-E1/E2 fit window (5 points)
CP = 2.0 ** np.arange(12, 16)  # the OP-E3 checkpoints

ROOT = Path(__file__).resolve().parents[2]
FACTORS = np.array([1.0, 2.0, 3.0, 5.0, 8.0, 13.0])  # trial factors c_i, widely spread


def _power_law(levels, b):
    """R[j, i] = c_i x_j^b (rows are levels)."""
    return np.asarray(levels, float)[:, None] ** b * FACTORS[None, :]


def _runs(T, f, n=30, cv=0.1, seed=0):
    """Independent runs: trial values f(T) * (1 + cv * N(0, 1)) (mean exactly f in law)."""
    rng = np.random.default_rng(seed)
    return np.array([f(t) * (1 + cv * rng.standard_normal(n)) for t in T])


def test_secant_exponents_over_the_fit_windows():
    """The claimed exponents over the fit windows, to the printed digit."""
    lo, hi = 1e5, 1e7
    assert secant_exponent(lambda T: math.sqrt(5 * T * math.log(T)), lo, hi) == pytest.approx(
        0.537, abs=5e-4
    )
    assert secant_exponent(lambda T: math.sqrt(math.log(T)), lo, hi) == pytest.approx(
        0.037, abs=5e-4
    )
    assert secant_exponent(lambda T: math.sqrt(5 * T * math.log(32 * T)), lo, hi) == pytest.approx(
        0.529, abs=5e-4
    )
    assert secant_exponent(lambda T: math.log(10 * T) ** 1.5, lo, hi) == pytest.approx(
        0.094, abs=5e-4
    )
    assert secant_exponent(lambda T: 5 * math.sqrt(T) * math.log(T), 2**12, 2**15) == pytest.approx(
        0.607, abs=5e-4
    )
    assert secant_exponent(math.log, 2**12, 2**15) == pytest.approx(0.107, abs=5e-4)


def test_slope_and_interval_recover_a_power_law():
    R = _runs(T_WIN, lambda t: 3 * t**0.5)
    s, lo, hi = loglog_slope(T_WIN, R)
    # 30 trials at 10 % spread: each log-mean has sd ~ 0.018, the slope over 2 decades ~ 0.006
    assert lo < 0.5 < hi and hi - lo < 0.05 and abs(s - 0.5) < 0.02
    paired = loglog_slope(T_WIN, R, paired=True)
    assert paired[0] == s  # the point estimate does not depend on the resampling


def test_up_t_verdicts():
    unif = np.full((5, 30), 1e9)
    b = secant_exponent(lambda T: math.sqrt(5 * T * math.log(T)), 1e5, 1e7)
    ok = rule_up_t(T_WIN, _runs(T_WIN, lambda t: math.sqrt(t)), unif, b)
    bad = rule_up_t(T_WIN, _runs(T_WIN, lambda t: t**0.8), unif, b)
    assert ok.verdict == "SUPPORTED" and bad.verdict == "CONTRADICTED"
    sat = rule_up_t(T_WIN, _runs(T_WIN, lambda t: 0.9 * t), np.tile(T_WIN[:, None], 30), b)
    assert sat.verdict == "PRE-ASYMPTOTIC"


def test_exc_t_separates_an_additive_log_price_from_a_growing_one():
    unif = np.full((5, 30), 1e12)
    ref = _runs(T_WIN, lambda t: math.sqrt(t), seed=1)
    flat = _runs(T_WIN, lambda t: math.sqrt(t) + 500 * math.sqrt(math.log(t)), seed=2)
    grow = _runs(T_WIN, lambda t: math.sqrt(t) + 5 * t**0.5, seed=3)
    b = secant_exponent(lambda T: math.sqrt(math.log(T)), 1e5, 1e7)
    assert rule_exc_t(T_WIN, flat, ref, unif, b).verdict == "SUPPORTED"
    res = rule_exc_t(T_WIN, grow, ref, unif, b)
    assert res.verdict == "CONTRADICTED" and res.statistic == pytest.approx(0.5, abs=0.05)
    none = rule_exc_t(T_WIN, ref, ref, unif, b)
    assert none.verdict == "UNUSABLE" and "excess" in none.note


def test_exc_t_paired_on_common_random_numbers():
    """With common random numbers the paired excess cancels the shared noise: a constant price
    of 50 on top of noisy regret is measured with a tight interval around slope 0."""
    rng = np.random.default_rng(4)
    base = np.array([np.sqrt(t) * (1 + 0.3 * rng.standard_normal(8)) for t in CP])
    res = rule_exc_t(CP, base + 50.0, base, np.full((4, 8), 1e9), 0.107, paired=True)
    assert res.verdict == "SUPPORTED" and abs(res.statistic) < 1e-12
    assert res.ci_high - res.ci_low < 1e-9


def test_rho_rule():
    rhos = np.array([1e-5, 1e-4, 1e-3, 1e-2])
    good = _runs(rhos, lambda r: 30 / math.sqrt(r))
    steep = _runs(rhos, lambda r: 0.3 / r)
    flags = [False] * 4
    assert rule_rho(rhos, good, 100.0, flags).verdict == "SUPPORTED"
    assert rule_rho(rhos, steep, 100.0, flags).verdict == "CONTRADICTED"
    assert rule_rho(rhos, good, 1e9, flags).verdict == "INCONCLUSIVE"


def test_lower_bound_consistency():
    T = T_WIN
    lb = lambda t: math.sqrt(5 * t)  # noqa: E731
    assert rule_lb_cons(T, _runs(T, lambda t: 2 * math.sqrt(5 * t)), lb).verdict == "CONSISTENT"
    beating = _runs(T, lambda t: t**0.3)
    assert rule_lb_cons(T, beating, lb).verdict == "INCONSISTENT"


def test_gap_rules_and_aggregation():
    assert rule_gap_t(CP, _runs(CP, lambda t: 3 * t**0.5)).verdict == "UB-LIKE"
    assert rule_gap_t(CP, _runs(CP, lambda t: 300 + 0 * t)).verdict == "LB-LIKE"
    eps = np.array([1.0, 10.0, 100.0])
    assert rule_gap_eps(eps, _runs(eps, lambda e: 1000 / e)).verdict == "LB-LIKE"
    assert rule_gap_eps(eps, _runs(eps, lambda e: 1000 / math.sqrt(e))).verdict == "UB-LIKE"
    assert rule_gap_eps(eps[:2], _runs(eps[:2], lambda e: 1 / e)).verdict == "INCONCLUSIVE"
    assert aggregate(["SUPPORTED", "PRE-ASYMPTOTIC", "SUPPORTED"]) == "SUPPORTED"
    assert aggregate(["SUPPORTED", "CONTRADICTED"]) == "CONTRADICTED"
    assert aggregate(["PRE-ASYMPTOTIC"]) == "INCONCLUSIVE"
    assert aggregate(["UNUSABLE", "SUPPORTED"]) == "SUPPORTED"
    assert aggregate(["UNUSABLE"]) == "INCONCLUSIVE"
    assert aggregate(["SUPPORTED", "INCONCLUSIVE"]) == "INCONCLUSIVE"


# ---- judge: the half-width on the violating side, and the reason ------------------------------


def test_judge_takes_the_half_width_on_the_violating_side():
    # slope 0.5 in (0.3, 0.6), tol 0.1, no spread: detectable excess = tol + half-width;
    # upper bound: half = 0.5 - 0.3 = 0.2 -> 0.3; lower bound (or R-RHO's side="lower"):
    # half = 0.6 - 0.5 = 0.1 -> 0.2
    res = RuleResult("R", "SUPPORTED", 0.5, 0.3, 0.6, 0.5)
    levels, sd = [1.0, 10.0, 100.0], np.zeros(3)
    assert judge(res, "upper", 0.1, levels, sd).detectable_excess == pytest.approx(0.3, abs=1e-12)
    assert judge(res, "lower", 0.1, levels, sd).detectable_excess == pytest.approx(0.2, abs=1e-12)
    side = judge(res, "upper", 0.1, levels, sd, side="lower")
    assert side.detectable_excess == pytest.approx(0.2, abs=1e-12)


def test_judge_adds_the_regime_sentence_only_outside_the_learning_regime():
    # a violation in the learning regime passes the gates unchanged (its reason is the fit's
    # sentence); outside it there is no demonstrated violation, and the regime's sentence ends it
    res = RuleResult("R", "CONTRADICTED", 0.9, 0.8, 1.0, 0.5)
    levels, sd = [1.0, 10.0, 100.0], np.zeros(3)
    learning = judge(res, "upper", 0.1, levels, sd, ("learning", "WHY-LEARNING"))
    early = judge(res, "upper", 0.1, levels, sd, ("pre-asymptotic", "WHY-EARLY"))
    assert learning.shared == "exceeds" and early.shared == "inconclusive"
    assert "no demonstrated violation" in early.reason
    assert "WHY-LEARNING" not in learning.reason
    assert early.reason.endswith("; WHY-EARLY")


# ---- the rules' own settings ---------------------------------------------------------------------


def test_loglog_slope_uses_the_configured_bootstrap_size_and_seed_zero():
    # config/config.yaml audit.bootstrap = 2000 = B of docs/audit/rates.md; seed 0
    B = load_yaml(ROOT / "config/config.yaml")["audit"]["bootstrap"]
    rng = np.random.default_rng(11)
    x = np.array([10.0, 100.0, 1000.0])
    R = x[:, None] ** 0.5 * rng.lognormal(0.0, 0.5, size=(3, 40))  # 40 trials: few ties
    ref = fit_exponent(x, R.T, B, 0, paired=False)
    assert loglog_slope(x, R) == (ref.slope, ref.ci_low, ref.ci_high)


def test_gap_t_resamples_trials_jointly_by_default():
    # R-GAP-T works on checkpoints of one run: paired by default, so a power law with trial
    # factors has a point interval at its exponent (independent resampling would not)
    T = 2.0 ** np.arange(12, 16)
    res = rule_gap_t(T, _power_law(T, 0.5))
    assert res.statistic == pytest.approx(0.5, rel=1e-9)
    assert res.ci_high - res.ci_low < 1e-9
    assert res.verdict == "UB-LIKE"  # surely above 0.30


def test_scale_rule_claims_linear_growth_in_the_size():
    # claimed exponent 1 (R-SCALE, tolerance 0.15). R-SCALE resamples each size independently,
    # so the trials here are identical (E = K^b for all 6): every interval is the point b.
    # Slope 1 is SUPPORTED, slope 1.3 > 1 + 0.15 is CONTRADICTED
    K = np.array([2.0, 4.0, 8.0, 16.0])
    ok = rule_scale("R-SCALE-K", K, np.tile(K[:, None], 6))
    assert ok.claimed == 1.0 and ok.verdict == "SUPPORTED"
    assert (ok.statistic, ok.ci_low, ok.ci_high) == pytest.approx((1.0, 1.0, 1.0), rel=1e-9)
    assert rule_scale("R-SCALE-K", K, np.tile(K[:, None] ** 1.3, 6)).verdict == "CONTRADICTED"
