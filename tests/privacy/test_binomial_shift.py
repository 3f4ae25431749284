"""The binomial arrays of the shift releases (privacy/binomial_shift.py) are SciPy's, value for
value, and their support test is NumPy's."""

import numpy as np
from scipy.stats import binom

from dpbandits.privacy.binomial_shift import _members, binomial_pmf


def test_binomial_pmf_is_scipys_distribution():
    """Windows of small, large and extreme binomials, the support's ends included."""
    rng = np.random.default_rng(0)
    cases = [(1, 0.5), (7, 1e-9), (40, 0.999), (3000, 0.5)]
    cases += [(int(rng.integers(1, 10**6)), float(rng.uniform())) for _ in range(200)]
    for N, p in cases:
        sd = np.sqrt(N * p * (1 - p))
        ks = np.arange(int(max(0, N * p - 12 * sd - 3)), int(min(N, N * p + 12 * sd + 3)) + 1)
        assert np.array_equal(binomial_pmf(ks, N, p), binom.pmf(ks, N, p)), (N, p)


def test_members_is_isin():
    """Sorted count arrays (by binary search) and unsorted ones (NumPy's isin), empty ones too;
    a missing count shows."""
    rng = np.random.default_rng(1)
    cases = [(np.arange(5), np.arange(0)), (np.arange(0), np.arange(3))]
    for _ in range(100):
        a = np.arange(int(rng.integers(0, 50))) + int(rng.integers(-10, 10))
        b = np.arange(int(rng.integers(1, 50))) + int(rng.integers(-10, 10))
        cases += [(a, b), (a, rng.permutation(b)), (rng.permutation(a), b)]
    for a, b in cases:
        assert np.array_equal(_members(a, b), np.isin(a, b))
    assert not _members(np.array([3]), np.array([1, 2, 4])).any()
