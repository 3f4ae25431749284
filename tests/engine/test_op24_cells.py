"""op24's algorithms as pipeline policies (dpbandits.policies.op24, engine/op24_cells.py):
they read the pipeline's instances and common reward streams, refuse instances they do not run
on, and their privacy level orders their regret."""

import math

import numpy as np
import pytest

from dpbandits.engine.adac_oful import run_adac_oful
from dpbandits.engine.fresh_linucb import simulate_fresh
from dpbandits.engine.gope import gope_regret, run_adac_gope
from dpbandits.engine.run import checkpoint_rounds, simulate
from dpbandits.envs.caps import random_play_rate
from dpbandits.envs.contextual import fresh_sphere_instances
from dpbandits.envs.linear import FixedArmInstances, make_instances
from dpbandits.mechanisms.zcdp import dp_to_zcdp, zcdp_to_dp
from dpbandits.policies import Setting, make_policy

N, T, D, K = 3, 600, 4, 5


def _rngs(n=N, seed=0):
    return [np.random.default_rng([seed, i]) for i in range(n)]


def _policy(algorithm, calibration, eps=1.0, T=T, d=D, K=K):
    private = algorithm != "linucb"
    setting = Setting(
        T=T, d=d, epsilon=eps if private else None, delta=0.1 if private else None, K=K
    )
    return make_policy(algorithm, setting, calibration=calibration)


@pytest.mark.parametrize(
    ("algorithm", "calibration"),
    [("adac_oful", "zcdp"), ("jdp_tree", "op24"), ("linucb", "op24")],
)
def test_fresh_arm_policies_run_on_the_pipelines_decision_sets_and_reward_uniforms(
    algorithm, calibration
):
    """The cell's run equals the op24 kernel fed by hand with the arms of
    FreshArmInstances.arms, the uniforms of RandomState(reward seed) (the contextual engine's
    reward stream) and the instances' theta; a tiny chunk budget gives the same numbers."""
    inst = fresh_sphere_instances(N, K, D, seed=7)
    seeds = [11, 12, 13]
    cps = checkpoint_rounds(T, 4)
    policy = _policy(algorithm, calibration)
    got = simulate(policy, inst, seeds, _rngs(), cps).metrics["regret_pseudo"]
    arms = np.stack([inst.arms(i, T) for i in range(N)])
    uniforms = np.stack([np.random.RandomState(s).random_sample((T, K)) for s in seeds])
    if algorithm == "adac_oful":
        want = run_adac_oful(arms, uniforms, inst.theta, policy.rho, _rngs(), cps).regret
    else:
        want = simulate_fresh(policy, arms, uniforms, inst.theta, _rngs(), cps).regret
    np.testing.assert_array_equal(got, want)
    small = simulate(policy, inst, seeds, _rngs(), cps, chunk_bytes=1).metrics["regret_pseudo"]
    np.testing.assert_array_equal(small, got)
    assert np.all(np.diff(got, axis=1) >= 0)  # cumulative pseudo-regret


def test_each_policy_refuses_the_instances_it_does_not_run_on():
    fresh = fresh_sphere_instances(N, K, D)
    fixed = make_instances("paper_text", N, K, D, 2)
    cps = checkpoint_rounds(T, 2)
    for algorithm, calibration, wrong in (
        ("adac_oful", "zcdp", fixed),
        ("jdp_tree", "op24", fixed),
        ("adac_ucb", "zcdp", fresh),
        ("adac_gope", "zcdp", fresh),
    ):
        with pytest.raises(ValueError, match="runs on"):
            simulate(_policy(algorithm, calibration), wrong, [0] * N, _rngs(), cps)


def test_rho_is_the_largest_meeting_the_epsilon_delta_target():
    policy = _policy("adac_ucb", "zcdp", eps=1.0)
    assert zcdp_to_dp(policy.rho, 0.1) == pytest.approx(1.0, rel=1e-12)
    assert policy.rho == dp_to_zcdp(1.0, 0.1)
    with pytest.raises(ValueError, match="calibration"):
        make_policy("adac_ucb", Setting(T=T, d=D, epsilon=1.0, delta=0.1), calibration="theory")


def test_adac_ucb_pays_for_privacy_and_learns_on_the_fixed_suite():
    """paper_text instances, K = 10, T = 20000, 12 trials: at epsilon = 10 AdaC-UCB's regret is
    about 0.15 of random play's, at epsilon = 0.1 about 0.5 (per-trial sd about 0.1 of it), so
    the two means are many standard errors apart and the private one is far from saturated."""
    n, T_, K_ = 12, 20000, 10
    inst = make_instances("paper_text", n, K_, 5, 2, T=T_)
    cap = T_ * random_play_rate(inst)
    cps = checkpoint_rounds(T_, 2)
    share = {}
    for eps in (0.1, 10.0):
        policy = _policy("adac_ucb", "zcdp", eps=eps, T=T_, d=5, K=K_)
        regret = simulate(policy, inst, list(range(n)), _rngs(n), cps).metrics["regret_pseudo"]
        share[eps] = regret[:, -1] / cap
    assert share[10.0].mean() < 0.3 and share[0.1].mean() < 0.8
    diff = share[0.1] - share[10.0]
    assert diff.mean() > 5 * diff.std(ddof=1) / math.sqrt(n)


def test_gope_with_bernoulli_rewards_eliminates_a_clearly_worse_arm():
    """Two arms with means 0.9 and 0.1 (rewards in {0, 1}, gap 0.8): AdaC-GOPE at a large rho
    keeps both in phase 1 (it drops arms more than 2 * 2^-l below the best) and drops the worse
    one in phase 2, after which it plays the best arm only: the last phase's support is arm 0
    and, with the phase sizes' delta_c fixed, the regret stops growing (0.8 times the worse
    arm's pulls in phases 1-2, well below random play's 0.4 T). Means outside [0, 1] cannot be
    Bernoulli rewards and are refused."""
    X, theta = np.eye(2), np.array([0.9, 0.1])
    for i in range(5):
        runs = [
            run_adac_gope(X, theta, T_, 100.0, np.random.default_rng(i),
                          np.random.default_rng([9, i]), delta_c=1e-4, rewards="bernoulli")
            for T_ in (20000, 40000)
        ]  # fmt: skip
        assert [list(r.supports[-1]) for r in runs] == [[0], [0]]
        short, long = (gope_regret(r, np.array([r.T]))[0] for r in runs)
        assert short == long < 0.25 * 0.4 * 20000
    with pytest.raises(ValueError, match=r"rewards in \{0, 1\}"):
        rng = np.random.default_rng(0)
        run_adac_gope(X, np.array([0.9, -0.1]), 20000, 1.0, rng, rng, rewards="bernoulli")


def test_fixed_arm_runs_draw_rewards_from_the_trials_environment_stream():
    """AdaC-GOPE of a cell is the kernel run on arm set i with environment_generator(seed i):
    the same instances for every contestant, the rewards keyed by the trial's reward seed."""
    from dpbandits.seeds import environment_generator

    inst = make_instances("paper_text", N, K, D, 2)
    cps = checkpoint_rounds(T, 3)
    policy = _policy("adac_gope", "zcdp", eps=4.0)
    got = simulate(policy, inst, [5, 6, 7], _rngs(), cps).metrics["regret_pseudo"]
    for i, seed in enumerate((5, 6, 7)):
        run = run_adac_gope(
            inst.X[i], inst.theta[i], T, policy.rho, environment_generator(seed), _rngs()[i],
            rewards="bernoulli",
        )  # fmt: skip
        np.testing.assert_array_equal(got[i], gope_regret(run, cps))
    assert isinstance(inst, FixedArmInstances)


def test_the_arena_releases_of_paper_002s_policies():
    """AdaC-* at the (1, 0.1) target deliver at most epsilon = 1 (the zCDP conversion is
    loose); AdaC-GOPE on {0, 1} rewards has half the sensitivity it was calibrated for, so it
    delivers less than on [-1, 1]; JDP-LinUCB's tree is calibrated at the cell's delta."""
    from types import SimpleNamespace

    from dpbandits.audit.privacy import cell_release
    from dpbandits.privacy import releases as rel

    cell = SimpleNamespace(instances="paper_text", T=T, epsilon=1.0, delta=0.1, stem="x")
    for algorithm in ("adac_ucb", "adac_gope"):
        policy = _policy(algorithm, "zcdp")
        release = cell_release(cell, policy)[0]
        assert rel.delivered_epsilon(release, 0.1)[0] <= 1.0
    gope = cell_release(cell, _policy("adac_gope", "zcdp", eps=8.0))[0]
    ucb = cell_release(cell, _policy("adac_ucb", "zcdp", eps=8.0))[0]
    assert gope.components[0].sensitivity == 0.5 * ucb.components[0].sensitivity
    assert rel.delivered_epsilon(gope, 0.1)[0] < rel.delivered_epsilon(ucb, 0.1)[0]
    fresh = SimpleNamespace(instances="fresh_sphere", T=T, epsilon=1.0, delta=0.1, stem="x")
    jdp = _policy("jdp_tree", "op24")
    release = cell_release(fresh, jdp)[0]
    assert release.components[0].scale == pytest.approx(jdp.noise_std, rel=1e-12)
