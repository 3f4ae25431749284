"""AdaC-UCB (spec open-problem-002 §5.1; unit-test facts §9 items 2 and 3)."""

import math

import numpy as np
import pytest
from scipy import stats

from dpbandits.engine.episodic import (
    adac_ucb_index,
    adac_ucb_per_round,
    episode_noise_sd,
    episode_regret,
    run_adac_ucb,
)

I1 = np.array([0.75, 0.625, 0.5, 0.375, 0.25])


def _rngs(n, base):
    return [np.random.default_rng([base, i]) for i in range(n)]


def test_episodes_double_and_every_reward_enters_one_release():
    out = adac_ucb_per_round(I1, 10**4, 0.01, np.random.default_rng(1), np.random.default_rng(2))
    for lengths in out["episodes"].values():
        assert lengths[:2] == [1, 1][: len(lengths)]
        assert all(b == 2 * a for a, b in zip(lengths[1:], lengths[2:], strict=False))
    # each reward of a completed episode is in exactly one release; the truncated tail in none
    uses = out["uses"]
    assert set(np.unique(uses)) <= {0, 1}
    zeros = np.flatnonzero(uses == 0)
    assert len(zeros) == 0 or (zeros[-1] == 10**4 - 1 and np.all(np.diff(zeros) == 1))
    assert uses.sum() == sum(sum(v) for v in out["episodes"].values())


def test_released_noise_has_the_calibrated_variance():
    """sd 1/(L sqrt(2 rho)): sensitivity 1/L of a mean of L rewards in [0, 1], rho-zCDP."""
    rho, L = 0.05, 8
    sd = float(episode_noise_sd(L, rho))
    assert sd == pytest.approx(1.0 / (L * math.sqrt(2 * rho)), rel=1e-12)
    draws = np.random.default_rng(3).normal(0.0, sd, size=10**5)
    # sample variance of 1e5 normals: relative sd sqrt(2/1e5) = 0.45 %, so +-2 % is > 4 sd
    assert draws.var() == pytest.approx(sd**2, rel=0.02)
    assert float(episode_noise_sd(L, math.inf)) == 0.0


def test_non_private_index_is_the_ucb_index():
    mu_hat = np.array([0.2, 0.5, 0.9])
    n = np.array([1.0, 4.0, 16.0])
    got = adac_ucb_index(mu_hat, n, 100, math.inf, 3.1)
    assert np.allclose(got, mu_hat + np.sqrt(3.1 * math.log(100) / (2 * n)), rtol=1e-14)
    joint = adac_ucb_index(mu_hat, n, 100, 0.1, 3.1)
    split = adac_ucb_index(mu_hat, n, 100, 0.1, 3.1, index="sum")
    assert np.all(split >= joint) and np.all(joint > got)


def test_episode_engine_matches_the_per_round_reference_in_distribution():
    """Binomial episode sums vs one Bernoulli per round: the same law of R(T) (two-sample KS,
    2000 runs each, I1, rho = 0.01, T = 2000; spec §9 fact 3)."""
    n, T, rho = 2000, 2000, 0.01
    log = run_adac_ucb(np.tile(I1, (n, 1)), T, rho, _rngs(n, 10), _rngs(n, 11))
    fast = episode_regret(log, np.array([T]))[:, 0]
    slow = np.array(
        [
            adac_ucb_per_round(
                I1, T, rho, np.random.default_rng([20, i]), np.random.default_rng([21, i])
            )["regret"]
            for i in range(n)
        ]
    )
    assert stats.ks_2samp(fast, slow).pvalue > 0.01
    # and the same seeds give the same run whether a trial is simulated alone or with others
    alone = run_adac_ucb(I1[None], T, rho, _rngs(1, 10), _rngs(1, 11))
    assert episode_regret(alone, np.array([T]))[0, 0] == fast[0]


def test_regret_curve_is_piecewise_linear_and_ordered_in_rho():
    n, T = 30, 10**6
    cps = np.array([5, 10**3, 10**5, T])
    means = {}
    for rho in (1e-3, 1e-1, math.inf):
        log = run_adac_ucb(np.tile(I1, (n, 1)), T, rho, _rngs(n, 30), _rngs(n, 31))
        R = episode_regret(log, cps)
        assert np.allclose(R[:, 0], (I1.max() - I1).sum())  # the round-robin
        assert np.all(np.diff(R, axis=1) >= 0)
        means[rho] = R[:, -1].mean()
    # more privacy (smaller rho) costs regret; the gap is far above the run-to-run noise here
    assert means[1e-3] > means[1e-1] > means[math.inf]


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="at least the number of arms"):
        run_adac_ucb(np.tile(I1, (1, 1)), 3, 0.1, _rngs(1, 0), _rngs(1, 1))
    with pytest.raises(ValueError, match="alpha > 3"):
        run_adac_ucb(np.tile(I1, (1, 1)), 100, 0.1, _rngs(1, 0), _rngs(1, 1), alpha=2.0)
    with pytest.raises(ValueError, match="index"):
        adac_ucb_index(I1, np.ones(5), 10, 0.1, 3.1, index="max")
