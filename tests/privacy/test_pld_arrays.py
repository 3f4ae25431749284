"""The array construction of a pair's rounded privacy-loss pmf (privacy/pld_arrays.py) is
dp-accounting's own, number for number: the same buckets in the same order with the same masses,
the same infinity masses, hence the same epsilons and deltas."""

import functools
import math

import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as pld
from scipy.stats import binom

from dpbandits.privacy import accounting as acc
from dpbandits.privacy.pld_arrays import (
    _dense_epsilon,
    _prefix_within,
    compose,
    epsilon_for_delta,
    from_rounded,
    log_support,
    rounded_loss_pmf,
    self_compose,
    self_convolve_bounds,
)


def _library(p, q):
    def logs(m):
        items = m.items() if isinstance(m, dict) else enumerate(np.asarray(m, float))
        return {k: math.log(v) for k, v in items if v > 0}

    return pld.from_two_probability_mass_functions(logs(p), logs(q), symmetric=False)


def _pairs():
    rng = np.random.default_rng(0)
    out = []
    for n in (1, 5, 60, 1500):
        k = np.arange(n + 1)
        out.append((f"binomials n={n}", binom.pmf(k, n, 0.3), binom.pmf(k, n, 0.31)))
        shifted = binom.pmf(k, n, 0.5)
        out.append((f"shifted n={n}", shifted, np.roll(shifted, 1)))
        p, q = rng.random(n + 1), rng.random(n + 1)
        p[rng.random(n + 1) < 0.2] = 0.0  # outcomes of one side only: infinite loss
        q[rng.random(n + 1) < 0.2] = 0.0
        if p.sum() > 0 and q.sum() > 0:
            out.append((f"random supports n={n}", p / p.sum(), q / q.sum()))
    out.append(("dicts, unsorted keys", {3: 0.5, 1: 0.25, 7: 0.25}, {7: 0.5, 3: 0.5}))
    out.append(("identical", np.array([0.5, 0.5]), np.array([0.5, 0.5])))
    out.append(("disjoint", np.array([1.0, 0.0]), np.array([0.0, 1.0])))
    # many outcomes sharing one privacy-loss value and buckets gathering several values
    ties = np.repeat([0.1, 0.2, 0.3, 0.4], 25)
    out.append(("tied losses", ties / ties.sum(), ties[::-1] / ties.sum()))
    return out


@pytest.mark.parametrize("name,p,q", _pairs(), ids=[c[0] for c in _pairs()])
def test_rounded_loss_pmf_is_the_librarys(name, p, q):
    want = _library(p, q)
    lp, lq = log_support(p), log_support(q)
    for (lower, upper), pmf in (((lp, lq), want._pmf_remove), ((lq, lp), want._pmf_add)):
        inf_mass, rounded = rounded_loss_pmf(lower, upper, acc.PLD_INTERVAL)
        assert inf_mass == pmf._infinity_mass and type(inf_mass) is type(pmf._infinity_mass)
        if hasattr(pmf, "_loss_probs"):  # sparse: the dict itself (keys, order, masses)
            assert list(rounded.items()) == list(pmf._loss_probs.items())
        else:  # dense (more than 1000 buckets): the array made from the dict
            lo = min(rounded)
            assert pmf._lower_loss == lo
            dense = [rounded.get(i, 0) for i in range(lo, max(rounded) + 1)]
            assert np.array_equal(pmf._probs, np.array(dense))
    got = acc.pmf_pair_pld(p, q)
    for delta in (1e-9, 1e-4, 0.1):
        assert got.get_epsilon_for_delta(delta) == want.get_epsilon_for_delta(delta)


def test_a_changed_mass_changes_the_result():
    """The comparison above can fail: one outcome's mass moved by one part in 10^6 shows."""
    k = np.arange(41)
    p, q = binom.pmf(k, 40, 0.3), binom.pmf(k, 40, 0.35)
    q2 = q.copy()
    q2[12] *= 1 + 1e-6
    lp = log_support(p)
    _, a = rounded_loss_pmf(lp, log_support(q), acc.PLD_INTERVAL)
    _, b = rounded_loss_pmf(lp, log_support(q2), acc.PLD_INTERVAL)
    assert list(a.items()) != list(b.items())


@functools.lru_cache(maxsize=1)
def _dists():
    k = np.arange(401)
    p, q = binom.pmf(k, 400, 0.3), binom.pmf(k, 400, 0.32)
    pair = acc.pmf_pair_pld(p, q)
    out = [("pair", pair), ("pair composed 6", pair.self_compose(6))]
    out.append(("pair composed 40", acc.pmf_pair_pld(p, q, count=40)))
    out.append(("gaussian", pld.from_gaussian_mechanism(2.0, value_discretization_interval=1e-3)))
    lap = pld.from_laplace_mechanism(1.5, value_discretization_interval=1e-3)
    out.append(("laplace composed 20", lap.self_compose(20)))
    disjoint = acc.pmf_pair_pld(np.array([0.6, 0.4, 0.0]), np.array([0.0, 0.5, 0.5]))
    out.append(("infinite loss mass", disjoint))
    return out


@pytest.mark.parametrize("name,dist", _dists(), ids=[c[0] for c in _dists()])
def test_epsilon_for_delta_is_the_librarys(name, dist):
    for delta in (1e-12, 1e-6, 0.6, 0.99):
        want = float(dist.get_epsilon_for_delta(delta))
        assert epsilon_for_delta(dist, delta) == want, (name, delta)


def test_the_composed_cases_exercise_the_compiled_walk():
    """Dense pmfs (the compiled path) are among the cases above, and a planted change of one
    bucket's mass changes the epsilon the walk returns (the comparison can fail)."""
    from dp_accounting.pld import pld_pmf

    dense = [d for _, d in _dists() if type(d._pmf_remove) is pld_pmf.DensePLDPmf]
    assert len(dense) >= 3
    pmf = dense[0]._pmf_remove
    probs = pmf._probs.copy()
    upper = (pmf._lower_loss + len(probs) - 1) * pmf._discretization
    walk = _dense_epsilon  # the compiled walk itself, on the pmf and on a changed copy
    before = walk(float(pmf._infinity_mass), upper, -pmf._discretization, probs[::-1].copy(), 1e-6)
    assert before == float(pmf.get_epsilon_for_delta(1e-6))
    probs[np.argmax(probs) :] *= 0.5
    after = walk(float(pmf._infinity_mass), upper, -pmf._discretization, probs[::-1].copy(), 1e-6)
    assert after != before


def test_count_pmfs_as_arrays_are_the_dicts():
    """The shuffle accounting's count distributions as array pairs (what it now passes) and as
    dicts (what it passed before) give the same log supports and the same epsilon."""
    from dpbandits.mechanisms.shuffle_sum import vector_params
    from dpbandits.privacy import releases as rel

    prm = vector_params(1.0, 1e-6, 500, 3, 1.0)
    arrays = rel.count_pmf_arrays(prm, -1.0, 1.0)
    dicts = rel.count_pmf_pair(prm, -1.0, 1.0)
    for a, d in zip(arrays, dicts, strict=True):
        (ka, la), (kd, ld) = log_support(a), log_support(d)
        assert np.array_equal(ka, kd) and np.array_equal(la, ld) and len(ka) > 100
    want = float(_library(*dicts).self_compose(3).get_epsilon_for_delta(1e-6))
    assert epsilon_for_delta(acc.pmf_pair_pld(*arrays, count=3), 1e-6) == want


def _loss_pmfs():
    """Loss pmfs like the accountant's: dense arrays of a few thousand buckets, mostly empty (a
    count pair's losses spread over a wide grid), smooth ones, and short ones."""
    rng = np.random.default_rng(1)
    out = []
    for _ in range(30):
        n = int(rng.integers(2, 40_000))
        probs = np.zeros(n)
        filled = rng.choice(n, size=min(n, int(rng.integers(1, 300))), replace=False)
        probs[filled] = rng.random(filled.shape[0]) ** rng.uniform(1, 40)
        probs[[0, -1]] = rng.random(2)  # the grid's ends hold mass, as a rounded pmf's do
        out.append(probs / probs.sum())
    k = np.arange(3001)
    out.append(binom.pmf(k, 3000, 0.4))
    out.append(np.full(7, 1 / 7))
    return out


def test_self_convolve_bounds_are_the_librarys():
    from dp_accounting.pld import common

    rng = np.random.default_rng(2)
    for probs in _loss_pmfs():
        for count in (2, int(rng.integers(3, 130))):
            for tail in (1e-15, 0.0):
                want = common.compute_self_convolve_bounds(probs, count, tail)
                assert self_convolve_bounds(probs, count, tail) == want, (len(probs), count)


def test_the_bounds_comparison_can_fail():
    """Mass moved by one bucket (or a doubled tail) moves the bounds: an error in the orders, the
    masses or the tail would show above."""
    probs = _loss_pmfs()[-2]
    moved = np.roll(probs, 1)
    assert self_convolve_bounds(moved, 10, 1e-15) != self_convolve_bounds(probs, 10, 1e-15)
    assert self_convolve_bounds(probs, 10, 2e-15) != self_convolve_bounds(probs, 10, 1e-15)


def _same_pmf(a, b) -> bool:
    if type(a) is not type(b) or a._infinity_mass != b._infinity_mass:
        return False
    if hasattr(a, "_loss_probs"):
        return list(a._loss_probs.items()) == list(b._loss_probs.items())
    return a._lower_loss == b._lower_loss and np.array_equal(a._probs, b._probs)


@pytest.mark.parametrize("count", [1, 2, 7, 40])
def test_self_compose_is_the_librarys(count):
    k = np.arange(801)
    cases = [
        _library(binom.pmf(k, 800, 0.3), binom.pmf(k, 800, 0.33)),  # dense
        _library({0: 0.5, 1: 0.3, 2: 0.2}, {0: 0.2, 1: 0.3, 2: 0.5}),  # sparse up to 3^6 buckets
        pld.from_laplace_mechanism(1.5, value_discretization_interval=1e-3),  # symmetric
    ]
    if count <= 7:  # beyond, the library's own truncation empties this one-bucket sparse pmf
        cases.append(_library(np.array([0.6, 0.4, 0.0]), np.array([0.0, 0.5, 0.5])))  # inf loss
    for dist in cases:
        want, got = dist.self_compose(count), self_compose(dist, count)
        assert got._symmetric == want._symmetric
        assert _same_pmf(got._pmf_remove, want._pmf_remove)
        assert _same_pmf(got._pmf_add, want._pmf_add)


def test_from_rounded_is_the_librarys():
    rng = np.random.default_rng(3)
    for size in (5, 1000, 1001, 20_000):  # sparse up to the library's 1000, dense beyond
        keys = rng.choice(3 * size, size=size, replace=False) - size
        one = dict(zip(keys.tolist(), rng.random(size).tolist(), strict=True))
        two = dict(zip((keys[::-1] + 3).tolist(), rng.random(size).tolist(), strict=True))
        want = pld.PrivacyLossDistribution.create_from_rounded_probability(
            one, 0.01, 1e-3, True, two, 0.02, symmetric=False
        )
        got = from_rounded(one, 0.01, two, 0.02, 1e-3, True)
        assert _same_pmf(got._pmf_remove, want._pmf_remove)
        assert _same_pmf(got._pmf_add, want._pmf_add)
        assert not got._symmetric


def _compose_cases():
    k = np.arange(201)
    dense = _library(binom.pmf(k, 200, 0.3), binom.pmf(k, 200, 0.33))
    sparse = _library({0: 0.5, 1: 0.3, 2: 0.2}, {0: 0.2, 1: 0.3, 2: 0.5})
    wide = _library(binom.pmf(k, 200, 0.5), np.roll(binom.pmf(k, 200, 0.5), 3))
    laplace = pld.from_laplace_mechanism(1.5, value_discretization_interval=1e-4)
    gaussian = pld.from_gaussian_mechanism(0.7, value_discretization_interval=1e-4)
    infinite = _library(np.array([0.6, 0.4, 0.0]), np.array([0.0, 0.5, 0.5]))
    many = _library(binom.pmf(np.arange(40), 39, 0.4), binom.pmf(np.arange(40), 39, 0.6))
    optimistic = acc.pmf_pair_pld(
        binom.pmf(k, 200, 0.3), binom.pmf(k, 200, 0.31), pessimistic=False
    )
    return [
        ("dense with dense", dense, wide),
        ("dense with sparse", dense, sparse),
        ("sparse with sparse, staying sparse", sparse, sparse),
        ("sparse with sparse, made dense", many, many),  # 40 x 40 buckets: over 1000
        ("symmetric with symmetric", laplace, gaussian),
        ("symmetric with asymmetric", laplace, dense),
        ("infinite loss mass", infinite, dense),
        ("losses rounded down", optimistic, optimistic.self_compose(3)),
    ]


@pytest.mark.parametrize("name,a,b", _compose_cases(), ids=[c[0] for c in _compose_cases()])
def test_compose_is_the_librarys(name, a, b):
    for truncation in (1e-15, 0.0, 1e-6):
        want, got = a.compose(b, truncation), compose(a, b, truncation)
        assert got._symmetric == want._symmetric, name
        assert _same_pmf(got._pmf_remove, want._pmf_remove), (name, truncation)
        assert _same_pmf(got._pmf_add, want._pmf_add), (name, truncation)


def test_compose_refuses_what_the_library_refuses():
    coarse = pld.from_laplace_mechanism(1.5, value_discretization_interval=1e-3)
    fine = pld.from_laplace_mechanism(1.5, value_discretization_interval=1e-4)
    with pytest.raises(ValueError, match="Discretization intervals are different"):
        coarse.compose(fine)
    with pytest.raises(ValueError, match="Discretization intervals are different"):
        compose(coarse, fine)


def test_the_truncated_prefix_is_the_librarys_loop_and_can_differ():
    """The running sum exceeds the threshold at the library loop's index, on tails of tiny masses
    (where the loop runs longest); a threshold just above a partial sum moves the index."""

    def loop(arr, threshold):  # dp-accounting's _find_prefix_to_truncate, as written there
        s = 0
        for i, val in enumerate(arr):
            s += val
            if s > threshold:
                return i
        return len(arr)

    rng = np.random.default_rng(7)
    for size in (0, 1, 2, 50, 3000):
        probs = rng.random(size) * 10.0 ** rng.integers(-320, 0, size)
        for threshold in (0.0, 5e-16, 1e-3, 0.5, 1e300):
            assert _prefix_within(probs, threshold) == loop(probs, threshold), (size, threshold)
    probs = np.array([1e-17, 2e-17, 3e-16, 1e-3])
    assert _prefix_within(probs, 5e-16) == 3
    assert _prefix_within(probs, np.cumsum(probs)[2]) == 3 != _prefix_within(probs, 3e-16)
    assert _prefix_within(np.array([np.nan, 1.0]), 0.5) == 2  # NaN never exceeds: as the loop


def _unique_groups(values: np.ndarray):
    """The grouping by first appearance as NumPy finds it (the reference of the compiled one)."""
    _, first, inv = np.unique(values, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.shape[0])
    return rank[inv.reshape(-1)], first[order]


def test_first_appearance_groups_are_numpys():
    """Rising, falling (the shifted binomials' losses, grouped as runs) and shuffled values, with
    ties and both zeros, group as numpy.unique groups them; a changed value changes the groups."""
    from dpbandits.privacy.pld_arrays import _first_appearance

    rng = np.random.default_rng(4)
    cases = [np.array([]), np.array([0.0, -0.0, 0.0, 1.0]), np.array([3, 3, 2, 2, 2, 1])]
    for _ in range(40):
        v = np.round(rng.normal(size=int(rng.integers(1, 300))), int(rng.integers(0, 3)))
        cases += [np.sort(v), np.sort(v)[::-1].copy(), v, np.ceil(v / 0.5).astype(np.int64)]
    for v in cases:
        gid, head = _first_appearance(v)
        want_gid, want_head = _unique_groups(v)
        assert np.array_equal(gid, want_gid) and np.array_equal(head, want_head), v
    v = np.array([1.0, 2.0, 2.0, 3.0])
    assert not np.array_equal(_first_appearance(v)[0], _first_appearance(v + [0, 0, 1e-9, 0])[0])


@pytest.mark.parametrize("count", [2, 3, 40])
def test_a_pair_composed_at_once_is_the_pair_composed_after(count):
    """``pmf_pair_pld(p, q, count)`` builds a pmf that composition would make dense as dense at
    once: the same distributions as building the pair and then composing it (sparse pairs that
    stay sparse, sparse ones made dense, dense ones); another count gives others."""
    k = np.arange(801)
    pairs = [
        ({0: 0.5, 1: 0.3, 2: 0.2}, {0: 0.2, 1: 0.3, 2: 0.5}),  # 3 buckets: sparse until 3^7
        (binom.pmf(k[:41], 40, 0.3), binom.pmf(k[:41], 40, 0.33)),  # ~40 buckets
        (binom.pmf(k, 800, 0.3), binom.pmf(k, 800, 0.33)),  # dense
    ]
    for p, q in pairs:
        at_once = acc.pmf_pair_pld(p, q, count=count)
        after = self_compose(acc.pmf_pair_pld(p, q), count)
        assert _same_pmf(at_once._pmf_remove, after._pmf_remove)
        assert _same_pmf(at_once._pmf_add, after._pmf_add)
        other = self_compose(acc.pmf_pair_pld(p, q), count + 1)
        assert not _same_pmf(at_once._pmf_remove, other._pmf_remove)
