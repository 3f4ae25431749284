"""The planted cases of the empirical privacy audit (privacy/cases.py; docs/mutation.md).

The delivered epsilons are checked against sensitivities worked out by hand for each case's
neighbouring pair (then converted with the library's ``gaussian_epsilon``), the samplers on
seeded draws whose outcome is fixed by the pair, and ``all_cases`` against the settings the
audit table reports (names of the controls, d = 5 of the cz22 figures).
"""

import math

import numpy as np
import pytest

from dpbandits.mechanisms.gaussian import s_amp_experiment, s_ldp_experiment
from dpbandits.mechanisms.shuffle_sum import scalar_params
from dpbandits.policies.dpdpe import sigma_nc, sigma_nl
from dpbandits.policies.private_lasso import plasso_constants
from dpbandits.privacy.accounting import gaussian_epsilon
from dpbandits.privacy.cases import (
    all_cases,
    amp_shuffle_case,
    dpdpe_gaussian_case,
    gaussian_randomizer_case,
    pe_shuffle_case,
    svt_query_case,
    svt_screen_case,
)

L = math.sqrt(2.0)
# The Delta_J pair at L = sqrt 2 (cos = -1/(2 L^2) = -1/4): x0 = (sqrt 2, 0),
# x1 = (-sqrt 2/4, sqrt 2 sqrt 15/4), reward 1. Whitened squared distance of (x r, x x^T) with
# std s on x and on the diagonal, s/sqrt 2 off it: ||x1 - x0||^2 = 2 L^2 + 1 = 5; diagonal
# (1/8 - 2)^2 + (15/8)^2 = 450/64; off-diagonal 2 (x1_0 x1_1)^2 = 2 * 15/64 = 30/64;
# total (5 + 7.5)/s^2 = 12.5/s^2.
DELTA_J_SQ = 12.5


@pytest.mark.parametrize("eps", [0.2, 1.0])
def test_gaussian_randomizer_delivered_is_the_delta_j_pair(eps):
    """At L = sqrt 2 (above) and at L = 1: cos = -1/2, x0 = (1, 0), x1 = (-1/2, sqrt 3/2):
    ||x1 - x0||^2 = 3, diagonal (1/4 - 1)^2 + (3/4)^2 = 18/16, off-diagonal 2 * 3/16 = 6/16;
    total 4.5 (Delta_J(1) = sqrt 4.5 = 2.12, docs/audit/privacy.md)."""
    s = s_ldp_experiment(eps, 0.1)
    at_one = gaussian_randomizer_case(eps, 0.1, 5, 1.0)
    assert at_one.delivered == pytest.approx(gaussian_epsilon(s, math.sqrt(4.5), 0.1), rel=1e-12)
    case = gaussian_randomizer_case(eps, 0.1, 5, L)
    want = gaussian_epsilon(s, math.sqrt(DELTA_J_SQ), 0.1)
    assert case.delivered == pytest.approx(want, rel=1e-12)
    if eps == 1.0:
        assert case.delivered == pytest.approx(3.71, abs=0.005)  # docs/audit/privacy.md, script LDP


def test_amp_shuffle_delivered_is_the_delta_j_pair_of_one_user():
    """Both users' messages carry reward 1; the local guarantee is the randomizer's on the
    same pair with P_Amp's noise: 27.3 at eps = 1 (docs/audit/privacy.md)."""
    case = amp_shuffle_case(1.0, 0.1, 5, L, 20)
    want = gaussian_epsilon(s_amp_experiment(1.0, 0.1, 20), math.sqrt(DELTA_J_SQ), 0.1)
    assert case.delivered == pytest.approx(want, rel=1e-12)
    assert case.delivered == pytest.approx(27.3, abs=0.05)


def test_amp_shuffle_scores_the_two_shuffles_separately():
    """Algorithm 1 shuffles vector and matrix messages separately: the score is the largest
    vector projection plus the largest matrix projection, which may come from two users. With
    the same draws, the old score (the largest projection of a whole message, one user) is never
    larger, and differs on most samples."""
    case = amp_shuffle_case(1.0, 0.1, 5, L, 20)
    sep = case.sampler(1, 200, np.random.default_rng(3))
    d = 5
    from dpbandits.mechanisms.gaussian import draw_packed, entry_scales
    from dpbandits.privacy.cases import _pair, _stat

    x0, x1 = (np.pad(v, (0, d - 2)) for v in _pair(L))
    m0, m1 = _stat(x0, 1.0), _stat(x1, 1.0)
    scales = entry_scales(d, s_amp_experiment(1.0, 0.1, 20), "half_sum")
    w = (m1 - m0) / scales**2
    msgs = draw_packed(np.random.default_rng(3), 200 * 20, scales).reshape(200, 20, -1)
    msgs[:, 0, :] += m1
    joint = (msgs @ w).max(axis=1)
    assert np.allclose(sep, (msgs[:, :, :d] @ w[:d]).max(axis=1) + (msgs[:, :, d:] @ w[d:]).max(1))
    assert (sep >= joint - 1e-12).all() and (sep > joint + 1e-9).mean() > 0.5


def test_dpdpe_gaussian_pairs_have_the_clipped_report_distance():
    """Reports -1 vs +1 in each of s = 4 coordinates: the local release moves by
    2 sqrt(s) = 4, the central mean of n = 4 clients by 2 sqrt(s)/n = 1."""
    local = dpdpe_gaussian_case(10.0, 0.25, 4)
    want = gaussian_epsilon(sigma_nl(4, 10.0, 0.25, 1.0), 4.0, 0.25)
    assert local.delivered == pytest.approx(want, rel=1e-12)
    central = dpdpe_gaussian_case(10.0, 0.25, 4, n=4)
    want = gaussian_epsilon(sigma_nc(4, 4, 10.0, 0.25, 1.0), 1.0, 0.25)
    assert central.delivered == pytest.approx(want, rel=1e-12)


def test_svt_query_nominal_is_one_over_two_xi():
    """One comparison with value noise Lap(2 xi): 1/(2 xi)-DP; the control divides xi by 100."""
    xi = plasso_constants(2**14, 100, 5, 2, 1e4).xi
    assert svt_query_case(1e4).nominal == pytest.approx(1 / (2 * xi), rel=1e-12)
    control = svt_query_case(1e4, divide=100.0)
    assert control.nominal == pytest.approx(1 / (2 * xi), rel=1e-12)
    assert control.delivered == pytest.approx(100 / (2 * xi), rel=1e-12)


def test_svt_screen_pair_straddles_the_cut():
    """D0 lies just above the screening cut 4 lambda_t (in S0), D1 just below (never in S0, so
    never selected). At eps = 100 > 1 - delta, Gamma < 0: the threshold is negative, below
    |theta|, and with nu - zeta symmetric the selection probability is at least 1/2; over 400
    draws the share stays above 1/2 - 5 SE (SE <= 0.5/sqrt(400) = 0.025)."""
    case = svt_screen_case(1e2)
    assert not case.sampler(1, 400, np.random.default_rng(1)).any()
    assert case.sampler(0, 400, np.random.default_rng(2)).mean() >= 0.5 - 5 * 0.025


def test_pe_shuffle_pair_differs_by_g_ones_under_common_draws():
    """The user's report -1 vs +1 encodes to 0 vs g ones (integers: no rounding draw), so with
    the same stream the counts differ by exactly g in every draw."""
    case = pe_shuffle_case(10.0, 0.25, 4)
    g = scalar_params(10.0, 0.25, 4, 1.0).g
    for seed in range(3):
        lo = case.sampler(0, 50, np.random.default_rng(seed))
        hi = case.sampler(1, 50, np.random.default_rng(seed))
        assert np.all(hi - lo == g)


def test_all_cases_report_the_documented_settings():
    """privacy_empirical.csv: the cz22 rows are at d = 5 (the figures'), and the controls are
    named after their under-noising factor (Gaussian and tree noise / 10, xi / 100, b -> 1)."""
    cases = all_cases()
    for c in cases:
        if c.represents.startswith("cz22"):
            assert "d = 5" in c.represents, c.represents
    controls = [c.name for c in cases if c.control]
    assert controls == [
        "Gaussian randomizer (x r, x x^T), LDP noise / 10",
        "P_Vec scalar-sum bits (b = 1) under-noised",
        "sparse vector step, one query (xi / 100)",
        "tree aggregation, 16 leaves, node noise / 10",
    ]
    assert not any("under-noised" in c.name for c in cases if not c.control)
    # the Gaussian randomizer's outputs pack (x r, x x^T) in d = 5: 5 + 15 entries
    gauss = [c for c in cases if c.name.startswith("Gaussian randomizer")]
    assert len(gauss) == 3
    for c in gauss:
        assert c.sampler(0, 3, np.random.default_rng(0)).shape == (3, 20)
