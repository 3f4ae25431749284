"""OP-E1 / OP-E2 cells: keyed streams into the AdaC engines (docs/papers/op24.md)."""

import math

import numpy as np

from dpbandits.papers.op24.cells import op_e1_cell, op_e2_cell, rho_index_of

GRID = [1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 1e-1, 1.0]


def test_cells_are_pure_functions_of_their_keys():
    a, ua = op_e1_cell("I1", 5, 10**5, 1e-3, rho_index_of(1e-3, GRID), 6)
    b, _ = op_e1_cell("I1", 5, 10**5, 1e-3, rho_index_of(1e-3, GRID), 3)
    assert np.array_equal(a[:3], b) and np.all(ua == 10**5 * 0.25)  # trial i does not depend on n
    c, _ = op_e2_cell("J1", 5, 10**5, 1e-4, rho_index_of(1e-4, GRID), 4)
    d, _ = op_e2_cell("J1", 5, 10**5, 1e-4, rho_index_of(1e-4, GRID), 2)
    assert np.array_equal(c[:2], d)
    assert rho_index_of(math.inf, GRID) == 0 and rho_index_of(1e-5, GRID) == 1


def test_privacy_orders_the_regret_on_the_fixed_gap_instances():
    """Smaller rho, more noise, more regret: on I1 (T = 10^6, 20 trials) and J1 (T = 10^6, 10)."""
    T = 10**6
    i1 = [op_e1_cell("I1", 5, T, r, rho_index_of(r, GRID), 20)[0].mean() for r in (1e-4, 1e-2)]
    i1_free = op_e1_cell("I1", 5, T, math.inf, 0, 20)[0].mean()
    assert i1[0] > i1[1] > i1_free
    j1 = [op_e2_cell("J1", 5, T, r, rho_index_of(r, GRID), 10)[0].mean() for r in (1e-5, 1e-3)]
    assert j1[0] > j1[1] > op_e2_cell("J1", 5, T, math.inf, 0, 10)[0].mean()


def test_minimax_instances_scale_like_sqrt_t_by_construction():
    """I2: every suboptimal pull costs Delta_T = sqrt(K/T), so R(T) <= sqrt(KT), and random play
    costs (K-1)/K sqrt(KT) — the same order: on these families the saturation rule of R-UP-T
    (R >= 0.8 random play) flags most runs (noted for the audit design)."""
    K = 5
    for T in (10**4, 10**6):
        R, unif = op_e1_cell("I2", K, T, math.inf, 0, 10)
        assert np.all(R <= math.sqrt(K * T) + 1e-9)
        assert np.allclose(unif, (K - 1) / K * math.sqrt(K * T))
        R, unif = op_e2_cell("J2", 5, T, math.inf, 0, 5)
        assert np.all(R <= 5 * math.sqrt(T) + 1e-9)  # gaps <= max - min = d / sqrt(T)
        assert np.allclose(unif, 0.5 * 5 * math.sqrt(T))
