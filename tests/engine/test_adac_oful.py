"""AdaC-OFUL (op24, Sec. 3: rarely-switching OFUL; the project's reconstruction,
docs/papers/op24.md): episode switches, releases and common random numbers.

The literal loop the engine is compared with calls the module's own ``sqrt_beta``, so the
confidence radius ``sqrt(beta_k)`` and the episode bound ``d log2(1 + T/(d lambda)) + 1``
(reconstruction [R4]) are also checked at points where they are exact by hand, at ``lambda != 1``
too, together with the input checks and the immutability of the shared default constants
(docs/mutation.md).
"""

import dataclasses
import math

import numpy as np
import pytest

from dpbandits.dev.reference_loops import reference_adac_oful
from dpbandits.engine.adac_oful import (
    OfulConstants,
    gamma_width,
    max_episodes,
    run_adac_oful,
    sqrt_beta,
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


# -- the radius and the episode bound by hand; input checks ---------------------------------------
# delta_c = 2 e^-2 makes 2 ln(2/delta_c) = 4; lambda = 4, S = 1/2 make sqrt(lambda) S = 1
C_HAND = OfulConstants(lam=4.0, S=0.5, delta_c=2.0 * math.exp(-2.0))


def test_sqrt_beta_at_hand_computed_points():
    """sqrt(2 ln(2/delta_c) + d ln(1 + (tau - 1)/(d lambda))) + sqrt(lambda) S:
    tau = 1: sqrt(4 + 0) + 1 = 3; d = 2, tau = 1 + d lambda (e^2.5 - 1): d ln(e^2.5) = 5, so
    sqrt(4 + 5) + 1 = 4. Only the rounding of exp and log enters (rel 1e-12)."""
    d = 2
    tau = 1.0 + d * C_HAND.lam * (math.exp(2.5) - 1.0)
    got = sqrt_beta(np.array([1.0, tau]), d, C_HAND)
    np.testing.assert_allclose(got, [3.0, 4.0], rtol=1e-12)


def test_sqrt_beta_with_the_r4_default_constants():
    """lambda = S = 1, delta_c = 0.01 ([R4]): 2 ln 200 = 10.596634733096073, so at tau = 1
    sqrt(10.596634733096073) + 1 = 4.255247261437459; at d = 3, tau = 1 + 3 (e - 1) the root
    gains 3 ln e = 3: sqrt(13.596634733096073) + 1 = 4.687361486631881 (rel 1e-12)."""
    c = OfulConstants()
    assert (c.lam, c.S, c.delta_c) == (1.0, 1.0, 0.01)
    got = sqrt_beta(np.array([1.0, 1.0 + 3.0 * (math.e - 1.0)]), 3, c)
    np.testing.assert_allclose(got, [4.255247261437459, 4.687361486631881], rtol=1e-12)


def test_max_episodes_scales_with_lambda():
    """d log2(1 + T/(d lambda)) + 1 at d = 2, lambda = 2, T = 28: 2 log2(8) + 1 = 7 exactly;
    at lambda = 1, T = 6: 2 log2(4) + 1 = 5."""
    assert max_episodes(28, 2, lam=2.0) == 7.0
    assert max_episodes(6, 2) == 5.0


def test_constants_are_frozen_so_the_shared_default_cannot_drift():
    """run_adac_oful's default ``constants`` is one instance shared by every call."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        OfulConstants().lam = 2.0


def _inputs(n=2, T=5, K=3, d=2):
    A = np.zeros((n, T, K, d))
    A[..., 0] = 1.0
    return (
        A,
        np.full((n, T, K), 0.5),
        np.zeros((n, d)),
        [np.random.default_rng(i) for i in range(n)],
    )


@pytest.mark.parametrize(
    "which", ["U_short_in_T", "U_short_in_K", "theta", "rngs"], ids=lambda s: s
)
def test_run_refuses_inconsistent_shapes(which):
    """U must be (n, T, K) exactly, shorter as well as longer; theta (n, d); n generators."""
    A, U, theta, rngs = _inputs()
    if which == "U_short_in_T":
        U = U[:, :-1]
    elif which == "U_short_in_K":
        U = U[:, :, :-1]
    elif which == "theta":
        theta = theta[:, :-1]
    else:
        rngs = rngs[:-1]
    with pytest.raises(ValueError, match=r"U \(n, T, K\)"):
        run_adac_oful(A, U, theta, 1.0, rngs, np.array([5]))
