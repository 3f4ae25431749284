"""Tests that kill mutants left alive in engine/noise.py (docs/mutation.md).

The engine-vs-reference tests (tests/engine/test_engine.py) feed both sides the same
``draw_raw``, so they cannot see a change in the draws themselves; the layout documented in
``draw_raw``'s docstring (what is drawn, in which order, with which shape and scale) is checked
here against a second generator on the same seed.
"""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from dpbandits.engine.noise import draw_raw, noise_table
from dpbandits.mechanisms.packing import n_entries
from dpbandits.mechanisms.tree import dyadic_decomposition
from dpbandits.policies import Setting, make_policy

T, D = 48, 3


def _policy(alg, **options):
    return make_policy(alg, Setting(T=T, d=D, epsilon=1.0, delta=0.1, B=8), **options)


def _pair(seed=11):
    return np.random.default_rng(seed), np.random.default_rng(seed)


def _consumed_exactly(rng, twin):
    """Both generators are at the same point of the stream."""
    assert rng.standard_normal() == twin.standard_normal()


def test_none_draws_nothing():
    rng, twin = _pair()
    assert draw_raw(_policy("linucb"), rng) == {}
    _consumed_exactly(rng, twin)


def test_combiner_draws_standard_normal_zeta_then_scaled_mechanism_noise():
    policy = _policy("combiner")
    rng, twin = _pair()
    raw = draw_raw(policy, rng)
    assert np.array_equal(raw["zeta"], twin.standard_normal((T, D)))  # not scaled
    assert np.array_equal(raw["noise_x"], twin.standard_normal((T, D)) * policy.sigma)
    assert np.array_equal(raw["noise_y"], twin.standard_normal(T) * policy.sigma)
    _consumed_exactly(rng, twin)


@pytest.mark.parametrize("options", [{"lambda_min": 0.0}, {"lambda_min": 0.5}])
def test_onlineucb_draws_scaled_zeta_only_when_delta2_is_positive(options):
    policy = _policy("onlineucb", **options)
    rng, twin = _pair()
    raw = draw_raw(policy, rng)
    rows = T if policy.Delta2 > 0 else 0
    assert raw["zeta"].shape == (rows, D)
    assert np.array_equal(raw["zeta"], twin.standard_normal((rows, D)) * math.sqrt(policy.Delta2))
    assert np.array_equal(raw["noise_x"], twin.standard_normal((T, D)) * policy.sigma)
    assert np.array_equal(raw["noise_y"], twin.standard_normal(T) * policy.sigma)
    _consumed_exactly(rng, twin)


def test_onlineucb_both_branches_are_exercised():
    assert _policy("onlineucb", lambda_min=0.0).Delta2 > 0
    assert _policy("onlineucb", lambda_min=0.5).Delta2 == 0  # above lambda_bar = T^(-1/4)


def test_vec_draws_uniforms_then_the_batch_binomial_totals():
    policy = _policy("sdp_vec")
    v, E = policy.vec, n_entries(D)
    B, batches = policy.period, policy.n_batches
    assert B > 1 and batches * B == T
    rng, twin = _pair()
    raw = draw_raw(policy, rng)
    assert raw["uniforms"].shape == (T, E)
    assert np.array_equal(raw["uniforms"], twin.random((T, E)))
    # the sum of B users' Binomial(b_trials, p): Binomial(B b_trials, p), one per batch and entry
    want = twin.binomial(B * v.b_trials, v.p, size=(batches, E))
    assert np.array_equal(raw["binomial"], want)
    _consumed_exactly(rng, twin)


@pytest.mark.parametrize("alg,rows", [("ldp", T), ("sdp_amp", None), ("jdp_standin", None)])
def test_packed_draws_one_row_per_round_batch_or_standin_node(alg, rows):
    policy = _policy(alg)
    scales = policy.noise_scales()
    if rows is None:
        # a batch aggregate per batch (period B > 1); the stand-in's N0 = floor(ln T) + 1 nodes
        rows = policy.n_batches if alg == "sdp_amp" else math.floor(math.log(T)) + 1
    rng, twin = _pair()
    raw = draw_raw(policy, rng)
    key = "nodes" if alg == "jdp_standin" else "increments"
    assert raw[key].shape == (rows, scales.shape[0])
    assert np.array_equal(raw[key], twin.standard_normal((rows, scales.shape[0])) * scales)
    _consumed_exactly(rng, twin)


def test_sdp_amp_has_fewer_batches_than_rounds():
    policy = _policy("sdp_amp")
    assert policy.scheme == "per_batch" and 1 < policy.n_batches < T


def test_tree_draws_one_array_per_level():
    """Levels j = 0, 1, ... of a tree over n_batches leaves, ((n >> j) + 1, E) nodes each."""
    policy = _policy("jdp_tree")
    scales = policy.noise_scales()
    n = policy.n_batches
    rng, twin = _pair()
    levels = draw_raw(policy, rng)["levels"]
    assert len(levels) == n.bit_length()
    for j, z in enumerate(levels):
        assert np.array_equal(z, twin.standard_normal(((n >> j) + 1, scales.shape[0])) * scales)
    _consumed_exactly(rng, twin)


# names sorting before and after every known scheme: only equality may select a branch
@pytest.mark.parametrize("name", ["bogus", "zzz"])
def test_unknown_scheme_is_refused(name):
    stub = SimpleNamespace(setting=Setting(T=T, d=D), scheme=name, noise_scales=lambda: None)
    with pytest.raises(ValueError, match=f"unknown noise scheme '{name}'"):
        draw_raw(stub, np.random.default_rng(0))


@pytest.mark.parametrize("name", ["vec", "zzz"])
def test_scheme_without_table_is_refused(name):
    stub = SimpleNamespace(setting=Setting(T=T, d=D), scheme=name, n_refresh=4)
    with pytest.raises(ValueError, match=f"scheme '{name}' has no noise table"):
        noise_table(stub, {})


# -- noise_table: the noise in force at each refresh, written out round by round -----------------
def test_none_table_is_one_zero_row():
    policy = _policy("linucb")
    table, index = noise_table(policy, {})
    assert table.shape == (1, n_entries(D)) and not table.any()
    assert index.dtype == np.int64 and index.tolist() == [0] * policy.n_refresh


@pytest.mark.parametrize("alg", ["ldp", "sdp_amp"])
def test_increment_table_sums_the_draws_completed_before_each_refresh(alg):
    policy = _policy(alg)
    raw = draw_raw(policy, np.random.default_rng(3))
    inc = raw["increments"]
    table, index = noise_table(policy, raw)
    R = policy.n_refresh
    assert table.shape == (R, inc.shape[1])
    assert index.tolist() == list(range(R))
    for r in range(R):
        want = np.zeros(inc.shape[1])
        for q in range(r):  # refresh r (0-based) sees the r completed rounds / batches
            want = want + inc[q]
        assert np.allclose(table[r], want, rtol=1e-12, atol=1e-12), r


def test_standin_table_sums_the_first_k_nodes():
    """At 0-based refresh round t the stand-in sums k(t) = floor(ln(1 + t)) + 1 nodes."""
    policy = _policy("jdp_standin")
    raw = draw_raw(policy, np.random.default_rng(4))
    nodes = raw["nodes"]
    table, index = noise_table(policy, raw)
    for r, t in enumerate(policy.refresh_rounds()):
        k = math.floor(math.log(1 + int(t))) + 1
        assert np.allclose(table[index[r]], nodes[:k].sum(axis=0), rtol=1e-12, atol=1e-12)
    assert index.dtype == np.int64


def test_tree_table_sums_the_dyadic_nodes():
    """Refresh r (0-based) sees the prefix over r batches: the nodes of D(r) summed (0 at r = 0)."""
    policy = _policy("jdp_tree")
    raw = draw_raw(policy, np.random.default_rng(5))
    levels = raw["levels"]
    table, index = noise_table(policy, raw)
    R = policy.n_refresh
    assert table.shape[0] == R and index.tolist() == list(range(R))
    for r in range(R):
        want = np.zeros(levels[0].shape[1])
        if r > 0:
            for j, k in dyadic_decomposition(r):
                want = want + levels[j][k]
        assert np.allclose(table[r], want, rtol=1e-12, atol=1e-12), r
