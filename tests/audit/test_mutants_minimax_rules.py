"""Tests that kill mutants left alive in audit/minimax_rules.py (docs/mutation.md).

The rules' statistics are those of docs/auditing.md ("Statistics of the figure-less audits": 95 %
percentile bootstrap, B = 2000, seed 0, paired or independent resampling). Regret matrices here
are noiseless power laws with trial factors, ``R[j, i] = c_i x_j^b``: a paired resample (the same
trials at every level) has means ``mean(c) x^b``, so its slope and interval are exactly ``b``
(up to rounding, 1e-9). With ``log_sd = 0`` the power draws of
:func:`dpbandits.audit.verdicts.detectable_excess` are all 0, so the detectable excess is exactly
``tol + half-width``.
"""

from pathlib import Path

import numpy as np
import pytest

from dpbandits.audit.fits import fit_exponent
from dpbandits.audit.minimax_rules import (
    RuleResult,
    judge,
    loglog_slope,
    rule_gap_t,
    rule_scale,
)
from dpbandits.config import load_yaml

ROOT = Path(__file__).resolve().parents[2]
FACTORS = np.array([1.0, 2.0, 3.0, 5.0, 8.0, 13.0])  # trial factors c_i, widely spread


def _power_law(levels, b):
    """R[j, i] = c_i x_j^b (rows are levels)."""
    return np.asarray(levels, float)[:, None] ** b * FACTORS[None, :]


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
    # config/config.yaml audit.bootstrap = 2000 = B of docs/auditing.md; seed 0
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
