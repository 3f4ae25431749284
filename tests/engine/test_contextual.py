"""The fresh-arm kernel (engine/contextual.py) running the combiner (Algorithm 2 of
docs/papers/olucb.md): its base selection and elimination, the per-base play counts it records
and its agreement with the literal loop (docs/mutation.md).

Selection and elimination are checked round by round against a literal Python replica on
hand-built constants ``C_i``, ``alpha_i``, ``R_i`` where every term of the index
``mean + min{1, (C_i n^alpha_i + w(n))/n} - R_i/T`` and of the threshold ``C_i n^alpha_i + w(n)``
decides some round. One arm per round makes the reward sequence independent of which base plays,
so the replica needs no learner. Each misstatement of these rules that a comparison with the
reference loop could not see (the bonus's ``+`` and ``/ n``, the threshold's ``n ** alpha``)
changes the replica's sequence here, so the test would catch it.

The comparison with :func:`dpbandits.dev.reference_loops.reference_contextual` runs with a
negligible privacy noise (epsilon = 1e6, so ``v = 1 + sigma^2 ~ 1``), where the bonus is well
below 1, and with the targets capped at ``T``, where the bonus, not the offset, decides which base
plays.
"""

import math

import numpy as np
import pytest

from dpbandits.dev.reference_loops import reference_contextual
from dpbandits.engine import draw_raw, simulate
from dpbandits.engine.combiner import BASE_PLAY_METRICS, RECORDED_BASES, combiner_width
from dpbandits.engine.contextual import N_BASE, run_contextual
from dpbandits.engine.run import stacked_tables
from dpbandits.envs import make_instances
from dpbandits.policies import Setting, make_policy
from dpbandits.seeds import noise_generator

T, D = 400, 2
#: Hand-built constants of three bases (base 3, if the policy has more, never plays).
C = np.array([0.05, 0.4, 1.5])
ALPHA = np.array([0.5, 0.3, 0.1])
R = np.array([0.0, 20.0, 60.0])
P_INDEX, SIGMA2, LOG_CONST = 0.5, 0.0, 3.0


def _replica(yt, C, alpha, R, bonus_rule, threshold_rule):
    """Plays of every base, active count and refusals after each round (the kernel's order)."""
    M = len(C)
    plays, mean, dev = np.zeros(M, int), np.zeros(M), np.zeros(M)
    active, n_active, refused = np.ones(M, bool), M, 0
    v = 1.0 + SIGMA2
    rows = []
    for t in range(T):
        top, b = -math.inf, 0
        for j in range(M):
            if not active[j]:
                continue
            nj = plays[j]
            if nj == 0:
                u = 1.0 - R[j] / T
            else:
                u = mean[j] + min(1.0, bonus_rule(C[j], alpha[j], nj, v)) - R[j] / T
            if u > top:
                top, b = u, j
        plays[b] += 1
        nn = plays[b]
        dev[b] += mean[b] - yt[t]
        mean[b] += (yt[t] - mean[b]) / nn
        if dev[b] >= threshold_rule(C[b], alpha[b], nn, v):
            if n_active > 1:
                active[b] = False
                n_active -= 1
            else:
                refused += 1
        recorded = np.zeros(RECORDED_BASES)
        recorded[: min(M, RECORDED_BASES)] = plays[:RECORDED_BASES]
        rows.append((*recorded, n_active, refused))
    return np.array(rows, dtype=float)


def _width(n, v):
    return combiner_width(n, P_INDEX, v, LOG_CONST)


RULES = {
    "as stated": (
        lambda c, a, n, v: (c * n**a + _width(n, v)) / n,
        lambda c, a, n, v: c * n**a + _width(n, v),
    ),
    "bonus + -> /": (
        lambda c, a, n, v: (c * n**a / _width(n, v)) / n,
        lambda c, a, n, v: c * n**a + _width(n, v),
    ),
    "bonus / n -> + n": (
        lambda c, a, n, v: (c * n**a + _width(n, v)) + n,
        lambda c, a, n, v: c * n**a + _width(n, v),
    ),
    "threshold n ** alpha -> n * alpha": (
        lambda c, a, n, v: (c * n**a + _width(n, v)) / n,
        lambda c, a, n, v: c * n * a + _width(n, v),
    ),
}


def _kernel_rows():
    """The kernel's per-round plays of each base, active count and refusals, and the rewards."""
    policy = make_policy(
        "combiner", Setting(T=T, d=D, epsilon=1e6, delta=0.1), c_beta=1e-2, P_const=1e-4,
        p_index=1e-3, learner="ogd",
    )  # fmt: skip
    tabs = stacked_tables(policy)
    M = tabs["radius"].shape[0]
    assert M >= len(C)
    C_i = np.concatenate([C, np.ones(M - len(C))])
    alpha_i = np.concatenate([ALPHA, np.full(M - len(C), 0.5)])
    R_i = np.concatenate([R, np.full(M - len(C), 1e9)])  # the other bases never play
    rng = np.random.default_rng(20261124)
    x = rng.standard_normal(D)
    arms = np.tile(x / np.linalg.norm(x), (1, T, 1, 1))  # one arm, every round
    theta = np.array([[0.3, -0.1]])
    uniforms = rng.random((1, T, 1))
    noise_y = 0.4 * rng.standard_normal((1, T))
    cps = np.arange(1, T + 1)
    names = 7 + 8 + RECORDED_BASES - 1
    out = np.zeros((1, T, names + 2))
    run_contextual(
        arms, theta, uniforms, np.zeros((1, 0, D)), True, np.zeros((1, T, D)), noise_y,
        tabs["radius"], tabs["G"], tabs["Delta2"], tabs["Sigma"], tabs["mu_hat"],
        tabs["restart"], tabs["local"], tabs["horizon"], True, C_i, alpha_i, R_i, P_INDEX,
        SIGMA2, LOG_CONST, policy.opts["D"], False, False, cps, out,
    )  # fmt: skip
    mean = float(arms[0, 0, 0] @ theta[0])
    y = np.where(uniforms[0, :, 0] < (1.0 + mean) / 2.0, 1.0, -1.0)
    yt = y + noise_y[0]
    o = out[0]
    plays = [o[:, N_BASE + 5]] + [o[:, N_BASE + 7 + j] for j in range(1, RECORDED_BASES)]
    rows = np.column_stack([*plays, o[:, N_BASE + 6] - (M - len(C)), o[:, N_BASE + 7]])
    return rows, yt


@pytest.fixture(scope="module")
def kernel_rows():
    return _kernel_rows()


def test_the_kernel_selects_and_eliminates_as_algorithm_2_states(kernel_rows):
    rows, yt = kernel_rows
    expected = _replica(yt, C, ALPHA, R, *RULES["as stated"])
    np.testing.assert_array_equal(rows, expected)
    # the design exercises what it checks: every base plays and one is eliminated
    assert (rows[-1, : len(C)] > 0).all()
    assert rows[-1, RECORDED_BASES] < len(C)


@pytest.mark.parametrize("misstated", [k for k in RULES if k != "as stated"])
def test_each_misstated_rule_changes_the_sequence(kernel_rows, misstated):
    _rows, yt = kernel_rows
    stated = _replica(yt, C, ALPHA, R, *RULES["as stated"])
    assert not np.array_equal(stated, _replica(yt, C, ALPHA, R, *RULES[misstated])), misstated


# -- against the literal loop on fresh arms -------------------------------------------------------
T_REF, N_REF, D_REF, K_REF = 300, 2, 3, 5  # the comparisons with the literal loop
OPTIONS = {"c_beta": 1e-2, "P_const": 1e-4, "p_index": 1e-3}


def _combiner(epsilon, target_cap=None):
    setting = Setting(T=T_REF, d=D_REF, epsilon=epsilon, delta=0.1)
    return make_policy("combiner", setting, target_cap=target_cap, **OPTIONS)


def _run(policy, cps):
    inst = make_instances("fresh_sphere", N_REF, K_REF, D_REF, 2)
    rngs = [noise_generator(1, "e", "p", "combiner", i) for i in range(N_REF)]
    return inst, simulate(policy, inst, [10, 11], rngs, cps)


def test_combiner_bonus_is_below_its_cap_in_this_regime():
    policy = _combiner(1e6)
    for n in (1, 10, 100):
        for i in range(policy.n_bases):
            bonus = (policy.C[i] * n ** policy.alpha[i] + policy.width(n)) / n
            assert bonus < 0.01


# Theorem 4.1's targets have R_i/T >> 1, so the offset -R_i/T alone orders the bases; capped at
# T (``target_cap = 1``) every offset is 1 and the bonus decides (policies/combiner.py)
@pytest.mark.parametrize("epsilon,target_cap", [(1e6, None), (10.0, None), (1e6, 1.0)])
def test_combiner_base_choice_matches_the_literal_loop(epsilon, target_cap):
    policy = _combiner(epsilon, target_cap)
    cps = np.array([5, 20, T_REF])
    inst, fast = _run(policy, cps)
    for i in range(N_REF):
        raw = draw_raw(policy, noise_generator(1, "e", "p", "combiner", i))
        u = np.random.RandomState(10 + i).random_sample((T_REF, K_REF))
        ref = reference_contextual(policy, inst.arms(i, T_REF), inst.theta[i], u, raw, cps)
        np.testing.assert_array_equal(fast.metrics["regret_realized"][i], ref["regret_realized"])
        np.testing.assert_allclose(
            fast.metrics["regret_pseudo"][i], ref["regret_pseudo"], atol=1e-10
        )
        # Lemma 3.5's sums of the playing learners, from the library's loss (same terms, order)
        for name in ("learner_regret", "learner_dist_sq"):
            np.testing.assert_allclose(fast.metrics[name][i], ref[name], rtol=1e-9, atol=1e-9)


def test_recorded_base_plays_add_up_to_the_rounds_played():
    # every round exactly one base plays; with at most 4 bases all are recorded, so the play
    # columns sum to the checkpoint round, and an unused column (base 4 of 3) stays 0
    policy = _combiner(1e6)
    assert policy.n_bases == 3
    cps = np.array([5, 20, T_REF])
    _, fast = _run(policy, cps)
    plays = np.stack([fast.metrics[m] for m in BASE_PLAY_METRICS])  # (4, n, C)
    np.testing.assert_array_equal(plays.sum(axis=0), np.broadcast_to(cps, (N_REF, cps.size)))
    np.testing.assert_array_equal(plays[3], 0)
    # once a single base is left every further elimination is refused, never more than rounds
    refused = fast.metrics["refused_eliminations"]
    assert np.all(refused <= cps) and np.all(np.diff(refused, axis=1) >= 0)
