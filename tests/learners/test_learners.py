"""Maler (olucb's Algorithm 3; Wang, Lu & Zhang 2019) and its generalized projection."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from dpbandits.learners import Maler, n_experts
from dpbandits.learners.maler import BETA_ONS, project_ball_metric
from dpbandits.learners.maler_reference import ReferenceMaler, metric_projection


def test_maler_invariants():
    assert n_experts(20000) == 19 and BETA_ONS == pytest.approx(25 / 56)
    rng = np.random.default_rng(0)
    learner = Maler(n=3, d=5, D=1.0, G=2.0, T=20000)
    for _ in range(300):
        theta = learner.predict()
        assert np.all(np.linalg.norm(theta, axis=1) <= 1 + 1e-12)
        g = rng.normal(size=(3, 5))
        g *= 2.0 / np.maximum(np.linalg.norm(g, axis=1, keepdims=True), 2.0)  # ||g|| <= G
        # every surrogate value lies in [-0.25, 0.25] (eta <= 1/(5 D_M G), |r| <= G D_M)
        r = np.einsum("nd,ned->ne", g, theta[:, None, :] - learner.pos)
        eta = learner.etas
        assert np.all(np.abs(-eta * r + eta**2 * r**2) <= 0.25)
        learner.update(g)
        w = learner.weights
        assert np.all(w > 0) and np.allclose(w.sum(axis=1), 1.0)
    assert np.all(np.linalg.norm(learner.pos, axis=2) <= 1 + 1e-9)


def test_compiled_maler_matches_the_reference():
    rng = np.random.default_rng(1)
    d, T = 4, 500
    fast = Maler(n=1, d=d, D=1.0, G=1.5, T=T)
    ref = ReferenceMaler(d, 1.0, 1.5, T)
    z = rng.uniform(-0.6, 0.6, size=(T, d))
    for t in range(T):
        a, b = fast.predict()[0], ref.predict()
        assert np.allclose(a, b, atol=1e-9)
        fast.update((a - z[t])[None, :])
        ref.update(b - z[t])


def _strongly_convex_regret(T, seeds):
    regrets = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        z = rng.normal(size=(T, 5))
        z *= (0.5 * rng.random((T, 1)) ** (1 / 5)) / np.linalg.norm(z, axis=1, keepdims=True)
        learner = Maler(n=1, d=5, D=1.0, G=1.5, T=T)
        loss = 0.0
        for t in range(T):
            theta = learner.predict()[0]
            loss += 0.5 * np.sum((theta - z[t]) ** 2)
            learner.update((theta - z[t])[None, :])
        best = 0.5 * np.sum((z - z.mean(axis=0)) ** 2)
        regrets.append(loss - best)
    return float(np.mean(regrets))


def test_logarithmic_regret_on_a_strongly_convex_stream():
    Ts = [2**12, 2**14, 2**16]
    R = [_strongly_convex_regret(T, seeds=(0, 1)) for T in Ts]
    slope = np.polyfit(np.log(Ts), np.log(R), 1)[0]
    assert slope < 0.3, (R, slope)  # sqrt(T) growth would give 0.5
    assert R[2] / math.log(Ts[2]) <= 1.25 * R[1] / math.log(Ts[1])


def test_sqrt_T_regret_on_linear_losses():
    d, G, D = 5, 1.3, 1.0
    for T in (2**8, 2**10, 2**12):
        rng = np.random.default_rng(T)
        gs = (rng.choice([-1.0, 1.0], size=(T, d)) + 0.3) / math.sqrt(d)
        learner = Maler(n=1, d=d, D=D, G=G, T=T)
        loss = 0.0
        for t in range(T):
            theta = learner.predict()[0]
            loss += gs[t] @ theta
            learner.update(gs[t][None, :])
        regret = loss + D * np.linalg.norm(gs.sum(axis=0))  # best fixed point: -D sum g/||sum g||
        assert regret <= 2 * G * (2 * D) * math.sqrt(T)


def test_generalized_projection():
    rng = np.random.default_rng(2)
    D = 1.0
    inside = np.array([0.3, -0.2, 0.1])
    out = np.zeros(3)
    project_ball_metric(inside, np.eye(3), D, out)
    assert np.array_equal(out, inside)
    for _ in range(20):
        M = rng.normal(size=(3, 3))
        A = M @ M.T + 0.3 * np.eye(3)
        y = rng.normal(size=3) * 3
        if np.linalg.norm(y) <= D:
            continue
        project_ball_metric(y, A, D, out)
        assert np.linalg.norm(out) == pytest.approx(D, abs=1e-9)
        slsqp = minimize(
            lambda x, y=y, A=A: (x - y) @ A @ (x - y),
            np.zeros(3),
            method="SLSQP",
            constraints=[{"type": "ineq", "fun": lambda x: D**2 - x @ x}],
            options={"ftol": 1e-14, "maxiter": 500},
        )
        assert np.allclose(out, slsqp.x, atol=1e-6)
        assert np.allclose(out, metric_projection(y, A, D), atol=1e-10)
        # KKT: A (x - y) = -nu x with nu >= 0
        residual = A @ (out - y)
        nu = -(residual @ out) / (out @ out)
        assert nu >= 0 and np.allclose(residual, -nu * out, atol=1e-8)
