"""OnlineUCB's engine (``run_onlineucb``: Algorithm 1 of olucb, docs/papers/olucb.md, with
rank-one updates of the confidence set) against the literal reference loop
(:func:`dpbandits.dev.reference_loops.reference_onlineucb`) (docs/mutation.md).

On the same seeds the engine must play the same arm as the reference in every round, so the regret
is identical; the learner's prediction, the radius and the coverage flag agree to rounding, and
the counters and second moments follow the reference's plays. The instance is tiny (T = 200, two
trials, d = 3) so that the file also runs quickly interpreted (numba's JIT off).
"""

import numpy as np
import pytest

from dpbandits.dev.reference_loops import reference_onlineucb
from dpbandits.engine import checkpoint_rounds, draw_raw, simulate
from dpbandits.envs import bernoulli_reward_table, paper_text_instances
from dpbandits.policies import Setting, make_policy
from dpbandits.seeds import noise_generator

T, D, K, N = 200, 3, 8, 2


def _runs(options, epsilon=10.0):
    policy = make_policy("onlineucb", Setting(T=T, d=D, epsilon=epsilon, delta=0.1), **options)
    inst = paper_text_instances(N, K, D)
    cps = checkpoint_rounds(T, 5)
    rngs = [noise_generator(3, "mut", "olucb", "onlineucb", i) for i in range(N)]
    fast = simulate(policy, inst, list(range(N)), rngs, cps)
    refs = []
    for i in range(N):
        raw = draw_raw(policy, noise_generator(3, "mut", "olucb", "onlineucb", i))
        rewards = bernoulli_reward_table(inst.mu[i], T, i)
        refs.append(
            reference_onlineucb(policy, inst.X[i], inst.mu[i], rewards, raw, cps, inst.theta[i])
        )
    return policy, inst, cps, fast, refs


OPTIONS = [
    {"learner": "maler", "c_beta": 1e-3},
    {"learner": "ogd", "c_beta": 1e-3},
    {"learner": "ogd", "ogd_step": "strongly_convex", "c_beta": 1e-2},
    {"learner": "maler", "radius_mode": "oracle"},
    {"learner": "maler", "lambda_min": 0.0, "c_beta": 1e-3},  # Delta^2 = T^{-1/4} > 0: zeta
]


@pytest.mark.parametrize("options", OPTIONS)
def test_engine_plays_the_reference_loops_arms_and_agrees_on_its_diagnostics(options):
    _, _, _, fast, refs = _runs(options)
    for i, ref in enumerate(refs):
        for name in ("regret_realized", "regret_pseudo", "theta_star_covered"):
            assert np.array_equal(fast.metrics[name][i], ref[name]), (options, i, name)
        # the same sums in a different order: agreement to rounding
        np.testing.assert_allclose(
            fast.metrics["theta_err"][i], ref["theta_err"], rtol=1e-8, atol=1e-10
        )
        np.testing.assert_allclose(fast.metrics["radius"][i], ref["radius"], rtol=1e-10)
        # Lemma 3.5's sums: the learner's realized regret against theta* and squared distance
        for name in ("learner_regret", "learner_dist_sq"):
            np.testing.assert_allclose(fast.metrics[name][i], ref[name], rtol=1e-9, atol=1e-9)


def test_counters_and_second_moments_follow_the_reference_loops_plays():
    # zeta present (lambda_min = 0 gives Delta^2 > 0): x~ = x_a + zeta + eta_x
    policy, inst, cps, fast, refs = _runs({"learner": "maler", "lambda_min": 0.0, "c_beta": 1e-3})
    for i, ref in enumerate(refs):
        raw = draw_raw(policy, noise_generator(3, "mut", "olucb", "onlineucb", i))
        acts = ref["actions"]
        x = inst.X[i][acts]
        xt = x + raw["zeta"] + raw["noise_x"]
        best = int(np.argmax(inst.mu[i]))
        for c, r in enumerate(cps):
            # the UCB index is finite and unclipped, and V~ is refreshed without a failure
            for name in ("nan_index_rounds", "clipped_index_rounds", "nonpd_refreshes"):
                assert fast.metrics[name][i, c] == 0.0, (i, r, name)
            assert fast.metrics["best_arm_rounds"][i, c] == np.sum(acts[:r] == best)
            # lambda_min of V~ = I + sum_s x~_s x~_s^T (Algorithm 1), and of (1/t) sum x_s x_s^T
            V = np.eye(D) + xt[:r].T @ xt[:r]
            lam = np.linalg.eigvalsh(V)[0]
            assert lam >= 1.0
            np.testing.assert_allclose(fast.metrics["lambda_min"][i, c], lam, rtol=1e-8)
            lam_played = np.linalg.eigvalsh(x[:r].T @ x[:r] / r)[0]
            np.testing.assert_allclose(
                fast.metrics["lambda_min_played"][i, c], lam_played, rtol=1e-8, atol=1e-12
            )
            # the centre theta_hat is a ridge regression on noisy reports: never exactly theta*
            assert 0.0 < fast.metrics["theta_hat_err"][i, c] < np.inf
