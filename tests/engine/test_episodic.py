"""AdaC-UCB (op24, Table 1 row 1; the project's reconstruction [R1, R1b],
docs/papers/op24.md): episodes, releases, index and the episode-level engine (engine/episodic.py).

Beyond the comparison in distribution with the per-round reference (a KS test), the engine is
compared run by run (docs/mutation.md): with arm means in {0, 1} every reward is determined
(Bernoulli(1) = 1, Bernoulli(0) = 0), so the engine's binomial episode sums and the reference's
per-round draws coincide, and with the same privacy-noise stream (K initial normals, then one per
completed episode, in the same order) the two must make the same decisions. The pseudo-regret is
then an integer (the rounds spent on mean-0 arms) and is compared exactly. Also pinned: a
truncated episode releases nothing, the log marks finished trials, and rho = 0 is refused.
"""

import math

import numpy as np
import pytest
from scipy import stats

from dpbandits.engine.episodic import (
    adac_ucb_index,
    adac_ucb_per_round,
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


class _Recorder:
    """A noise generator that records every normal draw the engine makes (and nothing else)."""

    def __init__(self, rng):
        self.rng, self.draws = rng, []

    def normal(self, loc=0.0, scale=1.0, size=None):
        out = self.rng.normal(loc, scale, size)
        self.draws.extend(np.atleast_1d(out).tolist())
        return out


@pytest.mark.parametrize("rho", [0.05, 2.0])
def test_released_noise_has_the_calibrated_variance(rho):
    """The noise run_adac_ucb adds to each released episode mean, drawn by the engine itself with
    fixed seeds: one arm of mean 0 (rewards all 0, so every release is pure noise) and T = 16,
    so each trial releases, in order, the initial pull and episodes of L = 1, 1, 2, 4, 8
    rewards. An episode mean of L rewards in [0, 1] has sensitivity 1/L, and the Gaussian
    mechanism is Delta^2/(2 sigma^2)-zCDP (Bun-Steinke Prop. 1.6): variance 1/(2 rho L^2).

    Tolerance: the sample variance of n normals has var 2 sigma^4/(n - 1), so |s^2/sigma^2 - 1|
    <= 5 sqrt(2/(n - 1)) (n = 4000 trials: 11 %) is five standard errors; the mean 0 within 5
    standard errors sigma/sqrt(n)."""
    n = 4000
    noise = [_Recorder(np.random.default_rng([3, i])) for i in range(n)]
    log = run_adac_ucb(np.zeros((n, 1)), 16, rho, _rngs(n, 4), noise)
    starts, lengths, _, _ = log.arrays()
    assert list(starts[:, 0]) == [0, 1, 2, 4, 8] and list(lengths[:, 0]) == [1, 1, 2, 4, 8]
    draws = np.array([r.draws for r in noise])  # (n, 5): one column per release
    assert draws.shape == (n, 5)
    for col, L in enumerate([1, 1, 2, 4, 8]):
        var = 1.0 / (2 * rho * L**2)
        x = draws[:, col]
        assert abs(x.mean()) <= 5 * math.sqrt(var / n)
        assert abs(x.var(ddof=1) / var - 1) <= 5 * math.sqrt(2 / (n - 1))
    # Ada-UCB (rho = inf) releases without noise: no draw at all
    silent = [_Recorder(np.random.default_rng(0))]
    run_adac_ucb(np.zeros((1, 1)), 16, math.inf, _rngs(1, 4), silent)
    assert silent[0].draws == []


def test_private_index_at_hand_computed_values():
    """I_a = mu~_a + sqrt((1/(2 n_a) + 1/(rho n_a^2)) alpha ln t_l) ([R1] of
    docs/papers/op24.md; "sum": the sum of the two roots), by hand at alpha = 3.1, t_l = 50
    (alpha ln t_l = 12.127266):
    n = 4, rho = 0.02: sqrt(3.25 x 12.127266) = 6.2780277; sum 1.2312225 + 6.1560052.
    n = 3, rho = 0.5: sqrt((1/6 + 2/9) x 12.127266) = 2.1716724; sum 3.0633234."""
    mu = np.array([0.3, 0.1])
    got = adac_ucb_index(mu, np.array([4.0, 4.0]), 50, 0.02, 3.1)
    assert got == pytest.approx(mu + 6.278027698225659, rel=1e-12)
    got = adac_ucb_index(mu, np.array([4.0, 4.0]), 50, 0.02, 3.1, index="sum")
    assert got == pytest.approx(mu + 7.387335170798915, rel=1e-12)
    assert adac_ucb_index(mu[:1], np.array([3.0]), 50, 0.5, 3.1)[0] == pytest.approx(
        0.3 + 2.171672412601643, rel=1e-12
    )
    assert adac_ucb_index(mu[:1], np.array([3.0]), 50, 0.5, 3.1, index="sum")[0] == pytest.approx(
        0.3 + 3.0633233544402287, rel=1e-12
    )
    # per trial: t_start broadcasts over the arms of each row
    rows = adac_ucb_index(np.zeros((2, 1)), np.full((2, 1), 4.0), np.array([50, 50]), 0.02, 3.1)
    assert rows[:, 0] == pytest.approx([6.278027698225659] * 2, rel=1e-12)


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
    2000 runs each, I1, rho = 0.01, T = 2000)."""
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


# -- run by run against the per-round reference on deterministic rewards --------------------------
MEANS = np.array([1.0, 0.0, 1.0, 0.0])  # K = 4, gaps 0, 1, 0, 1


@pytest.mark.parametrize("rho", [math.inf, 0.5, 0.05])
def test_engine_equals_the_per_round_reference_on_deterministic_rewards(rho):
    """40 runs with the same noise seeds: the engine's regret curve R(c) at c = 5, ..., 300
    equals the reference run to horizon c exactly (decisions never depend on T, so the
    reference to horizon c is the first c rounds of a longer run; R is an integer: rounds on
    the two mean-0 arms). Early horizons matter: a constant offset on every released mean
    only delays decisions and can leave R(300) unchanged. The noise (sd 1/sqrt(2 rho) on the
    first releases) makes the runs differ, so many decision paths are compared."""
    n, T = 40, 300
    cps = np.array([5, 8, 12, 20, 50, 120, 300])
    log = run_adac_ucb(
        np.tile(MEANS, (n, 1)),
        T,
        rho,
        [np.random.default_rng([1, i]) for i in range(n)],
        [np.random.default_rng([2, i]) for i in range(n)],
    )
    engine = episode_regret(log, cps)
    reference = np.array(
        [
            [
                adac_ucb_per_round(
                    MEANS, int(c), rho, np.random.default_rng([3, i]), np.random.default_rng([2, i])
                )["regret"]
                for c in cps
            ]
            for i in range(n)
        ]
    )
    np.testing.assert_array_equal(engine, reference)
    assert np.all(engine == np.round(engine)) and np.all(engine[:, 0] >= 2)  # round-robin: 2
    if not math.isinf(rho):
        assert len(np.unique(engine[:, -1])) > 1  # the noise makes the runs differ


class _CallCounter:
    """A noise generator that counts the normal draws the engine makes."""

    def __init__(self, rng):
        self.rng, self.calls = rng, 0

    def normal(self, loc=0.0, scale=1.0, size=None):
        self.calls += 1
        return self.rng.normal(loc, scale, size)


def test_a_truncated_episode_releases_no_noisy_mean():
    """One arm, T = 15: the initial pull and episodes of 1, 2, 4 rewards complete (releases
    1 + 3 = 4 normals, the initial one a vector of K = 1), the fifth episode (L = 8) is cut to
    7 rounds and its mean is never released, so no fifth draw."""
    noise = _CallCounter(np.random.default_rng(0))
    log = run_adac_ucb(np.full((1, 1), 0.5), 15, 1.0, [np.random.default_rng(1)], [noise])
    starts, lengths, _, _ = log.arrays()
    assert starts[:, 0].tolist() == [0, 1, 2, 4, 8] and lengths[:, 0].tolist() == [1, 1, 2, 4, 7]
    assert noise.calls == 4


def test_finished_trials_are_logged_without_arm_or_rounds():
    """Trials run in lockstep; a trial that has reached T logs length 0 and arm -1 (no arm)
    in every later step, and every live step logs a real arm with at least one round."""
    n, T, K = 6, 400, 4
    rng = np.random.default_rng(7)
    log = run_adac_ucb(
        rng.random((n, K)),
        T,
        0.2,
        [np.random.default_rng([4, i]) for i in range(n)],
        [np.random.default_rng([5, i]) for i in range(n)],
    )
    _, lengths, _, arms = log.arrays()
    done = lengths == 0
    assert done.any()  # the trials finish at different steps
    np.testing.assert_array_equal(arms[done], -1)
    assert np.all((arms[~done] >= 0) & (arms[~done] < K))
    np.testing.assert_array_equal(lengths.sum(axis=0), T)


def test_run_refuses_rho_zero():
    with pytest.raises(ValueError, match="need rho > 0 and alpha > 3"):
        run_adac_ucb(
            np.full((1, 2), 0.5), 10, 0.0, [np.random.default_rng(0)], [np.random.default_rng(1)]
        )
