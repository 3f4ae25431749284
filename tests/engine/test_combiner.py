"""The Private Bandit Combiner's fixed-arm engine (``run_combiner``: Algorithm 2 of olucb
over bases that are each an Algorithm 1, and Algorithm 7, doubling OnlineUCB, alone) against the
literal reference loop (:func:`dpbandits.dev.reference_loops.reference_combiner`), and
``base_shares`` by hand (docs/mutation.md).

On the same seeds the engine must choose the same base and play the same arm as the reference in
every round, so the regret, each base's play count, the active set and the refused eliminations
are identical, also when the gradient clipping binds. The instance is tiny (T = 300, so M = 3
bases; two trials, d = 3) so that the file also runs quickly interpreted (numba's JIT off).
"""

import numpy as np
import pytest

from dpbandits.dev.reference_loops import reference_combiner
from dpbandits.engine import checkpoint_rounds, draw_raw, simulate
from dpbandits.engine.combiner import base_shares
from dpbandits.envs import bernoulli_reward_table, paper_text_instances
from dpbandits.policies import Setting, make_policy
from dpbandits.seeds import noise_generator

T, D, K, N = 300, 3, 8, 2
SMALL = {"c_beta": 1e-3, "P_const": 1e-4, "p_index": 1e-3}  # the index switches, the test fires


def _policy(algorithm, options, epsilon=10.0):
    return make_policy(algorithm, Setting(T=T, d=D, epsilon=epsilon, delta=0.1), **options)


def _runs(policy):
    inst = paper_text_instances(N, K, D)
    cps = checkpoint_rounds(T, 5)
    alg = policy.algorithm
    rngs = [noise_generator(5, "mut", "comb", alg, i) for i in range(N)]
    fast = simulate(policy, inst, list(range(N)), rngs, cps)
    refs = []
    for i in range(N):
        raw = draw_raw(policy, noise_generator(5, "mut", "comb", alg, i))
        rewards = bernoulli_reward_table(inst.mu[i], T, i)
        ref = reference_combiner(policy, inst.X[i], inst.mu[i], rewards, raw, cps)
        ref["y_tilde"] = rewards[np.arange(T), ref["actions"]] + raw["noise_y"]
        refs.append(ref)
    return cps, fast, refs


def _assert_same_choices(policy, cps, fast, refs):
    for i, ref in enumerate(refs):
        for name in ("regret_realized", "regret_pseudo"):
            assert np.array_equal(fast.metrics[name][i], ref[name]), (policy.describe(), i, name)
        for c, r in enumerate(cps):
            plays = np.bincount(ref["bases"][:r], minlength=4)
            for j in range(4):
                assert fast.metrics[f"base{j + 1}_plays"][i, c] == plays[j], (i, r, j)


CASES = [
    ("onlineucb_doubling", {"c_beta": 1e-3}, 10.0),
    ("onlineucb_doubling", {"learner": "ogd", "c_beta": 1e-3, "lambda_min": 0.0}, 10.0),
    ("combiner", {"c_beta": 1e-3}, 10.0),
    ("combiner", SMALL, 10.0),
    ("combiner", {"learner": "ogd", **SMALL}, 10.0),
    # sigma^2 = 20 > 1: the width's v = 1 + sigma^2 of Algorithm 2 is far from 1
    ("combiner", {"learner": "ogd", **SMALL}, 1.0),
]


@pytest.mark.parametrize("algorithm,options,epsilon", CASES)
def test_engine_chooses_the_reference_loops_bases_and_arms(algorithm, options, epsilon):
    policy = _policy(algorithm, options, epsilon)
    assert policy.n_bases == (1 if algorithm == "onlineucb_doubling" else 3)
    _assert_same_choices(policy, *_runs(policy))


def test_clipping_to_a_binding_G_matches_the_reference():
    # the paper's G is a high-probability bound on the gradient, so it never binds here; with
    # G = 0.5 in every base's table nearly every gradient is clipped (Algorithm 1, step 4)
    policy = _policy("combiner", {"learner": "ogd", **SMALL})
    policy.tab_G[:] = 0.5  # in place: the property returns the stored table
    assert (policy.tab_G == 0.5).all()
    _assert_same_choices(policy, *_runs(policy))


def test_active_set_and_refused_eliminations_follow_algorithm_2s_test():
    # replay the combiner's statistics on the reference's chosen bases and privatized rewards:
    # dev_b += mean_b - y~, mean_b = running mean of y~; eliminate b when dev_b >= C_b n^a_b + w(n)
    # unless b is the last active base (then the elimination is refused)
    policy = _policy("combiner", {"learner": "ogd", **SMALL})
    cps, fast, refs = _runs(policy)
    M = policy.n_bases
    for i, ref in enumerate(refs):
        n, mean, dev = np.zeros(M, dtype=int), np.zeros(M), np.zeros(M)
        active, refused, c = M, 0, 0
        for t in range(T):
            b, yt = ref["bases"][t], ref["y_tilde"][t]
            n[b] += 1
            dev[b] += mean[b] - yt
            mean[b] += (yt - mean[b]) / n[b]
            if policy.eliminates(b, n[b], dev[b]):
                if active > 1:
                    active -= 1
                else:
                    refused += 1
            if t + 1 == cps[c]:
                assert fast.metrics["active_bases"][i, c] == active, (i, t)
                assert fast.metrics["refused_eliminations"][i, c] == refused, (i, t)
                c += 1
        assert refused > 0  # the case exercises the refusal


def test_base_shares_are_the_round_trial_and_played_shares():
    plays = np.array([[10, 0, 90], [60, 40, 0], [0, 50, 50], [0, 0, 100]])
    sh = base_shares(plays, 100)
    assert sh["round_share"] == pytest.approx([70 / 400, 90 / 400, 240 / 400])
    # the most-played base of each trial: 3, 1, 2 (tie: lowest index), 3
    assert sh["trial_share"] == pytest.approx([1 / 4, 1 / 4, 2 / 4])
    assert sh["played_share"] == pytest.approx([2 / 4, 2 / 4, 3 / 4])


def test_base_shares_divide_each_trials_plays_by_its_own_rounds():
    sh = base_shares(np.array([[1, 3], [5, 5]]), np.array([4, 10]))
    assert sh["round_share"] == pytest.approx([(1 / 4 + 5 / 10) / 2, (3 / 4 + 5 / 10) / 2])


@pytest.mark.parametrize("shape", [(0, 3), (3,)])
def test_base_shares_rejects_plays_that_are_not_a_non_empty_table(shape):
    with pytest.raises(ValueError, match="n_trials, M"):
        base_shares(np.zeros(shape), 10)
