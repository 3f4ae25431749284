"""Tests that kill mutants left alive in mechanisms/tree.py (docs/mutation.md)."""

import math

import pytest

from dpbandits.mechanisms import tree


@pytest.mark.parametrize("rho,m,L2", [(0.5, 3, 2.0), (0.1, 12, 1.0), (2.0, 1, 3.0)])
def test_sigma_zcdp_node_formula(rho, m, L2):
    # sigma_n^2 = m Delta^2 / (2 rho) with Delta = sqrt(2) L~^2, i.e. m (L~^2)^2 / rho
    # (4 m / rho at L~^2 = 2); sqrt(2)^2 rounds, so rel 1e-14.
    want = math.sqrt(m * L2**2 / rho)
    assert tree.sigma_zcdp_node(rho, m, L2) == pytest.approx(want, rel=1e-14)


@pytest.mark.parametrize("rho,m", [(0.0, 3), (-1.0, 3), (0.5, 0), (0.5, -2)])
def test_sigma_zcdp_node_domain(rho, m):
    with pytest.raises(ValueError, match="need rho > 0 and m >= 1"):
        tree.sigma_zcdp_node(rho, m)
