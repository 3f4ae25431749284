"""Both bounds of the privacy audit: planted cases that the old rule (upper bound only, Gaussian
approximation of P_Vec, 1 + ceil(log2 T) tree nodes) got wrong."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandits.audit import privacy as pa
from dpbandits.mechanisms.tree import n_levels, released_nodes
from dpbandits.mechanisms.vec import VecParams
from dpbandits.privacy import binomial_shift, lower_bounds
from dpbandits.privacy import releases as rel


def test_released_tree_nodes_by_hand():
    # prefixes 1..T-1 released: leaf 1 is in nodes (j, 1) with 2^j <= T - 1
    # T = 16: 2^0..2^3 <= 15 -> 4 nodes (SS18's m = 1 + 4 = 5); T = 17: 2^0..2^4 <= 16 -> 5
    assert [released_nodes(T) for T in (1, 2, 3, 4, 5, 16, 17, 2000)] == [0, 1, 2, 2, 3, 4, 5, 11]
    assert all(released_nodes(T) == n_levels(T) - 1 for T in (2, 16, 2000, 4096))


def test_vec_count_pair_by_hand():
    # B = 2 users, b_trials = 1, p = 1/4, g = 2, Delta = 1. The other user at 0: z = 2, no
    # rounding. The user at v0 = -1 (z = 0) or v1 = 0.25 (z = 2.5: 2 or 3 ones, 1/2 each).
    # Counts: user + other (2) + Binomial(2, 1/4) = (9/16, 6/16, 1/16) on 0, 1, 2.
    prm = VecParams(g=2.0, b=1.0, p=0.25, b_trials=1, b_debias=1.0)
    (k0, p0), (k1, p1) = rel.vec_count_pair(prm, 2, 1.0, -1.0, 0.25)
    assert k0.tolist() == [2, 3, 4] and p0 == pytest.approx([9 / 16, 6 / 16, 1 / 16])
    # user at z = 2.5: 2 + 2 + Bin, 3 + 2 + Bin with 1/2 each
    assert k1.tolist() == [4, 5, 6, 7]
    assert p1 == pytest.approx([9 / 32, 15 / 32, 7 / 32, 1 / 32])


def test_shift_certificate_by_hand():
    # Binomial(1, 1/2) vs shifted by 1: outcomes {0, 1} vs {1, 2}: mass 1/2 with infinite loss
    # each way -> not private at delta < 1/2; at delta = 0.6 the rest has zero loss: eps 0
    assert rel.shift_epsilon(1, 0.5, ((1, 1),), 0.4) == math.inf
    assert rel.shift_epsilon(1, 0.5, ((1, 1),), 0.6) == pytest.approx(0.0, abs=1e-3)
    # no binomial bits: any shift is told apart
    assert rel.shift_epsilon(0, 0.25, ((1, 3),), 0.1) == math.inf


def test_pvec_with_one_trial_reads_not_private():
    # cz22's script calibration at eps = 10 draws floor(b) = 1 trial per user (B = 20, d = 5,
    # L = Delta = sqrt 2): a count near the end of its range tells the pair apart with
    # probability far above delta = 0.1; the old Gaussian approximation read a finite 80.5
    from dpbandits.mechanisms.vec import vec_params_experiment

    L = math.sqrt(2.0)
    prm = vec_params_experiment(10.0, 0.1, 20, 5, truncate_b=False)
    assert prm.b_trials == 1
    release = rel.vec_release(prm, 20, 5, L, L, 1, 0.1)
    b = pa.release_bounds(release, 10.0, 0.1)
    assert b["lower_epsilon"] == math.inf and b["verdict"] == "NOT-PRIVATE"


def test_a_lower_bound_above_the_label_reads_violated():
    # a local Gaussian mechanism whose exact sensitivity is attained: lower = upper
    from dpbandits.privacy.accounting import Component

    release = rel.Release("planted", (Component("gaussian", 1.0, 2.0),), tight=True)
    b = pa.release_bounds(release, 1.0, 0.1)
    assert b["lower_epsilon"] == pytest.approx(b["delivered_epsilon"]) and b["lower_epsilon"] > 1
    assert b["verdict"] == "VIOLATED"  # the old rule's EXCEEDED did not tell this apart


def test_upper_above_label_with_a_lower_bound_below_reads_not_certified():
    # cz22 r1 SDP-Amp at nominal 0.2: local guarantee 1.76 (Delta_J / sigma = 1.2685), shuffled
    # in batches of n = 20: the batch sum's Gaussian mechanism gives 0.030 < 0.2; the sum of the
    # messages' quantised likelihood ratios (the optimal test's statistic) gives more, still < 0.2
    L = math.sqrt(2.0)
    sigma = rel.joint_sensitivity(L) / 1.2685076738272558
    parts = (math.sqrt(2 * L * L + 1) / sigma, math.sqrt(2 * L**4 - 0.5) / sigma)
    from dpbandits.privacy.accounting import gaussian_epsilon

    summed = gaussian_epsilon(math.sqrt(20), math.hypot(*parts), 0.1)
    assert summed == pytest.approx(0.02977, abs=1e-4)
    lower, how = rel.shuffled_gaussian_lower(parts, 20, 0.1)
    assert 3 * summed < lower < 0.2 and "likelihood ratios" in how
    assert pa.verdict(0.2, 1.7608, True, lower) == "NOT-CERTIFIED"
    # the other users at a third input z = L e_3 (the messages' (x r, x x^T) at whitened
    # distances sqrt(2 L^2) / sigma and sqrt(2 L^4) / sigma from the pair's): the differing
    # message stands out, and the bound reaches the independent referee's 0.12 (quoted to two
    # digits: [0.115, 0.125)); still below 0.2, so the verdict stays NOT-CERTIFIED
    apex = rel._apex_sides(L, sigma, "half_sum")
    third, how = rel.shuffled_gaussian_lower(parts, 20, 0.1, apex)
    assert 0.115 <= third < 0.125 and lower < third and "third input" in how
    assert pa.verdict(0.2, 1.7608, True, third) == "NOT-CERTIFIED"

    # at nominal 1 (ratio 6.3425, upper 27.34) the separate shuffles' maxima give 21.35 > 1
    sigma = rel.joint_sensitivity(L) / 6.342538725319037
    parts = (math.sqrt(2 * L * L + 1) / sigma, math.sqrt(2 * L**4 - 0.5) / sigma)
    lower, _ = rel.shuffled_gaussian_lower(parts, 20, 0.1)
    assert 21.3 < lower < 21.4
    assert pa.verdict(1.0, 27.34, True, lower) == "VIOLATED"


def test_apex_sides_by_hand():
    # L = sqrt 2, sigma = 1: ||z - x0||^2 = 2 L^2 = 4; ||z z^T - x0 x0^T||_F^2 = 2 L^4 = 8, of
    # which the off-diagonal pair (ab)^2 = 1/16 twice: 8 - 1/16 under the mirrored triangle
    L = math.sqrt(2.0)
    assert rel._apex_sides(L, 1.0, "half_sum") == pytest.approx((2.0, math.sqrt(8.0)))
    assert rel._apex_sides(L, 1.0, "upper_mirror") == pytest.approx((2.0, math.sqrt(7.9375)))
    assert rel._apex_sides(L, 2.0, "half_sum") == pytest.approx((1.0, math.sqrt(2.0)))


def test_third_input_bound_is_a_post_processing_of_the_unshuffled_pair():
    # whatever the other users hold, the shuffled multiset is a post-processing of the
    # differing user's own messages (the others' are independent of its data): the bound can
    # never exceed the pair's exact Gaussian epsilon. Far from the others (apex 8 sd) the
    # differing message is told apart and the bound rises well above the first input's
    # (planted: others at the first input hide it); near them it stays below the exact value
    from dpbandits.privacy.accounting import gaussian_epsilon
    from dpbandits.privacy.lower_bounds import shuffled_gaussian_lower

    parts = (0.8, 1.0)
    exact = gaussian_epsilon(1.0, math.hypot(*parts), 0.1)  # 1.790
    first, _ = shuffled_gaussian_lower(parts, 20, 0.1)
    far, how = shuffled_gaussian_lower(parts, 20, 0.1, (8.0, 8.0))
    assert "third input" in how and far > 3 * first and far <= exact + 1e-9
    near, _ = shuffled_gaussian_lower((0.5,), 5, 0.1, (5.0,))
    assert near <= gaussian_epsilon(1.0, 0.5, 0.1) + 1e-9


def test_likelihood_ratio_sum_of_one_message_is_the_gaussian_mechanism():
    # n = 1: the statistic is the quantised likelihood ratio of one Gaussian message shifted by r,
    # a post-processing of the Gaussian mechanism of ratio 1 / r: at most its exact epsilon, and
    # close to it (the rounding loses at most one step of 1000 over a range of 4 sd either side)
    from dpbandits.privacy.accounting import gaussian_epsilon

    for r in (0.5, 1.0, 2.0):
        lower = lower_bounds._composed_lower([lower_bounds._lr_sum_pair(r, 1)], 0.1)
        exact = gaussian_epsilon(1.0, r, 0.1)
        assert exact * 0.98 <= lower <= exact + 1e-9


def test_one_differing_message_convolves_the_others_and_drops_unreached_levels():
    # two messages with levels 0/1 at 1/2 each, the differing one at level 1 (P) or 0 (Q):
    # the sums are 1 + {0, 1} and 0 + {0, 1}, by hand
    P, Q = lower_bounds._one_differs(np.array([0.5, 0.5]), np.array([0.0, 1.0]),
                                     np.array([1.0, 0.0]), 2)  # fmt: skip
    assert P.tolist() == [0.0, 0.5, 0.5] and Q.tolist() == [0.5, 0.5, 0.0]
    # sums 1 and 2 are reached on neither side: dropped; each side sums to one
    P, Q = lower_bounds._one_differs(np.array([2.0, 0.0]), np.array([1.0, 0.0]),
                                     np.array([3.0, 0.0]), 2)  # fmt: skip
    assert P.tolist() == [1.0] and Q.tolist() == [1.0]


def test_optimistic_pld_is_below_the_pessimistic_one():
    from dpbandits.privacy.accounting import pmf_pair_pld
    from dpbandits.privacy.pld_arrays import epsilon_for_delta

    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])
    hi = epsilon_for_delta(pmf_pair_pld(p, q), 0.01)
    lo = epsilon_for_delta(pmf_pair_pld(p, q, pessimistic=False), 0.01)
    # exact: only outcome 2 (resp. 0) has positive loss ln(5/2); 0.5 - e^eps 0.2 = 0.01 gives
    # eps = ln 2.45 = 0.8961; the two roundings bracket it within one interval (1e-4)
    exact = math.log(2.45)
    assert lo <= exact + 1e-12 <= hi + 1e-12 and hi - lo <= 2e-4


def test_total_variation_of_a_shifted_binomial_by_hand():
    # Binomial(2, 1/2) = (1/4, 1/2, 1/4) against itself shifted by 1, (0, 1/4, 1/2, 1/4):
    # TV = (1/4 + 1/4 + 1/4 + 1/4) / 2 = 1/2; two entries compose to at most 1
    ks, ps = np.arange(3), np.array([0.25, 0.5, 0.25])
    pair = ((ks, ps), (ks + 1, ps))
    assert binomial_shift._total_variation(((pair, 1),)) == pytest.approx(0.5)
    assert binomial_shift._total_variation(((pair, 2),)) == pytest.approx(1.0)


def test_zero_certificate_from_total_variation_agrees_with_the_pld():
    # a shift of 1 over a binomial with sd ~ 50: TV ~ 0.008, below delta = 0.1, so epsilon 0;
    # the privacy loss distribution (losses rounded up) says the same
    from dpbandits.privacy.pld_arrays import epsilon_for_delta

    N, p, shifts = 10_000, 0.5, ((1, 3),)
    tv = binomial_shift._total_variation(binomial_shift._shift_pairs(N, p, shifts))
    assert 0.0 < tv < 0.05
    assert rel.shift_epsilon(N, p, shifts, 0.1) == 0.0
    assert epsilon_for_delta(binomial_shift._shift_pld(N, p, shifts), 0.1) == 0.0
    # below the distance, the certificate is positive
    assert rel.shift_epsilon(N, p, shifts, tv / 2) > 0.0


def _theory_policy(alg: str, eps: float, B: int):
    from dpbandits.policies import Quirks, Setting, make_policy

    setting = Setting(T=20480, d=5, epsilon=eps, delta=0.1, B=B)
    return make_policy(alg, setting, "theory", Quirks.from_fidelity("corrected"))


def test_stated_local_levels_by_hand():
    # Thm B.1's proof: eps0 = eps sqrt(B / ln(2/delta)), delta0 = delta / B; Cor. C.2's proof:
    # eps0 = eps sqrt(B), delta0 = delta. eps = 0.04, B = 80, delta = 0.1: ln 20 = 2.995732,
    # sqrt(80 / 2.995732) = 5.167692, so eps0 = 0.206708; P_Vec at eps = 1, B = 20: sqrt(20)
    eps0, delta0 = _theory_policy("sdp_amp", 0.04, 80).stated_local_level()
    assert eps0 == pytest.approx(0.206708, rel=1e-5) and delta0 == pytest.approx(0.1 / 80)
    eps0, delta0 = _theory_policy("sdp_vec", 1.0, 20).stated_local_level()
    assert eps0 == pytest.approx(math.sqrt(20)) and delta0 == 0.1


def test_local_view_meets_the_stated_level_and_a_tenth_of_the_noise_violates_it():
    # the local view of P_Amp under Thm 3.2's sigma is a Gaussian mechanism whose worst pair is
    # attained (lower = upper): within the stated level; with sigma / 10 its lower bound is above
    import dataclasses

    policy = _theory_policy("sdp_amp", 0.04, 320)
    eps0, delta0 = policy.stated_local_level()
    release = rel.cz22_local_release(policy, rel.PAPER_CZ22)
    met = pa.release_bounds(release, eps0, delta0)
    assert met["verdict"] == "DELIVERED" and 0 < met["delivered_epsilon"] <= eps0
    comp = release.components[0]
    planted = dataclasses.replace(
        release, components=(dataclasses.replace(comp, scale=comp.scale / 10),)
    )
    assert pa.release_bounds(planted, eps0, delta0)["verdict"] == "VIOLATED"
    # P_Vec: one user's own binomial bits (B = 1) under Thm C.1's b at batch size 320
    policy = _theory_policy("sdp_vec", 10.0, 320)
    eps0, delta0 = policy.stated_local_level()
    vec = pa.release_bounds(rel.cz22_local_release(policy, rel.PAPER_CZ22), eps0, delta0)
    assert vec["verdict"] == "DELIVERED" and 0 < vec["delivered_epsilon"] <= eps0


def test_the_mode_bound_on_total_variation_by_hand_and_against_the_arrays():
    # Binomial(2, 1/2) shifted by 1: p_mode = 1/2 = the exact distance; shifted by k the bound is
    # k p_mode, at least the exact distance of the arrays
    assert binomial_shift._mode_total_variation(2, 0.5, ((1, 1),)) == pytest.approx(0.5)
    for N, k, c in ((10_000, 3, 2), (400, 1, 5), (50_000, 40, 1)):
        exact = binomial_shift._total_variation(binomial_shift._shift_pairs(N, 0.3, ((k, c),)))
        assert exact <= binomial_shift._mode_total_variation(N, 0.3, ((k, c),)) + 1e-12
    # Thm E.5's b for returning users (N near 1e15): certified 0 at delta = 0.1 without arrays
    assert rel.shift_epsilon(8 * 10**14, 0.25, ((77, 70), (54, 210)), 0.1) == 0.0


@pytest.mark.parametrize("N,k,c", [(200_000, 3, 5), (50_000, 40, 2), (10**7, 30, 20)])
def test_privacy_loss_from_the_binomial_cdf_equals_the_one_from_its_arrays(N, k, c):
    # the CDF construction (used for huge binomials, no pmf arrays) puts each loss bucket's mass
    # from CDF differences: the same epsilon as the arrays' construction at every delta
    from dpbandits.privacy.accounting import PLD_INTERVAL
    from dpbandits.privacy.pld_arrays import epsilon_for_delta

    sd = math.sqrt(N * 0.25 * 0.75)
    step = max(PLD_INTERVAL * max(1.0, k / sd), 2 * rel.BINOMIAL_SDS * (k / sd) / rel.MAX_BUCKETS)
    cdf = binomial_shift._shift_pld_cdf(N, 0.25, k, c, step)  # the interval _shift_pld uses
    arrays = binomial_shift._shift_pld(N, 0.25, ((k, c),))
    for delta in (0.1, 1e-3, 1e-6):
        a, b = epsilon_for_delta(cdf, delta), epsilon_for_delta(arrays, delta)
        assert a == pytest.approx(b, abs=1e-9) and (delta > 1e-3 or a > 0)


def test_cdf_points_scipy_cannot_evaluate_are_moved_towards_larger_losses():
    # scipy's incomplete beta returns NaN near the median of Binomial(1.5e16, 1/4); the point is
    # moved (right for sign +1, left for -1) until finite, and the value is the CDF there
    from scipy.stats import binom

    N, x = 15191953884555264, 3797988471138717
    assert np.isnan(binom.cdf(x, N, 0.25))
    for sign in (+1, -1):
        moved, value = binomial_shift._cdf_moved(N, 0.25, np.array([x, x + 10**8]), sign)
        assert sign * (moved[0] - x) > 0 and moved[1] == x + 10**8
        assert np.all(np.isfinite(value)) and 0.49 < value[0] < 0.51
