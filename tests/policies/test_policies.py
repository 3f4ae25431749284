"""Calibrations of every policy: the theory constants (docs/papers/cz22.md), the script's
experiment constants, refresh schedules and reductions to LinUCB."""

import math

import numpy as np
import pytest

from dpbandits.dev.reference_loops import reference_run
from dpbandits.engine import checkpoint_rounds, draw_raw, simulate
from dpbandits.envs import bernoulli_reward_table, script_instances
from dpbandits.mechanisms.zcdp import dp_to_zcdp
from dpbandits.policies import POLICIES, Quirks, Setting, make_policy
from dpbandits.seeds import noise_generator

L = math.sqrt(2)
SCRIPT = Quirks.from_fidelity("script")

# The script's formulas evaluated at L = sqrt(2), n = 20000, B = 20, delta = 0.1:
# (d, epsilon, algorithm) -> s, Gamma, lambda, width
# (L = sqrt 2, n = 20000, B = 20, delta = 0.1)
TABLE_4_5 = [
    (5, 0.2, "ldp", 8.97061, 2836.757, 5673.514, 123.067),
    (5, 0.2, "jdp_standin", 50.6487, 356.408, 712.816, 46.491),
    (5, 0.2, "sdp_amp", 2.78716, 881.377, 1762.755, 70.529),
    (5, 0.2, "sdp_vec", None, 345.777, 691.554, 45.861),
    (5, 1.0, "ldp", 1.79412, 567.351, 1134.703, 57.470),
    (5, 1.0, "jdp_standin", 10.12974, 71.2816, 142.563, 23.384),
    (5, 1.0, "sdp_amp", 0.557432, 176.2755, 352.551, 34.066),
    (5, 1.0, "sdp_vec", None, 69.1554, 138.311, 23.104),
    (5, 10.0, "ldp", 0.179412, 56.7351, 113.470, 21.379),
    (5, 10.0, "jdp_standin", 1.012974, 7.12816, 14.2563, 10.784),
    (5, 10.0, "sdp_amp", 0.0557432, 17.6275, 35.2551, 14.083),
    (5, 10.0, "sdp_vec", None, 6.91554, 13.8311, 10.698),
    (10, 1.0, "ldp", 1.79412, 802.356, 1604.712, 95.455),
    (10, 1.0, "jdp_standin", 10.12974, 100.8074, 201.615, 38.053),
    (10, 1.0, "sdp_amp", 0.557432, 249.291, 498.582, 56.050),
    (10, 1.0, "sdp_vec", None, 115.129, 230.259, 40.207),
    (15, 1.0, "ldp", 1.79412, 982.681, 1965.363, 128.560),
    (15, 1.0, "jdp_standin", 10.12974, 123.463, 246.927, 50.704),
    (15, 1.0, "sdp_amp", 0.557432, 305.318, 610.636, 75.120),
    (15, 1.0, "sdp_vec", None, 153.419, 306.838, 55.589),
]


@pytest.mark.parametrize("d,eps,alg,s,Gamma,lam,width", TABLE_4_5)
def test_experiment_constants_of_the_script(d, eps, alg, s, Gamma, lam, width):
    p = make_policy(alg, Setting(T=20000, d=d, epsilon=eps, delta=0.1, B=20), "experiment", SCRIPT)
    if s is not None:
        assert p.consts["s"] == pytest.approx(s, rel=2e-5)
    assert p.consts["Gamma"] == pytest.approx(Gamma, rel=2e-5)
    assert p.lam == pytest.approx(lam, rel=2e-5)
    assert p.radius(L)[0] == pytest.approx(width, abs=1e-3)
    assert np.all(p.radius(L) == p.radius(L)[0])  # quirk 2: one fixed width


@pytest.mark.parametrize("d,width", [(5, 7.2982), (10, 10.3212), (15, 12.6409)])
def test_linucb_width_uses_gamma_1_and_lambda_1e_4(d, width):
    p = make_policy("linucb", Setting(T=20000, d=d), "experiment", SCRIPT)
    assert p.lam == 1e-4
    assert p.radius(L)[0] == pytest.approx(width, abs=1e-4)
    corrected = make_policy(
        "linucb", Setting(T=20000, d=d), "experiment", Quirks.from_fidelity("corrected")
    )
    assert corrected.lam == 1.0
    widths = corrected.radius(L)
    assert widths[-1] < p.radius(L)[0] and np.all(
        np.diff(widths) > 0
    )  # time-varying, below the fixed one


def test_explicit_theory_regularisers():
    """Explicit lambda at T = 20000, d = 5, B = 20, delta = 0.1, epsilon = 1."""
    s = Setting(T=20000, d=5, epsilon=1.0, delta=0.1, B=20)
    assert make_policy("ldp", s, "theory").lam == pytest.approx(1.43e5, rel=0.01)
    assert make_policy("sdp_amp", s, "theory").lam == pytest.approx(6.8e4, rel=0.01)
    assert make_policy("sdp_vec", s, "theory").lam == pytest.approx(4.7e6, rel=0.02)
    assert make_policy("jdp_tree", s, "theory").lam == pytest.approx(6.67e4, rel=0.01)
    assert make_policy("linucb", s, "theory").lam == 1.0
    # every theory radius is time-varying and increasing
    for alg in ("linucb", "ldp", "sdp_amp", "sdp_vec", "jdp_tree"):
        r = make_policy(alg, s, "theory").radius(1.0)
        assert np.all(np.diff(r) > 0)


def test_u13_refresh_schedules():
    s = Setting(T=20000, d=5, epsilon=1.0, delta=0.1, B=20)
    amp = make_policy("sdp_amp", s)
    assert amp.n_refresh == 1000 and list(amp.refresh_rounds()[:3]) == [0, 20, 40]
    assert amp.refresh_rounds()[-1] == 19980
    vec = make_policy("sdp_vec", s)
    # the kernel analyzes batch k at t = kB for k >= 1: the last batch is never analyzed
    assert sum(1 for t in vec.refresh_rounds() if t > 0) == 999
    for alg in ("ldp", "jdp_standin", "linucb"):
        assert make_policy(alg, s).n_refresh == 20000


def _actions(policy, inst, i, T):
    raw = draw_raw(policy, noise_generator(0, "t", "p", policy.algorithm, i))
    rewards = bernoulli_reward_table(inst.mu[i], T, i)
    return reference_run(policy, inst.X[i], inst.mu[i], rewards, raw, checkpoint_rounds(T, 4))


def test_u14_amp_without_noise_is_batched_linucb():
    T = 400
    inst = script_instances(2, 30, 4)
    s = Setting(T=T, d=4, epsilon=1.0, delta=0.1, B=20)
    amp = make_policy("sdp_amp", s, "experiment", SCRIPT)
    amp.noise_std = 0.0
    batched = make_policy("linucb", Setting(T=T, d=4), "experiment", SCRIPT)
    batched.period, batched.lam, batched.Gamma = 20, amp.lam, amp.Gamma  # lambda = 2 Gamma
    for i in range(2):
        assert np.array_equal(
            _actions(amp, inst, i, T)["actions"], _actions(batched, inst, i, T)["actions"]
        )


def test_u14_ldp_without_noise_reproduces_linucb():
    T = 600
    inst = script_instances(3, 40, 5)
    ldp = make_policy("ldp", Setting(T=T, d=5, epsilon=1.0, delta=0.1), "experiment", SCRIPT)
    ldp.noise_std, ldp.Gamma, ldp.lam = 0.0, 1.0, 1e-4
    lin = make_policy("linucb", Setting(T=T, d=5), "experiment", SCRIPT)
    cps = checkpoint_rounds(T, 6)
    rngs = [noise_generator(0, "t", "p", "x", i) for i in range(3)]
    a = simulate(ldp, inst, [0, 1, 2], rngs, cps)
    b = simulate(lin, inst, [0, 1, 2], rngs, cps)
    assert np.array_equal(a.metrics["regret_realized"], b.metrics["regret_realized"])
    assert np.array_equal(a.metrics["regret_pseudo"], b.metrics["regret_pseudo"])


def test_quirks_and_options_are_checked():
    assert Quirks.from_fidelity("script") == Quirks()
    assert not any(Quirks.from_fidelity("corrected").as_dict().values())
    assert Quirks.from_fidelity("corrected", fixed_width=True).fixed_width
    with pytest.raises(ValueError, match="unknown quirk"):
        Quirks.from_fidelity("script", no_such=True)
    with pytest.raises(ValueError, match="fidelity"):
        Quirks.from_fidelity("exact")
    s = Setting(T=100, d=3, epsilon=1.0, delta=0.1, B=20)
    with pytest.raises(ValueError, match="calibration 'theory' is not available"):
        make_policy("jdp_standin", s, "theory")
    with pytest.raises(ValueError, match="unknown option"):
        make_policy("ldp", s, vec_scale=10)
    with pytest.raises(ValueError, match="must divide"):
        make_policy("sdp_amp", Setting(T=110, d=3, epsilon=1.0, delta=0.1, B=20))
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        make_policy("ldp", Setting(T=100, d=3, epsilon=-1.0, delta=0.1))
    with pytest.raises(ValueError, match="unknown algorithm"):
        make_policy("ucb2", s)


def test_theory_conditions_are_reported():
    s = Setting(T=20000, d=5, epsilon=1.0, delta=0.1, B=20)
    failed = {c for c, ok in make_policy("sdp_amp", s, "theory").conditions() if not ok}
    assert any("Thm. 3.2 range" in c for c in failed) and any("Lemma B.4" in c for c in failed)
    assert make_policy("sdp_amp", s, "experiment").conditions() == []
    ok = dict(
        make_policy("ldp", Setting(T=100, d=3, epsilon=0.5, delta=0.1), "theory").conditions()
    )
    assert all(ok.values())


def test_cumulative_noise_ratio_predicted_by_lemma_3_9():
    """Audit metric: sqrt(sigma~_A / sigma~_LDP) = 0.557 (Amp) and about 0.546 (Vec), d = 5."""
    s = Setting(T=20000, d=5, epsilon=1.0, delta=0.1, B=20)
    ldp = make_policy("ldp", s, "experiment", SCRIPT).cumulative_noise_std(L)
    amp = make_policy("sdp_amp", s, "experiment", SCRIPT).cumulative_noise_std(L)
    vec = make_policy("sdp_vec", s, "experiment", SCRIPT).cumulative_noise_std(L)
    assert math.sqrt(amp / ldp) == pytest.approx(0.557, abs=1e-3)
    assert math.sqrt(vec / ldp) == pytest.approx(0.546, abs=2e-3)


def test_every_policy_builds_under_each_of_its_calibrations():
    s = Setting(T=400, d=3, epsilon=1.0, delta=0.1, B=20)
    for alg, cls in POLICIES.items():
        for cal in cls.calibrations:
            # dpdpe: no per-round radius (tests/papers/dpdpe/test_dpdpe.py)
            if alg == "etc_phased":  # the phased contestant: its exploration, no radius
                p = make_policy(alg, Setting(T=400, d=3, K=10), cal, explore=40)
                assert p.constants() == {"lambda": 1.0, "explore": 40}
                continue
            if cls.engine == "phased":
                opts = {"U": 5} if alg == "dpe_fixedu" else {}
                p = make_policy(alg, Setting(T=400, d=3, epsilon=1.0, delta=0.1, K=10), cal, **opts)
                assert p.constants()["beta"] == pytest.approx(1 / 4000)
                continue
            if cls.engine == "plasso":  # plasso: the run's constants from s0, no radius
                p = make_policy(alg, s, cal)
                assert p.run_constants(2).T == 400
                continue
            if cls.engine == "op24":  # op24's zCDP policies: rho from the target, no radius
                p = make_policy(alg, s, cal)
                assert p.constants()["rho"] == pytest.approx(dp_to_zcdp(1.0, 0.1))
                continue
            opts = {"explore": 40} if alg == "etc" else {}  # its required option
            p = make_policy(alg, s, cal, **opts)
            assert p.n_refresh == len(p.radius(1.0)) and p.lam > 0
