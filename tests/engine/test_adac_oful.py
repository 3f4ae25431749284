"""AdaC-OFUL (paper 002, Sec. 3: rarely-switching OFUL; the project's reconstruction,
docs/papers/op24.md): episode switches, releases and common random numbers."""

import math

import numpy as np
import pytest

from dpbandits.dev.reference_loops import reference_adac_oful
from dpbandits.engine.adac_oful import (
    OfulConstants,
    gamma_width,
    max_episodes,
    run_adac_oful,
)

C = OfulConstants()


def _contexts(n, T, K, d, seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, T, K, d))
    A /= np.linalg.norm(A, axis=-1, keepdims=True)
    theta = rng.normal(size=(n, d))
    theta /= np.linalg.norm(theta, axis=1, keepdims=True)
    return A, rng.random((n, T, K)), theta


@pytest.mark.parametrize("rho", [0.1, math.inf])
def test_engine_matches_the_literal_loop_on_the_same_streams(rho):
    n, T, K, d = 3, 300, 6, 3
    A, U, theta = _contexts(n, T, K, d, 0)
    run = run_adac_oful(
        A, U, theta, rho, [np.random.default_rng([9, i]) for i in range(n)], np.array([T])
    )
    for i in range(n):
        regret, switches = reference_adac_oful(
            A[i], U[i], theta[i], rho, np.random.default_rng([9, i])
        )
        assert run.switches[i] == switches
        assert run.regret[i, 0] == pytest.approx(regret, rel=1e-12)


def test_episode_count_and_first_width():
    n, T, K, d = 4, 2000, 5, 4
    A, U, theta = _contexts(n, T, K, d, 1)
    run = run_adac_oful(
        A, U, theta, 0.1, [np.random.default_rng(i) for i in range(n)], np.array([T])
    )
    for i in range(n):
        assert len(run.switches[i]) <= max_episodes(T, d, C.lam)
        assert run.gammas[i][0] == 0.0 and all(g > 0 for g in run.gammas[i][1:])


def test_common_random_numbers_give_the_same_reward_to_the_same_choice():
    """Two algorithms on the same streams: where they choose the same action at round t they see
    the same reward (it is a function of (t, action) through U)."""
    n, T, K, d = 2, 400, 5, 3
    A, U, theta = _contexts(n, T, K, d, 2)
    runs = [
        run_adac_oful(A, U, theta, rho, [np.random.default_rng(i) for i in range(n)], np.array([T]))
        for rho in (0.05, math.inf)
    ]
    same = runs[0].actions == runs[1].actions
    assert same.any() and not same.all()
    means = np.einsum("ntkd,nd->ntk", A, theta)
    for run in runs:
        chosen = np.take_along_axis(U, run.actions[..., None], axis=2)[..., 0]
        mean = np.take_along_axis(means, run.actions[..., None], axis=2)[..., 0]
        run.rewards = np.where(chosen < (1 + mean) / 2, 1.0, -1.0)
    assert np.array_equal(runs[0].rewards[same], runs[1].rewards[same])


def test_gamma_width_formula():
    got = gamma_width(np.array([1, 3]), 2.0, 5, np.array([4.0, 4.0]), C)
    want = 2.0 * math.sqrt(2) * (math.sqrt(5) + math.sqrt(2 * math.log(36 / 0.01))) / 2.0
    assert got[0] == 0.0 and got[1] == pytest.approx(want, rel=1e-12)
