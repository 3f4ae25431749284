"""The fresh-arm kernel's index computation (``engine.contextual.arm_indices``) gives the bits
of the arm-by-arm loop it replaced: each arm's sums in the same order, only run side by side."""

import math

import numpy as np

from dpbandits.engine.contextual import arm_indices


def _arm_by_arm(X, Vinv, theta_hat, theta_star, rb):
    K, d = X.shape
    idx, means = np.zeros(K), np.zeros(K)
    for k in range(K):
        mk = qk = mt = 0.0
        for p in range(d):
            xp = X[k, p]
            mk += xp * theta_hat[p]
            mt += xp * theta_star[p]
            s = 0.0
            for q in range(d):
                s += Vinv[p, q] * X[k, q]
            qk += xp * s
        idx[k] = mk + rb * math.sqrt(max(qk, 0.0))
        means[k] = mt
    return idx, means


def test_arm_indices_are_the_arm_by_arm_bits():
    rng = np.random.default_rng(7)
    for K, d in [(10, 5), (50, 20), (3, 1), (7, 13)]:
        X = rng.standard_normal((K, d))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        A = rng.standard_normal((d, d))
        Vinv = A @ A.T / d + 1e-3 * np.eye(d)
        if d > 1:
            Vinv[0, 1] -= 3.0  # not positive definite: some quadratic forms negative (clipped)
        theta_hat, theta_star = rng.standard_normal(d), rng.standard_normal(d)
        work = [np.zeros((d, K))] + [np.zeros(K) for _ in range(5)]
        arm_indices(X, Vinv, theta_hat, theta_star, 1.7, *work)
        idx, means = work[4], work[5]
        want_idx, want_means = _arm_by_arm(X, Vinv, theta_hat, theta_star, 1.7)
        assert idx.tobytes() == want_idx.tobytes() and means.tobytes() == want_means.tobytes()
