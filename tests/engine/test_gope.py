"""AdaC-GOPE (op24, Table 1 row 2; the project's reconstruction, docs/papers/op24.md):
design, privacy noise, elimination and interleaved pulls.

The elimination rule is also checked exactly (docs/mutation.md), with a scripted environment whose
``binomial(n, p)`` returns its mean ``n p``: every phase's reward sum of action ``a`` is then
exactly ``T_l(a) <theta*, a>`` (step 6 of the module docstring: ``2 B - T_l(a)``), least squares
recovers ``theta*`` up to rounding, and with ``rho = inf`` the elimination rule of step 8 (keep
``a`` iff its estimated gap is at most ``2 beta_l = 2^{1-l}``) decides every phase on the true
gaps.
"""

import itertools
import math

import numpy as np
import pytest

from dpbandits.engine.gope import (
    GOPE_DESIGN_FACTOR,
    gope_regret,
    interleaved_order,
    phase_size,
    prefix_allocation,
    release,
    run_adac_gope,
)
from dpbandits.g_optimal import g_optimal_design

D = 5
J1 = np.vstack([np.eye(D), -np.eye(D)])
THETA1 = np.array([0.6, 0.2, 0.1, 0.0, 0.0])
CUBE = np.array(list(itertools.product([-1.0, 1.0], repeat=D))) / math.sqrt(D)


@pytest.mark.parametrize("X", [J1, CUBE], ids=["pm_e", "hypercube"])
def test_design_on_symmetric_action_sets(X):
    """Kiefer-Wolfowitz: the optimum is g = d, attained by the uniform design on {+-e_i} and on
    the hypercube; the phase design stops at g <= 1.1 d (Frank-Wolfe stopping rule)."""
    V = X.T @ X / len(X)
    assert np.einsum("ij,jk,ik->i", X, np.linalg.inv(V), X).max() == pytest.approx(D, rel=1e-12)
    design = g_optimal_design(X, factor=GOPE_DESIGN_FACTOR)
    assert D - 1e-9 <= design.g <= 1.1 * D


def test_phase_design_dominates_c_times_the_design():
    """T_l(a) = ceil(c_l pi(a)) >= c_l pi(a), so V_l - c_l V(pi) is positive semi-definite."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, D))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    design = g_optimal_design(X, factor=GOPE_DESIGN_FACTOR)
    Z = X @ design.basis
    c = phase_size(design.g, 3, 40, 1e-6, 0.01)
    counts = np.ceil(c * design.weights - 1e-9)
    V = (Z * counts[:, None]).T @ Z
    V_pi = (Z * design.weights[:, None]).T @ Z
    assert np.linalg.eigvalsh(V - c * V_pi).min() >= -1e-9 * c


def test_phase_size_terms():
    g, K, dc = 5.0, 10, 1e-6
    L = math.log(4 * K * 2 * 3 / dc)
    assert phase_size(g, 2, K, dc, math.inf) == pytest.approx(8 * g * L * 16)
    assert phase_size(g, 2, K, dc, 1e-8) == pytest.approx(4 * g * math.sqrt(L / 1e-8) * 4)


def test_release_noise_has_covariance_sigma2_vinv():
    """theta~ - theta^ ~ N(0, sigma^2 V^{-1}) with sigma^2 = 2 g^V / rho: whitened by V^{1/2}/sigma
    the draws are standard normal. With n = 20000 draws a variance estimate has relative sd
    sqrt(2/n) = 1 % and a covariance sd 1/sqrt(n) = 0.7 %; tolerances are 5 sd."""
    rng = np.random.default_rng(5)
    A = rng.normal(size=(D, D))
    V = A @ A.T + D * np.eye(D)
    gV, rho, n = 0.3, 0.2, 20000
    theta_hat = rng.normal(size=D)
    draws = np.array([release(theta_hat, V, gV, rho, rng)[0] for _ in range(n)])
    sigma = release(theta_hat, V, gV, rho, rng)[1]
    assert sigma == pytest.approx(math.sqrt(2 * gV / rho), rel=1e-12)
    w, U = np.linalg.eigh(V)
    W = (draws - theta_hat) @ (U * np.sqrt(w)) @ U.T / sigma
    cov = np.cov(W.T)
    assert np.allclose(np.diag(cov), 1.0, atol=5 * math.sqrt(2 / n))
    assert np.abs(cov - np.diag(np.diag(cov))).max() < 5 / math.sqrt(n)
    assert np.abs(W.mean(axis=0)).max() < 5 / math.sqrt(n)
    assert release(theta_hat, V, gV, math.inf, rng) == (theta_hat, 0.0)


def test_interleaved_prefixes_are_balanced():
    """The first R pulls hold floor(R T(a)/T_l) or one more of each arm, and the
    largest-remainder allocation is such a prefix count."""
    counts = np.array([7, 3, 12, 1, 5])
    order = interleaved_order(counts)
    assert np.array_equal(np.bincount(order, minlength=5), counts)
    total = counts.sum()
    for R in range(total + 1):
        seen = np.bincount(order[:R], minlength=5)
        low = np.floor(R * counts / total)
        assert np.all((seen == low) | (seen == low + 1)), R
        alloc = prefix_allocation(counts, R)
        assert alloc.sum() == R and np.all((alloc == low) | (alloc == low + 1))


def test_gope_never_eliminates_the_best_action():
    """GOPE never drops the optimal action (1000 runs, rho = inf, J1, T = 10^6, delta_c = 1/T)."""
    for i in range(1000):
        run = run_adac_gope(
            J1, THETA1, 10**6, math.inf, np.random.default_rng([7, i]), np.random.default_rng(0)
        )
        assert all(0 in support for support in run.supports[-1:])
        assert run.supports[-1].tolist() == [0]  # only e_1 left at the end


def test_regret_is_consistent_with_the_phase_blocks():
    run = run_adac_gope(J1, THETA1, 10**5, 1e-3, np.random.default_rng(1), np.random.default_rng(2))
    cps = np.array([1, 100, 10**4, 10**5])
    R = gope_regret(run, cps)
    assert np.all(np.diff(R) >= 0)
    full = sum(float(c @ g) for c, g in zip(run.counts, run.gaps, strict=True))
    assert R[-1] == pytest.approx(full)
    assert sum(int(c.sum()) for c in run.counts) == 10**5
    assert all(entry["sigma"] > 0 for entry in run.log)


def test_privacy_costs_regret_on_j1():
    means = {}
    for rho in (1e-5, math.inf):
        means[rho] = np.mean(
            [
                gope_regret(
                    run_adac_gope(
                        J1,
                        THETA1,
                        10**6,
                        rho,
                        np.random.default_rng([3, i]),
                        np.random.default_rng([4, i]),
                    ),
                    np.array([10**6]),
                )[0]
                for i in range(10)
            ]
        )
    assert means[1e-5] > 2 * means[math.inf]


# -- elimination on exact rewards -----------------------------------------------------------------
# d = 2, K = 3: means 0.5, -0.3, 0.3, so the gaps are 0, 0.8, 0.2
X3 = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
THETA3 = np.array([0.5, -0.3])


class _MeanEnv:
    """An environment stream whose ``binomial(n, p)`` returns the mean ``n p`` (no sampling)."""

    def binomial(self, n, p):
        return np.asarray(n) * p


def test_exact_rewards_eliminate_exactly_the_gaps_above_two_beta():
    """Thresholds 2 beta_l = 1, 0.5, 0.25, 0.125 for l = 1..4 (step 8): gap 0.8 survives phase 1
    (0.8 <= 1) and is dropped in phase 2 (0.8 > 0.5); gap 0.2 survives phases 2 and 3
    (0.2 <= 0.25) and is dropped in phase 4 (0.2 > 0.125); then action 0 plays until T (step 1).
    A reward sum off by a factor (e.g. 3 B - n instead of 2 B - n scales the estimated gaps by
    1.5) moves 0.8 above 1 and drops it in phase 1. The margins (0.2, 0.3, 0.05, 0.075) dwarf
    the rounding of a 2 x 2 least-squares solve (1e-15)."""
    T = 10**6
    run = run_adac_gope(X3, THETA3, T, math.inf, _MeanEnv(), None)
    assert [(e["l"], e["active"], e["kept"]) for e in run.log] == [
        (1, 3, 3),
        (2, 3, 2),
        (3, 2, 2),
        (4, 2, 1),
    ]
    assert [sorted(s.tolist()) for s in run.supports[-2:]] == [[0, 2], [0]]
    assert all(e["sigma"] == 0.0 for e in run.log)  # GOPE: no release noise
    assert run.counts[-1].tolist() == [T - run.starts[-1]]  # the one left plays out the horizon
    assert sum(int(c.sum()) for c in run.counts) == T


@pytest.mark.parametrize("rho", [0.0, -1.0, math.nan])
def test_run_refuses_a_rho_that_is_not_positive(rho):
    """rho-zCDP needs rho > 0 (inf is GOPE); rho = 0 and NaN are refused, not run."""
    with pytest.raises(ValueError, match="must be > 0"):
        run_adac_gope(X3, THETA3, 100, rho, _MeanEnv(), np.random.default_rng(0))
