"""Explore-then-commit on the phased engine (:func:`dpbandits.engine.phased.run_etc`), the planted
contestant of dpdpe's sweeps: its blocks and regret by hand, and identity I10 through the
probability of committing to the wrong action, computed by hand.

On two orthogonal unit actions with ``theta* = (0.5, 0.4)``, ridge ``lambda = 1`` and ``c``
exploration rounds each, ``theta_hat_k = S_k / (1 + c)``, so the run commits to the worse action
iff ``S_2 > S_1``; by I10 ``S_2 - S_1 ~ N(-0.1 c, 2 c (1 + sigma^2))``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from dpbandits.engine.phased import regret_at, run_etc, run_metrics
from dpbandits.policies import Setting, make_policy

X = np.eye(2)
THETA = np.array([0.5, 0.4])


def _policy(T: int, explore: int, sigma: float = 0.1):
    return make_policy("etc_phased", Setting(T=T, d=2, K=2), explore=explore, sigma=sigma)


def test_blocks_and_regret_by_hand():
    # 101 exploration rounds: action 0 gets 51, action 1 gets 50 (gap 0.1): 5.0 before the commit
    run = run_etc(_policy(1000, 101), X, THETA, np.random.default_rng(0), None)
    assert run.starts[:2] == [0, 51] and run.lengths[:2] == [51, 50]
    assert run.starts[2] == 101 and run.lengths[2] == 899
    committed = run.log[0]["committed"]
    assert run.gaps[2] == pytest.approx([0.0, 0.1][committed])
    assert regret_at(run, 101) == pytest.approx(5.0)
    assert regret_at(run, 1000) == pytest.approx(5.0 + 899 * [0.0, 0.1][committed])
    cps = np.array([101, 1000])
    assert run_metrics(run, cps)["regret_pseudo"] == pytest.approx([5.0, regret_at(run, 1000)])


def test_a_run_that_explores_to_the_horizon_never_commits():
    run = run_etc(_policy(100, 100), X, THETA, np.random.default_rng(0), None)
    assert sum(run.lengths) == 100 and regret_at(run, 100) == pytest.approx(5.0)


def test_the_exploration_sums_follow_I10():
    c, sigma, runs = 50, 0.1, 4000
    p_wrong = norm.cdf(-0.1 * c / math.sqrt(2 * c * (1 + sigma**2)))  # 0.3094
    policy = _policy(1000, 2 * c, sigma)
    rng = np.random.default_rng(20261201)
    wrong = np.mean([run_etc(policy, X, THETA, rng, None).log[0]["committed"] for _ in range(runs)])
    se = math.sqrt(p_wrong * (1 - p_wrong) / runs)
    assert abs(wrong - p_wrong) < 4 * se
    # the heterogeneity enters the variance, 1 + sigma^2 ||x||^2: at sigma = 3 the probability is
    # Phi(-5 / sqrt(1000)) = 0.437, far from 0.309
    loud = _policy(1000, 2 * c, 3.0)
    wrong_loud = np.mean(
        [run_etc(loud, X, THETA, rng, None).log[0]["committed"] for _ in range(runs)]
    )
    assert abs(wrong_loud - norm.cdf(-5 / math.sqrt(1000))) < 4 * se
