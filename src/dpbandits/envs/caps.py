"""Saturation caps: the pseudo-regret of random play, the ceiling a learner's regret is judged
against when the audit decides whether a fit is in the learning or the saturated regime."""

from __future__ import annotations

import functools

import numpy as np

from .contextual import THETA_RADIUS, FreshArmInstances, unit_sphere

#: Monte Carlo rounds of the fresh-arm expectation (fixed seed: a pure function of d and K).
FRESH_DRAWS = 100_000
#: Coordinates drawn and normalised at a time by :func:`expected_best_projection` (2 MiB). The
#: value does not depend on it: the rounds are consecutive draws of one generator, each round's
#: norm and maximum its own, and the mean is taken over all rounds at once.
CHUNK_VALUES = 1 << 18


@functools.lru_cache(maxsize=64)
def expected_best_projection(
    d: int, K: int, draws: int = FRESH_DRAWS, chunk: int = CHUNK_VALUES
) -> float:
    """``E[max_k <x_k, u>]`` for ``K`` arms uniform on the unit sphere of ``R^d``, ``u`` a unit
    vector (Monte Carlo, seed ``[d, K, 1]``).

    The rounds are drawn ``chunk // (K d)`` at a time (at d = 20, K = 50 the whole draw would be
    800 MB and took 3 s, mostly memory traffic); the value is the same for every ``chunk``.
    """
    rng = np.random.default_rng([d, K, 1])
    rows = max(1, chunk // (K * d))
    best = np.empty(draws)
    for lo in range(0, draws, rows):
        hi = min(draws, lo + rows)
        best[lo:hi] = unit_sphere(rng, (hi - lo, K), d)[..., 0].max(axis=1)
    return float(best.mean())


def random_play_rate(instances) -> np.ndarray:
    """Expected per-round pseudo-regret of playing an arm uniformly at random, per instance.

    Fixed arms: ``max_k mu_k - mean_k mu_k``. Fresh arms on the sphere (setting F): the best
    arm's expected mean ``||theta*|| E[max_k <x_k, u>]`` (a uniform arm's mean is 0 by symmetry).
    The cap of a horizon ``T`` is ``T`` times this rate.
    """
    if getattr(instances, "family", None) == "sparse":  # plasso's contexts: measured per trial
        return instances.random_play_rate()
    if isinstance(instances, FreshArmInstances):
        norm = np.linalg.norm(instances.theta, axis=1)
        if not np.allclose(norm, THETA_RADIUS):
            raise ValueError("fresh_sphere instances with ||theta*|| != 1/2")
        return norm * expected_best_projection(instances.d, instances.K)
    means = np.asarray(instances.means, dtype=float)
    return means.max(axis=1) - means.mean(axis=1)


def cell_play_rates(cell) -> np.ndarray:
    """:func:`random_play_rate` on a simulation cell's instances (:class:`dpbandits.config.Cell`),
    rebuilt with the simulation's own builder (so they are the ones simulated); index ``i`` is
    the cell's trial ``i``."""
    from ..pipeline import cell_instances  # (the pipeline imports this package)

    return np.asarray(random_play_rate(cell_instances(cell)), dtype=float)


def cell_caps(cell) -> np.ndarray:
    """Each trial's cap of a simulation cell: ``T`` times :func:`cell_play_rates`."""
    return cell.T * cell_play_rates(cell)
