"""Instances and random streams of the open-problem audit (OP-E1 to OP-E3, docs/papers/op24.md).

Streams are ``numpy.random.Generator(PCG64(SeedSequence(key)))`` with these integer keys,
so every number is a pure function of (experiment, instance, K, d, T, trial, algorithm,
privacy index):

* instance stream ``[2002, exp, inst, K, d, T, trial]`` — best-arm index (I2), sign vector (J2),
  ``theta*`` (C1, C2);
* reward stream ``[..., alg, rho_index, 1]`` and privacy-noise stream ``[..., alg, rho_index,
  2]`` (OP-E1/E2: algorithm-specific, no common random numbers);
* OP-E3 context stream ``[2002, 3, ctx, K, d, T_max, trial, 3]`` and reward-uniform stream
  ``[..., 4]``, shared by all algorithms (common random numbers).

Codes: experiments 1-3; instances I1 = 1, I1b = 2, I2 = 3, I3 = 4, J1 = 5, J2 = 6, J3 = 7,
C1 = 8, C2 = 9; algorithms AdaC-UCB = 1, UCB = 2, AdaC-GOPE = 3, LinUCB = 4, JDP-LinUCB = 5,
AdaC-OFUL = 6; ``rho_index`` is the 1-based position in the algorithm's privacy grid (0 for
``inf``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ...envs.contextual import unit_sphere
from ...normals import standard_normal

ROOT = 2002
INSTANCES = {"I1": 1, "I1b": 2, "I2": 3, "I3": 4, "J1": 5, "J2": 6, "J3": 7, "C1": 8, "C2": 9}
ALGORITHMS = {
    "adac_ucb": 1, "ucb": 2, "adac_gope": 3, "linucb": 4, "jdp_linucb": 5, "adac_oful": 6,
    "egreedy": 7,
}  # fmt: skip
EXPERIMENTS = {"OP-E1": 1, "OP-E2": 2, "OP-E3": 3}

#: Fixed arm means (Azize and Basu 2022's instances; I1, I1b of OP-E1).
I1_MEANS = (0.75, 0.625, 0.5, 0.375, 0.25)
I1B_MEANS = (0.8, 0.1, 0.1, 0.1, 0.1)


def _generator(key) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(k) for k in key])))


def instance_stream(exp: str, inst: str, K: int, d: int, T: int, trial: int) -> np.random.Generator:
    """The instance stream of one trial."""
    return _generator([ROOT, EXPERIMENTS[exp], INSTANCES[inst], K, d, T, trial])


def algorithm_streams(
    exp: str, inst: str, K: int, d: int, T: int, trial: int, algorithm: str, rho_index: int
) -> tuple[np.random.Generator, np.random.Generator]:
    """``(reward stream, privacy-noise stream)`` of one algorithm on one trial (OP-E1/E2)."""
    base = [ROOT, EXPERIMENTS[exp], INSTANCES[inst], K, d, T, trial, ALGORITHMS[algorithm]]
    return _generator([*base, rho_index, 1]), _generator([*base, rho_index, 2])


def context_streams(
    ctx: str, K: int, d: int, T_max: int, trial: int
) -> tuple[np.random.Generator, np.random.Generator]:
    """``(context stream, reward-uniform stream)`` of one OP-E3 trial, shared by all algorithms."""
    base = [ROOT, 3, INSTANCES[ctx], K, d, T_max, trial]
    return _generator([*base, 3]), _generator([*base, 4])


def finite_means(inst: str, K: int, T: int, rng: np.random.Generator) -> np.ndarray:
    """Arm means of a finite-armed instance (OP-E1, docs/papers/op24.md).

    I1 and I1b are fixed (``K = 5``); I2 (minimax, T-dependent): the best arm ``0.5 + Delta_T``,
    the others 0.5, ``Delta_T = min(0.25, sqrt(K/T))``, best index uniform from ``rng``; I3: best
    0.75 (index 0), others 0.5.
    """
    if inst in ("I1", "I1b"):
        means = np.array(I1_MEANS if inst == "I1" else I1B_MEANS)
        if K != len(means):
            raise ValueError(f"{inst} has K = {len(means)} arms, got K = {K}")
        return means
    if inst == "I2":
        means = np.full(K, 0.5)
        means[rng.integers(K)] += min(0.25, math.sqrt(K / T))
        return means
    if inst == "I3":
        means = np.full(K, 0.5)
        means[0] = 0.75
        return means
    raise ValueError(f"unknown finite-armed instance {inst!r}; allowed I1, I1b, I2, I3")


def linear_K(inst: str, d: int) -> int:
    """Number of actions of a linear instance: ``2^d`` (J2, the hypercube), else ``2d``."""
    return 2**d if inst == "J2" else 2 * d


def linear_instance(
    inst: str, d: int, T: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Actions (K, d) and ``theta*`` of a linear instance (OP-E2, docs/papers/op24.md).

    J1: ``{+-e_i}`` in d = 5, ``theta* = (0.6, 0.2, 0.1, 0, 0)``; J2 (minimax, T-dependent): the
    hypercube ``{-1, +1}^d / sqrt(d)``, ``theta* = 0.5 sqrt(d/T) s`` with ``s`` uniform in
    ``{+-1}^d`` from ``rng``; J3: ``{+-e_i}``, ``theta* = 0.6 e_1 + 0.2 e_2``.
    """
    if inst in ("J1", "J3"):
        if inst == "J1" and d != 5:
            raise ValueError(f"J1 is defined for d = 5, got d = {d}")
        X = np.vstack([np.eye(d), -np.eye(d)])
        theta = np.zeros(d)
        theta[:2] = (0.6, 0.2)
        if inst == "J1":
            theta[2] = 0.1
        return X, theta
    if inst == "J2":
        X = np.array(list(itertools.product((-1.0, 1.0), repeat=d))) / math.sqrt(d)
        s = rng.choice((-1.0, 1.0), size=d)
        return X, 0.5 * math.sqrt(d / T) * s
    raise ValueError(f"unknown linear instance {inst!r}; allowed J1, J2, J3")


def decision_sets(ctx: str, T: int, K: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """OP-E3 decision sets, shape (T, K, d): C1 uniform on the sphere; C2 weakly diverse,
    ``normalise(e_1 + 0.1 g)`` with ``g ~ N(0, I_d)`` (OP-E3, docs/papers/op24.md)."""
    if ctx == "C1":
        return unit_sphere(rng, (T, K), d)
    if ctx == "C2":
        a = 0.1 * standard_normal(rng, (T, K, d))
        a[..., 0] += 1.0
        return a / np.linalg.norm(a, axis=-1, keepdims=True)
    raise ValueError(f"unknown context family {ctx!r}; allowed C1, C2")


def contextual_trial(
    ctx: str, K: int, d: int, T_max: int, trial: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(A, U, theta*)`` of one OP-E3 trial, shared by all algorithms (OP-E3).

    From the context stream: first ``theta*`` (uniform on the unit sphere), then the decision
    sets (T_max, K, d) of :func:`decision_sets`; from the reward-uniform stream: ``U`` (T_max, K).
    """
    ctx_rng, u_rng = context_streams(ctx, K, d, T_max, trial)
    theta = unit_sphere(ctx_rng, (), d)
    A = decision_sets(ctx, T_max, K, d, ctx_rng)
    return A, u_rng.random((T_max, K)), theta


def uniform_play_regret(means: np.ndarray, T: int) -> float:
    """``T (mu* - mean mu)``: random play's regret (the saturation gate's reference)."""
    return float(T * (np.max(means) - np.mean(means)))


__all__ = [
    "ALGORITHMS",
    "EXPERIMENTS",
    "I1B_MEANS",
    "I1_MEANS",
    "INSTANCES",
    "ROOT",
    "algorithm_streams",
    "context_streams",
    "contextual_trial",
    "decision_sets",
    "finite_means",
    "instance_stream",
    "linear_K",
    "linear_instance",
    "uniform_play_regret",
]
