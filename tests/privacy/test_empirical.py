"""The empirical auditor (privacy/empirical.py; docs/mutation.md).

Its lower bounds are the evidence against an accountant; pinned: the linear score (the Gaussian
log-likelihood ratio with the pooled variance), the void test (error rates summing to at least
``1 - delta`` certify nothing), the selection rule (smoothed point estimates
``(k + 1/2)/(n + 1)``, every observed value a candidate for at most ``4 * 200`` distinct scores)
and the default ``alpha = 0.05`` of :func:`threshold_audit`.
"""

import math
import warnings

import numpy as np
import pytest
from scipy.stats import beta, norm

from dpbandits.privacy.empirical import linear_score, threshold_audit


def test_linear_score_is_the_gaussian_log_likelihood_ratio():
    # coordinate 0: D0 values -0.5, 0.5 and D1 values 0.5, 1.5 (means 0 and 1, MLE variances
    # 1/4 and 1/4, pooled 1/4); coordinate 1: D0 0, 4 and D1 5, 7 (means 2 and 6, variances 4 and
    # 1, pooled 5/2). For N(m0, v) against N(m1, v) the log-likelihood ratio is linear in the
    # output with slope (m1 - m0)/v: 4 and 1.6, one coordinate below and one above variance 1.
    sel0 = np.array([[-0.5, 0.0], [0.5, 4.0]])
    sel1 = np.array([[0.5, 5.0], [1.5, 7.0]])
    score = linear_score(sel0, sel1)

    def llr(o, m0, m1, v):
        return norm.logpdf(o, m1, math.sqrt(v)) - norm.logpdf(o, m0, math.sqrt(v))

    base = score(np.array([[0.0, 0.0]]))[0]
    for j, (m0, m1, v) in enumerate(((0.0, 1.0, 0.25), (2.0, 6.0, 2.5))):
        for o in (1.0, -2.0, 3.5):
            out = np.zeros((1, 2))
            out[0, j] = o
            want = llr(o, m0, m1, v) - llr(0.0, m0, m1, v)
            assert score(out)[0] - base == pytest.approx(want, rel=1e-12)


def test_linear_score_without_spread_weights_by_mean_difference_without_dividing_by_zero():
    # coordinate 1 is constant within each input (variance 0): weight = mean difference 7 - 3;
    # coordinate 0 has variance 1 in both inputs and mean difference 2: weight 2
    sel0 = np.array([[-1.0, 3.0], [1.0, 3.0]])
    sel1 = np.array([[1.0, 7.0], [3.0, 7.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the zero variance must never be divided by
        score = linear_score(sel0, sel1)
        got = score(np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]]))
    assert got.tolist() == [4.0, 2.0, 0.0]


@pytest.mark.parametrize("delta", [0.0, 0.01])
def test_a_test_that_never_says_d1_certifies_nothing(delta):
    # selection: D0 scores 0, D1 scores 1, so the threshold 0 separates them perfectly. On the
    # evaluation half every D1 score is 0 as well: FPR = 0, FNR = 1. Both DP inequalities
    # FPR + e^eps FNR >= 1 - delta and FNR + e^eps FPR >= 1 - delta hold at eps = 0, so the
    # statistic (point estimate and confidence bound) must be 0, not the void ln(0/0).
    zeros, ones = np.zeros(50), np.ones(50)
    res = threshold_audit(zeros, ones, zeros, zeros, delta)
    assert res.threshold == 0.0 and res.fpr == 0.0 and res.fnr == 1.0
    assert res.epsilon_point == 0.0 and res.epsilon_lb == 0.0


def test_threshold_audit_default_alpha_is_005():
    # 0/1 scores: on both halves 7 of 400 D0 scores are 1 and 9 of 500 D1 scores are 0, the
    # threshold is 0; default alpha = 0.05: one-sided Clopper-Pearson limits at 0.975
    # (Beta(k + 1, n - k) quantiles), as audit() uses by default.
    n0, n1, k0, k1, delta = 400, 500, 7, 9, 1e-3
    s0 = np.r_[np.zeros(n0 - k0), np.ones(k0)]
    s1 = np.r_[np.zeros(k1), np.ones(n1 - k1)]
    res = threshold_audit(s0, s1, s0, s1, delta)
    assert res.threshold == 0.0
    fpr_hi = beta.ppf(0.975, k0 + 1, n0 - k0)
    fnr_hi = beta.ppf(0.975, k1 + 1, n1 - k1)
    want = max(math.log((1 - delta - fnr_hi) / fpr_hi), math.log((1 - delta - fpr_hi) / fnr_hi))
    assert res.epsilon_lb == pytest.approx(want, rel=1e-9)


def test_selection_uses_half_count_smoothing():
    # D0 scores {0, 2} (n0 = 2), D1 scores {0, 1, 2} (n1 = 3), delta = 0. Smoothed rates
    # (k + 1/2)/(n + 1) per candidate threshold t (false positives s0 > t, false negatives
    # s1 <= t):
    #   t = 0: FPR = 1.5/3 = 1/2,  FNR = 1.5/4 = 3/8: max(ln(5/8 / 1/2), ln(1/2 / 3/8)) = ln(4/3)
    #   t = 1: FPR = 1/2, FNR = 2.5/4 = 5/8: both logs negative
    #   t = 2: FPR = 0.5/3 = 1/6, FNR = 3.5/4 = 7/8: max(ln(3/4), ln(20/21)) < 0
    # so t = 0 wins (with n0 instead of n0 + 1, or n0 - 1, in the FPR's denominator t = 2 would).
    s0, s1 = np.array([0.0, 2.0]), np.array([0.0, 1.0, 2.0])
    assert threshold_audit(s0, s1, s0, s1, 0.0).threshold == 0.0


def test_up_to_800_distinct_scores_every_observed_value_is_a_candidate():
    # 800 distinct scores (D0: 0..399, D1: 400..799) with the default 200 thresholds: discrete
    # (at most 4 * 200 distinct values), so the candidates are the observed values and the
    # perfectly separating threshold is the largest D0 score, 399. (The quantiles of the pooled
    # scores at linspace(0, 1, 200) are 799 k/199: none lies in [399, 400).)
    s0, s1 = np.arange(400.0), np.arange(400.0, 800.0)
    res = threshold_audit(s0, s1, s0, s1, 0.01)
    assert res.threshold == 399.0 and res.fpr == 0.0 and res.fnr == 0.0
