"""Tests that kill mutants left alive in privacy/releases.py (docs/mutation.md).

The releases turn every algorithm's noise into the delivered epsilons of the privacy tables; the
tests pin the data bounds against the environments that generate the data, the sensitivities
(diameter ``2L`` of the arm ball, reward range), the domain check of paper 003, the CZ22
Thm. C.1 certificate (closed form, and the inverse of the theory calibration of P_Vec), the exact
count distribution of the shuffle protocol, the scale invariance of DP-DPE's shuffle view, and
names read at run time (compared by value).
"""

import math
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.stats import binom

from dpbandits.envs.contextual import rademacher_rewards
from dpbandits.envs.linear import make_instances
from dpbandits.envs.rewards import bernoulli_reward_table
from dpbandits.mechanisms.shuffle_sum import scalar_params
from dpbandits.mechanisms.vec import VecParams
from dpbandits.policies import Quirks, Setting, make_policy
from dpbandits.privacy import releases as rel


def test_reward_range_is_the_length_of_the_interval():
    assert rel.Universe("u", 1.0, -1.0, 1.0).reward_range == 2.0
    assert rel.Universe("u", 1.0, 0.25, 3.0).reward_range == 2.75
    assert rel.PAPER_OLUCB.reward_range == 2.0 and rel.PAPER_CZ22.reward_range == 1.0


@pytest.mark.parametrize(
    "family", ["script", "paper_text", "illcond", "fixed_sphere", "two_action", "fresh_sphere"]
)
def test_instance_bounds_are_those_of_the_generated_data(family):
    # the arms the environment draws lie in the ball of radius L (script: sqrt 2, attained), and
    # the rewards take exactly the values r_lo and r_hi: Bernoulli tables {0, 1} for the
    # fixed-arm families, Rademacher {-1, +1} for setting F (fresh_sphere)
    K, d = (2, 2) if family == "two_action" else (5, 4)
    opts = {"T": 100, "gap_scale": 1.0, "gap_power": 0.5} if family == "two_action" else {}
    inst = make_instances(family, 20, K, d, 3, **opts)
    u = rel.instance_universe(family)
    assert inst.L.max() <= u.L * (1 + 1e-12)
    assert inst.L.max() == pytest.approx(u.L, rel=1e-12)  # every family attains its bound
    if family == "fresh_sphere":
        rng = np.random.default_rng(0)
        y = rademacher_rewards(rng.random((200, K)), rng.uniform(-0.5, 0.5, (200, K)))
    else:
        y = bernoulli_reward_table(np.clip(inst.mu[0], 0.2, 0.8), 200, 0).astype(float)
    assert (u.r_lo, u.r_hi) == (y.min(), y.max())


def _cz22_policy(alg, T=20000, eps=1.0, calibration="experiment", **opts):
    setting = Setting(T=T, d=5, epsilon=eps, delta=0.1, B=20)
    return make_policy(alg, setting, calibration, Quirks.from_fidelity("script"), **opts)


@pytest.mark.parametrize(
    "universe",
    [rel.PAPER_OLUCB, rel.Universe("u", 1.0, 0.0, 2.0), rel.instance_universe("fresh_sphere")],
)
def test_cz22_release_refuses_rewards_outside_the_unit_interval(universe):
    with pytest.raises(ValueError, match=r"assume rewards in \[0, 1\]"):
        rel.cz22_release(_cz22_policy("ldp"), universe)


@pytest.mark.parametrize(
    "universe,dx,dy",
    [
        (rel.instance_universe("script"), 2.0 * math.sqrt(2.0), 1.0),
        (rel.PAPER_OLUCB, 2.0, 2.0),
        (rel.Universe("u", 0.25, 0.0, 1.0), 0.5, 1.0),
    ],
)
def test_olucb_sensitivities_are_the_diameter_and_the_reward_range(universe, dx, dy):
    # replace-one neighbours: x, x' anywhere in the ball of radius L (sup ||x - x'|| = 2L),
    # y, y' anywhere in [r_lo, r_hi]; x~ also carries the perturbation variance Delta2
    policy = SimpleNamespace(sigma=0.7, Delta2=0.3)
    cx, cy = rel.olucb_release(policy, universe).components
    assert cx.sensitivity == pytest.approx(dx, rel=1e-15) and cy.sensitivity == dy
    assert cx.scale == pytest.approx(math.sqrt(0.49 + 0.3), rel=1e-15) and cy.scale == 0.7


def test_returning_user_composition_is_noted_only_for_several_batches():
    # T = 40, B = 20: a returning user is in M = 2 batches; without returning users M = 1
    ru = rel.cz22_release(_cz22_policy("sdp_amp_ru", T=40), rel.PAPER_CZ22)
    assert ru.components[0].count == 2 and "M = 2 batches: M-fold composition" in ru.notes
    for alg in ("ldp", "sdp_amp"):
        one = rel.cz22_release(_cz22_policy(alg, T=40), rel.PAPER_CZ22)
        assert one.components[0].count == 1 and one.notes == ""


def test_vec_certificate_closed_form():
    # Thm. C.1: eps = sqrt(24e4 g^2 ln^2(4 (d^2 + 1)/delta) / (b B)). With g = 10, d = 3,
    # delta = 0.04 the log is ln(4 * 10 / 0.04) = 3 ln 10; b B = 24e4 * 100 * 9 gives ln 10.
    prm = VecParams(g=10.0, b=2.16e6, p=0.25, b_trials=2_160_000, b_debias=2.16e6)
    assert rel.vec_certified_epsilon(prm, 100, 3, 0.04) == pytest.approx(math.log(10), rel=1e-12)
    # eps scales as 1/sqrt(b B): a quarter of the batch doubles it
    assert rel.vec_certified_epsilon(prm, 25, 3, 0.04) == pytest.approx(2 * math.log(10), rel=1e-12)
    # the theorem needs eps <= 15: B = 2.4 gives 10 ln 10 / sqrt 2.4 = 14.86, B = 2.3 gives 15.18
    assert rel.vec_certified_epsilon(prm, 2.4, 3, 0.04) == pytest.approx(
        10 * math.log(10) / math.sqrt(2.4), rel=1e-12
    )
    assert math.isinf(rel.vec_certified_epsilon(prm, 2.3, 3, 0.04))


@pytest.mark.parametrize(
    "prm",
    [
        VecParams(g=10.0, b=0.0, p=0.25, b_trials=0, b_debias=0.0),  # no binomial bits
        VecParams(g=10.5, b=2.16e6, p=0.25, b_trials=2_160_000, b_debias=2.16e6),  # g not integer
        VecParams(g=10.0, b=2.16e6 + 0.5, p=0.25, b_trials=2_160_000, b_debias=2.16e6),  # b
        VecParams(g=10.0, b=2.16e6, p=0.3, b_trials=2_160_000, b_debias=2.16e6),  # p != 1/4
    ],
)
def test_vec_certificate_outside_the_theorem_is_infinite(prm):
    assert math.isinf(rel.vec_certified_epsilon(prm, 100, 3, 0.04))


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_vec_certificate_inverts_the_theory_calibration(eps):
    # the theory calibration draws b = ceil(Thm. C.1's trials at eps) with integer g; the
    # certificate at that b is therefore at most eps and above eps sqrt(1 - 1/b) (the ceil).
    # A returning user (sdp_vec_ru, M = T/B batches) is outside Thm. C.1: no certificate.
    pol = _cz22_policy("sdp_vec", eps=eps, calibration="theory")
    cert = rel.cz22_release(pol, rel.PAPER_CZ22).extra["certified_epsilon"]
    b = pol.vec.b_trials
    assert eps * math.sqrt(1.0 - 1.0 / b) <= cert <= eps * (1 + 1e-12)
    ru = rel.cz22_release(_cz22_policy("sdp_vec_ru", eps=eps, calibration="theory"), rel.PAPER_CZ22)
    assert math.isinf(ru.extra["certified_epsilon"])


def test_count_pmf_pair_is_exact_for_a_few_trials():
    # N = n b = 2 binomial trials: the +-14 sd window covers every count, so each distribution
    # is the exact law of floor(z) + Bernoulli(frac z) + Binomial(N, p) (total mass 1)
    prm = replace(scalar_params(100.0, 0.5, 1, 0.3), b=2, p=0.3)
    N = prm.n * prm.b
    assert N == 2
    p_lo, p_hi = rel.count_pmf_pair(prm, -0.2, 0.25)
    for y, got in ((-0.2, p_lo), (0.25, p_hi)):
        z = (y + prm.shift) * prm.g / prm.scale
        f, q = math.floor(z), z - math.floor(z)
        law = np.convolve([1.0 - q, q], binom.pmf(np.arange(N + 1), N, prm.p))
        want = {f + k: v for k, v in enumerate(law) if v > 0}
        assert set(got) == set(want)
        assert all(got[k] == pytest.approx(want[k], rel=1e-12) for k in want)
        assert sum(got.values()) == pytest.approx(1.0, rel=1e-12)


# DP-DPE's shuffle view (paper 004): a setting where it is not 0 at the query delta
_DPE = Setting(T=2**14, d=2, epsilon=30.0, delta=0.01, K=2)
_QUERY = 1e-6


def _dpe_epsilon(policy):
    return rel.dpdpe_release(policy).extra["epsilon_at"](_QUERY)


def test_dpdpe_shuffle_view_does_not_depend_on_the_reward_unit():
    # reports clipped to [-B, B]^s and encoded on [-B sqrt s, B sqrt s] (Eq. 19, Delta2 =
    # B sqrt s): z = (y + Delta2) g / (2 Delta2) is invariant under y, B -> c y, c B, and g, b, p
    # do not depend on B. c = 2 is exact in floating point.
    one = _dpe_epsilon(make_policy("sdp_dpe", _DPE))
    two = _dpe_epsilon(make_policy("sdp_dpe", _DPE, reward_bound=2.0))
    assert one > 0.05 and two == pytest.approx(one, rel=1e-12)


def test_dpdpe_shuffle_names_read_at_run_time_are_compared_by_value():
    # a privatizer or width name built at run time (e.g. read from a configuration file) gives
    # the same accounting as the literal: the same function of the same arguments (computing the
    # s1 view's epsilon takes seconds, so the release's accounting calls are compared)
    def accounting(**opts):
        f = rel.dpdpe_release(make_policy("sdp_dpe", _DPE, **opts)).extra["epsilon_at"]
        return f.func, f.args

    literal = accounting()
    assert accounting(width="faithful") == literal
    s1 = accounting(width="s1")
    assert s1 != literal  # eps_hat = eps: the s1 diagnostic is another protocol
    assert accounting(width="".join(["s", "1"])) == s1
    policy = make_policy("sdp_dpe", _DPE)
    policy.privatizer = "".join(["shu", "ffle"])
    f = rel.dpdpe_release(policy).extra["epsilon_at"]
    assert (f.func, f.args) == literal


def test_plasso_release_descriptions_name_the_tree():
    const = SimpleNamespace(Gamma=-0.5)
    for alg in ("private_lasso", "svt_noise_off", "tbap_noise_off"):
        release = rel.plasso_release(alg, const)
        assert "(d+1) x (d+1) moment matrix" in release.mechanism
        assert "support-block" not in release.mechanism and not release.private
    release = rel.plasso_release("support_block_tree", const)
    assert "support-block tree" in release.mechanism and not release.private
