"""Bernoulli reward tables with common random numbers (spec 003 §6.2)."""

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
