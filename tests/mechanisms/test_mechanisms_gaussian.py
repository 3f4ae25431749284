"""Gaussian randomizers, conventions, calibrations (CZ22 Sec. 3.2, Apps. B, E, F; the script's
symmetrisation, quirk 4 of docs/design.md)."""

import math

import numpy as np
import pytest

from dpbandits.mechanisms import gaussian as g
from dpbandits.mechanisms.packing import n_entries, pack, unpack

N = 40_000  # Monte Carlo draws; the relative SE of a variance estimate is sqrt(2/N) = 0.7 %
TOL = 5 * math.sqrt(2 / N)  # five standard errors


@pytest.mark.parametrize(
    "convention,diag,off",
    [
        ("half_sum", 1.0, 0.5),  # (W + W^T)/2: diagonal s^2, off-diagonal s^2/2
        ("upper_mirror", 1.0, 1.0),  # Alg. 2: every entry sigma^2
        ("ss18", 2.0, 1.0),  # (W + W^T)/sqrt(2): diagonal 2 sigma^2, off sigma^2
    ],
)
def test_entry_scales_match_the_convention(convention, diag, off):
    d, s = 4, 1.7
    scales = g.entry_scales(d, s, convention)
    _, mat = unpack(scales**2, d)
    assert np.allclose(scales[:d] ** 2, s**2)
    assert np.allclose(np.diag(mat), diag * s**2)
    assert np.allclose(mat[np.triu_indices(d, 1)], off * s**2)


def test_half_sum_matches_the_scripts_full_matrix_symmetrisation():
    """(W + W^T)/2 with W_ij ~ N(0, s^2) has diagonal variance s^2 and off-diagonal s^2/2."""
    rng = np.random.default_rng(1)
    d, s = 3, 2.0
    W = rng.normal(0.0, s, size=(N, d, d))
    sym = (W + W.transpose(0, 2, 1)) / 2
    iu = np.triu_indices(d)
    emp = sym[:, iu[0], iu[1]].var(axis=0)
    expected = g.entry_scales(d, s, "half_sum")[d:] ** 2
    assert np.all(np.abs(emp / expected - 1) < TOL)


def test_ss18_node_matrix_variances():
    """SS18's node noise (W + W^T)/sqrt(2): diagonal 2 sigma^2, off-diagonal sigma^2."""
    rng = np.random.default_rng(2)
    d, s = 3, 1.5
    W = rng.normal(0.0, s, size=(N, d + 1, d + 1))
    Z = (W + W.transpose(0, 2, 1)) / math.sqrt(2)
    iu = np.triu_indices(d)
    emp = np.concatenate([Z[:, :d, d].var(axis=0), Z[:, iu[0], iu[1]].var(axis=0)])
    expected = g.entry_scales(d, s, "ss18") ** 2
    assert np.all(np.abs(emp / expected - 1) < TOL)


def test_randomizer_is_unbiased_symmetric_and_has_the_calibrated_variance():
    rng = np.random.default_rng(3)
    sigma = 0.8
    x, y = np.array([0.6, -0.3, 0.5]), 1.0
    outs = [g.gaussian_randomizer(x, y, sigma, rng) for _ in range(N // 4)]
    vecs = np.stack([o[0] for o in outs])
    mats = np.stack([o[1] for o in outs])
    assert np.array_equal(mats, mats.transpose(0, 2, 1))
    se = sigma / math.sqrt(len(outs))
    assert np.all(np.abs(vecs.mean(0) - x * y) < 5 * se)
    assert np.all(np.abs(mats.mean(0) - np.outer(x, x)) < 5 * se)
    n = len(outs)
    assert np.all(np.abs(mats.var(0) / sigma**2 - 1) < 5 * math.sqrt(2 / n))


def test_theory_noise_levels_at_delta_0_1_b_20_eps_1():
    """sigma_0 (LDP), sigma_1 (Amp), SS18 node sigma_n at delta = 0.1, B = 20, epsilon = 1."""
    assert g.sigma_ldp_theory(1.0, 0.1) == pytest.approx(10.1491, rel=1e-4)
    assert g.sigma_amp_theory(1.0, 0.1, 20) == pytest.approx(5.4578, rel=1e-4)
    # Prop. F.1 is the classical mechanism with sensitivity 2 at (epsilon/2, delta/2).
    assert g.sigma_ldp_theory(0.4, 0.01) == pytest.approx(g.classic_gaussian_sigma(2, 0.2, 0.005))


def test_experiment_noise_levels_of_table_e():
    assert g.s_ldp_experiment(1.0, 0.1) == pytest.approx(1.79412, rel=1e-5)
    assert g.s_amp_experiment(0.2, 0.1, 20) == pytest.approx(2.78716, rel=1e-5)


def test_returning_user_sigma_is_theorem_3_2_at_the_per_batch_budget():
    """Thm. E.3 (garbled in the text): substitution gives
    16 sqrt(T ln(2/d) ln(5T/d) ln(4M/d)) / (eps B)."""
    eps, delta, B, T = 0.5, 0.1, 20, 20000
    M = T // B
    closed = (
        16
        * math.sqrt(T * math.log(2 / delta) * math.log(5 * T / delta) * math.log(4 * M / delta))
        / (eps * B)
    )
    assert g.sigma_amp_ru_theory(eps, delta, B, T) == pytest.approx(closed, rel=1e-12)
    assert g.sigma_amp_ru_theory(eps, delta, B, T) > g.sigma_amp_ru_stated(eps, delta, B, T)


def test_amp_analyzer_is_permutation_invariant_exactly():
    """P_Amp: shuffling the messages never changes the analyzer output."""
    rng = np.random.default_rng(4)
    d = 4
    msgs = [pack(*g.gaussian_randomizer(rng.normal(size=d) / 3, 1.0, 2.0, rng)) for _ in range(20)]
    ref = g.amp_analyze(msgs)
    for _ in range(20):
        assert np.array_equal(g.amp_analyze(g.amp_shuffle(msgs, rng)), ref)
    assert ref.shape == (n_entries(d),)
