"""Private LASSO constants and sparse estimation (policies/private_lasso.py; docs/mutation.md).

Lemma 3's ``alpha`` and Lemma 4's support bound ``s_{1,l}`` (plasso, Sec. 3) at points where
every factor is a small integer, so the expected values are written out by hand.
"""

import dataclasses
import math

import numpy as np
import pytest

from dpbandits.policies.private_lasso import plasso_constants, sparse_estimation

# s0 = 4, C_r = C_X = 1, phi^2 = 4: s_under = 1 + 4/4 = 2, s_bar = 1 + 4 sqrt(4)/4 = 3
SMALL = {"T": 8, "d": 10, "s0": 4, "K": 2, "C_X": 1.0, "C_r": 1.0, "phi2": 4.0}


def test_lemma_3_alpha_by_hand():
    """alpha = (128 s_bar/eps) ln(1/delta) ln(2 T s0^(3/2) s_under s_bar): at eps = 2,
    delta = 0.01: (128 * 3/2) ln 100 ln(2 * 8 * 8 * 2 * 3) = 192 ln 100 ln 768."""
    c = plasso_constants(eps=2.0, delta=0.01, **SMALL)
    assert (c.s_under, c.s_bar) == (2.0, 3.0)
    assert c.alpha == pytest.approx(192 * math.log(100) * math.log(768), rel=1e-12)


def _lemma4_constants(Gamma: float, alpha: float):
    """s0 = 4, s_under = 9 (sqrt(s0 s_under) = 6), C_r = 2, C_X = 3, phi^2 = 2."""
    c = plasso_constants(eps=1.0, **{**SMALL, "C_r": 2.0, "C_X": 3.0, "phi2": 2.0})
    return dataclasses.replace(c, s_under=9.0, Gamma=Gamma, alpha=alpha)


def test_lemma_4_support_bound_by_hand():
    """s_1 = s0 + 16 s0 C_r C_X lam / (phi^2 (4 lam Gamma sqrt(s0 s_under) + alpha)): at
    lam = 1/2, Gamma = 1, alpha = 4 the bracket is 4 * 1/2 * 6 + 4 = 16 and
    s_1 = 4 + 16 * 4 * 2 * 3 * (1/2) / (2 * 16) = 4 + 6 = 10."""
    assert _lemma4_constants(1.0, 4.0).s1_episode(0.5) == pytest.approx(10.0, rel=1e-12)
    # Gamma = -1/2: bracket 4 * 1/2 * (-1/2) * 6 + 4 = -2, not positive: no bound
    assert math.isnan(_lemma4_constants(-0.5, 4.0).s1_episode(0.5))
    # Gamma = -1/3: bracket 0 exactly (the bound needs a positive bracket)
    assert math.isnan(_lemma4_constants(-1 / 3, 4.0).s1_episode(0.5))


def test_sparse_estimation_without_history_selects_nothing():
    """The first episode (t = 1) has no stored rounds: empty S0 and S, lambda 0, no fit."""
    c = plasso_constants(2**10, 20, 3, 2, 1.0)
    S0, S, lam = sparse_estimation(np.zeros((0, 20)), np.zeros(0), 1, c, np.random.default_rng(0))
    assert S0.size == 0 and S.size == 0 and S.dtype == np.int64 and lam == 0.0
