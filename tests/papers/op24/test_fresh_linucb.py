"""LinUCB and JDP-LinUCB on fresh decision sets (op24, Sec. 3; calibration [R6], [R7] of
docs/papers/op24.md): the tree, its noise and the reduction to LinUCB."""

import math

import numpy as np
import pytest

from dpbandits.dev.reference_loops import argmax_ties
from dpbandits.engine import simulate
from dpbandits.engine.fresh_linucb import (
    _floor_eigenvalues,
    run_fresh_linucb,
    simulate_fresh,
)
from dpbandits.engine.noise import draw_raw
from dpbandits.mechanisms.packing import n_entries, unpack
from dpbandits.mechanisms.tree import dyadic_decomposition, n_levels
from dpbandits.mechanisms.zcdp import dp_to_zcdp
from dpbandits.papers.op24.cells import op_e3_cell
from dpbandits.policies.base import Setting
from dpbandits.policies.confidence import linucb_sqrt_beta
from dpbandits.policies.jdp import JDPTree
from dpbandits.policies.linucb import LinUCB

from ...engine.test_adac_oful import _contexts as _trials  # unit actions and theta*, uniforms


def _reference(policy, A, U, theta, raw, noise_scale=1.0):
    """One trial, literally: the released statistics rebuilt every round from the cached node
    noises of the dyadic decomposition of the prefix, ``V~`` inverted with numpy, the floor
    applied by an eigendecomposition."""
    T, K, d = A.shape
    beta = policy.radius(1.0)
    floor = policy.reg.eig_floor if policy.scheme == "tree" else 0.0
    G, u = np.zeros((d, d)), np.zeros(d)
    actions, regret = [], 0.0
    for t in range(T):
        Gn, un = G.copy(), u.copy()
        if policy.scheme == "tree":
            for level, k in dyadic_decomposition(t):
                n_vec, n_mat = unpack(raw["levels"][level][k], d)
                un += noise_scale * n_vec
                Gn += noise_scale * n_mat
        V = Gn + policy.lam * np.eye(d)
        w, Q = np.linalg.eigh(V)
        if floor and w[0] < floor:
            V = (Q * np.maximum(w, floor)) @ Q.T
        Vinv = np.linalg.inv(V)
        th = Vinv @ un
        index = A[t] @ th + beta[t] * np.sqrt(np.einsum("ki,ij,kj->k", A[t], Vinv, A[t]))
        a = argmax_ties(index)
        mean = A[t] @ theta
        r = 1.0 if U[t, a] < (1 + mean[a]) / 2 else -1.0
        G += np.outer(A[t, a], A[t, a])
        u += A[t, a] * r
        regret += mean.max() - mean[a]
        actions.append(a)
    return np.array(actions), regret


@pytest.mark.parametrize("eps", [1.0, 100.0])
def test_jdp_engine_matches_the_literal_loop_on_the_same_draws(eps):
    T, K, d = 300, 4, 3
    policy = JDPTree(Setting(T=T, d=d, epsilon=eps, delta=0.01), calibration="op24")
    A, U, theta = _trials(2, T, K, d, 5)
    seeds = [11, 12]
    run = simulate_fresh(
        policy, A, U, theta, [np.random.default_rng(s) for s in seeds], np.array([T])
    )
    for i, s in enumerate(seeds):
        raw = draw_raw(policy, np.random.default_rng(s))
        actions, regret = _reference(policy, A[i], U[i], theta[i], raw)
        np.testing.assert_array_equal(run.actions[i], actions)
        assert run.regret[i, 0] == pytest.approx(regret, rel=1e-12)


def test_eigenvalue_floor_path_matches_the_literal_loop():
    """Node noise 30 times its calibration: V~ leaves the good event and the floor acts."""
    T, K, d = 200, 4, 3
    policy = JDPTree(Setting(T=T, d=d, epsilon=1.0, delta=0.01), calibration="op24")
    A, U, theta = _trials(1, T, K, d, 6)
    raw = draw_raw(policy, np.random.default_rng(3))
    from dpbandits.engine.noise import noise_table

    noise = 30.0 * noise_table(policy, raw)[0][None]
    regret = np.zeros((1, 1))
    actions = np.zeros((1, T), dtype=np.int64)
    events = np.zeros((1, 1), dtype=np.int64)
    run_fresh_linucb(
        A,
        U,
        theta,
        noise,
        policy.lam,
        policy.reg.eig_floor,
        policy.radius(1.0),
        np.array([T]),
        regret,
        actions,
        events,
    )
    ref_actions, ref_regret = _reference(policy, A[0], U[0], theta[0], raw, noise_scale=30.0)
    assert events[0, 0] > 0
    np.testing.assert_array_equal(actions[0], ref_actions)
    assert regret[0, 0] == pytest.approx(ref_regret, rel=1e-9)


def test_floor_raises_exactly_the_small_eigenvalues():
    rng = np.random.default_rng(0)
    Q, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    w = np.array([-3.0, 0.5, 2.0, 7.0])
    V = (Q * w) @ Q.T
    _floor_eigenvalues(V, 1.0)
    np.testing.assert_allclose(np.linalg.eigvalsh(V), [1.0, 1.0, 2.0, 7.0], atol=1e-12)


def test_zero_noise_unit_shift_and_linucb_width_give_linucb():
    """The JDP-LinUCB code path with sigma_n = 0, shift lambda = 1 and
    LinUCB's width reproduces LinUCB's actions exactly."""
    T, K, d = 500, 5, 4
    A, U, theta = _trials(3, T, K, d, 7)
    lin = LinUCB(Setting(T=T, d=d), calibration="op24")
    ref = simulate_fresh(lin, A, U, theta, [None] * 3, np.array([T]))
    regret = np.zeros((3, 1))
    actions = np.zeros((3, T), dtype=np.int64)
    events = np.zeros((3, 1), dtype=np.int64)
    zero_tree = np.zeros((3, T, n_entries(d)))  # the noisy path, with every node noise 0
    run_fresh_linucb(
        A, U, theta, zero_tree, 1.0, 0.0, lin.radius(1.0), np.array([T]), regret, actions, events
    )
    np.testing.assert_array_equal(actions, ref.actions)
    np.testing.assert_array_equal(regret, ref.regret)


def test_op24_constants_of_the_policies():
    """JDP-LinUCB at a worked example (T = 2^15, d = 5, eps = 10): sigma_n^2 = 4m/rho_J on
    every upper-triangle entry, shift 2 Upsilon, floor Upsilon/2; LinUCB's OFUL radius."""
    T, d = 2**15, 5
    jdp = JDPTree(Setting(T=T, d=d, epsilon=10.0, delta=0.01), calibration="op24")
    m = n_levels(T)
    assert m == 16
    rho_J = dp_to_zcdp(10.0, 0.01)
    assert jdp.noise_std**2 == pytest.approx(4 * m / rho_J, rel=1e-12)
    np.testing.assert_allclose(jdp.noise_scales(), jdp.noise_std)
    assert jdp.constants()["Upsilon"] == pytest.approx(295, rel=2e-3)
    assert jdp.lam == pytest.approx(2 * jdp.reg.Upsilon) and jdp.reg.eig_floor == jdp.lam / 4
    r = jdp.radius(1.0)
    assert r[0] == pytest.approx(
        math.sqrt(2 * math.log(200)) + math.sqrt(3 * jdp.reg.Upsilon) + jdp.reg.nu
    )
    lin = LinUCB(Setting(T=T, d=d), calibration="op24")
    assert lin.lam == 1.0
    assert lin.radius(1.0)[0] == pytest.approx(math.sqrt(2 * math.log(100)) + 1.0)
    assert lin.radius(1.0)[-1] == pytest.approx(float(linucb_sqrt_beta(T, d)))


def test_fixed_arm_engine_refuses_the_fresh_arm_calibration():
    policy = LinUCB(Setting(T=10, d=2), calibration="op24")
    with pytest.raises(ValueError, match="fresh decision sets"):
        simulate(policy, None, [0], [None], np.array([10]))


def test_op_e3_cells_order_the_algorithms_and_repeat_exactly():
    """Common decision sets and uniforms: at T = 2^12 the private algorithms pay for privacy,
    and less at larger epsilon; a cell is a pure function of its keys."""
    cps = np.array([2**11, 2**12])
    args = ("C1", 10, 5, 2**12)
    lin = op_e3_cell(*args, "linucb", 0.0, 0, 4, cps)["regret"][:, -1]
    jdp1 = op_e3_cell(*args, "jdp_linucb", 1.0, 1, 4, cps)
    jdp100 = op_e3_cell(*args, "jdp_linucb", 100.0, 3, 4, cps)["regret"][:, -1]
    assert lin.mean() < jdp100.mean() < jdp1["regret"][:, -1].mean()
    again = op_e3_cell(*args, "jdp_linucb", 1.0, 1, 4, cps)
    np.testing.assert_array_equal(again["regret"], jdp1["regret"])
    assert np.all(jdp1["regret"] <= jdp1["regret_unif"] * 2)
