"""The engine's driver ``simulate`` and ``checkpoint_rounds`` (engine/run.py): the checkpoints,
the input checks, chunking by the memory budget, progress reports and wall time, the dispatch to
the phased and fresh-arm engines, and chunked trials each with their own instance, seed and
generator (docs/mutation.md)."""

import time

import numpy as np
import pytest

from dpbandits.dev.reference_loops import reference_contextual, reference_run
from dpbandits.engine import checkpoint_rounds, draw_raw, simulate
from dpbandits.engine.phased import run_dpdpe, run_dppe, run_metrics
from dpbandits.envs import bernoulli_reward_table, reward_tables, script_instances
from dpbandits.envs.linear import fixed_sphere_instances, make_instances
from dpbandits.policies import Setting, make_policy
from dpbandits.result_columns import METRICS
from dpbandits.seeds import environment_generator, noise_generator


def _rngs(alg, n, root=5):
    return [noise_generator(root, "mut", "run", alg, i) for i in range(n)]


# -- checkpoint_rounds: n evenly spaced rounds ending at T, rounded, at most T of them ----------
@pytest.mark.parametrize(
    "T,n,want",
    [
        (10, 5, [2, 4, 6, 8, 10]),  # T/n = 2: exact multiples
        (10, 3, [3, 7, 10]),  # 10/3, 20/3, 10 rounded
        (4, 10, [1, 2, 3, 4]),  # more checkpoints than rounds: every round once
        (7, 1, [7]),  # one checkpoint: the horizon
        (1, 1, [1]),
    ],
)
def test_checkpoint_rounds_are_evenly_spaced_rounded_and_end_at_T(T, n, want):
    cps = checkpoint_rounds(T, n)
    assert cps.dtype == np.int64
    assert cps.tolist() == want


@pytest.mark.parametrize("n", [0, -1])
def test_checkpoint_rounds_refuses_fewer_than_one_checkpoint(n):
    with pytest.raises(ValueError, match="at least one checkpoint"):
        checkpoint_rounds(10, n)


# -- input checks ---------------------------------------------------------------------------------
T_SMALL, N_SMALL = 40, 2


def _small():
    inst = script_instances(N_SMALL, 6, 3)
    policy = make_policy("ldp", Setting(T=T_SMALL, d=3, epsilon=1.0, delta=0.1))
    return policy, inst


@pytest.mark.parametrize("cps", [[1, T_SMALL], [T_SMALL], [1], [1, 2, 3]])
def test_checkpoints_at_the_ends_of_the_horizon_are_accepted(cps):
    policy, inst = _small()
    res = simulate(policy, inst, [0, 1], _rngs("ldp", 2), cps)
    assert res.checkpoints.tolist() == cps
    assert res.metrics["regret_pseudo"].shape == (N_SMALL, len(cps))


@pytest.mark.parametrize("cps", [[], [0, 5], [5, T_SMALL + 1], [5, 5], [6, 5], [-1]])
def test_bad_checkpoints_are_refused(cps):
    policy, inst = _small()
    with pytest.raises(ValueError, match="checkpoints must be increasing rounds"):
        simulate(policy, inst, [0, 1], _rngs("ldp", 2), cps)


def test_simulate_needs_exactly_one_seed_and_one_generator_per_trial():
    policy, inst = _small()
    with pytest.raises(ValueError, match="one reward seed and one noise generator"):
        simulate(policy, inst, [0], _rngs("ldp", 2), [T_SMALL])
    with pytest.raises(ValueError, match="one reward seed and one noise generator"):
        simulate(policy, inst, [0, 1], _rngs("ldp", 1), [T_SMALL])
    with pytest.raises(ValueError, match="one reward seed and one noise generator"):
        simulate(policy, inst, [0, 1, 2], _rngs("ldp", 3), [T_SMALL])


@pytest.mark.parametrize("d", [2, 4])
def test_instances_of_another_dimension_than_the_policys_are_refused(d):
    policy, _ = _small()
    inst = script_instances(N_SMALL, 6, d)
    with pytest.raises(ValueError, match=f"instances have d={d} but the policy was calibrated"):
        simulate(policy, inst, [0, 1], _rngs("ldp", 2), [T_SMALL])


def test_op24_calibration_is_refused_on_fixed_arms():
    policy = make_policy("linucb", Setting(T=T_SMALL, d=3), "op24")
    _, inst = _small()
    with pytest.raises(ValueError, match=r"linucb \(op24\) runs on fresh decision sets only"):
        simulate(policy, inst, [0, 1], _rngs("linucb", 2), [T_SMALL])


@pytest.mark.parametrize("shape_change", [(1, 0, 0), (-1, 0, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)])
def test_reward_tables_of_the_wrong_shape_are_refused(shape_change):
    policy, inst = _small()
    dn, dT, dK = shape_change
    rewards = np.zeros((N_SMALL + dn, T_SMALL + dT, 6 + dK), dtype=bool)
    with pytest.raises(ValueError, match="rewards must have shape"):
        simulate(policy, inst, [0, 1], _rngs("ldp", 2), [T_SMALL], rewards=rewards)


def test_reward_tables_of_exactly_the_horizon_are_used():
    """A table of exactly T rounds is accepted and changes no number (the same draws)."""
    policy, inst = _small()
    cps = checkpoint_rounds(T_SMALL, 4)
    own = simulate(policy, inst, [0, 1], _rngs("ldp", 2), cps).metrics
    tab = reward_tables(inst.mu, T_SMALL, [0, 1])
    shared = simulate(policy, inst, [0, 1], _rngs("ldp", 2), cps, rewards=tab).metrics
    for name in own:
        assert np.array_equal(own[name], shared[name]), name


def test_reward_tables_with_many_arms_are_accepted():
    """The shape check compares sizes by value (300 arms: beyond CPython's small-int cache)."""
    T, K = 20, 300
    inst = script_instances(1, K, 3)
    policy = make_policy("linucb", Setting(T=T, d=3))
    tab = reward_tables(inst.mu, T, [0])
    assert tab.shape == (1, T, K)
    res = simulate(policy, inst, [0], _rngs("linucb", 1), [T], rewards=tab)
    assert res.metrics["regret_pseudo"].shape == (1, 1)


# -- chunks and progress --------------------------------------------------------------------------
def test_progress_is_reported_after_every_chunk():
    """chunk = max(1, chunk_bytes // bytes per trial) trials: a budget of 0 bytes gives one trial
    per chunk, a budget of exactly two trials' bytes gives chunks of two."""
    n, T = 5, 30
    inst = script_instances(n, 6, 3)
    policy = make_policy("ldp", Setting(T=T, d=3, epsilon=1.0, delta=0.1))
    per_trial = policy.trial_bytes(6)
    for budget, want in (
        (0, [1, 2, 3, 4, 5]),
        (per_trial - 1, [1, 2, 3, 4, 5]),
        (2 * per_trial, [2, 4, 5]),
        (3 * per_trial - 1, [2, 4, 5]),
        (10 * per_trial, [5]),
    ):
        calls = []
        res = simulate(
            policy,
            inst,
            list(range(n)),
            _rngs("ldp", n),
            [T],
            chunk_bytes=budget,
            progress=lambda done, total, secs, calls=calls: calls.append((done, total, secs)),
        )
        assert [c[0] for c in calls] == want, budget
        assert all(c[1] == n for c in calls)
        assert all(0.0 <= c[2] <= res.seconds for c in calls)


def test_seconds_is_the_wall_time_of_the_call():
    policy, inst = _small()
    t0 = time.perf_counter()
    res = simulate(policy, inst, [0, 1], _rngs("ldp", 2), [T_SMALL])
    wall = time.perf_counter() - t0
    assert 0.0 < res.seconds <= wall


def test_fixed_arm_results_carry_the_shared_metrics_in_order():
    policy, inst = _small()
    res = simulate(policy, inst, [0, 1], _rngs("ldp", 2), [T_SMALL])
    assert tuple(res.metrics) == METRICS


# -- the phased policies: one run per trial, environment stream from the trial's reward seed -----
@pytest.mark.parametrize("algorithm,runner", [("dpe", run_dpdpe), ("pe", run_dppe)])
def test_phased_simulation_is_one_run_per_trial(algorithm, runner):
    n, K, d, T = 7, 6, 3, 3000
    inst = fixed_sphere_instances(n, K, d, 3)
    policy = make_policy(algorithm, Setting(T=T, d=d, epsilon=None, delta=0.1, K=K))
    cps = checkpoint_rounds(T, 5)
    seeds = [20 + i for i in range(n)]
    calls = []
    res = simulate(
        policy,
        inst,
        seeds,
        _rngs(algorithm, n),
        cps,
        progress=lambda done, total, secs: calls.append((done, total)),
    )
    assert calls == [(5, n)]  # every fifth trial
    for i in range(n):
        run = runner(
            policy,
            inst.X[i],
            inst.theta[i],
            environment_generator(seeds[i]),
            _rngs(algorithm, n)[i],
        )
        for name, values in run_metrics(run, cps).items():
            assert np.array_equal(res.metrics[name][i], values, equal_nan=True), (i, name)
        assert res.extra["phases"][i] == run.log
    assert res.checkpoints.tolist() == cps.tolist()


def test_phased_seconds_is_the_wall_time_of_the_call():
    inst = fixed_sphere_instances(2, 4, 2, 4)
    policy = make_policy("dpe", Setting(T=200, d=2, epsilon=None, delta=0.1, K=4))
    t0 = time.perf_counter()
    res = simulate(policy, inst, [0, 1], _rngs("dpe", 2), [200])
    assert 0.0 < res.seconds <= time.perf_counter() - t0


def test_phased_progress_is_reported_every_fifth_trial():
    n, K, d, T = 10, 4, 2, 200
    inst = fixed_sphere_instances(n, K, d, 4)
    policy = make_policy("dpe", Setting(T=T, d=d, epsilon=None, delta=0.1, K=K))
    calls = []
    simulate(
        policy,
        inst,
        list(range(n)),
        _rngs("dpe", n),
        [T],
        progress=lambda done, total, secs: calls.append((done, total)),
    )
    assert calls == [(5, n), (10, n)]


# -- fresh arms -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "algorithm,epsilon,options",
    [
        ("onlineucb", 10.0, {"c_beta": 1e-2, "lambda_min": 0.0}),  # Delta^2 > 0: zeta scaled
        # epsilon = 1: sigma^2 = 20 dominates the selection width's 1 + sigma^2
        ("combiner", 1.0, {"c_beta": 1e-2, "P_const": 1e-4, "p_index": 0.1}),
    ],
)
def test_fresh_arm_engine_agrees_with_the_reference(algorithm, epsilon, options):
    T, n, d, K = 120, 3, 4, 6
    inst = make_instances("fresh_sphere", n, K, d, 2)
    policy = make_policy(algorithm, Setting(T=T, d=d, epsilon=epsilon, delta=0.1), **options)
    cps = checkpoint_rounds(T, 4)
    seeds = [30, 31, 32]
    # chunk_bytes = 1: one trial per chunk, so a chunk's slice of trials is exercised
    fast = simulate(policy, inst, seeds, _rngs(algorithm, n), cps, chunk_bytes=1)
    for i in range(n):
        raw = draw_raw(policy, _rngs(algorithm, n)[i])
        u = np.random.RandomState(seeds[i]).random_sample((T, K))
        ref = reference_contextual(policy, inst.arms(i, T), inst.theta[i], u, raw, cps)
        assert np.array_equal(fast.metrics["regret_realized"][i], ref["regret_realized"]), i
        assert np.allclose(fast.metrics["regret_pseudo"][i], ref["regret_pseudo"], atol=1e-10)


def test_fresh_arm_chunks_follow_the_memory_budget():
    """A chunk holds as many trials as fit in ``chunk_bytes``, counting a trial's arrays: the arms
    (T, K, d), the reward uniforms (T, K) and the noise zeta, eta_x (T, d), eta_y (T)."""
    T, n, d, K = 30, 3, 3, 4
    inst = make_instances("fresh_sphere", n, K, d, 2)
    policy = make_policy("combiner", Setting(T=T, d=d, epsilon=1.0, delta=0.1))
    raw = draw_raw(policy, _rngs("combiner", 1)[0])
    per_trial = inst.arms(0, T).nbytes + 8 * T * K + sum(v.nbytes for v in raw.values())
    for budget, want in ((2 * per_trial - 1, [1, 2, 3]), (2 * per_trial, [2, 3]), (0, [1, 2, 3])):
        calls = []
        simulate(
            policy,
            inst,
            [0, 1, 2],
            _rngs("combiner", n),
            [T],
            chunk_bytes=budget,
            progress=lambda done, total, secs, calls=calls: calls.append((done, total)),
        )
        assert calls == [(w, n) for w in want], budget


def test_fresh_arms_refuse_other_policies_and_the_oracle_radius():
    T, d = 50, 3
    inst = make_instances("fresh_sphere", 2, 5, d, 2)
    policy = make_policy("ldp", Setting(T=T, d=d, epsilon=1.0, delta=0.1))
    with pytest.raises(ValueError, match="fresh-arm instances"):
        simulate(policy, inst, [0, 1], _rngs("ldp", 2), [T])
    oracle = make_policy(
        "onlineucb", Setting(T=T, d=d, epsilon=10.0, delta=0.1), radius_mode="oracle"
    )
    with pytest.raises(ValueError, match="oracle radius is not available on fresh arms"):
        simulate(oracle, inst, [0, 1], _rngs("onlineucb", 2), [T])


# -- fixed arms, chunked: each trial gets its own instance, seed and generator ------------------
def test_fixed_arm_trials_in_chunks_match_the_reference():
    T, n, d = 60, 3, 3
    inst = script_instances(n, 8, d)
    policy = make_policy("ldp", Setting(T=T, d=d, epsilon=1.0, delta=0.1))
    cps = checkpoint_rounds(T, 3)
    seeds = [40, 41, 42]
    fast = simulate(policy, inst, seeds, _rngs("ldp", n), cps, chunk_bytes=1)
    for i in range(n):
        raw = draw_raw(policy, _rngs("ldp", n)[i])
        ref = reference_run(
            policy,
            inst.X[i],
            inst.mu[i],
            bernoulli_reward_table(inst.mu[i], T, seeds[i]),
            raw,
            cps,
            theta=inst.theta[i],
        )
        for name in ("regret_pseudo", "regret_realized"):
            assert np.array_equal(fast.metrics[name][i], ref[name]), (i, name)


def test_an_option_value_built_at_run_time_selects_the_same_step():
    """Option values compared by value: a name built at run time (as read from a config file)."""
    T, d = 200, 4
    inst = script_instances(2, 10, d)
    step = "".join(["strongly", "_convex"])
    policy = make_policy(
        "combiner",
        Setting(T=T, d=d, epsilon=10.0, delta=0.1),
        learner="ogd",
        ogd_step=step,
        c_beta=1e-3,
    )
    cps = checkpoint_rounds(T, 3)
    fast = simulate(policy, inst, [0, 1], _rngs("combiner", 2), cps)
    for i in range(2):
        raw = draw_raw(policy, _rngs("combiner", 2)[i])
        rewards = bernoulli_reward_table(inst.mu[i], T, i)
        ref = reference_run(policy, inst.X[i], inst.mu[i], rewards, raw, cps, theta=inst.theta[i])
        assert np.array_equal(fast.metrics["regret_realized"][i], ref["regret_realized"]), i
