"""Explore-then-commit, the rate audit's planted contestant: the fast engine against the
reference loop, and its regret computed by hand."""

import numpy as np
import pytest

from dpbandits.config import resolve_schedule
from dpbandits.dev.reference_loops import reference_run
from dpbandits.engine import checkpoint_rounds, simulate
from dpbandits.envs import bernoulli_reward_table, script_instances
from dpbandits.envs.linear import FixedArmInstances
from dpbandits.policies import Setting, make_policy
from dpbandits.policies.etc import explore_rounds
from dpbandits.result_columns import METRICS
from dpbandits.seeds import noise_generator

EXACT = tuple(m for m in METRICS if m != "lambda_min")


def _run(policy, inst, T, n_checkpoints=10):
    cps = checkpoint_rounds(T, n_checkpoints)
    rngs = [noise_generator(7, "test", "panel", "etc", i) for i in range(inst.n)]
    return cps, simulate(policy, inst, list(range(inst.n)), rngs, cps)


@pytest.mark.parametrize("explore", [1, 7, 40, 333, 400])
def test_engine_reproduces_the_slow_loop(explore):
    T, d = 400, 4
    inst = script_instances(3, 40, d)
    policy = make_policy("etc", Setting(T=T, d=d), explore=explore)
    cps, fast = _run(policy, inst, T)
    for i in range(inst.n):
        ref = reference_run(policy, inst.X[i], inst.mu[i], bernoulli_reward_table(inst.mu[i], T, i),
                            {}, cps)  # fmt: skip
        for name in EXACT:
            assert np.array_equal(fast.metrics[name][i], ref[name]), (explore, i, name)
        assert np.allclose(fast.metrics["lambda_min"][i], ref["lambda_min"], rtol=1e-8)


def _hand_instance():
    """Three arms in d = 2 with means 0.8, 0.6, 0.2 (gaps 0, 0.2, 0.6); with 100 pulls each the
    estimated means are about 0.05 apart in sd, and on reward seed 0 the commit is the best arm."""
    X = np.array([[[0.8, 0.0], [0.0, 0.6], [0.1, 0.1]]])
    theta = np.array([[1.0, 1.0]])
    return FixedArmInstances(X=X, theta=theta, family="hand", seed=0)


def test_regret_is_the_exploration_cost_once_the_best_arm_is_found():
    """n = 300 round-robin rounds: 100 pulls of each arm, cost 100 * (0 + 0.2 + 0.6) = 80; the
    commit plays arm 0 for free."""
    T = 2000
    inst = _hand_instance()
    policy = make_policy("etc", Setting(T=T, d=2), explore=300)
    _, fast = _run(policy, inst, T, n_checkpoints=1)
    assert fast.metrics["regret_pseudo"][0, -1] == pytest.approx(80.0, abs=1e-9)
    assert fast.metrics["best_arm_rounds"][0, -1] == 100 + (T - 300)
    assert policy.exploration_cost(inst.mu[0]) == pytest.approx(80.0)
    # n = 301: one more pull of arm 0 (t = 300 is 0 mod 3), no extra cost
    policy = make_policy("etc", Setting(T=T, d=2), explore=301)
    assert _run(policy, inst, T, 1)[1].metrics["regret_pseudo"][0, -1] == pytest.approx(80.0)


def test_the_schedule_grows_like_t_to_the_a():
    """Exploration rounds ceil(c T^a) of a sweep schedule; a power outside (0, 1] is refused."""
    assert explore_rounds(10_000, 0.5) == 100
    assert explore_rounds(10_000, 0.5, 0.5) == 50
    assert explore_rounds(2520, 0.95, 0.5) == int(np.ceil(0.5 * 2520**0.95))
    assert explore_rounds(10, 1.0) == 10
    _, opts = resolve_schedule({"algorithm": "etc", "explore": {"power": "1/2"}}, 10_000)
    assert opts == {"explore": 100}
    with pytest.raises(ValueError, match=r"explore.power = '3/2': allowed a fraction in \(0, 1\]"):
        resolve_schedule({"algorithm": "etc", "explore": {"power": "3/2"}}, 100)


def test_bad_options_are_refused():
    s = Setting(T=100, d=2)
    with pytest.raises(ValueError, match="option explore .* is required"):
        make_policy("etc", s)
    for bad in (0, 101, 2.5, True):
        with pytest.raises(ValueError, match=r"explore must be an integer in \[1, T=100\]"):
            make_policy("etc", s, explore=bad)
    with pytest.raises(ValueError, match="unknown option"):
        make_policy("etc", s, explore=5, width_scale=2.0)
    assert not make_policy("etc", s, explore=5).private
