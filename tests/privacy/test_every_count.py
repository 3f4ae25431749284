"""DP-PE's shuffle certificate over every user count (privacy/every_count.py): the binomial
tails' bounds bracket the exact tails, each count's bound is at least its exact epsilon and
close to it, and the certificate finds a count a grid of counts misses."""

import math

import numpy as np
import pytest
from scipy.stats import binom

from dpbandits.mechanisms.shuffle_sum import scalar_knobs
from dpbandits.privacy import every_count as ec
from dpbandits.privacy.binomial_shift import shift_epsilon


def exact_epsilon(N: int, p: float, g: int, delta: float) -> float:
    """Brute force: the epsilon at ``delta`` of ``A + g`` against ``A`` and the reverse, from the
    whole pmf of ``A = Binomial(N, p)`` (hockey-stick divergence, bisection on epsilon)."""
    a = np.concatenate([binom.pmf(np.arange(N + 1), N, p), np.zeros(g)])
    b = np.concatenate([np.zeros(g), binom.pmf(np.arange(N + 1), N, p)])

    def div(e):
        return max(
            np.maximum(b - math.exp(e) * a, 0).sum(), np.maximum(a - math.exp(e) * b, 0).sum()
        )

    if div(0.0) <= delta:
        return 0.0
    lo, hi = 0.0, 1.0
    while div(hi) > delta:
        lo, hi = hi, 2 * hi
        if hi > 1e3:
            return math.inf
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if div(mid) > delta else (lo, mid)
    return hi


def test_the_tail_bounds_at_a_hand_computed_point():
    # N = 1, p = 1/2: P(A >= 1) = 1/2 lies between Phi(-z_1) and Phi(-z_0), z_1 = -z_0 =
    # sqrt(2 KL(1 || 1/2)) = sqrt(2 ln 2) = 1.177410; Phi(1.177410) = 0.880484 (the table's
    # 0.8790 at 1.17 and 0.8810 at 1.18, interpolated)
    lower, upper = ec.log_tails(np.array([1.0]), np.array([1.0]), np.array([0.5]))
    assert math.exp(lower[0]) == pytest.approx(1 - 0.880484, abs=1e-6)
    assert math.exp(upper[0]) == pytest.approx(0.880484, abs=1e-6)
    # outside the support the tails are exact
    lower, upper = ec.log_tails(np.array([0.0, 2.0]), np.array([1.0, 1.0]), np.array([0.5, 0.5]))
    assert list(np.exp(lower)) == [1.0, 0.0] and list(np.exp(upper)) == [1.0, 0.0]


@pytest.mark.parametrize("N,p", [(7, 0.45), (60, 0.5), (1000, 0.31), (10**6, 0.5), (10**9, 0.2)])
def test_the_tail_bounds_bracket_the_binomials_tails(N, p):
    sd = math.sqrt(N * p * (1 - p))
    j = np.unique(np.clip(np.round(N * p + sd * np.linspace(-6, 8, 41)), 0, N + 1))
    exact = binom.sf(j - 1, N, p)
    lower, upper = ec.log_tails(j, np.full(j.shape, float(N)), np.full(j.shape, p))
    keep = exact > 1e-300
    assert np.all(np.exp(lower[keep]) <= exact[keep] * (1 + 1e-12))
    assert np.all(exact[keep] <= np.exp(upper[keep]) * (1 + 1e-12))


@pytest.mark.parametrize("a", [1.0, 3.5, 9.0, 10.0, 50.0, 1e4, 1e7, 1e12])
def test_lgamma_step_is_the_sum_of_logs(a):
    # ln Gamma(a + g) - ln Gamma(a) = ln a + ln(a + 1) + ... + ln(a + g - 1) for a whole g; two
    # log-gammas of 1e12 would lose 1e-3 to rounding
    for g in (1, 2, 40, 4000):
        want = math.fsum(np.log(a + np.arange(g)))
        got = ec.lgamma_step(np.array([a]), np.array([float(g)]))[0]
        assert got == pytest.approx(want, rel=1e-12, abs=1e-9)  # Stirling's remainder at a = 10
    assert ec.lgamma_step(np.array([3.0]), np.array([2.0]))[0] == pytest.approx(math.log(12))


@pytest.mark.parametrize(
    "N,p,g,delta",
    [(7, 0.45, 2, 0.1), (40, 0.5, 3, 0.25), (500, 0.3, 9, 0.1), (3000, 0.5, 40, 1e-3)],
)
def test_each_count_is_bounded_by_its_exact_epsilon_and_close_to_it(N, p, g, delta):
    want = exact_epsilon(N, p, g, delta)
    arrays = ec.from_arrays([N], [p], [g], delta)[0]
    normal = max(
        ec.one_direction([N], [p], [g], delta)[0], ec.one_direction([N], [1 - p], [g], delta)[0]
    )
    assert want <= arrays * (1 + 1e-9) + 1e-12
    assert arrays <= want * (1 + 1e-4) + 1e-6  # exact tails: only the slack and REL
    assert want <= normal * (1 + 1e-9) + 1e-12  # the normal bounds: an upper bound too
    sd = math.sqrt(N * p * (1 - p))
    assert normal <= want + 10.0 / sd * (1 + want)  # ... loose by about |z| / sd


def test_the_normal_bounds_are_tight_for_a_large_binomial():
    # sd about 9 300 (n = 100 users, Algorithm 4 at eps 10, B = 20): within 0.2 % of the PLD
    # certificate (itself above the exact value by its discretisation only)
    _, _, g, b, p = scalar_knobs(10.0, 0.1, np.array([100.0]), 20.0, 1.0)
    N = int(100 * b[0])
    normal = ec.count_epsilons(10.0, 0.1, 20.0, 1.0, [100], 0.1)[0]
    pld = shift_epsilon(N, float(p[0]), ((int(g[0]), 1),), 0.1)
    assert normal == pytest.approx(pld, rel=2e-3)


def test_the_fixed_point_meets_delta_with_the_exact_tails():
    # meeting case: at the returned epsilon the exact hockey-stick divergence (the optimal tail
    # j, from the privacy loss) is within delta; planted: 1 % less epsilon exceeds it
    N, p, g, delta = 2_000_000, 0.5, 1500, 0.1  # a shift of 2.1 standard deviations
    eps = ec.one_direction([N], [p], [g], delta)[0]

    def divergence(e):
        j = ec._first_above(
            np.array([e]),
            np.array([float(N)]),
            np.array([p]),
            np.array([float(g)]),
            np.array([g - 1.0]),
        )[0]
        return binom.sf(j - g - 1, N, p) - math.exp(e) * binom.sf(j - 1, N, p)

    assert divergence(eps) <= delta
    assert divergence(0.99 * eps) > delta


def test_the_certificate_finds_a_count_a_grid_of_counts_misses():
    # Algorithm 4 at internal epsilon 30, delta 1/4, B = 1: the discrete knobs make each count's
    # epsilon far from monotone; the largest (n = 77) is off a grid of user counts and 3 % above
    # its largest value
    values = ec.count_epsilons(30.0, 0.25, 1.0, 1.0, np.arange(1, 10001), 0.25)
    grid = values[[0, 9, 99, 999, 9999]]
    worst, at = ec._worst(30.0, 0.25, 1.0, 1.0, 10000, 0.25)
    assert worst == values.max() and at == 77
    assert worst > grid.max() * 1.03
    # meeting case: every count within delta in total variation certifies 0 everywhere
    assert ec._worst(10.0, 0.25, 1.0, 1.0, 10**6, 0.25)[0] == 0.0


def test_the_parts_are_made_when_asked():
    parts = ec.CountParts(40.0, 0.1, 20.0, 1.0, 3000)
    assert len(parts) == 3000 and next(iter(parts)) == "n=1"
    assert parts["n=77"](0.1) == ec.count_epsilons(40.0, 0.1, 20.0, 1.0, [77], 0.1)[0]
    for bad in ("n=0", "n=3001", "n=07", "77", "n=x"):
        with pytest.raises(KeyError):
            parts[bad]
