"""``sparse_vector_counts``: many runs of PrivateLASSO's sparse vector step at once, as the
privacy audit samples it, must be the runs of ``sparse_vector_select`` one after another."""

import math

import numpy as np
import pytest

from dpbandits.mechanisms.svt import sparse_vector_counts, sparse_vector_select


@pytest.mark.parametrize(
    "S0,cap,xi",
    [
        ([0], 5.5, 0.3),  # one query (the audit's case): drawn at once
        ([4, 1, 2], 3.0, 0.2),  # |S0| = cap: no run stops early, drawn at once
        ([0, 1, 2, 3, 4], 2.0, 0.2),  # runs stop early: one call per run
        ([0, 1, 2], math.inf, 0.0),  # the noise-free limit: no draws
        ([], 1.0, 0.4),  # empty screen: no draws
    ],
)
def test_counts_are_the_runs_one_after_another(S0, cap, xi):
    theta = np.array([0.45, -0.5, 0.55, 0.2, -0.62])
    one, many = np.random.default_rng(3), np.random.default_rng(3)
    S0 = np.array(S0, dtype=np.int64)
    alone = [sparse_vector_select(theta, S0, 0.5, xi, cap, one).size for _ in range(400)]
    counts = sparse_vector_counts(theta, S0, 0.5, xi, cap, many, 400)
    assert counts.tolist() == alone
    assert one.bit_generator.state == many.bit_generator.state
    if xi > 0 and S0.size:
        assert 0 < counts.mean() < min(S0.size, cap)  # the noise decides: both outcomes occur
