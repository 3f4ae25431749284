"""OnlineUCB (policies/onlineucb.py): its radius and proxies by hand (docs/mutation.md).

The radius ``beta_t = c_beta (D^2 + M_t + K_t)`` of olucb's Algorithm 1 and its computable
proxies (the learner's regret bound ``M_t``, Lemma 3.5's ``S_t``, Lemma 3.3's ``K_t``; module
docstring of policies/onlineucb.py) are evaluated at hand-picked ``G``, ``mu_hat`` and ``D`` (set
on a constructed policy) where every term has a distinct, exact value, so the expected numbers
are sums of logarithms written out by hand.
"""

import math

import pytest

from dpbandits.policies import Setting, make_policy

# G = 2, D = 3, mu_hat = 1/2: G^2/mu^2 = 16, G D/mu = 12, G^2/mu = 8, G D = 6 (all distinct)
G, D, MU = 2.0, 3.0, 0.5


def _policy(**options):
    options = {"D": D, "beta_fail": 0.1, **options}
    policy = make_policy("onlineucb", Setting(T=16, d=5, epsilon=2.0, delta=0.1), **options)
    policy.G, policy.mu_hat = G, MU
    return policy


def test_default_lambda_min_gives_mu_hat_a_quarter():
    """lambda_min = 0.125 by default (the Figure 1 family's, docs/papers/olucb.md). At
    T = 20000, lambda_bar = T^(-1/4) = 0.0841 < 0.125, so Delta^2 = 0 and
    mu_hat = 2 (lambda_min + Delta^2) = 0.25."""
    policy = make_policy("onlineucb", Setting(T=20000, d=5, epsilon=1.0, delta=0.1))
    assert policy.opts["lambda_min"] == 0.125
    assert policy.Delta2 == 0.0
    assert policy.mu_hat == pytest.approx(0.25, rel=1e-15)


def test_distance_proxy_lemma_3_5_by_hand():
    """S_t = (G^2/mu^2 + G D/mu) ln(t + 1) + (G^2/mu^2) ln(1/beta), capped at 4 D^2 t:
    at t = 3, beta = 0.1: 28 ln 4 + 16 ln 10 = 75.66, below the cap 4 * 9 * 3 = 108."""
    policy = _policy()
    want = 28 * math.log(4) + 16 * math.log(10)
    assert policy.distance_proxy(3.0) == pytest.approx(want, rel=1e-12)
    # t = 1: 28 ln 2 + 16 ln 10 = 56.25 exceeds the cap 4 * 9 * 1 = 36
    assert policy.distance_proxy(1.0) == pytest.approx(36.0, rel=1e-12)


def test_distance_proxy_is_the_cap_without_strong_convexity():
    policy = _policy()
    policy.mu_hat = 0.0
    assert policy.distance_proxy(5.0) == pytest.approx(4 * 9 * 5, rel=1e-12)


def test_regret_proxy_strongly_convex_by_hand():
    """M_t = (G^2/mu + G D) ln(t + 1) + (G^2/mu) ln(1/beta): at t = 3, 14 ln 4 + 8 ln 10."""
    policy = _policy()
    want = 14 * math.log(4) + 8 * math.log(10)
    assert policy.regret_proxy(3.0) == pytest.approx(want, rel=1e-12)


def test_regret_proxy_at_mu_zero_is_2_G_D_sqrt_t():
    """mu = 0: the convex rate 2 G D sqrt(t) = 2 * 2 * 3 * 2 = 24 at t = 4."""
    policy = _policy()
    policy.mu_hat = 0.0
    assert policy.regret_proxy(4.0) == pytest.approx(24.0, rel=1e-12)


def test_k_constants_by_hand_with_perturbation():
    """K_t = k0 sqrt(t S) + k1 + k2 S with Lg = ln(T/beta): k0 = D Delta^2 Lg,
    k1 = (R + D sqrt(ln(1/delta))/eps + D sqrt(Delta^2))^2 Lg,
    k2 = (ln(1/delta)/eps^2 + Delta^2) Lg.
    T = 16, lambda_min = 0: Delta^2 = lambda_bar = 16^(-1/4) = 1/2; delta = 1/e, eps = 2,
    R = 1/2, D = 3, beta = 0.1: Lg = ln 160, k0 = 1.5 Lg,
    k1 = (1/2 + 3/2 + 3/sqrt 2)^2 Lg, k2 = (1/4 + 1/2) Lg."""
    policy = make_policy(
        "onlineucb",
        Setting(T=16, d=5, epsilon=2.0, delta=math.exp(-1)),
        lambda_min=0.0,
        D=3.0,
        beta_fail=0.1,
    )
    assert policy.Delta2 == pytest.approx(0.5, rel=1e-15)
    Lg = math.log(160)
    k0, k1, k2 = policy.k_constants()
    assert k0 == pytest.approx(1.5 * Lg, rel=1e-12)
    assert k1 == pytest.approx((2 + 3 / math.sqrt(2)) ** 2 * Lg, rel=1e-12)
    assert k2 == pytest.approx(0.75 * Lg, rel=1e-12)


@pytest.mark.parametrize("mode", ["theory", "scaled"])
def test_radius_of_the_first_round_by_hand(mode):
    """beta_t = c (D^2 + M_t + K_t) for round t + 1: the first entry (0-based t = 0) is at t = 1:
    M_1 = 14 ln 2 + 8 ln 10, S_1 = 36 (the cap), K_1 = 6 k0 + k1 + 36 k2; c = 1 in the theory
    mode and c_beta in the scaled one."""
    c = 1.0 if mode == "theory" else 0.01
    policy = _policy(radius_mode=mode, c_beta=0.01)
    k0, k1, k2 = policy.k_constants()
    want = c * (9 + 14 * math.log(2) + 8 * math.log(10) + 6 * k0 + k1 + 36 * k2)
    assert policy.radius(1.0)[0] == pytest.approx(want, rel=1e-12)
