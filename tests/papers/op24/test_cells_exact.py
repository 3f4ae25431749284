"""The OP-E1 and OP-E3 cells agree exactly with the engines they wrap (derived from mutants left
alive in papers/op24/cells.py, docs/mutation.md).

The OP-E1 and OP-E3 cells (docs/papers/op24.md) are thin drivers: keyed streams of
:mod:`dpbandits.papers.op24.streams`
into the engines. Here each cell is checked exactly against the
engine it wraps, called directly on the same streams: which stream feeds which draw, AdaC-OFUL's
branch of OP-E3 (episode counts at the checkpoints), random play's reference regret, and that the
chunking of trials (a memory bound only) does not change any number.
"""

import math

import numpy as np
import pytest

from dpbandits.engine.adac_oful import max_episodes, run_adac_oful
from dpbandits.engine.episodic import episode_regret, run_adac_ucb
from dpbandits.engine.fresh_linucb import simulate_fresh
from dpbandits.papers.op24 import cells
from dpbandits.papers.op24.cells import op_e1_cell, op_e3_cell
from dpbandits.papers.op24.streams import (
    algorithm_streams,
    contextual_trial,
    finite_means,
    instance_stream,
    uniform_play_regret,
)
from dpbandits.policies.base import Setting
from dpbandits.policies.jdp import JDPTree

CTX, K, D, T_MAX, TRIALS = "C1", 4, 3, 200, 3
CPS = np.array([1, 60, 200])


def _trials():
    parts = [contextual_trial(CTX, K, D, T_MAX, i) for i in range(TRIALS)]
    return tuple(np.stack([p[j] for p in parts]) for j in range(3))


def _noise(algorithm, index):
    return [
        algorithm_streams("OP-E3", CTX, K, D, T_MAX, i, algorithm, index)[1] for i in range(TRIALS)
    ]


# -- OP-E1: the reward stream drives the environment, the noise stream the privacy noise --------
def test_op_e1_cell_draws_rewards_from_the_reward_stream_and_noise_from_the_noise_stream():
    T, rho, index, n = 400, 1e-2, 7, 3
    got, _ = op_e1_cell("I1", 5, T, rho, index, n)
    means = np.array(
        [finite_means("I1", 5, T, instance_stream("OP-E1", "I1", 5, 1, T, i)) for i in range(n)]
    )
    streams = [algorithm_streams("OP-E1", "I1", 5, 1, T, i, "adac_ucb", index) for i in range(n)]
    log = run_adac_ucb(means, T, rho, [s[0] for s in streams], [s[1] for s in streams])
    np.testing.assert_array_equal(got, episode_regret(log, np.array([T]))[:, 0])


# -- OP-E3, AdaC-OFUL: the engine on the shared contexts, episodes counted per checkpoint ---------
@pytest.mark.parametrize("rho,index", [(math.inf, 0), (1e-2, 4)])
def test_op_e3_adac_oful_cell_is_the_engine_on_the_trial_streams(rho, index):
    out = op_e3_cell(CTX, K, D, T_MAX, "adac_oful", rho, index, TRIALS, CPS)
    A, U, theta = _trials()
    run = run_adac_oful(A, U, theta, rho, _noise("adac_oful", index), CPS)
    np.testing.assert_array_equal(out["regret"], run.regret)
    # episodes started by round c: the starts tau_k <= c (episode 1 starts at round 1)
    want = [[sum(s <= c for s in starts) for c in CPS] for starts in run.switches]
    np.testing.assert_array_equal(out["n_episodes"], want)
    assert np.all(out["n_episodes"][:, 0] == 1)  # at round 1 only the first episode is open
    assert np.all(out["n_episodes"][:, -1] >= 2)  # det V doubles within 200 rounds in d = 3
    assert np.all(out["n_episodes"][:, -1] <= max_episodes(T_MAX, D))
    assert np.all(out["floor_events"] == 0)


# -- OP-E3, JDP-LinUCB: the fresh-arm engine with the op24 calibration at delta = 0.01 ----------
def test_op_e3_jdp_cell_is_the_fresh_engine_with_its_floor_events():
    eps, index = 1.0, 2
    out = op_e3_cell(CTX, K, D, T_MAX, "jdp_linucb", eps, index, TRIALS, CPS)
    A, U, theta = _trials()
    policy = JDPTree(Setting(T=T_MAX, d=D, epsilon=eps, delta=0.01), calibration="op24")
    run = simulate_fresh(policy, A, U, theta, _noise("jdp_linucb", index), CPS)
    np.testing.assert_array_equal(out["regret"], run.regret)
    np.testing.assert_array_equal(out["floor_events"], run.floor_events)
    assert np.all(out["n_episodes"] == 0)


# -- OP-E3: random play's regret, sum over rounds of (max - mean) of that round's means ----------
def test_op_e3_regret_unif_is_random_plays_regret_summed_over_rounds():
    out = op_e3_cell(CTX, K, D, T_MAX, "linucb", 0.0, 0, TRIALS, CPS)
    A, _, theta = _trials()
    per_round = np.array(
        [[uniform_play_regret(A[i, t] @ theta[i], 1) for t in range(T_MAX)] for i in range(TRIALS)]
    )
    want = np.stack([per_round[:, :c].sum(axis=1) for c in CPS], axis=1)
    # sums of 200 terms in [0, 2]: rounding only (1e-12 relative)
    np.testing.assert_allclose(out["regret_unif"], want, rtol=1e-12)
    assert np.all(out["regret_unif"][:, 0] > 0)  # K = 4 distinct unit actions: max > mean


# -- OP-E3: chunking trials bounds memory only; a budget of 1 byte runs one trial per chunk -----
@pytest.mark.parametrize(
    "algorithm,privacy,index", [("adac_oful", 1e-2, 4), ("jdp_linucb", 1.0, 2)]
)
def test_op_e3_results_do_not_depend_on_the_chunk_size(monkeypatch, algorithm, privacy, index):
    whole = op_e3_cell(CTX, K, D, T_MAX, algorithm, privacy, index, TRIALS, CPS)
    monkeypatch.setattr(cells, "OP_E3_CHUNK_BYTES", 1)
    single = op_e3_cell(CTX, K, D, T_MAX, algorithm, privacy, index, TRIALS, CPS)
    for key in whole:
        np.testing.assert_array_equal(single[key], whole[key])


def test_op_e3_refuses_an_unknown_algorithm():
    with pytest.raises(ValueError, match="unknown OP-E3 algorithm"):
        op_e3_cell(CTX, K, D, T_MAX, "oful", 1.0, 1, 1, CPS)
