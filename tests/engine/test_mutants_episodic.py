"""Tests that kill mutants left alive in engine/episodic.py (docs/mutation.md).

tests/engine/test_adac_ucb.py compares the episode-level engine with the per-round reference only in
distribution (a KS test). With arm means in {0, 1} every reward is determined (Bernoulli(1) = 1,
Bernoulli(0) = 0), so the engine's binomial episode sums and the reference's per-round draws
coincide, and with the same privacy-noise stream (K initial normals, then one per completed
episode, in the same order) the two must make the same decisions run by run: AdaC-UCB of paper
002, Table 1 row 1 ([R1, R1b] of docs/papers/op24.md). The pseudo-regret is then an integer
(the rounds spent on mean-0 arms) and is compared exactly. Also pinned: a truncated episode
releases nothing, the log marks finished trials, and rho = 0 is refused.
"""

import math

import numpy as np
import pytest

from dpbandits.engine.episodic import adac_ucb_per_round, episode_regret, run_adac_ucb

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


class _Recorder:
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
    noise = _Recorder(np.random.default_rng(0))
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
