"""Both bounds of the privacy audit: planted cases that the old rule (upper bound only, Gaussian
approximation of P_Vec, 1 + ceil(log2 T) tree nodes) got wrong."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandits.audit import privacy as pa
from dpbandits.mechanisms.tree import n_levels, released_nodes
from dpbandits.mechanisms.vec import VecParams
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
    # in batches of n = 20: the batch sum's Gaussian mechanism gives 0.030 < 0.2
    L = math.sqrt(2.0)
    sigma = rel.joint_sensitivity(L) / 1.2685076738272558
    parts = (math.sqrt(2 * L * L + 1) / sigma, math.sqrt(2 * L**4 - 0.5) / sigma)
    lower, how = rel.shuffled_gaussian_lower(parts, 20, 0.1)
    assert lower == pytest.approx(0.02977, abs=1e-4) and "sum" in how
    assert pa.verdict(0.2, 1.7608, True, lower) == "NOT-CERTIFIED"
    # at nominal 1 (ratio 6.3425, upper 27.34) the separate shuffles' maxima give 21.35 > 1
    sigma = rel.joint_sensitivity(L) / 6.342538725319037
    parts = (math.sqrt(2 * L * L + 1) / sigma, math.sqrt(2 * L**4 - 0.5) / sigma)
    lower, _ = rel.shuffled_gaussian_lower(parts, 20, 0.1)
    assert 21.3 < lower < 21.4
    assert pa.verdict(1.0, 27.34, True, lower) == "VIOLATED"


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
