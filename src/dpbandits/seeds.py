"""Named, stable seeds.

Every random number in the project is a pure function of named seeds. Algorithm noise streams
are derived with :class:`numpy.random.SeedSequence` from the root seed and a stable hash of
the names (experiment, panel, algorithm) plus the trial index; Python's ``hash`` is never used
(it is salted per process).
"""

from __future__ import annotations

import hashlib

import numpy as np


def stable_hash(name: str) -> int:
    """Return a 32-bit integer that depends only on ``name``.

    Parameters
    ----------
    name : str
        Any label (experiment id, panel id, algorithm id).

    Returns
    -------
    int
        The first four bytes of the SHA-256 digest of ``name``, little endian.
    """
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:4], "little")


def noise_spawn_key(experiment: str, panel: str, algorithm: str, trial: int) -> tuple[int, ...]:
    """Spawn key of the algorithm-noise stream of one trial (config/README.md, "Seeds")."""
    if trial < 0:
        raise ValueError(f"trial must be >= 0, got {trial}")
    return (stable_hash(experiment), stable_hash(panel), stable_hash(algorithm), int(trial))


def noise_generator(
    root_seed: int, experiment: str, panel: str, algorithm: str, trial: int
) -> np.random.Generator:
    """Independent generator for one (experiment, panel, algorithm, trial).

    Parameters
    ----------
    root_seed : int
        The project's root seed (``config/config.yaml: root_seed``).
    experiment, panel, algorithm : str
        Names of the cell; the configuration is deliberately not part of the key, so two
        configurations of the same algorithm share noise draws (paired comparisons).
    trial : int
        Trial (= instance) index.

    Returns
    -------
    numpy.random.Generator
        A PCG64 generator seeded from ``SeedSequence(root_seed, spawn_key=...)``.
    """
    seq = np.random.SeedSequence(
        entropy=int(root_seed), spawn_key=noise_spawn_key(experiment, panel, algorithm, trial)
    )
    return np.random.Generator(np.random.PCG64(seq))


def environment_generator(reward_seed: int) -> np.random.Generator:
    """The environment stream of one trial of a phase-level simulation (dpdpe): client
    heterogeneity and reward noise. Keyed by the trial's reward seed only, so every algorithm and
    privacy level sees the same stream (common random numbers)."""
    seq = np.random.SeedSequence(entropy=stable_hash("environment"), spawn_key=(int(reward_seed),))
    return np.random.Generator(np.random.PCG64(seq))
