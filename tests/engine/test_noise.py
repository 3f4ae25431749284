"""The engine's privacy noise (engine/noise.py): what ``draw_raw`` draws, the per-trial
``noise_table`` and the stacked ``noise_tables``.

The engine-vs-reference tests (tests/engine/test_kernels.py) feed both sides the same
``draw_raw``, so they cannot see a change in the draws themselves; the layout documented in
``draw_raw``'s docstring (what is drawn, in which order, with which shape and scale) is checked
here against a second generator on the same seed, and ``noise_table`` against the noise in force
at each refresh written out round by round (docs/mutation.md). The stacked noise tables the
Gaussian kernels read, written in place by compiled loops, must be the per-trial ``noise_table``
results stacked, bit for bit (every simulated number depends on them).
"""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from dpbandits.engine.noise import draw_raw, noise_table, noise_tables
from dpbandits.mechanisms.packing import n_entries
from dpbandits.mechanisms.tree import dyadic_decomposition
from dpbandits.policies import Setting, make_policy

# -- draw_raw: the draws, their order, shape and scale --------------------------------------------
T, D = 48, 3


def _policy(alg, **options):
    return make_policy(alg, Setting(T=T, d=D, epsilon=1.0, delta=0.1, B=8), **options)


def _pair(seed=11):
    return np.random.default_rng(seed), np.random.default_rng(seed)


def _consumed_exactly(rng, twin):
    """Both generators are at the same point of the stream."""
    assert rng.standard_normal() == twin.standard_normal()


def test_a_noise_free_policy_draws_nothing():
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


def test_onlineucb_delta2_is_positive_below_lambda_bar_and_zero_above():
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
def test_a_noise_free_table_is_one_zero_row():
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


# -- noise_tables: the per-trial tables stacked, bit for bit --------------------------------------
CASES = [
    ("ldp", 1, 200),  # per_round
    ("sdp_amp", 1, 37),  # per_round, odd horizon
    ("ldp", 20, 200),  # per_batch (period B)
    ("sdp_amp", 8, 64),  # per_batch
    ("jdp_tree", 1, 200),  # tree over rounds
    ("jdp_tree", 20, 200),  # tree over batches
    ("batched_jdp", 7, 21 * 7),  # tree over 21 batches (not a power of two)
    ("jdp_user", 1, 33),  # tree
    ("jdp_standin", 1, 200),  # standin (stacked per trial)
    ("linucb", 1, 50),  # no noise
]


@pytest.mark.parametrize("algorithm,B,T", CASES)
def test_stacked_tables_are_the_per_trial_tables(algorithm, B, T):
    policy = make_policy(algorithm, Setting(T=T, d=3, epsilon=1.0, delta=0.1, B=B))
    raws = [draw_raw(policy, np.random.default_rng([5, i])) for i in range(4)]
    one = [noise_table(policy, raw) for raw in raws]
    table, index = noise_tables(policy, len(raws), raws.__getitem__)
    expected = np.stack([t for t, _ in one])
    assert table.shape == expected.shape and table.dtype == expected.dtype
    assert table.tobytes() == expected.tobytes()  # bit for bit, signed zeros included
    assert np.array_equal(index, one[0][1])


def test_negative_zero_increments_keep_numpy_bits():
    """``numpy.cumsum`` copies the first row (a ``-0.0`` stays ``-0.0``) and adds from the
    second; the tree adds every node to a zero row (``0.0 + -0.0 = 0.0``): both as numpy."""
    for algorithm in ("ldp", "jdp_tree"):
        policy = make_policy(algorithm, Setting(T=16, d=2, epsilon=1.0, delta=0.1))
        raw = draw_raw(policy, np.random.default_rng(0))
        for value in raw.values():
            arrays = value if isinstance(value, list) else [value]
            for a in arrays:
                a[...] = -0.0  # the first rows: the first increment, node (j, 1) of a level
                a[3:] = np.arange(1.0, 1.0 + a[3:].size).reshape(a[3:].shape)
        expected = noise_table(policy, raw)[0]
        table = noise_tables(policy, 1, [raw].__getitem__)[0][0]
        assert table.tobytes() == expected.tobytes()


def test_too_few_increments_are_refused():
    policy = make_policy("ldp", Setting(T=50, d=2, epsilon=1.0, delta=0.1))
    raw = draw_raw(policy, np.random.default_rng(0))
    raw["increments"] = raw["increments"][:10]
    with pytest.raises(ValueError, match="increments"):
        noise_tables(policy, 1, [raw].__getitem__)


def test_vec_draws_stacked_are_each_trials_draws_stacked():
    """The engine's stacked draw of a chunk of P_Vec trials is ``draw_raw`` per trial, stacked,
    bit for bit, with every generator left where ``draw_raw`` leaves it; the uniforms of one
    trial moved to another's row would show."""
    from dpbandits.engine.noise import draw_vec_stacked

    policy = _policy("sdp_vec")
    seeds = (3, 11, 12)
    stacked = draw_vec_stacked(policy, [np.random.default_rng(s) for s in seeds])
    after = [np.random.default_rng(s) for s in seeds]
    raws = [draw_raw(policy, rng) for rng in after]
    for key in ("uniforms", "binomial"):
        assert np.array_equal(stacked[key], np.stack([r[key] for r in raws]))
    again = [np.random.default_rng(s) for s in seeds]
    draw_vec_stacked(policy, again)
    for rng, twin in zip(again, after, strict=True):
        assert rng.random() == twin.random()
    assert not np.array_equal(stacked["uniforms"][0], stacked["uniforms"][1])
