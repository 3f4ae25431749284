"""The fast PrivateLASSO engine (:mod:`dpbandits.engine.private_lasso`) against a slow per-round
reference written from spec private-lasso-001 §2.3-§2.8 and §4.1, spec fact 15, and a
known-ordering check (Oracle-OLS vs PrivateLASSO(eps = 1)).

The reference plays one round at a time: ``inst.block(1)``, one tie uniform, TBAP nodes kept in a
dict keyed by ``(h, q)`` and drawn at first use, ``N_H`` at the episode start, the prefix
``P_t = H + exact + sum of the decomposition's node noises``, the LASSO without a precomputed Gram
matrix. Same streams, so the engine must reproduce its regret and supports exactly (up to
rounding).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpbandits.engine.private_lasso as engine
from dpbandits.engine.private_lasso import (
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


def reference_trial(algorithm, const, inst, streams, direct_ols=False):
    """Algorithm 1 one round at a time. ``direct_ols``: instead of the TBAP prefix, solve the
    least squares from the raw stored history every round (Oracle-OLS written from §2.8).

    Returns (regret, arms, thetas, episodes) with one dict per episode."""
    g_svt, g_tbap, g_tie = streams
    rule, svt_noise, tbap_noise = VARIANTS[algorithm]
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
        sigma = const.sigma_B(m, n_ep) if (tbap_noise and m > 0) else 0.0
        episodes.append(
            {"size_S0": S0.size, "size_S": m, "sigma_B": sigma, "S": S.tolist(), "clipped": 0}
        )
        hist = np.column_stack([Z[:n, S], Y[:n]])
        H = hist.T @ hist
        if sigma > 0:
            H = H + symmetric_gaussian(g_tbap, 1, m + 1)[0] * sigma
        exact = np.zeros((m + 1, m + 1))
        nodes = {}
        for j in range(n_ep):  # j = n' records of the episode available
            X, mu, eta = inst.block(1)
            u = g_tie.random(1)[0]
            noise = np.zeros((m + 1, m + 1))
            if sigma > 0:
                for h in range(j.bit_length()):
                    if (j >> h) & 1:
                        key = (h, (j >> h) - 1)
                        if key not in nodes:
                            nodes[key] = symmetric_gaussian(g_tbap, 1, m + 1)[0] * sigma
                        noise = noise + nodes[key]
            P = H + exact + noise
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
            z = np.append(X[0, k, S], r)
            exact = exact + np.outer(z, z)
            regret += mu[0].max() - mu[0, k]
            arms.append(k)
            thetas.append(theta)
    return regret, np.array(arms), thetas, episodes


def _engine_trial(algorithm, const, family, trial, streams_of=None, eps_index=0):
    """One trial of the engine's ``run_trial``; returns (regret, arms, episodes)."""
    d, s0, K, T = const.d, const.s0, const.K, const.T
    inst = make_instance(EXP, family, d, s0, K, T, trial)
    streams = algorithm_streams(EXP, family, d, s0, K, T, trial, streams_of or algorithm, eps_index)
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
    rule, svt_noise, tbap_noise = VARIANTS[algorithm]
    for trial in range(trials):
        inst = make_instance(EXP, family, d, s0, K, T, trial)
        streams = algorithm_streams(EXP, family, d, s0, K, T, trial, algorithm, eps_index)
        ref_regret, _, _, ref_eps = reference_trial(algorithm, const, inst, streams)
        assert regret[trial] == pytest.approx(ref_regret, rel=1e-9, abs=1e-12)
        assert 0 <= regret[trial] and unif[trial] > 0
        got = episodes[trial]
        assert [e["t_l"] for e in got] == episode_starts(T)
        assert [e["size_S"] for e in got] == [e["size_S"] for e in ref_eps]
        assert [e["sigma_B"] for e in got] == pytest.approx([e["sigma_B"] for e in ref_eps])
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
    for alg in ("private_lasso", "svt_noise_off", "tbap_noise_off"):
        r = simulate_cell(EXP, "F1", d, s0, K, T, alg, 1e4, 3, 2, p)[0]
        assert np.all(r != r_inf), alg


def test_block_boundaries_do_not_change_the_run(monkeypatch):
    """Episodes longer than BLOCK are played in several kernel calls; the outcome must not depend
    on BLOCK (up to the 1-ulp context differences of ``SparseInstance.block``, see fact 16)."""
    d, s0, K, T = SMALL["d"], SMALL["s0"], SMALL["K"], SMALL["T"]
    p = SETTINGS["lam05"]
    for alg, eps, idx in [("private_lasso", 1e4, 3), ("oracle_tbap", 1e4, 2)]:
        full = simulate_cell(EXP, "F2", d, s0, K, T, alg, eps, idx, 2, p)
        monkeypatch.setattr(engine, "BLOCK", 7)
        small = simulate_cell(EXP, "F2", d, s0, K, T, alg, eps, idx, 2, p)
        monkeypatch.setattr(engine, "BLOCK", 4096)
        np.testing.assert_allclose(small[0], full[0], rtol=1e-9)
        np.testing.assert_allclose(small[1], full[1], rtol=1e-12)
        assert small[2] == full[2]


# -- fact 15 ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("family", ["F1", "F2"])
def test_fact15_tbap_without_noise_on_S_is_oracle_ols(family):
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
    predicted 9.1%). PrivateLASSO(1) >= 0.8 x random play (the spec's saturation line, §4.5) is
    thus 4.3 sd below its expectation. Oracle-OLS regresses on the true 5 coordinates with exact
    statistics: after ~s0 rounds its per-round regret is O(sigma^2 s0 / t), a total of order
    s0 + sigma^2 s0 ln T ~ 12, far below 0.2 x random play (29)."""
    d, s0, K, T, trials = 100, 5, 2, 256, 4
    r_or, u_or, _ = simulate_cell(EXP, "F1", d, s0, K, T, "oracle_ols", math.inf, 0, trials)
    r_pl, u_pl, _ = simulate_cell(EXP, "F1", d, s0, K, T, "private_lasso", 1.0, 1, trials)
    assert np.array_equal(u_or, u_pl)
    assert u_or.mean() == pytest.approx(T / math.sqrt(math.pi), rel=0.1)
    assert r_or.mean() < 0.2 * u_or.mean()
    assert r_pl.mean() >= 0.8 * u_pl.mean()
    assert np.all(r_or < r_pl)
