"""AdaC-UCB (finite-armed bandits under rho-zCDP; op24, Table 1, row 1), simulated episode
by episode, all trials at once.

Algorithm (Gaussian analogue of AdaP-UCB, Azize and Basu 2022; [R1, R1b] of docs/papers/op24.md):

1. rounds ``1..K``: pull each arm once; ``N_a = n_a = 1``, ``mu~_a = r_a + Y_a``,
   ``Y_a ~ N(0, 1/(2 rho))``;
2. while ``t < T``: ``t_l = t + 1``; index ``I_a = mu~_a + sqrt((1/(2 n_a) + 1/(rho n_a^2)) alpha
   ln t_l)`` (``index = joint``; ``sum`` adds the two square roots, [R1]); pull ``a_l = argmax
   I_a`` (lowest index on ties) for ``L = N_{a_l}`` rounds, truncated at ``T``; when not
   truncated: ``n_a = L``, ``N_a = 2L``, ``mu~_a = (sum of the L rewards)/L + Y``,
   ``Y ~ N(0, 1/(2 rho L^2))``;
3. ``rho = inf`` (Ada-UCB): no noise, no ``1/(rho n^2)`` term.

Privacy: an episode mean of ``L`` rewards in ``[0, 1]`` has sensitivity ``1/L``; the Gaussian
noise of variance ``1/(2 rho L^2)`` makes it ``rho``-zCDP (:func:`~dpbandits.mechanisms.zcdp.
gaussian_sigma`); every reward enters exactly one release, and which one is fixed by earlier
releases (adaptive parallel composition).

Simulation (exact in distribution): the ``L`` Bernoulli rewards of an episode enter only through
their sum, one ``Binomial(L, mu_a)`` draw; a truncated episode draws nothing (its mean is never
released). Pseudo-regret grows by ``Delta_a`` per round of the episode, so ``R(t)`` is piecewise
linear between episode starts. Draw order per trial: environment stream ``K`` initial Bernoulli
draws then one binomial per completed episode; noise stream ``K`` initial normals then one per
completed episode (none when ``rho = inf``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..mechanisms.zcdp import gaussian_sigma

#: Index variants [R1]: one square root of the summed variances, or the sum of the roots.
INDEX_VARIANTS = ("joint", "sum")


def episode_noise_sd(L: np.ndarray | int, rho: float) -> np.ndarray:
    """Standard deviation of the noise on an episode mean of ``L`` rewards in ``[0, 1]``:
    ``1/(L sqrt(2 rho))`` (sensitivity ``1/L``), 0 for ``rho = inf``."""
    L = np.asarray(L, dtype=float)
    return gaussian_sigma(1.0, rho) / L


def adac_ucb_index(
    mu_tilde: np.ndarray,
    n_last: np.ndarray,
    t_start: np.ndarray | int,
    rho: float,
    alpha: float,
    index: str = "joint",
) -> np.ndarray:
    """The index ``I_a`` of every arm (step 2 above; ``t_start`` is ``t_l``, broadcast over
    the last axis)."""
    log_t = np.log(np.asarray(t_start, dtype=float))[..., None] * alpha
    sampling = 1.0 / (2.0 * n_last)
    privacy = 0.0 if math.isinf(rho) else 1.0 / (rho * n_last * n_last)
    if index == "joint":
        width = np.sqrt((sampling + privacy) * log_t)
    elif index == "sum":
        width = np.sqrt(sampling * log_t) + np.sqrt(privacy * log_t)
    else:
        raise ValueError(f"index = {index!r}: allowed {', '.join(INDEX_VARIANTS)}")
    return mu_tilde + width


@dataclass
class EpisodeLog:
    """Episodes of every trial, step by step (one row per lockstep step, one column per trial;
    ``length = 0`` where a trial had already finished)."""

    starts: list = field(default_factory=list)
    lengths: list = field(default_factory=list)
    gaps: list = field(default_factory=list)
    arms: list = field(default_factory=list)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return tuple(np.array(x) for x in (self.starts, self.lengths, self.gaps, self.arms))


def run_adac_ucb(
    mu: np.ndarray,
    T: int,
    rho: float,
    env_rngs: Sequence[np.random.Generator],
    noise_rngs: Sequence[np.random.Generator],
    alpha: float = 3.1,
    index: str = "joint",
) -> EpisodeLog:
    """AdaC-UCB on ``n`` Bernoulli bandits at once.

    Parameters
    ----------
    mu : ndarray, shape (n, K)
        Arm means of each trial's instance, in ``[0, 1]``.
    T : int
        Horizon (``T >= K``).
    rho : float
        zCDP parameter; ``inf`` for Ada-UCB.
    env_rngs, noise_rngs : sequences of numpy.random.Generator
        Per trial: the environment's (rewards) and the algorithm's (privacy noise) streams.
    alpha : float
        Exploration exponent ``alpha > 3`` (default 3.1, as in Azize and Basu 2022's experiments).
    index : {"joint", "sum"}
        Index variant [R1] (docs/papers/op24.md).

    Returns
    -------
    EpisodeLog
        Rows ``0..K-1`` are the initial round-robin (one round per arm); then one row per
        episode step.
    """
    mu = np.asarray(mu, dtype=float)
    n, K = mu.shape
    if T < K:
        raise ValueError(f"T = {T} must be at least the number of arms K = {K}")
    if not (rho > 0 and alpha > 3):
        raise ValueError(f"need rho > 0 and alpha > 3; got rho = {rho!r}, alpha = {alpha!r}")
    if len(env_rngs) != n or len(noise_rngs) != n:
        raise ValueError(f"need {n} environment and noise generators")
    gaps = mu.max(axis=1, keepdims=True) - mu
    private = not math.isinf(rho)
    sd0 = float(episode_noise_sd(1, rho))
    mu_tilde = np.empty((n, K))
    for i in range(n):
        mu_tilde[i] = env_rngs[i].binomial(1, mu[i]).astype(float)
        if private:
            mu_tilde[i] += noise_rngs[i].normal(0.0, sd0, size=K)
    N = np.ones((n, K), dtype=np.int64)
    n_last = np.ones((n, K), dtype=np.int64)
    t = np.full(n, K, dtype=np.int64)
    log = EpisodeLog()
    for a in range(K):  # the round-robin: arm a at round a + 1
        log.starts.append(np.full(n, a, dtype=np.int64))
        log.lengths.append(np.ones(n, dtype=np.int64))
        log.gaps.append(gaps[:, a].copy())
        log.arms.append(np.full(n, a, dtype=np.int64))
    rows = np.arange(n)
    while (t < T).any():
        live = t < T
        arm = np.argmax(adac_ucb_index(mu_tilde, n_last, t + 1, rho, alpha, index), axis=1)
        L = N[rows, arm]
        played = np.where(live, np.minimum(L, T - t), 0)
        log.starts.append(t.copy())
        log.lengths.append(played)
        log.gaps.append(gaps[rows, arm])
        log.arms.append(np.where(live, arm, -1))
        complete = live & (played == L)
        for i in np.flatnonzero(complete):
            a, m = arm[i], int(L[i])
            mean = env_rngs[i].binomial(m, mu[i, a]) / m
            if private:
                mean += noise_rngs[i].normal(0.0, float(episode_noise_sd(m, rho)))
            mu_tilde[i, a] = mean
            n_last[i, a] = m
            N[i, a] = 2 * m
        t += played
    return log


def episode_regret(log: EpisodeLog, checkpoints: np.ndarray) -> np.ndarray:
    """Pseudo-regret ``R(c)`` of every trial at the checkpoints, shape (n, C): linear within each
    episode (``Delta_a`` per round)."""
    starts, lengths, gaps, _ = log.arrays()
    cps = np.asarray(checkpoints, dtype=np.int64)
    inside = np.clip(cps[:, None, None] - starts[None], 0, lengths[None])  # (C, steps, n)
    return np.einsum("csn,sn->nc", inside.astype(float), gaps)


def adac_ucb_per_round(
    mu: np.ndarray,
    T: int,
    rho: float,
    env_rng: np.random.Generator,
    noise_rng: np.random.Generator,
    alpha: float = 3.1,
    index: str = "joint",
) -> dict:
    """One AdaC-UCB run with a Bernoulli reward drawn for every round and the episode means
    computed from them (the reference of the episode-level engine; tests only).

    Returns ``regret`` (pseudo-regret at ``T``), ``episodes`` (per arm, the lengths of its
    completed episodes, initialisation included) and ``uses`` (per round, how many released
    means its reward entered).
    """
    mu = np.asarray(mu, dtype=float)
    K = mu.shape[0]
    gaps = mu.max() - mu
    private = not math.isinf(rho)
    sd = (lambda m: float(episode_noise_sd(m, rho))) if private else (lambda m: 0.0)
    uses = np.zeros(T, dtype=np.int64)
    rewards = np.zeros(T)
    mu_tilde = np.zeros(K)
    for a in range(K):
        rewards[a] = float(env_rng.random() < mu[a])
        mu_tilde[a] = rewards[a] + (noise_rng.normal(0.0, sd(1)) if private else 0.0)
        uses[a] += 1
    N = np.ones(K, dtype=np.int64)
    n_last = np.ones(K, dtype=np.int64)
    episodes = {a: [1] for a in range(K)}
    regret = float(gaps.sum())
    t = K
    while t < T:
        I = adac_ucb_index(mu_tilde, n_last.astype(float), t + 1, rho, alpha, index)
        a = int(np.argmax(I))
        L = int(N[a])
        rounds = range(t, min(t + L, T))
        rewards[rounds.start : rounds.stop] = env_rng.random(len(rounds)) < mu[a]  # one per round
        regret += len(rounds) * gaps[a]
        if len(rounds) == L:
            mu_tilde[a] = rewards[t : t + L].sum() / L + (
                noise_rng.normal(0.0, sd(L)) if private else 0.0
            )
            uses[t : t + L] += 1
            n_last[a], N[a] = L, 2 * L
            episodes[a].append(L)
        t += len(rounds)
    return {"regret": regret, "episodes": episodes, "uses": uses}


__all__ = [
    "INDEX_VARIANTS",
    "EpisodeLog",
    "adac_ucb_index",
    "adac_ucb_per_round",
    "episode_noise_sd",
    "episode_regret",
    "run_adac_ucb",
]
