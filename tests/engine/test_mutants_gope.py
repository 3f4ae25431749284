"""Tests that kill mutants left alive in engine/gope.py (docs/mutation.md).

AdaC-GOPE (paper 002, Table 1 row 2; reconstruction [R2] of docs/papers/op24.md) is checked
with a scripted environment whose ``binomial(n, p)`` returns its mean ``n p``: every phase's
reward sum of action ``a`` is then exactly ``T_l(a) <theta*, a>`` (step 6 of the module
docstring: ``2 B - T_l(a)``), least squares recovers ``theta*`` up to rounding, and with
``rho = inf`` the elimination rule of step 8 (keep ``a`` iff its estimated gap is at most
``2 beta_l = 2^{1-l}``) decides every phase on the true gaps.
"""

import math

import numpy as np
import pytest

from dpbandits.engine.gope import run_adac_gope

# d = 2, K = 3: means 0.5, -0.3, 0.3, so the gaps are 0, 0.8, 0.2
X = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
THETA = np.array([0.5, -0.3])


class _MeanEnv:
    """An environment stream whose ``binomial(n, p)`` returns the mean ``n p`` (no sampling)."""

    def binomial(self, n, p):
        return np.asarray(n) * p


def test_exact_rewards_eliminate_exactly_the_gaps_above_two_beta():
    """Thresholds 2 beta_l = 1, 0.5, 0.25, 0.125 for l = 1..4 (step 8): gap 0.8 survives phase 1
    (0.8 <= 1) and is dropped in phase 2 (0.8 > 0.5); gap 0.2 survives phases 2 and 3
    (0.2 <= 0.25) and is dropped in phase 4 (0.2 > 0.125); then action 0 plays until T (step 1).
    A reward sum off by a factor (e.g. 3 B - n instead of 2 B - n scales the estimated gaps by
    1.5) moves 0.8 above 1 and drops it in phase 1. The margins (0.2, 0.3, 0.05, 0.075) dwarf
    the rounding of a 2 x 2 least-squares solve (1e-15)."""
    T = 10**6
    run = run_adac_gope(X, THETA, T, math.inf, _MeanEnv(), None)
    assert [(e["l"], e["active"], e["kept"]) for e in run.log] == [
        (1, 3, 3),
        (2, 3, 2),
        (3, 2, 2),
        (4, 2, 1),
    ]
    assert [sorted(s.tolist()) for s in run.supports[-2:]] == [[0, 2], [0]]
    assert all(e["sigma"] == 0.0 for e in run.log)  # GOPE: no release noise
    assert run.counts[-1].tolist() == [T - run.starts[-1]]  # the survivor plays out the horizon
    assert sum(int(c.sum()) for c in run.counts) == T


@pytest.mark.parametrize("rho", [0.0, -1.0, math.nan])
def test_run_refuses_a_rho_that_is_not_positive(rho):
    """rho-zCDP needs rho > 0 (inf is GOPE); rho = 0 and NaN are refused, not run."""
    with pytest.raises(ValueError, match="must be > 0"):
        run_adac_gope(X, THETA, 100, rho, _MeanEnv(), np.random.default_rng(0))
