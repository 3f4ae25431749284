"""The planted contestant of op24's OP-E3 (engine/egreedy.py): its exploration rounds, its greedy
ridge choice and its pseudo-regret, against a plain reimplementation."""

import numpy as np

from dpbandits.engine.egreedy import run_egreedy


def _instance(n=2, T=200, K=4, d=3, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, T, K, d)) / np.sqrt(d)
    theta = rng.standard_normal((n, d))
    theta /= np.linalg.norm(theta, axis=1, keepdims=True)
    return A, rng.random((n, T, K)), theta, rng.random((n, T, 2))


def _reference(A, U, theta, draws, power, scale):
    """Per trial and round, as the module docstring says it: explore with probability
    min(1, scale t^(power - 1)) (1-based t), else argmax <theta^, a_k> with the ridge estimate
    solved afresh; cumulative pseudo-regret."""
    n, T, K, d = A.shape
    out = np.zeros((n, T))
    for i in range(n):
        V, u, cum = np.eye(d), np.zeros(d), 0.0
        for t in range(T):
            if draws[i, t, 0] < min(1.0, scale * (t + 1.0) ** (power - 1.0)):
                a = min(K - 1, int(draws[i, t, 1] * K))
            else:
                a = int(np.argmax(A[i, t] @ np.linalg.solve(V, u)))
            means = A[i, t] @ theta[i]
            cum += means.max() - means[a]
            r = 1.0 if U[i, t, a] < 0.5 * (1.0 + means[a]) else -1.0
            V += np.outer(A[i, t, a], A[i, t, a])
            u += A[i, t, a] * r
            out[i, t] = cum
    return out


def test_matches_the_reference_at_every_checkpoint():
    A, U, theta, draws = _instance()
    cps = np.array([1, 10, 57, 200])
    for power, scale in ((0.9, 0.5), (0.5, 1.0), (0.9, 0.0)):
        got = np.zeros((2, cps.size))
        run_egreedy(A, U, theta, draws, power, scale, cps, got)
        want = _reference(A, U, theta, draws, power, scale)[:, cps - 1]
        assert np.allclose(got, want, rtol=1e-10, atol=1e-10)


def test_always_exploring_is_uniform_play_by_the_draws():
    # scale 1, power 1: p_t = 1, the arm is floor(draw K) every round; regret by hand
    A, U, theta, draws = _instance(n=1, T=50)
    got = np.zeros((1, 1))
    run_egreedy(A, U, theta, draws, 1.0, 1.0, np.array([50]), got)
    means = np.einsum("tkd,d->tk", A[0], theta[0])
    arms = np.floor(draws[0, :, 1] * 4).astype(int)
    assert got[0, 0] == np.sum(means.max(axis=1) - means[np.arange(50), arms])
