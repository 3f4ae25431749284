"""plasso's PrivateLASSO and its references as pipeline policies (dpbandits.policies.plasso,
engine/plasso_cells.py): the cell's run is the plasso audit's engine on the cell's sparse
instances, the instances are keyed by trial, the known ordering of the three variants holds on a
small instance, and what cannot run is refused."""

import math

import numpy as np
import pytest

from dpbandits.engine.private_lasso import _Trial, run_trial
from dpbandits.engine.run import checkpoint_rounds, simulate
from dpbandits.envs.caps import random_play_rate
from dpbandits.envs.linear import make_instances
from dpbandits.envs.sparse import SparseInstances, make_instance
from dpbandits.policies import Setting, make_policy

N, T, D, K, S0 = 3, 600, 30, 2, 3


def _instances(n=N, T=T, d=D):
    return make_instances("sparse", n, K, d, 0, T=T, sparse_family="F1", s0=S0)


def _policy(algorithm, T=T, d=D, eps=1.0):
    return make_policy(algorithm, Setting(T=T, d=d, epsilon=eps, delta=0.1, K=K), "paper")


def _rngs(n=N):
    return [np.random.default_rng([4, i]) for i in range(n)]


@pytest.mark.parametrize("algorithm", ["private_lasso", "np_th_lasso", "oracle_ols"])
def test_a_cell_runs_the_plasso_engine_on_its_trials_instances(algorithm):
    """The regret at T equals run_trial on make_instance('arena', F1, ...) of the same trial
    with the three streams spawned from the trial's noise generator; earlier checkpoints are
    NaN (the engine records T only)."""
    policy = _policy(algorithm)
    cps = checkpoint_rounds(T, 3)
    got = simulate(policy, _instances(), [0] * N, _rngs(), cps).metrics["regret_pseudo"]
    const = policy.run_constants(S0)
    for i, rng in enumerate(_rngs()):
        inst = make_instance("arena", "F1", D, S0, K, T, i)
        want = run_trial(algorithm, const, _Trial(inst, rng.spawn(3), T, D))[0]
        assert got[i, -1] == want
    assert np.isnan(got[:, :-1]).all()


def test_sparse_instances_are_keyed_by_trial_and_their_cap_is_measured_on_their_contexts():
    full = _instances(n=5)
    part = full.take(2, 4)
    assert (part.n, part.first) == (2, 2)
    np.testing.assert_array_equal(part.trial(0).theta, full.trial(2).theta)
    # another trial, another instance (same support and signs: probability 1/(C(30, 3) 8))
    assert not np.array_equal(full.trial(0).theta, full.trial(2).theta)
    rate = random_play_rate(part)
    for j, i in enumerate((2, 3)):
        _, mu, _ = make_instance("arena", "F1", D, S0, K, T, i).block(T)
        assert rate[j] == pytest.approx(np.mean(mu.max(axis=1) - mu.mean(axis=1)), rel=1e-12)


def test_knowing_the_support_beats_estimating_it_which_beats_random_play():
    """d = 50, s0 = 3, T = 3000, 6 trials: Oracle-OLS (greedy OLS on the true support) has a
    regret of a few units, the non-private thresholded LASSO about a tenth of random play's
    (whose cap is about 0.55 T here), so the ordering holds with a wide margin; the same design
    reversed (random play below the LASSO) fails."""
    n, T_, d = 6, 3000, 50
    inst = _instances(n=n, T=T_, d=d)
    cps = checkpoint_rounds(T_, 1)
    final = {
        alg: simulate(_policy(alg, T=T_, d=d), inst, [0] * n, _rngs(n), cps).metrics[
            "regret_pseudo"
        ][:, -1]
        for alg in ("oracle_ols", "np_th_lasso")
    }
    cap = T_ * random_play_rate(inst)
    assert final["oracle_ols"].mean() < final["np_th_lasso"].mean() < 0.5 * cap.mean()
    assert not cap.mean() < final["np_th_lasso"].mean()


def test_what_cannot_run_is_refused():
    fixed = make_instances("paper_text", N, D, D, 2)  # K >= d for a fixed arm set
    with pytest.raises(ValueError, match="runs on sparse instances only"):
        simulate(_policy("oracle_ols"), fixed, [0] * N, _rngs(), checkpoint_rounds(T, 2))
    with pytest.raises(ValueError, match="records the regret at T"):
        simulate(_policy("oracle_ols"), _instances(), [0] * N, _rngs(), np.array([100, 200]))
    with pytest.raises(ValueError, match="sparse_family and s0"):
        make_instances("sparse", N, K, D, 0, T=T)
    with pytest.raises(ValueError, match="s0 = 40"):
        SparseInstances("F1", N, K, D, 40, T)


def test_private_lassos_release_is_the_plasso_audits():
    """At the arena's target the delivered epsilon is the plasso audit's: not private as
    implemented (the noise-free screening, docs/papers/plasso.md), whatever the nominal."""
    from types import SimpleNamespace

    from dpbandits.audit.privacy import cell_release
    from dpbandits.privacy import releases as rel

    cell = SimpleNamespace(
        instances="sparse",
        instance_options={"sparse_family": "F1", "s0": S0},
        K=K,
        d=D,
        T=T,
        stem="x",
    )
    policy = _policy("private_lasso")
    release = cell_release(cell, policy)[0]
    want = rel.plasso_release("private_lasso", policy.run_constants(S0))
    assert rel.delivered_epsilon(release, 0.1)[0] == rel.delivered_epsilon(want, 0.1)[0]
    assert math.isinf(rel.delivered_epsilon(release, 0.1)[0])
    assert not _policy("np_th_lasso").private
