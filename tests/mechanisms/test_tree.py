"""Binary-tree mechanism (SS18, as CZ22 Sec. 1 and App. F use it) and the script's stand-in
(quirk 6 of docs/design.md): node counts, reuse, and the stand-in's leak; the node noise under
zCDP accounting, its formula and its domain (docs/mutation.md)."""

import math

import numpy as np
import pytest

from dpbandits.dev.reference_loops import _Server
from dpbandits.engine import draw_raw, noise_table
from dpbandits.mechanisms import tree
from dpbandits.policies import Quirks, Setting, make_policy


def test_u10_standin_counts():
    ranges = [
        (0, 1, 1),
        (2, 6, 2),
        (7, 19, 3),
        (20, 53, 4),
        (54, 147, 5),
        (148, 402, 6),
        (403, 1095, 7),
        (1096, 2979, 8),
        (2980, 8102, 9),
        (8103, 19999, 10),
    ]
    for lo, hi, k in ranges:
        assert np.all(tree.standin_count(np.arange(lo, hi + 1)) == k)
    assert tree.standin_n0(20000) == 10
    assert tree.standin_count(np.arange(20000)).max() <= tree.standin_n0(20000)


def test_u11_decomposition_partitions_the_prefix_and_nodes_are_reused():
    T = 20000
    assert tree.n_levels(T) == 16
    for t in [1, 2, 3, 7, 8, 1023, 12345, 19999, 20000]:
        nodes = tree.dyadic_decomposition(t)
        assert len(nodes) == bin(t).count("1")
        covered = sorted(i for j, k in nodes for i in range((k - 1) * 2**j + 1, k * 2**j + 1))
        assert covered == list(range(1, t + 1))
    assert max(len(tree.dyadic_decomposition(t)) for t in range(T)) == 14
    # every leaf lies in exactly one node per level, so in at most m = 16 nodes
    for leaf in [1, 2, 777, 20000]:
        for j in range(tree.n_levels(T)):
            nodes = [k for k in range(1, (T >> j) + 2) if (k - 1) * 2**j < leaf <= k * 2**j]
            assert len(nodes) == 1
    # zero noise: the noisy prefix is the exact prefix; a node's noise is the same every time
    rng = np.random.default_rng(0)
    levels = tree.draw_tree_nodes(rng, 100, np.zeros(3))
    assert np.all(tree.tree_prefix_noise(levels, 100) == 0)
    levels = tree.draw_tree_nodes(rng, 100, np.ones(3))
    table = tree.tree_prefix_noise(levels, 100)
    for t in range(101):
        expected = sum((levels[j][k] for j, k in tree.dyadic_decomposition(t)), np.zeros(3))
        assert np.allclose(table[t], expected)
    # t = 6 = (4) + (2): node (2, 1) also appears in t = 4, 5, 7
    assert np.allclose(table[6] - table[4], levels[1][3])
    assert np.allclose(table[7] - table[6], levels[0][7])


def test_tree_prefix_noise_variance_is_popcount_times_node_variance():
    """Issue: tree-mechanism noise per prefix. Var(prefix noise at t) = popcount(t) s^2."""
    rng = np.random.default_rng(1)
    n, reps, s = 64, 4000, 1.3
    samples = np.stack(
        [
            tree.tree_prefix_noise(tree.draw_tree_nodes(rng, n, np.full(1, s)), n)[:, 0]
            for _ in range(reps)
        ]
    )
    for t in [1, 3, 7, 21, 63, 64]:
        expected = bin(t).count("1") * s**2
        assert abs(samples[:, t].var() / expected - 1) < 5 * math.sqrt(2 / reps)


@pytest.mark.parametrize("n_leaves", [1, 16, 37])
def test_batched_trees_are_the_one_at_a_time_trees(n_leaves):
    """``draw_tree_nodes(..., batch=n)`` and its prefix noise: bit for bit the n trees that n
    calls without ``batch`` draw from the same generator, which is then in the same state (the
    privacy audit's tree sampler relies on it)."""
    scales = np.array([0.5, 1.0, 2.0, 3.5, 0.25])
    one, many = np.random.default_rng(7), np.random.default_rng(7)
    alone = [tree.draw_tree_nodes(one, n_leaves, scales) for _ in range(6)]
    batch = tree.draw_tree_nodes(many, n_leaves, scales, batch=6)
    assert len(batch) == len(alone[0])
    for j, level in enumerate(batch):
        assert level.shape == (6, *alone[0][j].shape)
        assert np.array_equal(level, np.stack([a[j] for a in alone]))
    table = tree.tree_prefix_noise(batch, n_leaves)
    assert np.array_equal(table, np.stack([tree.tree_prefix_noise(a, n_leaves) for a in alone]))
    assert one.bit_generator.state == many.bit_generator.state


def test_u12_standin_is_not_private():
    """Two consecutive rounds with the same k(t): the noisy Gram sums differ by exactly x x^T."""
    policy = make_policy("jdp_standin", Setting(T=100, d=3, epsilon=1.0, delta=0.1))
    raw = draw_raw(policy, np.random.default_rng(2))
    server = _Server(policy, raw, 1.0)
    x = np.array([0.3, -0.2, 0.9])
    t = 30  # k(29) = k(30) = k(31) = 4
    assert tree.standin_count(t) == tree.standin_count(t + 1)
    _, before = server.statistics(t)
    server.receive(t, x, 1.0)
    _, after = server.statistics(t + 1)
    assert np.allclose(after - before, np.outer(x, x), rtol=0, atol=1e-12)  # up to rounding
    # the engine's table carries the same noise at t and t + 1
    table, index = noise_table(policy, raw)
    assert index[t] == index[t + 1] and np.array_equal(table[index[t]], table[index[t + 1]])


def test_ss18_calibration_u9_and_upsilon():
    assert tree.sigma_ss18_node(1.0, 0.1, 16, 2.0) == pytest.approx(118.044, rel=1e-5)
    for eps, upsilon in [(0.2, 166754), (1.0, 33351), (10.0, 3335)]:
        p = make_policy("jdp_tree", Setting(T=20000, d=5, epsilon=eps, delta=0.1), "theory")
        assert p.consts["Upsilon"] == pytest.approx(upsilon, rel=2e-4)
        assert p.lam == pytest.approx(2 * upsilon, rel=2e-4)


def test_standin_experiment_noise_and_tree_exp_share_constants():
    s = tree.s_standin_experiment(1.0, 0.1, 20000)
    assert s == pytest.approx(10.12974, rel=1e-5)
    standin = make_policy("jdp_standin", Setting(T=20000, d=5, epsilon=1.0, delta=0.1))
    true_tree = make_policy(
        "jdp_tree",
        Setting(T=20000, d=5, epsilon=1.0, delta=0.1),
        "experiment",
        Quirks.from_fidelity("script"),
    )
    assert standin.lam == true_tree.lam and standin.noise_std == true_tree.noise_std


@pytest.mark.parametrize("rho,m,L2", [(0.5, 3, 2.0), (0.1, 12, 1.0), (2.0, 1, 3.0)])
def test_sigma_zcdp_node_squared_is_m_l2_squared_over_rho(rho, m, L2):
    # sigma_n^2 = m Delta^2 / (2 rho) with Delta = sqrt(2) L~^2, i.e. m (L~^2)^2 / rho
    # (4 m / rho at L~^2 = 2); sqrt(2)^2 rounds, so rel 1e-14.
    want = math.sqrt(m * L2**2 / rho)
    assert tree.sigma_zcdp_node(rho, m, L2) == pytest.approx(want, rel=1e-14)


@pytest.mark.parametrize("rho,m", [(0.0, 3), (-1.0, 3), (0.5, 0), (0.5, -2)])
def test_sigma_zcdp_node_refuses_rho_not_positive_or_m_below_one(rho, m):
    with pytest.raises(ValueError, match="need rho > 0 and m >= 1"):
        tree.sigma_zcdp_node(rho, m)
