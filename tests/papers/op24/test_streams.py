"""Instances and streams of the open-problem audit (docs/papers/op24.md)."""

import math

import numpy as np
import pytest

from dpbandits.papers.op24.streams import (
    algorithm_streams,
    context_streams,
    decision_sets,
    finite_means,
    instance_stream,
    linear_instance,
    uniform_play_regret,
)


def test_streams_are_pure_functions_of_their_keys():
    a = instance_stream("OP-E1", "I2", 5, 1, 10**5, 3).random(4)
    assert np.array_equal(a, instance_stream("OP-E1", "I2", 5, 1, 10**5, 3).random(4))
    assert not np.array_equal(a, instance_stream("OP-E1", "I2", 5, 1, 10**5, 4).random(4))
    r1, n1 = algorithm_streams("OP-E1", "I1", 5, 1, 1000, 0, "adac_ucb", 2)
    r2, n2 = algorithm_streams("OP-E1", "I1", 5, 1, 1000, 0, "adac_ucb", 3)
    draws = [g.random(3) for g in (r1, n1, r2, n2)]
    assert all(not np.array_equal(x, y) for i, x in enumerate(draws) for y in draws[i + 1 :])
    c1, u1 = context_streams("C1", 10, 5, 2**15, 0)
    c2, u2 = context_streams("C1", 10, 5, 2**15, 0)  # another algorithm: the same streams
    assert np.array_equal(c1.random(5), c2.random(5)) and np.array_equal(u1.random(5), u2.random(5))


def test_finite_instances():
    rng = np.random.default_rng(0)
    assert finite_means("I1", 5, 100, rng).tolist() == [0.75, 0.625, 0.5, 0.375, 0.25]
    for K, T in ((5, 10**3), (5, 10**7), (20, 10**4)):
        m = finite_means("I2", K, T, rng)
        assert sorted(m)[:-1] == [0.5] * (K - 1)
        assert m.max() - 0.5 == pytest.approx(min(0.25, math.sqrt(K / T)))
    best = [
        int(np.argmax(finite_means("I2", 5, 10**6, np.random.default_rng(i)))) for i in range(200)
    ]
    assert set(best) == set(range(5))  # uniform best index
    assert uniform_play_regret(np.array(finite_means("I1", 5, 0, rng)), 100) == pytest.approx(25.0)
    with pytest.raises(ValueError, match="K = 5"):
        finite_means("I1", 3, 100, rng)


def test_linear_instances():
    rng = np.random.default_rng(1)
    X, theta = linear_instance("J1", 5, 10**6, rng)
    assert X.shape == (10, 5) and np.allclose(
        X @ theta, np.r_[0.6, 0.2, 0.1, 0, 0, -0.6, -0.2, -0.1, 0, 0]
    )
    X, theta = linear_instance("J2", 5, 10**6, rng)
    assert X.shape == (32, 5) and np.allclose(np.linalg.norm(X, axis=1), 1.0)
    # the best corner has <theta, x> = 0.5 sqrt(d/T) * d / sqrt(d) = 0.5 d / sqrt(T)
    assert (X @ theta).max() == pytest.approx(0.5 * 5 / math.sqrt(10**6))
    X, theta = linear_instance("J3", 7, 10**6, rng)
    assert X.shape == (14, 7) and theta[:2].tolist() == [0.6, 0.2] and not theta[2:].any()


def test_decision_sets():
    rng = np.random.default_rng(2)
    A = decision_sets("C1", 2000, 10, 5, rng)
    assert A.shape == (2000, 10, 5) and np.allclose(np.linalg.norm(A, axis=-1), 1.0)
    # uniform on the sphere: E[a a^T] = I/d; 20000 draws, entry sd ~ 0.0015
    cov = np.einsum("tki,tkj->ij", A, A) / (2000 * 10)
    assert np.abs(cov - np.eye(5) / 5).max() < 0.01
    B = decision_sets("C2", 2000, 10, 5, rng)
    assert np.allclose(np.linalg.norm(B, axis=-1), 1.0) and B[..., 0].mean() > 0.95
