"""Parameters of the shuffled sum protocols as dpdpe uses them (Algorithms 2 and 4, Eqs. 22, 60):
g, b and p by hand, p just below 1/2 for the rounded-up b, the first term of g's max where it
binds, and delta = 0 refused (docs/mutation.md)."""

import math

import pytest

from dpbandits.mechanisms.shuffle_sum import scalar_params, vector_params

POINTS = [
    lambda: scalar_params(2.0, 0.1, 4, 1.0),
    lambda: scalar_params(0.3, 1e-6, 50, 2.5),
    lambda: vector_params(10.0, 0.25, 7, 5, math.sqrt(5)),
    lambda: vector_params(100.0, 0.25, 40_000, 27, 1.0),
    lambda: vector_params(1.0, 0.25, 10_000, 1, 1.0, eps_hat=30.0),
]


def test_algorithm4_parameters_by_hand():
    # Eq. 60 at eps = 2 (run at eps/2 = 1), delta = 0.1, n = 4, B = 1: g = ceil(2 sqrt(4)) = 4,
    # b = ceil(180 * 16 ln(20) / 4) = ceil(720 ln 20) = ceil(2156.93) = 2157
    prm = scalar_params(2.0, 0.1, 4, 1.0)
    assert (prm.n, prm.s, prm.g, prm.b) == (4, 1, 4, 2157)
    assert (prm.eps_hat, prm.scale, prm.shift) == (1.0, 2.0, 1.0)
    assert prm.log_term == pytest.approx(math.log(20.0), rel=1e-15)
    # p = 90 g^2 ln(20) / (b n) = 360 ln(20) / 2157 = 0.49998
    assert prm.p == pytest.approx(0.49998313, abs=1e-8)


@pytest.mark.parametrize("make", POINTS)
def test_binomial_bits_have_p_just_below_one_half(make):
    # Eq. 22 / 60: b = ceil(2 X) and p = X / b with X = 90 g^2 L / (eps_hat^2 n), so the expected
    # number of noise ones b p = X is half of the rounded-up b: p in ((b - 1) / (2 b), 1/2]
    prm = make()
    assert (prm.b - 1) / (2 * prm.b) < prm.p <= 0.5


def test_algorithm2_g_where_the_first_term_of_the_max_binds():
    # Eq. 22, g = ceil(max{eps_hat sqrt(n) / (6 sqrt(5 L)), sqrt(s), 10}), L = ln(4 s / delta):
    # eps = 100, delta = 0.25, n = 4e4, s = 27: eps_hat = 100 / (18 sqrt(ln 8)) = 3.8526,
    # L = ln 432 = 6.0684, first term 3.8526 * 200 / (6 * 5.5084) = 23.31 > 10 > sqrt(27): g = 24
    assert vector_params(100.0, 0.25, 40_000, 27, 1.0).g == 24
    # eps_hat = 30 (override), n = 1e4, s = 1, delta = 0.25: L = ln 16, 3000 / (6 sqrt(5 ln 16))
    # = 134.29: g = 135
    assert vector_params(1.0, 0.25, 10_000, 1, 1.0, eps_hat=30.0).g == 135


def test_delta_zero_is_refused():
    # both protocols need delta in (0, 1) (ln(2/delta) and ln(4s/delta) must be finite)
    with pytest.raises(ValueError, match=r"delta in \(0, 1\)"):
        vector_params(1.0, 0.0, 3, 2, 1.0)
    with pytest.raises(ValueError, match=r"delta in \(0, 1\)"):
        scalar_params(1.0, 0.0, 3, 1.0)


@pytest.mark.parametrize(
    "make",
    [
        lambda k: vector_params(2.0, 0.1, 50, 3, 1.0, None, k),
        lambda k: scalar_params(2.0, 0.1, 50, 1.0, k),
    ],
)
def test_the_noise_scale_moves_p_alone(make):
    """p_scale (module docstring): 1 is the paper's map exactly; 1/2 halves p, g and b held;
    outside (0, 1] refused."""
    plain, half = make(1.0), make(0.5)
    assert plain == make(1.0) and (half.g, half.b) == (plain.g, plain.b)
    assert half.p == plain.p / 2
    for bad in (0.0, 1.5):
        with pytest.raises(ValueError, match="p_scale must be in"):
            make(bad)
