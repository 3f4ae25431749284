"""Bernoulli reward tables with common random numbers (cz22, Sec. 5; docs/papers/cz22.md)."""

from __future__ import annotations

import numpy as np

#: Rounds drawn at a time: the uniforms of a block stay in the cache while they are compared
#: (the stream is the same whatever the block, :func:`bernoulli_reward_table`).
ROWS_PER_BLOCK = 2048


def bernoulli_reward_table(mu: np.ndarray, T: int, seed: int, out=None) -> np.ndarray:
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
    out : ndarray of bool, shape (T, K), optional
        Filled in place and returned.

    Returns
    -------
    ndarray of bool, shape (T, K)

    The legacy stream gives its uniforms in order whatever the size of each request, so the
    table is drawn :data:`ROWS_PER_BLOCK` rounds at a time: the same table as one request of
    ``(T, K)`` uniforms, without holding them all.
    """
    K = mu.shape[0]
    if out is None:
        out = np.empty((T, K), dtype=bool)
    stream = np.random.RandomState(seed)
    for start in range(0, T, ROWS_PER_BLOCK):
        stop = min(T, start + ROWS_PER_BLOCK)
        np.less(stream.random_sample((stop - start, K)), mu, out=out[start:stop])
    return out


def reward_tables(mu: np.ndarray, T: int, seeds) -> np.ndarray:
    """Reward tables of several instances, shape (n, T, K).

    Row ``i`` is :func:`bernoulli_reward_table` of ``mu[i]`` with ``seeds[i]``. A legacy stream
    fills the table row by row, so the table of a shorter horizon is a prefix of this one:
    one draw at the longest horizon serves every horizon and every algorithm.
    """
    seeds = list(seeds)
    out = np.empty((len(seeds), T, mu.shape[-1]), dtype=bool)
    for i, seed in enumerate(seeds):
        bernoulli_reward_table(mu[i], T, seed, out=out[i])
    return out
