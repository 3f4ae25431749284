"""Claims of olucb that are checked by direct computation (`testable: numeric` in
config/claims/olucb.yaml): comparisons between stated rates and Remark 3.1's inequality."""

import math

import numpy as np
import pytest

from dpbandits.claims import load_claims

from ...conftest import ROOT

GRID_D = [1, 2, 5, 10, 100, 1000]
GRID_T = [1e3, 2e4, 1e6, 1e9]


def _claims():
    return {
        c["id"]: c
        for c in load_claims(
            ROOT / "config/claims/olucb.yaml", ROOT / "workflow/schemas/claims.schema.yaml"
        )
    }


def test_numeric_claims_are_registered_and_point_here():
    claims = _claims()
    numeric = ("olucb.sec1.vs_zheng", "olucb.rem3.7", "olucb.sec3.2.vs_zheng", "olucb.rem3.1.gauss")
    for cid in numeric:
        assert claims[cid]["testable"] == "numeric"
        assert "tests/papers/olucb/test_olucb_claims.py" in claims[cid]["audit"]["none"]


@pytest.mark.parametrize("d", GRID_D)
@pytest.mark.parametrize("T", GRID_T)
def test_sec1_vs_zheng(d, T):
    """sqrt(d) T^(3/4)/eps <= (dT)^(3/4)/sqrt(eps)  iff  eps >= 1/sqrt(d)."""
    for eps in np.geomspace(1e-3, 1e3, 61):
        ours = math.sqrt(d) * T**0.75 / eps
        zheng = (d * T) ** 0.75 / math.sqrt(eps)
        boundary = 1 / math.sqrt(d)
        if abs(eps / boundary - 1) > 1e-9:
            assert (ours <= zheng) == (eps >= boundary), (d, T, eps)


@pytest.mark.parametrize("d", GRID_D)
@pytest.mark.parametrize("T", GRID_T)
def test_sec3_2_vs_zheng(d, T):
    """sqrt(d) T^(3/4)/eps + sqrt(dT) <= (dT)^(3/4)/sqrt(eps) + d sqrt(T) when eps >= 1/sqrt(d)."""
    for eps in np.geomspace(1 / math.sqrt(d), 1e3, 40):
        ours = math.sqrt(d) * T**0.75 / eps + math.sqrt(d * T)
        zheng = (d * T) ** 0.75 / math.sqrt(eps) + d * math.sqrt(T)
        assert ours <= zheng * (1 + 1e-12)


@pytest.mark.parametrize("d", GRID_D)
@pytest.mark.parametrize("T", GRID_T)
def test_rem3_7(d, T):
    """sqrt(dT)/(eps lambda) <= d T^(3/5) when lambda >= T^(-1/10)/(eps sqrt(d)), with equality at
    the threshold (so the threshold is the exact crossover)."""
    for eps in (0.1, 1.0, 10.0):
        threshold = T**-0.1 / (eps * math.sqrt(d))
        for lam in threshold * np.array([1.0, 1.5, 10.0]):
            assert math.sqrt(d * T) / (eps * lam) <= d * T**0.6 * (1 + 1e-12)
        below = threshold / 1.5
        assert math.sqrt(d * T) / (eps * below) > d * T**0.6
        at = math.sqrt(d * T) / (eps * threshold)
        assert at == pytest.approx(d * T**0.6, rel=1e-12)


@pytest.mark.parametrize("k", [2, 5, 10])
def test_rem3_1_gaussian_arms(k):
    """E[min_i <v, x_i>^2] >= pi s^2/(6 k^2) for k arms x_i ~ N(0, s^2 I_3) (Monte Carlo, 10^5
    draws, s = 1); for k = 2 the exact value is 1 - 2/pi."""
    rng = np.random.default_rng(k)
    d, n = 3, 100_000
    v = rng.standard_normal(d)
    v /= np.linalg.norm(v)
    x = rng.standard_normal((n, k, d))
    m = np.min((x @ v) ** 2, axis=1)
    mean, se = m.mean(), m.std(ddof=1) / math.sqrt(n)
    assert mean - 5 * se >= math.pi / (6 * k**2)
    if k == 2:
        assert abs(mean - (1 - 2 / math.pi)) <= 5 * se
