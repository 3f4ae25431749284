"""Tests that kill mutants left alive in engine/adac_oful.py (docs/mutation.md).

tests/engine/test_adac_oful.py checks the engine against a literal loop, but that loop calls the
module's own ``sqrt_beta``, and the episode bound was only used at ``lambda = 1``. Here the
confidence radius ``sqrt(beta_k)`` and the episode bound ``d log2(1 + T/(d lambda)) + 1``
(paper 002, Sec. 3; reconstruction [R4] of docs/papers/op24.md) are checked at points where
they are exact by hand, and the input checks and the immutability of the shared default
constants are pinned.
"""

import dataclasses
import math

import numpy as np
import pytest

from dpbandits.engine.adac_oful import OfulConstants, max_episodes, run_adac_oful, sqrt_beta

# delta_c = 2 e^-2 makes 2 ln(2/delta_c) = 4; lambda = 4, S = 1/2 make sqrt(lambda) S = 1
C = OfulConstants(lam=4.0, S=0.5, delta_c=2.0 * math.exp(-2.0))


def test_sqrt_beta_at_hand_computed_points():
    """sqrt(2 ln(2/delta_c) + d ln(1 + (tau - 1)/(d lambda))) + sqrt(lambda) S:
    tau = 1: sqrt(4 + 0) + 1 = 3; d = 2, tau = 1 + d lambda (e^2.5 - 1): d ln(e^2.5) = 5, so
    sqrt(4 + 5) + 1 = 4. Only the rounding of exp and log enters (rel 1e-12)."""
    d = 2
    tau = 1.0 + d * C.lam * (math.exp(2.5) - 1.0)
    got = sqrt_beta(np.array([1.0, tau]), d, C)
    np.testing.assert_allclose(got, [3.0, 4.0], rtol=1e-12)


def test_sqrt_beta_with_the_r4_constants():
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
