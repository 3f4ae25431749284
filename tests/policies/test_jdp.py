"""Joint-DP LinUCB (policies/jdp.py): the published script's constants, user-level noise
(M0 times item-level) and its domain, the op24 zCDP calibration's constants and radius, the
SS18 radius by hand and calibration names compared by value (docs/mutation.md)."""

import math

import numpy as np
import pytest

from dpbandits.policies import Quirks, Setting, make_policy

SCRIPT = Quirks.from_fidelity("script")

# The published script's constants (docs/papers/cz22.md; T = n = 20000, delta = 0.1, to 6
# digits): the stand-in's s = sqrt(ln n) ln(2.5/delta)/eps, Gamma = s sqrt(ln n) sqrt(d),
# lambda = 2 Gamma.
SCRIPT_CONSTANTS = [
    (5, 0.2, 50.6487, 356.408, 712.816),
    (5, 1.0, 10.12974, 71.2816, 142.563),
    (5, 10.0, 1.012974, 7.12816, 14.2563),
    (10, 1.0, 10.12974, 100.8074, 201.615),
    (15, 1.0, 10.12974, 123.463, 246.927),
]


def _runtime(name):
    """The same text as a literal, but a distinct object (as names read from YAML are)."""
    return "".join(list(name))


@pytest.mark.parametrize("alg", ["jdp_standin", "jdp_tree", "jdp_user"])
@pytest.mark.parametrize("d,eps,s,Gamma,lam", SCRIPT_CONSTANTS)
def test_experiment_constants_match_the_published_script(alg, d, eps, s, Gamma, lam):
    # the true tree under `experiment` (jdp_tree with the script's constants) and jdp_user at
    # M0 = 1 share them
    p = make_policy(alg, Setting(T=20000, d=d, epsilon=eps, delta=0.1), "experiment", SCRIPT)
    assert p.noise_std == pytest.approx(s, rel=2e-5)
    assert p.consts["Gamma"] == pytest.approx(Gamma, rel=2e-5)
    assert p.lam == pytest.approx(lam, rel=2e-5)


@pytest.mark.parametrize("calibration", ["experiment", "theory"])
def test_user_level_noise_is_m0_times_item_level(calibration):
    """Prop. 4.3 = Prop. E.7: node noise std times M0. experiment (eps = 1, d = 5): s = 3 *
    10.12974, Gamma = 3 * 71.2816, lambda = 3 * 142.563 (the script's values times 3); theory:
    sigma_n = 3 * 118.044 (SS18 at m = 1 + ceil(log2 20000) = 16, U9)."""
    st = Setting(T=20000, d=5, epsilon=1.0, delta=0.1)
    p = make_policy("jdp_user", st, calibration, SCRIPT, M0=3)
    if calibration == "experiment":
        assert p.noise_std == pytest.approx(3 * 10.12974, rel=2e-5)
        assert p.consts["Gamma"] == pytest.approx(3 * 71.2816, rel=2e-5)
        assert p.lam == pytest.approx(3 * 142.563, rel=2e-5)
    else:
        assert p.noise_std == pytest.approx(3 * 118.044, rel=1e-5)
    # default M0 = 1: item-level privacy, the same calibration as jdp_tree
    assert make_policy("jdp_user", st, calibration, SCRIPT).noise_std == pytest.approx(
        make_policy("jdp_tree", st, calibration, SCRIPT).noise_std, rel=1e-15
    )


@pytest.mark.parametrize("M0", [0, -1, 2.5, "2", None])
def test_user_level_m0_must_be_a_positive_integer(M0):
    with pytest.raises(ValueError, match="M0 must be an integer >= 1"):
        make_policy("jdp_user", Setting(T=100, d=3, epsilon=1.0, delta=0.1), M0=M0)


@pytest.mark.parametrize("M0", [1, 2])
def test_user_level_accepts_m0_from_one(M0):
    make_policy("jdp_user", Setting(T=100, d=3, epsilon=1.0, delta=0.1), M0=M0)


@pytest.mark.parametrize(
    "eps, rho_J, sigma_n, Upsilon, nu, unit",
    [
        (1.0, 0.0491, 36.1, 2231, 24.4, (1e-4, 0.1, 1, 0.1)),
        (100.0, 65.3, 0.99, 61.2, 4.03, (0.1, 0.01, 0.1, 0.01)),
    ],
)
def test_op24_policy_constants_of_the_zcdp_calibration(eps, rho_J, sigma_n, Upsilon, nu, unit):
    """JDP-LinUCB's zCDP calibration (docs/papers/op24.md) at T = 2^15, d = 5, delta = delta_c =
    0.01 (m = 16), printed values within one unit of their last digit; shift 2 Upsilon,
    eigenvalue floor Upsilon/2."""
    p = make_policy("jdp_tree", Setting(T=2**15, d=5, epsilon=eps, delta=0.01), "op24")
    c = p.consts
    assert c["m"] == 16 and c["leaves"] == 2**15
    assert c["rho_J"] == pytest.approx(rho_J, abs=unit[0])
    assert c["sigma_n"] == pytest.approx(sigma_n, abs=unit[1])
    assert p.noise_std == c["sigma_n"]
    assert c["Upsilon"] == pytest.approx(Upsilon, abs=unit[2])
    assert c["nu"] == pytest.approx(nu, abs=unit[3])
    assert p.lam == pytest.approx(2 * c["Upsilon"], rel=1e-15)
    assert c["eig_floor"] == pytest.approx(c["Upsilon"] / 2, rel=1e-15)


def test_op24_radius_is_at_the_one_based_round():
    """sqrt(beta_t) = sqrt(2 ln(2/delta_c) + d ln(1 + (t-1)/(d Upsilon))) + sqrt(3 Upsilon) + nu
    at the 1-based round t = (0-based refresh round) + 1: the first refresh has no data term
    (2 ln 200 = 10.596635), the last (t = T) has d ln(1 + (T-1)/(d Upsilon)). eps = 100, T = 2^15,
    d = 5, delta_c = 0.01; Upsilon and nu are pinned by the test above (docs/papers/op24.md)."""
    T = 2**15
    p = make_policy("jdp_tree", Setting(T=T, d=5, epsilon=100.0, delta=0.01), "op24")
    U, nu = p.consts["Upsilon"], p.consts["nu"]
    r = p.radius(1.0)
    assert r.shape == (T,)
    tail = math.sqrt(3 * U) + nu
    assert r[0] == pytest.approx(math.sqrt(2 * math.log(200.0)) + tail, rel=1e-12)
    for k in (1, 99, T - 1):  # 0-based refresh k, 1-based round k + 1
        want = math.sqrt(2 * math.log(200.0) + 5 * math.log1p(k / (5 * U))) + tail
        assert r[k] == pytest.approx(want, rel=1e-12)


def test_ss18_radius_counts_observed_rounds():
    """theory (SS18): the radius after t observed rounds, t = the 0-based refresh round.
    T = 64, d = 2, eps = 50, delta = 0.1: m = 1 + log2 64 = 7, sigma_n = 4 sqrt 7 * 2 ln 40/50 =
    1.561577; Upsilon = sigma_n sqrt 14 (4 sqrt 2 + 2 ln 8192) = 5.842942 * 23.678680 = 138.3519;
    radius = 0.5 sqrt(2 ln 128 + 2 ln(3 + t/(2 Upsilon))) + sqrt(3 Upsilon) + gamma, alpha = 1/T."""
    p = make_policy("jdp_tree", Setting(T=64, d=2, epsilon=50.0, delta=0.1), "theory")
    assert p.consts["sigma_n"] == pytest.approx(1.561577, rel=1e-6)
    U, gamma = p.consts["Upsilon"], p.consts["gamma"]
    assert U == pytest.approx(138.3519, rel=1e-6)
    r = p.radius(1.0)
    tail = math.sqrt(3 * U) + gamma
    for t in (0, 1, 63):
        want = 0.5 * math.sqrt(2 * math.log(128.0) + 2 * math.log(3 + t / (2 * U))) + tail
        assert r[t] == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("calibration", ["experiment", "theory", "op24"])
def test_calibration_names_compared_by_value(calibration):
    """Calibration names come from the experiment YAML: a name built at run time must give the
    same constants and radii as the literal."""
    st = Setting(T=256, d=3, epsilon=2.0, delta=0.05)
    a = make_policy("jdp_tree", st, calibration)
    b = make_policy("jdp_tree", st, _runtime(calibration))
    assert a.consts == b.consts and a.lam == b.lam and a.noise_std == b.noise_std
    assert np.array_equal(a.radius(1.0), b.radius(1.0))
