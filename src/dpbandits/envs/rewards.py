"""Bernoulli reward tables with common random numbers (cz22, Sec. 5; docs/papers/cz22.md)."""

from __future__ import annotations

import numpy as np


def bernoulli_reward_table(mu: np.ndarray, T: int, seed: int) -> np.ndarray:
    """Rewards of every arm in every round of one instance.

    Instance ``i`` owns a legacy ``RandomState(seed)`` stream; each round draws ``K`` uniforms
    ``U_{t,k}`` and sets ``r_t(k) = 1{U_{t,k} < mu_k}``. Every algorithm re-creates the stream,
    so all algorithms face the same table on the same instance.

    Parameters
    ----------
    mu : ndarray, shape (K,)
        Mean rewards of the instance.
    T : int
        Horizon.
    seed : int
        Seed of the instance's reward stream (the script uses the instance index).

    Returns
    -------
    ndarray of bool, shape (T, K)
    """
    u = np.random.RandomState(seed).random_sample((T, mu.shape[0]))
    return u < mu


def reward_tables(mu: np.ndarray, T: int, seeds) -> np.ndarray:
    """Reward tables of several instances, shape (n, T, K).

    Row ``i`` is :func:`bernoulli_reward_table` of ``mu[i]`` with ``seeds[i]``. A legacy stream
    fills the table row by row, so the table of a shorter horizon is a prefix of this one:
    one draw at the longest horizon serves every horizon and every algorithm.
    """
    return np.stack([bernoulli_reward_table(mu[i], T, seed) for i, seed in enumerate(seeds)])
