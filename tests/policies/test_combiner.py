"""Algorithm 2 (combiner) and Algorithm 7 (doubling OnlineUCB) of olucb (Sec. 4, Thm. 4.1):
the base grid, the index and the doubling schedule (docs/papers/olucb.md); Theorem 4.1's
constants, the capped index bonus, the elimination threshold and the base tables at an exact
point (docs/mutation.md)."""

import math

import numpy as np
import pytest

from dpbandits.dev.reference_loops import reference_combiner, reference_onlineucb, reference_run
from dpbandits.engine import checkpoint_rounds, draw_raw, simulate
from dpbandits.engine.combiner import BASE_PLAY_METRICS, base_shares
from dpbandits.envs import bernoulli_reward_table, make_instances, paper_text_instances
from dpbandits.policies import Setting, make_policy
from dpbandits.policies.combiner import (
    base_lambdas,
    dominated_bases,
    epoch_of,
    kappa,
    n_bases,
    stacked_tables,
)
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
    # ... and even the smallest guess exceeds lambda_min <= 1/d of any unit arm set
    # (docs/papers/olucb.md)
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


def _plays(res, M):
    """(n_trials, M) plays of each base at the last checkpoint."""
    return np.stack([res.metrics[m][:, -1] for m in BASE_PLAY_METRICS[:M]], axis=1)


def test_base_shares_by_hand():
    plays = np.array([[10, 0, 90], [60, 40, 0], [0, 50, 50]])
    sh = base_shares(plays, 100)
    assert sh["round_share"] == pytest.approx([70 / 300, 90 / 300, 140 / 300])
    assert sh["trial_share"].tolist() == [1 / 3, 1 / 3, 1 / 3]  # the tie goes to base 2
    assert sh["played_share"] == pytest.approx([2 / 3, 2 / 3, 2 / 3])


@pytest.mark.parametrize("family", ["paper_text", "fresh_sphere"])
def test_every_base_s_plays_are_recorded(family):
    """base<i>_plays of both engines count the rounds each base played (the reference's choices
    on fixed arms); they add up to the rounds played at every checkpoint."""
    T, d, n = 300, 5, 2
    inst = make_instances(family, n, 20 if family == "paper_text" else 10, d, 2)
    policy = make_policy(
        "combiner",
        Setting(T=T, d=d, epsilon=10.0, delta=0.1),
        c_beta=1e-3,
        P_const=1e-4,
        p_index=1e-3,
    )
    M, cps = policy.n_bases, checkpoint_rounds(T, 6)
    rngs = [noise_generator(3, "t", "p", "combiner", i) for i in range(n)]
    res = simulate(policy, inst, list(range(n)), rngs, cps)
    total = sum(res.metrics[m] for m in BASE_PLAY_METRICS)
    assert np.array_equal(total, np.broadcast_to(cps, total.shape))
    assert (res.metrics[BASE_PLAY_METRICS[M]] == 0).all()  # no base 4 at T = 300
    if family == "paper_text":
        for i in range(n):
            raw = draw_raw(policy, noise_generator(3, "t", "p", "combiner", i))
            rewards = bernoulli_reward_table(inst.mu[i], T, i)
            ref = reference_run(policy, inst.X[i], inst.mu[i], rewards, raw, cps)
            assert _plays(res, M)[i].tolist() == np.bincount(ref["bases"], minlength=M).tolist()


def test_paper_constants_fix_the_base_and_the_capped_targets_let_the_rewards_choose():
    """Theorem 4.1's constants (P = P' = 1, p = 3) at epsilon = 1: every R_i/T > 1 and the offsets
    differ by more than the index's data part can move, so the base of the smallest R_i plays
    (almost) every round and base 1 never; with the targets capped at T every offset is 1 and
    more than one base takes a non-negligible share of the rounds."""
    T, d, n = 2000, 5, 10
    inst = paper_text_instances(n, 100, d)
    setting = Setting(T=T, d=d, epsilon=1.0, delta=0.1)
    rngs = [noise_generator(3, "t", "p", "combiner", i) for i in range(n)]
    paper = make_policy("combiner", setting, c_beta=1e-3)
    assert (paper.R / T > 1).all()
    assert paper.consts["selection_degenerate"] == 1.0
    fixed = int(np.argmin(paper.R))
    assert dominated_bases(paper.R / T).tolist() == [i != fixed for i in range(paper.n_bases)]
    sh = base_shares(_plays(simulate(paper, inst, list(range(n)), rngs, [T]), paper.n_bases), T)
    assert sh["trial_share"][fixed] >= 0.8 and sh["round_share"][fixed] >= 0.8
    assert sh["played_share"][0] == 0  # base 1 (Algorithm 7) is never chosen
    capped = make_policy("combiner", setting, c_beta=1e-3, target_cap=1.0)
    assert capped.R.tolist() == [T] * capped.n_bases  # every Theorem 4.1 target was vacuous
    assert np.array_equal(capped.R_paper, paper.R)
    assert capped.consts["selection_degenerate"] == 0.0
    rngs = [noise_generator(3, "t", "p", "combiner", i) for i in range(n)]
    sh = base_shares(_plays(simulate(capped, inst, list(range(n)), rngs, [T]), capped.n_bases), T)
    assert (sh["round_share"] >= 0.1).sum() >= 2
    assert (sh["trial_share"] >= 0.1).sum() >= 2


def test_target_cap_keeps_informative_targets():
    """Only targets at or above cap x T are replaced: smaller ones stay Theorem 4.1's."""
    policy = make_policy("combiner", SETTING, target_cap=5.0)  # R_i/T = 36.9, 6.1, 3.2
    T = SETTING.T
    assert policy.R[2] == policy.R_paper[2] and policy.R[:2].tolist() == [5.0 * T] * 2
    with pytest.raises(ValueError, match="target_cap"):
        make_policy("combiner", SETTING, target_cap=0.0)


def test_the_audit_reports_each_combiners_base_shares():
    import pandas as pd

    from dpbandits.papers.olucb.findings import combiner_shares

    rows = []
    for trial, (b1, b2, b3) in enumerate([(0, 30, 70), (0, 10, 90), (50, 25, 25), (60, 40, 0)]):
        series = "Combiner-paper" if trial < 2 else "Combiner"
        rows.append(
            dict(
                figure="f",
                panel="p",
                series=series,
                algorithm="combiner",
                epsilon=1.0,
                T=100,
                t=100,
                trial=trial,
                base1_plays=b1,
                base2_plays=b2,
                base3_plays=b3,
            )
        )
    out = combiner_shares(pd.DataFrame(rows)).set_index("series")
    assert out.loc["Combiner-paper", "round_share"] == "0.00 / 0.20 / 0.80"
    assert out.loc["Combiner-paper", "never played"] == "1"
    assert out.loc["Combiner", "top_share"] == "1.00 / 0.00 / 0.00"
    assert out.loc["Combiner", "never played"] == ""


# Theorem 4.1's constants at an exact point: T = 256 = 2^8, d = 4, epsilon = 1 and
# P = 1/ln(T)^(3/2), where T^(1/8) = 2, sqrt(d T) = 32, P ln(T)^(3/2) = 1, so
# M = 1 + ceil(8/8) = 2 bases, lambda_2 = 2^1/T^(1/8) = 1, and (olucb, Theorem 4.1)
# eta_1 = et/(sqrt(dT)(P log32 et + 1)) = 2/(32 * 3) = 1/48 (et = eps T^(1/8) = 2),
# C_1 = P log32 sqrt(d)(et + 1)/et = 2 * 3/2 = 3, eta_2 = eps/(P log32 sqrt(dT)) = 1/32,
# C_2 = P log32 sqrt(d)/(eps lambda_2) = 2. (Named T_EXACT: several tests above bind a local T.)
T_EXACT = 256


def _combiner(**options):
    setting = Setting(T=T_EXACT, d=4, epsilon=1.0, delta=0.1)
    return make_policy("combiner", setting, P_const=1 / math.log(T_EXACT) ** 1.5, **options)


def test_theorem_4_1_eta_and_C_at_an_exact_point():
    policy = _combiner()
    assert policy.n_bases == 2
    assert policy.eta == pytest.approx([1 / 48, 1 / 32], rel=1e-12)
    assert policy.C == pytest.approx([3.0, 2.0], rel=1e-12)
    assert policy.alpha.tolist() == [0.75, 0.5]


def test_target_regret_of_base_1_by_hand():
    """R_1 = C_1 T^a + kappa(a) C_1^(1/a) T eta_1^((1-a)/a) + 288 ln(T^3 M/beta) T eta_1
    + 1/eta_2 at a = 3/4 (the exponent of eta_1 is 1/3, unlike base 2's 1):
    3 * 64 + kappa(3/4) 3^(4/3) 256 (1/48)^(1/3) + 288 ln(256^3 * 2/0.1) 256/48 + 32.
    Also the theorem's R_1/T reported in the constants, under a target cap that changes R."""
    want = (
        3 * 64
        + kappa(0.75) * 3 ** (4 / 3) * 256 * (1 / 48) ** (1 / 3)
        + 288 * math.log(256**3 * 2 / 0.1) * 256 / 48
        + 32
    )
    policy = _combiner(target_cap=1.0)
    assert policy.R_paper[0] == pytest.approx(want, rel=1e-12)
    assert policy.R[0] == pytest.approx(T_EXACT, rel=1e-12)  # min(R_1, 1 * T)
    assert policy.consts["R_1/T_thm"] == pytest.approx(want / T_EXACT, rel=1e-12)
    assert policy.consts["R_1/T"] == pytest.approx(1.0, rel=1e-12)


def test_index_bonus_is_capped_at_one():
    """U_i = mean + min{1, (C_i n^a + w(n))/n} - R_i/T: after one play the bonus C_i + w(1)
    exceeds 1 (w(1) = 65.8 here), so the index is mean + 1 - R_i/T."""
    policy = _combiner()
    assert policy.C[1] + float(policy.width(1)) > 2
    for i in range(policy.n_bases):
        want = 0.3 + 1.0 - policy.R[i] / T_EXACT
        assert policy.index(i, 1, 0.3) == pytest.approx(want, rel=1e-12)


def test_elimination_threshold_is_C_n_alpha_plus_width():
    """Step 5 eliminates when deviation >= C_i n^a_i + w(n): base 2 after n = 4 plays has
    C_2 n^(1/2) = 2 * 2 = 4, so the threshold is 4 + w(4); it fires at the threshold, not just
    below it, and not at 4 (where 4 - w(4) < 0 would)."""
    policy = _combiner()
    threshold = 4.0 + float(policy.width(4))
    assert policy.eliminates(1, 4, threshold)
    assert not policy.eliminates(1, 4, threshold * (1 - 1e-12))
    assert not policy.eliminates(1, 4, 4.0)


def test_base_tables_carry_mu_hat():
    """mu_hat = 2 (lambda_min + Delta^2): base 2 of the combiner has lambda_2 = 1 and Delta^2 = 0,
    so 2 at every play; plain OnlineUCB at T = 20000 (lambda_min = 0.125, Delta^2 = 0) 0.25."""
    policy = _combiner()
    assert np.all(policy.tab_mu_hat[1] == 2.0)
    plain = make_policy("onlineucb", Setting(T=20000, d=5, epsilon=1.0, delta=0.1))
    tab = stacked_tables(plain)["mu_hat"]
    assert tab.shape == (1, 20000)
    assert np.allclose(tab, 0.25, rtol=1e-15, atol=0)
