"""Saturation caps: the pseudo-regret of random play, the ceiling a learner's regret is judged
against when the audit decides whether a fit is in the learning or the saturated regime."""

from __future__ import annotations

import functools

import numpy as np

from .contextual import THETA_RADIUS, FreshArmInstances, unit_sphere

#: Monte Carlo rounds of the fresh-arm expectation (fixed seed: a pure function of d and K).
FRESH_DRAWS = 100_000


@functools.lru_cache(maxsize=64)
def expected_best_projection(d: int, K: int, draws: int = FRESH_DRAWS) -> float:
    """``E[max_k <x_k, u>]`` for ``K`` arms uniform on the unit sphere of ``R^d``, ``u`` a unit
    vector (Monte Carlo, seed ``[d, K, 1]``)."""
    rng = np.random.default_rng([d, K, 1])
    x = unit_sphere(rng, (draws, K), d)
    return float(x[..., 0].max(axis=1).mean())


def random_play_rate(instances) -> np.ndarray:
    """Expected per-round pseudo-regret of playing an arm uniformly at random, per instance.

    Fixed arms: ``max_k mu_k - mean_k mu_k``. Fresh arms on the sphere (setting F): the best
    arm's expected mean ``||theta*|| E[max_k <x_k, u>]`` (a uniform arm's mean is 0 by symmetry).
    The cap of a horizon ``T`` is ``T`` times this rate.
    """
    if getattr(instances, "family", None) == "sparse":  # paper 001's contexts: measured per trial
        return instances.random_play_rate()
    if isinstance(instances, FreshArmInstances):
        norm = np.linalg.norm(instances.theta, axis=1)
        if not np.allclose(norm, THETA_RADIUS):
            raise ValueError("fresh_sphere instances with ||theta*|| != 1/2")
        return norm * expected_best_projection(instances.d, instances.K)
    means = np.asarray(instances.means, dtype=float)
    return means.max(axis=1) - means.mean(axis=1)
