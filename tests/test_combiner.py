"""Algorithm 2 (combiner) and Algorithm 7 (doubling OnlineUCB) of paper 000: spec §8 items 19-20."""

import math

import numpy as np
import pytest

from dpbandits.engine import checkpoint_rounds, draw_raw, simulate
from dpbandits.envs import bernoulli_reward_table, paper_text_instances
from dpbandits.policies import Setting, make_policy
from dpbandits.policies.combiner import base_lambdas, epoch_of, kappa, n_bases
from dpbandits.reference import reference_combiner, reference_onlineucb
from dpbandits.seeds import noise_generator

SETTING = Setting(T=20000, d=5, epsilon=1.0, delta=0.1)


def test_kappa_values():
    assert kappa(0.5) == pytest.approx(2.25, rel=1e-12)
    assert kappa(0.75) == pytest.approx(1.4622119, abs=5e-8)


def test_bases_and_their_lambda_grid_at_t_20000():
    assert n_bases(20000) == 3
    lam1 = 20000 ** (-1 / 8)
    assert lam1 == pytest.approx(0.289982, abs=5e-7)
    assert base_lambdas(20000) == pytest.approx([0.579964, 1.159929], abs=5e-7)
    policy = make_policy("combiner", SETTING)
    assert policy.n_bases == 3
    # bases 2..M: Algorithm 1 with lambda_i > lambda_bar = T^{-1/8}, hence Delta^2 = 0
    assert (policy.tab_Delta2[1:] == 0).all()
    # ... and even the smallest guess exceeds lambda_min <= 1/d of any unit arm set (spec A25)
    assert base_lambdas(20000).min() > 1 / SETTING.d


def test_unplayed_base_index_and_target_regrets():
    policy = make_policy("combiner", SETTING)
    T = SETTING.T
    for i in range(policy.n_bases):
        assert policy.index(i, 0, 0.0) == 1.0 - policy.R[i] / T
    # R_i = C_i T^a + kappa(a) C_i^{1/a} T eta_i^{(1-a)/a} + 288 log(T^3 M/beta) T eta_i
    #       + sum_{k != i} 1/eta_k
    a, c, e = policy.alpha[1], policy.C[1], policy.eta[1]
    by_hand = (
        c * math.sqrt(T)
        + 2.25 * c**2 * T * e
        + 288 * math.log(T**3 * 3 / 0.1) * T * e
        + 1 / policy.eta[0]
        + 1 / policy.eta[2]
    )
    assert a == 0.5 and policy.R[1] == pytest.approx(by_hand, rel=1e-12)
    # w(n) = p sqrt(n (1 + sigma^2) log(T^3 M max{1, log n} (1 + sigma^2)/beta))
    v = 1 + policy.sigma**2
    n = 50
    w = 3 * math.sqrt(n * v * math.log(T**3 * 3 * math.log(n) * v / 0.1))
    assert policy.width(n) == pytest.approx(w, rel=1e-12)
    assert policy.width(2) == pytest.approx(3 * math.sqrt(2 * v * math.log(T**3 * 3 * v / 0.1)))


def test_the_active_set_is_never_emptied():
    T, d = 400, 5
    inst = paper_text_instances(3, 20, d)
    # tiny constants: every deviation test fires, so all but one base are eliminated
    policy = make_policy(
        "combiner", Setting(T=T, d=d, epsilon=10.0, delta=0.1), P_const=1e-6, p_index=1e-6
    )
    rngs = [noise_generator(3, "t", "p", "combiner", i) for i in range(inst.n)]
    res = simulate(policy, inst, list(range(inst.n)), rngs, checkpoint_rounds(T, 4))
    assert (res.metrics["active_bases"][:, -1] == 1).all()
    assert (res.metrics["refused_eliminations"][:, -1] > 0).all()


def test_doubling_schedule():
    policy = make_policy("onlineucb_doubling", Setting(T=100, d=5, epsilon=1.0, delta=0.1))
    starts = np.flatnonzero(policy.tab_restart[0]) + 1  # local times 1, 2, 4, ...
    assert starts.tolist() == [1, 2, 4, 8, 16, 32, 64]
    assert [epoch_of(t) for t in (1, 2, 3, 4, 7, 8)] == [0, 1, 1, 2, 2, 3]
    k, beta = 1 / 8, 0.1
    for m, alg in enumerate(policy.epochs):
        assert alg.setting.T == 2**m
        assert alg.lambda_bar == pytest.approx(2 ** (-m * k), rel=1e-12)
        assert alg.opts["beta_fail"] == pytest.approx(beta / 2 ** (m + 1), rel=1e-12)
        # lambda_min = T^{-1/8} <= lambda_bar_m: the perturbation is always on
        assert alg.Delta2 == alg.lambda_bar
        lo, hi = 2**m - 1, min(2 ** (m + 1) - 1, 100)
        assert (policy.tab_G[0, lo:hi] == alg.G).all()
        assert (policy.tab_horizon[0, lo:hi] == 2**m).all()
        assert policy.tab_local[0, lo:hi].tolist() == list(range(1, hi - lo + 1))


def test_each_epoch_is_a_fresh_algorithm_1():
    """Every state is reset at an epoch start: the plays of epoch m are those of a standalone
    Algorithm 1 of horizon H_m fed the same rounds and the same noise rows."""
    T, d = 127, 5
    inst = paper_text_instances(1, 20, d)
    X, mu = inst.X[0], inst.mu[0]
    policy = make_policy(
        "onlineucb_doubling", Setting(T=T, d=d, epsilon=10.0, delta=0.1), c_beta=1e-3
    )
    raw = draw_raw(policy, noise_generator(5, "t", "p", "onlineucb_doubling", 0))
    rewards = bernoulli_reward_table(mu, T, 0)
    full = reference_combiner(policy, X, mu, rewards, raw, np.array([T]))
    for m in (5, 6):  # epochs [32, 63] and [64, 127]
        lo, hi = 2**m - 1, 2 ** (m + 1) - 1
        alg = policy.epochs[m]
        sub = {
            "zeta": raw["zeta"][lo:hi] * math.sqrt(alg.Delta2),
            "noise_x": raw["noise_x"][lo:hi],
            "noise_y": raw["noise_y"][lo:hi],
        }
        alone = reference_onlineucb(
            alg, X, mu, rewards[lo:hi], sub, np.array([hi - lo]), inst.theta[0]
        )
        assert np.array_equal(alone["actions"], full["actions"][lo:hi])
