"""The fast engine's kernels against the reference loop, properties of the regret they record,
and the Gram-matrix inverse they share.

Agreement (per policy): on the same seeds the engine plays the same arm as the reference loop in
every round, so every regret and counter metric is *identical*; ``lambda_min`` (a float computed
through different operation orders: Cholesky/Sherman-Morrison vs ``numpy.linalg.inv``) agrees to
1e-8 relative.

``invert`` is the Gauss-Jordan inverse with partial pivoting every LinUCB kernel uses for its
Gram matrix. On well-conditioned matrices any pivot order gives the same inverse to rounding, so
the agreement tests cannot tell; a singular matrix and one with a tiny leading entry can
(docs/mutation.md; run with numba's JIT off there).
"""

import numpy as np
import pytest

from dpbandits.audit.ordering import paired_below
from dpbandits.dev.reference_loops import reference_run
from dpbandits.engine import checkpoint_rounds, draw_raw, simulate
from dpbandits.engine.kernels import fresh_round, invert
from dpbandits.envs import (
    bernoulli_reward_table,
    paper_text_instances,
    reward_tables,
    script_instances,
)
from dpbandits.policies import POLICIES, Quirks, Setting, make_policy
from dpbandits.result_columns import METRICS
from dpbandits.seeds import noise_generator

EXACT = tuple(m for m in METRICS if m != "lambda_min")

CASES = [
    (alg, cal, fid)
    for alg, cls in POLICIES.items()
    # the combiner is tested below, with options that exercise the selection; the phased
    # policies of dpdpe have no per-round reference loop
    # (tests/engine/test_phased.py); the op24 calibration runs on fresh decision sets only
    # (tests/papers/op24/test_fresh_linucb.py); op24's zCDP policies run the op24 audit's
    # kernels, whose per-round references are in tests/papers/op24 (plumbing:
    # tests/engine/test_op24_cells.py); plasso's run the plasso audit's engine
    # (tests/engine/test_plasso_cells.py); explore-then-commit needs its option explore
    # (tests/engine/test_etc.py)
    if cls.engine not in ("combiner", "phased", "op24", "plasso", "etc")
    for cal in cls.calibrations
    if cal != "op24"
    for fid in (("script", "corrected") if cal == "experiment" else ("corrected",))
]


def _compare(policy, inst, T, n_checkpoints=10, chunk_bytes=None):
    cps = checkpoint_rounds(T, n_checkpoints)
    n = inst.n
    rngs = [noise_generator(7, "test", "panel", policy.algorithm, i) for i in range(n)]
    kwargs = {} if chunk_bytes is None else {"chunk_bytes": chunk_bytes}
    fast = simulate(policy, inst, list(range(n)), rngs, cps, **kwargs)
    for i in range(n):
        raw = draw_raw(policy, noise_generator(7, "test", "panel", policy.algorithm, i))
        ref = reference_run(
            policy,
            inst.X[i],
            inst.mu[i],
            bernoulli_reward_table(inst.mu[i], T, i),
            raw,
            cps,
            theta=inst.theta[i],
        )
        if policy.engine == "combiner":
            for name in ("regret_realized", "regret_pseudo"):
                assert np.array_equal(fast.metrics[name][i], ref[name]), (i, name)
            plays = np.bincount(ref["bases"][: cps[-1]], minlength=policy.n_bases)
            assert fast.metrics["base1_plays"][i, -1] == plays[0]
            continue
        if policy.engine == "onlineucb":
            for name in ("regret_realized", "regret_pseudo"):
                assert np.array_equal(fast.metrics[name][i], ref[name]), (
                    policy.describe(),
                    i,
                    name,
                )
            assert np.allclose(
                fast.metrics["theta_err"][i], ref["theta_err"], rtol=1e-8, atol=1e-10
            )
            assert np.allclose(fast.metrics["radius"][i], ref["radius"], rtol=1e-10)
            assert np.array_equal(fast.metrics["theta_star_covered"][i], ref["theta_star_covered"])
            continue
        for name in EXACT:
            assert np.array_equal(fast.metrics[name][i], ref[name]), (policy.describe(), i, name)
        assert np.allclose(fast.metrics["lambda_min"][i], ref["lambda_min"], rtol=1e-8, atol=1e-9)
    return fast


@pytest.mark.parametrize("alg,cal,fid", CASES)
def test_engine_reproduces_the_reference_loop(alg, cal, fid):
    T, d = 400, 4
    unit = cal == "theory" or alg == "onlineucb"  # OnlineUCB assumes ||x|| <= 1 (olucb, Sec. 2)
    inst = paper_text_instances(3, 40, d) if unit else script_instances(3, 40, d)
    policy = make_policy(
        alg, Setting(T=T, d=d, epsilon=1.0, delta=0.1, B=20), cal, Quirks.from_fidelity(fid)
    )
    _compare(policy, inst, T)


def test_script_nan_argmax_is_reproduced():
    """SDP-Vec at epsilon = 10 with truncated b (no privacy bits, biased analyzer): V becomes
    indefinite, indices turn NaN and the first NaN arm is played (quirks 1 and 5 of
    docs/design.md)."""
    T, d = 4000, 5
    inst = script_instances(2, 100, d)
    policy = make_policy(
        "sdp_vec",
        Setting(T=T, d=d, epsilon=10.0, delta=0.1, B=20),
        "experiment",
        Quirks.from_fidelity("script"),
    )
    fast = _compare(policy, inst, T)
    assert fast.metrics["nan_index_rounds"][:, -1].sum() > 0
    assert fast.metrics["nonpd_refreshes"][:, -1].sum() > 0
    corrected = make_policy(
        "sdp_vec",
        Setting(T=T, d=d, epsilon=10.0, delta=0.1, B=20),
        "experiment",
        Quirks.from_fidelity("corrected"),
    )
    fixed = _compare(corrected, inst, T)
    assert fixed.metrics["nan_index_rounds"][:, -1].sum() == 0


def test_long_horizon_linucb_agrees_with_the_reference():
    """Sherman-Morrison with periodic rebuilds stays on the reference's trajectory over T = 20000
    (lambda = 1e-4 is the worst conditioned case)."""
    inst = script_instances(1, 100, 5)
    policy = make_policy(
        "linucb", Setting(T=20000, d=5), "experiment", Quirks.from_fidelity("script")
    )
    _compare(policy, inst, 20000, n_checkpoints=20)


def test_results_do_not_depend_on_chunking():
    T = 300
    inst = script_instances(4, 30, 3)
    policy = make_policy("ldp", Setting(T=T, d=3, epsilon=1.0, delta=0.1))
    cps = checkpoint_rounds(T, 5)

    def run(chunk):
        rngs = [noise_generator(1, "e", "p", "ldp", i) for i in range(4)]
        return simulate(policy, inst, [0, 1, 2, 3], rngs, cps, chunk_bytes=chunk).metrics

    big, small = run(2**30), run(1)
    for name in big:
        assert np.array_equal(big[name], small[name])


def test_realized_regret_increments_are_in_minus_one_zero_one():
    T = 300
    inst = script_instances(3, 50, 5)
    policy = make_policy("sdp_amp", Setting(T=T, d=5, epsilon=1.0, delta=0.1, B=20))
    rngs = [noise_generator(1, "e", "p", "sdp_amp", i) for i in range(3)]
    res = simulate(policy, inst, [0, 1, 2], rngs, np.arange(1, T + 1))
    steps = np.diff(res.metrics["regret_realized"], axis=1, prepend=0)
    assert set(np.unique(steps)) <= {-1.0, 0.0, 1.0}
    pseudo_steps = np.diff(res.metrics["regret_pseudo"], axis=1, prepend=0)
    assert np.all(pseudo_steps >= -1e-12)


def test_known_ordering_on_a_small_instance():
    """Non-private LinUCB beats LDP at epsilon = 0.2 (paired over 12 instances, T = 2000)."""
    T, n = 2000, 12
    inst = script_instances(n, 100, 5)
    cps = checkpoint_rounds(T, 4)
    finals = {}
    for alg in ("linucb", "ldp"):
        policy = make_policy(alg, Setting(T=T, d=5, epsilon=0.2, delta=0.1))
        rngs = [noise_generator(3, "e", "p", alg, i) for i in range(n)]
        finals[alg] = simulate(policy, inst, list(range(n)), rngs, cps).metrics["regret_pseudo"][
            :, -1
        ]
    assert paired_below(finals["linucb"], finals["ldp"]).verdict == "PASS"


def test_shared_reward_tables_give_the_same_results():
    """Tables drawn once at a longer horizon (a job's cells share them) change no number."""
    T, n = 400, 3
    inst = script_instances(n, 30, 4)
    policy = make_policy("sdp_vec", Setting(T=T, d=4, epsilon=1.0, delta=0.1, B=20))
    cps = checkpoint_rounds(T, 5)

    def run(**kw):
        rngs = [noise_generator(2, "e", "p", "sdp_vec", i) for i in range(n)]
        return simulate(policy, inst, [0, 1, 2], rngs, cps, **kw).metrics

    own = run()
    shared = run(rewards=reward_tables(inst.mu, 1000, [0, 1, 2]))
    for name in own:
        assert np.array_equal(own[name], shared[name])
    with pytest.raises(ValueError, match="rewards must have shape"):
        run(rewards=reward_tables(inst.mu, 100, [0, 1, 2]))


@pytest.mark.parametrize(
    "options",
    [
        {"learner": "maler", "c_beta": 1e-3},
        {"learner": "ogd", "c_beta": 1e-3},
        {"learner": "ogd", "ogd_step": "strongly_convex", "c_beta": 1e-2},
        {"learner": "maler", "radius_mode": "theory"},
        {"learner": "maler", "radius_mode": "oracle"},
        {"learner": "maler", "lambda_min": 0.0, "c_beta": 1e-3},  # Delta^2 = T^{-1/4} > 0
    ],
)
def test_onlineucb_engine_reproduces_the_reference(options):
    T, d = 300, 5
    inst = paper_text_instances(2, 30, d)
    policy = make_policy("onlineucb", Setting(T=T, d=d, epsilon=10.0, delta=0.1), **options)
    _compare(policy, inst, T)


@pytest.mark.parametrize(
    "algorithm,options",
    [
        ("onlineucb_doubling", {"c_beta": 1e-3}),
        ("onlineucb_doubling", {"learner": "ogd", "c_beta": 1e-3, "lambda_min": 0.0}),
        # the paper's constants (base 1 is never chosen at this horizon: R_1/T is large) ...
        ("combiner", {"c_beta": 1e-3}),
        # ... and small ones, so that the index switches bases and the test eliminates some
        ("combiner", {"c_beta": 1e-3, "P_const": 1e-4, "p_index": 1e-3}),
        ("combiner", {"learner": "ogd", "c_beta": 1e-3, "P_const": 1e-4, "p_index": 1e-3}),
    ],
)
def test_combiner_engine_reproduces_the_reference(algorithm, options):
    T, d = 300, 5
    inst = paper_text_instances(2, 30, d)
    policy = make_policy(algorithm, Setting(T=T, d=d, epsilon=10.0, delta=0.1), **options)
    fast = _compare(policy, inst, T)
    if options.get("P_const"):  # the small constants do exercise switching and elimination
        assert (fast.metrics["base1_plays"][:, -1] > 0).all()
        assert (fast.metrics["active_bases"][:, -1] < policy.n_bases).any()


# -- invert: Gauss-Jordan with partial pivoting ---------------------------------------------------
def _invert(A):
    d = A.shape[0]
    out, work = np.zeros((d, d)), np.zeros((d, 2 * d))
    return invert(A, out, work), out


def test_invert_reports_a_singular_matrix_instead_of_inverting_it():
    # [[1, 2], [2, 4]]: after the first elimination step the second pivot is 4 - 2 * 2 = 0
    # exactly, so the column has no non-zero pivot
    ok, _ = _invert(np.array([[1.0, 2.0], [2.0, 4.0]]))
    assert ok is False


def test_invert_pivots_on_the_largest_entry_so_a_tiny_leading_entry_stays_exact():
    # A = [[e, 1], [1, 1]] with e = 1e-17 has the inverse 1/(e - 1) [[1, -1], [-1, e]], i.e.
    # [[-1, 1], [1, -e]] to rounding. Pivoting on the largest entry (1) gives it exactly;
    # pivoting on e divides by 1e-17 and loses the top-left entry entirely (0 instead of -1).
    e = 1e-17
    ok, inv = _invert(np.array([[e, 1.0], [1.0, 1.0]]))
    assert ok
    np.testing.assert_allclose(inv, [[-1.0, 1.0], [1.0, -e]], rtol=1e-12, atol=1e-15)


def test_fresh_round_by_hand():
    # theta* = (1, 0); arms (0.5, 0.1) and (0.2, 0.3): means 0.5 and 0.2. Playing arm 1 costs
    # 0.3; its reward is +1 iff U < (1 + 0.2)/2 = 0.6
    A = np.array([[[[0.5, 0.1], [0.2, 0.3]]]])
    theta_star = np.array([[1.0, 0.0]])
    for u, reward in ((0.59, 1.0), (0.6, -1.0), (0.9, -1.0)):
        U = np.full((1, 1, 2), u)
        gap, r = fresh_round(A, 0, 0, 1, theta_star, U)
        assert gap == pytest.approx(0.3, abs=1e-15) and r == reward
    assert fresh_round(A, 0, 0, 0, theta_star, np.zeros((1, 1, 2)))[0] == 0.0
