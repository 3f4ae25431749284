"""Instances and reward tables of CZ22 Sec. 5 (the script's generator and its rescaling to the
paper's normalisation; docs/papers/cz22.md), and realized-regret bookkeeping."""

import math

import numpy as np

from dpbandits.envs import (
    bernoulli_reward_table,
    make_instances,
    paper_text_instances,
    script_instances,
)


def test_u16_script_instances():
    d, K = 5, 100
    inst = script_instances(8, K, d)
    norms = np.linalg.norm(inst.X, axis=2)
    assert np.allclose(np.linalg.norm(inst.theta, axis=1), 1 / math.sqrt(2), atol=1e-12)
    assert np.allclose(norms[:, : d - 1], math.sqrt(2), atol=1e-12)
    assert np.array_equal(inst.X[:, d - 1], np.tile(np.eye(d)[-1], (8, 1)))
    assert np.allclose(norms[:, d:], math.sqrt(2), atol=1e-12)
    assert np.all((inst.mu >= 0) & (inst.mu <= 1))
    assert np.allclose(inst.L, math.sqrt(2), atol=1e-12)
    # means: random arms (u.v_hat + 1)/2, basis arm i < d-1: (v_hat_i + 1)/2, arm d-1: 1/2
    v_hat = inst.theta[:, : d - 1] / np.linalg.norm(inst.theta[:, : d - 1], axis=1, keepdims=True)
    u = inst.X[:, d:, : d - 1]
    assert np.allclose(inst.mu[:, d:], (np.einsum("nkj,nj->nk", u, v_hat) + 1) / 2)
    assert np.allclose(inst.mu[:, : d - 1], (v_hat + 1) / 2)
    assert np.allclose(inst.mu[:, d - 1], 0.5)


def test_paper_text_instances_share_means_and_best_arm():
    a, b = script_instances(4, 100, 5), paper_text_instances(4, 100, 5)
    assert np.allclose(a.mu, b.mu) and np.array_equal(a.best, b.best)
    assert np.allclose(np.linalg.norm(b.theta, axis=1), 1.0)
    assert np.allclose(b.L, 1.0)


def test_instances_are_a_prefix_stream():
    """Trial i is instance i whatever the number of trials (the quick scale uses a prefix)."""
    many, few = script_instances(10, 100, 5), script_instances(3, 100, 5)
    assert np.array_equal(many.head(3).X, few.X) and np.array_equal(many.head(3).theta, few.theta)
    assert make_instances("paper_text", 2, 100, 5, 2).family == "paper_text"


def test_u17_reward_tables_are_common_and_bernoulli():
    inst = script_instances(1, 100, 5)
    mu = inst.mu[0]
    T = 20000
    r1, r2 = bernoulli_reward_table(mu, T, 0), bernoulli_reward_table(mu, T, 0)
    assert np.array_equal(r1, r2)  # the same table for every algorithm
    assert not np.array_equal(r1, bernoulli_reward_table(mu, T, 1))
    se = np.sqrt(mu * (1 - mu) / T)
    assert np.all(np.abs(r1.mean(axis=0) - mu) < 5 * se + 1e-12)
    best = int(np.argmax(mu))
    assert np.all(
        r1[:, best].astype(int) - r1[:, best].astype(int) == 0
    )  # an oracle's realized regret


def test_reward_tables_drawn_in_blocks_are_one_legacy_request():
    """Blocks of :data:`ROWS_PER_BLOCK` rounds give the table of one ``(T, K)`` request of the
    instance's legacy stream (horizons below, at and across block edges); another seed, or a
    stream restarted per block, gives another table."""
    from dpbandits.envs.rewards import ROWS_PER_BLOCK, bernoulli_reward_table, reward_tables

    rng = np.random.default_rng(0)
    mu = rng.uniform(size=(3, 7))
    for T in (0, 1, ROWS_PER_BLOCK - 1, ROWS_PER_BLOCK, 2 * ROWS_PER_BLOCK + 5):
        want = np.stack(
            [
                np.random.RandomState(s).random_sample((T, 7)) < mu[i]
                for i, s in enumerate((4, 0, 9))
            ]
        )
        got = reward_tables(mu, T, (4, 0, 9))
        assert got.dtype == bool and np.array_equal(got, want), T
    T = 2 * ROWS_PER_BLOCK
    one = bernoulli_reward_table(mu[0], T, 4)
    assert not np.array_equal(one, bernoulli_reward_table(mu[0], T, 5))
    restarted = np.concatenate([bernoulli_reward_table(mu[0], ROWS_PER_BLOCK, 4)] * 2)
    assert not np.array_equal(one, restarted)
