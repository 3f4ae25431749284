"""The fast PrivateLASSO engine (:mod:`dpbandits.engine.private_lasso`) against a slow per-round
reference written from Algorithms 1-2 of plasso and the instance families of
docs/papers/plasso.md, the reduction of noiseless TBAP to Oracle-OLS, and a
known-ordering check (Oracle-OLS vs PrivateLASSO(eps = 1)).

The reference plays one round at a time: ``inst.block(1)``, one tie uniform, TBAP nodes kept in a
dict keyed by ``(h, q)`` and drawn at first use, ``N_H`` at the episode start, the prefix
``P_t = H + exact + sum of the decomposition's node noises``, the LASSO without a precomputed Gram
matrix. Same streams, so the engine must reproduce its regret and supports exactly (up to
rounding). For the paper's full tree (Section 3) the reference keeps the whole ``(d+1) x (d+1)``
matrices ``G_t = sum z z^T``, ``z = (X_{s,k_s}, r_s)``, and whole-matrix node noises, and reads
the block of ``S_l`` and the reward; the entries it does not read come from a separate generator,
which must not change the run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpbandits.engine.private_lasso as engine
from dpbandits.engine.private_lasso import (
    STREAMS_OF,
    VARIANTS,
    _Trial,
    run_trial,
    simulate_cell,
    symmetric_gaussian,
)
from dpbandits.engine.trust_region import trust_region_solve
from dpbandits.envs.sparse import algorithm_streams, make_instance
from dpbandits.policies.private_lasso import (
    episode_length,
    episode_starts,
    plasso_constants,
    sparse_estimation,
)

EXP = "PL-E1"


def _node_noise(g_tbap, g_rest, side, blk, m, sigma):
    """One whole-matrix node noise: the read block ``blk`` from the TBAP stream, the rest from
    ``g_rest`` (0 when None)."""
    out = np.zeros((side, side))
    if g_rest is not None:
        out = symmetric_gaussian(g_rest, 1, side)[0] * sigma
    out[blk] = symmetric_gaussian(g_tbap, 1, m + 1)[0] * sigma
    return out


def reference_trial(algorithm, const, inst, streams, direct_ols=False, g_rest=None):
    """Algorithm 1 one round at a time. ``direct_ols``: instead of the TBAP prefix, solve the
    least squares from the raw stored history every round (Oracle-OLS).

    Full tree: the exact statistics and every noise matrix are ``(d+1) x (d+1)`` (reward last);
    a node's entries in the rows and columns of ``S_l`` and the reward are drawn from the TBAP
    stream as a ``(m+1) x (m+1)`` symmetric matrix (the engine's convention), the others from
    ``g_rest`` (None: left at 0). Support-block tree: ``(m+1) x (m+1)`` matrices throughout.

    Returns (regret, arms, thetas, episodes) with one dict per episode."""
    g_svt, g_tbap, g_tie = streams
    rule, svt_noise, tbap_noise, tree = VARIANTS[algorithm]
    T, d, K = const.T, const.d, inst.K
    Z, Y = np.zeros((T, d)), np.zeros(T)
    regret, arms, thetas, episodes = 0.0, [], [], []
    for start in episode_starts(T):
        n_ep, n = episode_length(start, T), start - 1
        S0 = np.zeros(0, dtype=np.int64)
        if rule == "oracle":
            S = inst.support
        elif n == 0:
            S = S0
        else:
            mode = "screen" if rule == "screen" else "svt"
            S0, S, _ = sparse_estimation(Z[:n], Y[:n], start, const, g_svt, None, mode, svt_noise)
        m = S.size
        if tree == "full":
            side, read = d + 1, np.append(S, d)
            sigma = const.sigma_B(d, n_ep) if tbap_noise else 0.0
        else:
            side, read = m + 1, np.arange(m + 1)
            sigma = const.sigma_B(m, n_ep) if (tbap_noise and m > 0) else 0.0
        noisy = sigma > 0 and m > 0
        blk = np.ix_(read, read)
        node = (g_tbap, g_rest, side, blk, m, sigma)
        episodes.append(
            {"size_S0": S0.size, "size_S": m, "sigma_B": sigma, "S": S.tolist(), "clipped": 0,
             "side": side}
        )  # fmt: skip
        cols = np.arange(d) if tree == "full" else S
        hist = np.column_stack([Z[:n, cols], Y[:n]])
        H = hist.T @ hist
        if noisy:
            H = H + _node_noise(*node)
        exact = np.zeros((side, side))
        nodes = {}
        for j in range(n_ep):  # j = n' records of the episode available
            X, mu, eta = inst.block(1)
            u = g_tie.random(1)[0]
            noise = np.zeros((side, side))
            if noisy:
                for h in range(j.bit_length()):
                    if (j >> h) & 1:
                        key = (h, (j >> h) - 1)
                        if key not in nodes:
                            nodes[key] = _node_noise(*node)
                        noise = noise + nodes[key]
            P = (H + exact + noise)[blk]
            t = start - 1 + j
            if direct_ols:
                A = Z[:t, S].T @ Z[:t, S]
                b = Z[:t, S].T @ Y[:t]
            else:
                A, b = P[:m, :m].copy(), P[:m, m].copy()
            theta = trust_region_solve(A, b, const.C_theta)
            scores = X[0][:, S] @ theta
            if np.all(scores == scores[0]):
                k = min(int(u * K), K - 1)
            else:
                k = int(np.argmax(scores))
            r = min(max(mu[0, k] + eta[0, k], -const.C_r), const.C_r)
            episodes[-1]["clipped"] += r != mu[0, k] + eta[0, k]
            Z[t], Y[t] = X[0, k], r
            z = np.append(X[0, k, cols], r)
            exact = exact + np.outer(z, z)
            regret += mu[0].max() - mu[0, k]
            arms.append(k)
            thetas.append(theta)
    return regret, np.array(arms), thetas, episodes


def _engine_trial(algorithm, const, family, trial, streams_of=None, eps_index=0):
    """One trial of the engine's ``run_trial``; returns (regret, arms, episodes)."""
    d, s0, K, T = const.d, const.s0, const.K, const.T
    inst = make_instance(EXP, family, d, s0, K, T, trial)
    streams = algorithm_streams(
        EXP, family, d, s0, K, T, trial, streams_of or STREAMS_OF.get(algorithm, algorithm),
        eps_index,
    )  # fmt: skip
    tr = _Trial(inst, streams, T, d)
    episodes = []
    regret, _ = run_trial(algorithm, const, tr, episodes)
    X = make_instance(EXP, family, d, s0, K, T, trial).block(T)[0]
    match = np.all(X == tr.Z[:, None, :], axis=2)
    assert np.all(match.sum(axis=1) == 1)
    return regret, match.argmax(axis=1), episodes


# small instance: d = 20, s0 = 3, K = 3, 2 trials. lambda0 = 0.05 makes the screened sets
# non-empty from the second or third episode on (with the default 0.2 they stay empty until
# t ~ 64, leaving little for the TBAP noise to act on); "cap5" (lambda0 = 0.03: more false
# positives in S0; phi^2 = 1e3: s_bar = 1.11, c_max = 5) makes the SVT cap bind.
SMALL = {"d": 20, "s0": 3, "K": 3, "T": 256}
SETTINGS = {
    "lam05": {"lambda0": 0.05},
    "cap5": {"lambda0": 0.03, "phi2": 1e3},
    "clip1": {"lambda0": 0.05, "C_r": 1.0},  # |mu + eta| > 1 in about a third of the rounds
}
CONFIGS = [
    ("private_lasso", 1e4, 3, "lam05"),
    ("private_lasso", 1e6, 5, "lam05"),
    ("private_lasso", math.inf, 0, "lam05"),
    ("np_th_lasso", math.inf, 0, "lam05"),
    ("oracle_ols", math.inf, 0, "lam05"),
    ("oracle_tbap", 1e4, 2, "lam05"),
    ("oracle_tbap", math.inf, 0, "lam05"),
    ("svt_noise_off", 1e4, 1, "lam05"),
    ("tbap_noise_off", 1e4, 1, "lam05"),
    ("private_lasso", 1e6, 5, "cap5"),
    ("private_lasso", math.inf, 0, "cap5"),
    ("private_lasso", 1e6, 5, "clip1"),
    ("oracle_ols", math.inf, 0, "clip1"),
    ("support_block_tree", 1e4, 3, "lam05"),
    ("support_block_tree", 1e6, 5, "cap5"),
]


@pytest.mark.parametrize("family", ["F1", "F2"])
@pytest.mark.parametrize(("algorithm", "eps", "eps_index", "setting"), CONFIGS)
def test_engine_matches_per_round_reference(family, algorithm, eps, eps_index, setting):
    d, s0, K, T = SMALL["d"], SMALL["s0"], SMALL["K"], SMALL["T"]
    params = SETTINGS[setting]
    trials = 2
    regret, unif, episodes = simulate_cell(
        EXP, family, d, s0, K, T, algorithm, eps, eps_index, trials, params
    )
    const = plasso_constants(T, d, s0, K, eps, **params)
    rule, svt_noise, tbap_noise, tree = VARIANTS[algorithm]
    streams_of = STREAMS_OF.get(algorithm, algorithm)
    for trial in range(trials):
        inst = make_instance(EXP, family, d, s0, K, T, trial)
        streams = algorithm_streams(EXP, family, d, s0, K, T, trial, streams_of, eps_index)
        ref_regret, _, _, ref_eps = reference_trial(algorithm, const, inst, streams)
        assert regret[trial] == pytest.approx(ref_regret, rel=1e-9, abs=1e-12)
        assert 0 <= regret[trial] and unif[trial] > 0
        got = episodes[trial]
        assert [e["t_l"] for e in got] == episode_starts(T)
        assert [e["size_S"] for e in got] == [e["size_S"] for e in ref_eps]
        assert [e["sigma_B"] for e in got] == pytest.approx([e["sigma_B"] for e in ref_eps])
        assert [e["tree_side"] for e in got] == [e["side"] for e in ref_eps]
        support = set(inst.support.tolist())
        assert [e["true_in_S"] for e in got] == [len(support & set(e["S"])) for e in ref_eps]
        if rule != "oracle":
            assert [e["size_S0"] for e in got] == [e["size_S0"] for e in ref_eps]
        # the configuration exercises what it claims to
        sizes = [e["size_S"] for e in ref_eps]
        assert max(sizes) > 0
        if tbap_noise and not math.isinf(eps):
            assert any(e["sigma_B"] > 0 for e in ref_eps)
        if rule == "svt" and svt_noise and not math.isinf(eps):
            assert const.xi > 0
        if rule == "svt":
            assert all(e["size_S"] <= const.c_max for e in ref_eps)
        clipped = sum(e["clipped"] for e in ref_eps)
        assert clipped > 0 if setting == "clip1" else clipped == 0


@pytest.mark.parametrize(("algorithm", "eps", "eps_index"), [("private_lasso", 1e4, 3),
                                                           ("oracle_tbap", 1e4, 2)])  # fmt: skip
def test_full_tree_entries_off_the_read_block_do_not_change_the_run(algorithm, eps, eps_index):
    """The full tree's reference with the unread entries of every node drawn from two different
    generators (and left at 0) plays the same run, which is the engine's: the estimate reads only
    the rows and columns of ``S_l`` and the reward of the ``(d+1) x (d+1)`` release."""
    d, s0, K, T = SMALL["d"], SMALL["s0"], SMALL["K"], SMALL["T"]
    params = SETTINGS["lam05"]
    const = plasso_constants(T, d, s0, K, eps, **params)
    regret, _, episodes = simulate_cell(EXP, "F1", d, s0, K, T, algorithm, eps, eps_index, 1,
                                        params)  # fmt: skip
    runs = []
    for g_rest in (None, np.random.default_rng(1), np.random.default_rng(2)):
        inst = make_instance(EXP, "F1", d, s0, K, T, 0)
        streams = algorithm_streams(EXP, "F1", d, s0, K, T, 0, algorithm, eps_index)
        runs.append(reference_trial(algorithm, const, inst, streams, g_rest=g_rest))
    for r, arms, thetas, eps_ in runs[1:]:
        assert r == runs[0][0] and np.array_equal(arms, runs[0][1])
        np.testing.assert_array_equal(np.concatenate(thetas), np.concatenate(runs[0][2]))
        assert all(e["side"] == d + 1 for e in eps_)
    assert regret[0] == pytest.approx(runs[0][0], rel=1e-9, abs=1e-12)
    assert all(e["sigma_B"] > 0 and e["tree_side"] == d + 1 for e in episodes[0])


def test_full_tree_noise_is_calibrated_to_d_in_every_episode():
    """PrivateLASSO, Oracle-TBAP and svt-noise-off record ``sigma_B(d, n_l)`` and side ``d + 1``
    in every episode, whatever the support (empty ones included); the ablation records
    ``sigma_B(|S_l|, n_l)`` (0 on an empty support) and side ``|S_l| + 1``. Doubling ``d``
    scales the full tree's sigma by ``(16 (2d) + 16) / (16 d + 16)``."""
    s0, K, T = SMALL["s0"], SMALL["K"], SMALL["T"]
    params = SETTINGS["lam05"]
    sig = {}
    for d in (20, 40):
        const = plasso_constants(T, d, s0, K, 1e4, **params)
        lengths = [episode_length(t, T) for t in episode_starts(T)]
        for alg, idx in (("private_lasso", 3), ("oracle_tbap", 2), ("svt_noise_off", 1)):
            _, _, episodes = simulate_cell(EXP, "F2", d, s0, K, T, alg, 1e4, idx, 2, params)
            for trial in episodes:
                assert [e["sigma_B"] for e in trial] == [const.sigma_B(d, n) for n in lengths]
                assert all(e["tree_side"] == d + 1 for e in trial)
                assert all(e["Delta"] == const.tbap_delta(d) for e in trial)
            sig[alg, d] = episodes[0][-1]["sigma_B"]
        _, _, episodes = simulate_cell(EXP, "F2", d, s0, K, T, "support_block_tree", 1e4, 3, 2,
                                       params)  # fmt: skip
        for trial in episodes:
            assert any(e["size_S"] == 0 for e in trial)
            for e, n in zip(trial, lengths, strict=True):
                m = e["size_S"]
                assert e["sigma_B"] == (const.sigma_B(m, n) if m else 0.0)
                assert e["tree_side"] == m + 1
    for alg in ("private_lasso", "oracle_tbap", "svt_noise_off"):
        assert sig[alg, 40] / sig[alg, 20] == pytest.approx(656 / 336, rel=1e-12)


#: PrivateLASSO's regret per trial with the former support-block tree (before the full tree was
#: made primary), ``d = 20, s0 = 3, K = 3, T = 256``, 2 trials: (family, eps, eps index,
#: parameters) -> regrets. The ablation must reproduce them bit for bit.
FORMER_PRIVATE_LASSO = {
    ("F1", 1e4, 3, "lam05"): (201.84765314007575, 108.21959155113012),
    ("F2", 1e6, 5, "lam05"): (4.501635707996541, 4.929171374170944),
    ("F1", 1e5, 4, "cap5"): (78.01093397424859, 79.96750533710228),
}


@pytest.mark.parametrize(("family", "eps", "eps_index", "setting"), list(FORMER_PRIVATE_LASSO))
def test_support_block_tree_is_the_former_private_lasso(family, eps, eps_index, setting):
    d, s0, K, T = SMALL["d"], SMALL["s0"], SMALL["K"], SMALL["T"]
    params = SETTINGS[setting]
    old = FORMER_PRIVATE_LASSO[family, eps, eps_index, setting]
    abl = simulate_cell(EXP, family, d, s0, K, T, "support_block_tree", eps, eps_index, 2, params)
    assert tuple(float(r) for r in abl[0]) == old
    full = simulate_cell(EXP, family, d, s0, K, T, "private_lasso", eps, eps_index, 2, params)
    assert np.array_equal(full[1], abl[1])  # same instances: common random numbers
    assert np.all(full[0] != abl[0])  # the tree changes the run
    # the first episode with a support: same SVT draws, so the same support, larger noise
    for trial_full, trial_abl in zip(full[2], abl[2], strict=True):
        first = next(i for i, e in enumerate(trial_abl) if e["size_S"] > 0)
        assert trial_full[first]["size_S"] == trial_abl[first]["size_S"]
        assert trial_full[first]["sigma_B"] > trial_abl[first]["sigma_B"] > 0


def test_cap_binds_in_the_cap_setting():
    d, s0, K, T = SMALL["d"], SMALL["s0"], SMALL["K"], SMALL["T"]
    _, _, episodes = simulate_cell(
        EXP, "F1", d, s0, K, T, "private_lasso", math.inf, 0, 2, SETTINGS["cap5"]
    )
    assert plasso_constants(T, d, s0, K, math.inf, **SETTINGS["cap5"]).c_max == 5
    binding = [e for trial in episodes for e in trial if e["size_S0"] > e["size_S"]]
    assert binding and all(e["size_S"] == 5 for e in binding)


def test_noise_changes_the_outcome():
    """The eps = 1e4 configurations above are not the eps = inf runs in disguise."""
    d, s0, K, T = SMALL["d"], SMALL["s0"], SMALL["K"], SMALL["T"]
    p = SETTINGS["lam05"]
    r_inf = simulate_cell(EXP, "F1", d, s0, K, T, "private_lasso", math.inf, 0, 2, p)[0]
    for alg in ("private_lasso", "svt_noise_off", "tbap_noise_off", "support_block_tree"):
        r = simulate_cell(EXP, "F1", d, s0, K, T, alg, 1e4, 3, 2, p)[0]
        assert np.all(r != r_inf), alg


def test_block_boundaries_do_not_change_the_run(monkeypatch):
    """Episodes longer than BLOCK are played in several kernel calls; the outcome must not depend
    on BLOCK (up to the 1-ulp context differences of ``SparseInstance.block``, see
    tests/papers/plasso/test_private_lasso.py)."""
    d, s0, K, T = SMALL["d"], SMALL["s0"], SMALL["K"], SMALL["T"]
    p = SETTINGS["lam05"]
    for alg, eps, idx in [
        ("private_lasso", 1e4, 3), ("oracle_tbap", 1e4, 2), ("support_block_tree", 1e4, 3),
    ]:  # fmt: skip
        full = simulate_cell(EXP, "F2", d, s0, K, T, alg, eps, idx, 2, p)
        monkeypatch.setattr(engine, "BLOCK", 7)
        small = simulate_cell(EXP, "F2", d, s0, K, T, alg, eps, idx, 2, p)
        monkeypatch.setattr(engine, "BLOCK", 4096)
        np.testing.assert_allclose(small[0], full[0], rtol=1e-9)
        np.testing.assert_allclose(small[1], full[1], rtol=1e-12)
        assert small[2] == full[2]


# -- noiseless TBAP -------------------------------------------------------------------------------
@pytest.mark.parametrize("family", ["F1", "F2"])
def test_tbap_without_noise_on_S_is_oracle_ols(family):
    """sigma_B = 0 and S_l = S: the TBAP estimate equals Oracle-OLS's at every round.

    ``oracle_tbap`` at eps = inf runs with sigma_B = 0. Through ``simulate_cell`` it uses its own
    tie stream (alg_code 4), and the first round's estimate is 0 (no data), so its uniform first
    arm, and hence the run, generally differs from ``oracle_ols``; with Oracle-OLS's streams the
    runs must coincide, and both must equal least squares re-solved from the raw history."""
    d, s0, K, T = 20, 3, 3, 128
    const = plasso_constants(T, d, s0, K, math.inf)
    for trial in range(2):
        r_tbap, arms_tbap, ep_tbap = _engine_trial(
            "oracle_tbap", const, family, trial, streams_of="oracle_ols"
        )
        r_ols, arms_ols, _ = _engine_trial("oracle_ols", const, family, trial)
        assert all(e["sigma_B"] == 0 and e["size_S"] == s0 for e in ep_tbap)
        assert r_tbap == r_ols and np.array_equal(arms_tbap, arms_ols)
        inst = make_instance(EXP, family, d, s0, K, T, trial)
        streams = algorithm_streams(EXP, family, d, s0, K, T, trial, "oracle_ols", 0)
        r_ref, arms_ref, th_prefix, _ = reference_trial("oracle_tbap", const, inst, streams)
        inst = make_instance(EXP, family, d, s0, K, T, trial)
        streams = algorithm_streams(EXP, family, d, s0, K, T, trial, "oracle_ols", 0)
        r_dir, arms_dir, th_direct, _ = reference_trial(
            "oracle_tbap", const, inst, streams, direct_ols=True
        )
        assert np.array_equal(arms_ref, arms_ols) and np.array_equal(arms_dir, arms_ols)
        np.testing.assert_allclose(np.array(th_prefix), np.array(th_direct), rtol=0, atol=1e-9)
        assert r_dir == pytest.approx(r_ols, rel=1e-12)
        assert np.count_nonzero(np.linalg.norm(np.array(th_direct), axis=1)) >= T - s0


# -- known ordering ------------------------------------------------------------------------------
def test_oracle_ols_beats_private_lasso_at_eps_1():
    """F1, d = 100, s0 = 5, K = 2, T = 256, 4 trials.

    Random play: mu_k = <X_k, theta> ~ N(0, 1) (clipping at 4 negligible), so it loses
    E|mu_1 - mu_2|/2 = 1/sqrt(pi) = 0.564 per round, with variance (2 - 4/pi)/4 = 0.18: over
    4 x 256 rounds T/sqrt(pi) = 144 per trial, relative sd 2.4%, so +-10% is 4 sd.
    At eps = 1, xi ~ 2e5 and sigma_B ~ 1e5 swamp every statistic, so the played arm is
    independent of the gap: each round costs gap * Bernoulli(1/2), mean 0.564, variance
    E[gap^2]/2 - 1/pi = 0.682, and the mean over 4 x 256 rounds has relative sd
    sqrt(0.682/1024)/0.564 = 4.6% (a 40-trial pilot gave a per-trial sd of 9.3% against the
    predicted 9.1%). PrivateLASSO(1) >= 0.8 x random play (the saturation line of
    docs/papers/plasso.md) is thus 4.3 sd below its expectation. Oracle-OLS regresses on the true 5
    coordinates with exact statistics: after ~s0 rounds its per-round regret is O(sigma^2 s0 / t),
    a total of order s0 + sigma^2 s0 ln T ~ 12, far below 0.2 x random play (29)."""
    d, s0, K, T, trials = 100, 5, 2, 256, 4
    r_or, u_or, _ = simulate_cell(EXP, "F1", d, s0, K, T, "oracle_ols", math.inf, 0, trials)
    r_pl, u_pl, _ = simulate_cell(EXP, "F1", d, s0, K, T, "private_lasso", 1.0, 1, trials)
    assert np.array_equal(u_or, u_pl)
    assert u_or.mean() == pytest.approx(T / math.sqrt(math.pi), rel=0.1)
    assert r_or.mean() < 0.2 * u_or.mean()
    assert r_pl.mean() >= 0.8 * u_pl.mean()
    assert np.all(r_or < r_pl)
