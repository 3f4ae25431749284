"""P_Vec's release (privacy/vec_release.py): the CZ22 Thm. C.1 certificate, in closed form, infinite
outside the theorem, and the inverse of P_Vec's theory calibration (docs/mutation.md)."""

import math

import pytest

from dpbandits.mechanisms.vec import VecParams
from dpbandits.policies import Quirks, Setting, make_policy
from dpbandits.privacy import releases as rel
from dpbandits.privacy.vec_release import vec_certified_epsilon


def _cz22_policy(alg, T=20000, eps=1.0, calibration="experiment", **opts):
    setting = Setting(T=T, d=5, epsilon=eps, delta=0.1, B=20)
    return make_policy(alg, setting, calibration, Quirks.from_fidelity("script"), **opts)


def test_vec_certificate_is_thm_c1_solved_for_epsilon_up_to_15():
    # Thm. C.1: eps = sqrt(24e4 g^2 ln^2(4 (d^2 + 1)/delta) / (b B)). With g = 10, d = 3,
    # delta = 0.04 the log is ln(4 * 10 / 0.04) = 3 ln 10; b B = 24e4 * 100 * 9 gives ln 10.
    prm = VecParams(g=10.0, b=2.16e6, p=0.25, b_trials=2_160_000, b_debias=2.16e6)
    assert vec_certified_epsilon(prm, 100, 3, 0.04) == pytest.approx(math.log(10), rel=1e-12)
    # eps scales as 1/sqrt(b B): a quarter of the batch doubles it
    assert vec_certified_epsilon(prm, 25, 3, 0.04) == pytest.approx(2 * math.log(10), rel=1e-12)
    # the theorem needs eps <= 15: B = 2.4 gives 10 ln 10 / sqrt 2.4 = 14.86, B = 2.3 gives 15.18
    assert vec_certified_epsilon(prm, 2.4, 3, 0.04) == pytest.approx(
        10 * math.log(10) / math.sqrt(2.4), rel=1e-12
    )
    assert math.isinf(vec_certified_epsilon(prm, 2.3, 3, 0.04))


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
    assert math.isinf(vec_certified_epsilon(prm, 100, 3, 0.04))


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
