"""AdaC-GOPE (linear bandits under rho-zCDP; op24, Table 1, row 2), simulated phase by
phase. Tags such as [R2] are the decisions recorded in docs/papers/op24.md.

G-optimal-design phased elimination (Lattimore and Szepesvari, ch. 22) in which each phase uses
only its own rewards and releases its least-squares estimate once through a Gaussian mechanism.
Phase ``l`` (``beta_l = 2^{-l}``, active set ``A_l``, confidence ``delta_c = 1/T``):

1. one active action left: play it until ``T``;
2. span basis of ``A_l`` (:func:`dpbandits.g_optimal.span_basis`), coordinates ``x_a``;
3. a design ``pi`` with ``g(pi) <= 1.1 d_l`` (:data:`GOPE_DESIGN_FACTOR`) by the library's
   routine :func:`dpbandits.g_optimal.g_optimal_design` (DP-DPE's, there run to ``2 d_l``): the
   plain Frank-Wolfe stops at the same ``1.1 d_l``; where it would then prune weights below
   ``1e-4/|A_l|``, the shared routine bounds the support by ``4 d ln ln d + 16`` instead. ``c_l``
   uses the achieved ``g(pi)``;
4. ``L_l = ln(4 K l (l+1) / delta_c)``, ``c_l = max(8 g L_l / beta_l^2, 4 g sqrt(L_l/rho) /
   beta_l)`` (second term absent for ``rho = inf``; reconstruction [R2]), ``T_l(a) = ceil(c_l
   pi(a))``;
5. play the support in the evenly interleaved order (:func:`interleaved_order`); a phase cut by
   ``T`` plays the largest-remainder prefix allocation (:func:`prefix_allocation`, [R3]) and ends
   the run;
6. ``theta^ = V^{-1} u`` with ``V = sum T_l(a) x x^T``, ``u = sum x S(a)``;
7. ``theta~ = theta^ + V^{-1/2} xi``, ``xi ~ N(0, sigma_l^2 I)``, ``sigma_l^2 = 2 g^V / rho``,
   ``g^V = max_{supp} x^T V^{-1} x`` (one reward in ``[-1, 1]`` moves ``V^{-1/2} u`` by at most
   ``2 sqrt(g^V)``; Gaussian mechanism at ``rho``-zCDP; phases use disjoint rewards);
8. keep ``a`` iff ``max_b <theta~, x_b - x_a> <= 2 beta_l``.

Rewards are ``+-1`` with mean ``<theta*, a>`` ([R10]); a phase's reward sum of action ``a`` is
``2 Binomial(T_l(a), (1 + <theta*, a>)/2) - T_l(a)`` (exact in distribution). Draw order per run:
environment stream one binomial per support action (ascending index) per completed phase; noise
stream one ``N(0, I)`` vector per completed phase (none for ``rho = inf``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dpbandits.g_optimal import g_optimal_design

#: Stopping rule of the phase design, ``g(pi) <= 1.1 d_l`` (step 3 above).
GOPE_DESIGN_FACTOR = 1.1


def interleaved_order(counts: np.ndarray) -> np.ndarray:
    """The evenly interleaved play order: pull ``j`` of arm ``a`` has key ``(j + 0.5)/counts[a]``;
    sorted by key, ties by arm position. Returns the arm positions, length ``counts.sum()``."""
    counts = np.asarray(counts, dtype=np.int64)
    arms = np.repeat(np.arange(len(counts)), counts)
    j = np.concatenate([np.arange(c) for c in counts]) if len(counts) else np.zeros(0, int)
    keys = (j + 0.5) / counts[arms]
    return arms[np.lexsort((arms, keys))]


def prefix_allocation(counts: np.ndarray, R: int) -> np.ndarray:
    """Pulls of each arm among the first ``R`` of a phase ([R3]): ``floor(R counts/total)``
    and the remaining pulls to the largest fractional parts, ties by arm position."""
    counts = np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    if R >= total:
        return counts.copy()
    exact = R * counts / total
    out = np.floor(exact).astype(np.int64)
    rest = R - int(out.sum())
    if rest:
        frac = exact - out
        order = np.lexsort((np.arange(len(counts)), -frac))
        out[order[:rest]] += 1
    return out


@dataclass
class GopeRun:
    """One run: per phase its start, support (action indices), pulls and gaps, and the log."""

    starts: list = field(default_factory=list)
    supports: list = field(default_factory=list)
    counts: list = field(default_factory=list)
    gaps: list = field(default_factory=list)
    log: list = field(default_factory=list)
    T: int = 0


def phase_size(g: float, phase: int, K: int, delta_c: float, rho: float) -> float:
    """``c_l`` of step 4 ([R2])."""
    beta = 2.0**-phase
    L = math.log(4.0 * K * phase * (phase + 1) / delta_c)
    c = 8.0 * g * L / beta**2
    if not math.isinf(rho):
        c = max(c, 4.0 * g * math.sqrt(L / rho) / beta)
    return c


def release(
    theta_hat: np.ndarray, V: np.ndarray, gV: float, rho: float, rng: np.random.Generator
) -> tuple[np.ndarray, float]:
    """Step 7: ``theta^ + V^{-1/2} xi``, ``xi ~ N(0, sigma^2 I)``, ``sigma^2 = 2 g^V / rho``
    (``V^{-1/2}`` the symmetric inverse root); returns ``(theta~, sigma)``, unchanged for
    ``rho = inf``."""
    if math.isinf(rho):
        return theta_hat, 0.0
    sigma = math.sqrt(2.0 * gV / rho)
    w, U = np.linalg.eigh(V)
    xi = sigma * rng.standard_normal(len(theta_hat))
    return theta_hat + (U / np.sqrt(w)) @ (U.T @ xi), sigma


def run_adac_gope(
    X: np.ndarray,
    theta: np.ndarray,
    T: int,
    rho: float,
    env_rng: np.random.Generator,
    noise_rng: np.random.Generator,
    delta_c: float | None = None,
    rewards: str = "pm1",
) -> GopeRun:
    """One AdaC-GOPE run on actions ``X`` (K, d) with parameter ``theta`` (``|<theta, a>| <= 1``).

    ``rho = inf`` is GOPE (no noise, no privacy term in ``c_l``); ``delta_c`` defaults to
    ``1/T``. ``rewards``: ``pm1`` (op24's J instances: ``+1`` with probability
    ``(1 + <theta, a>)/2``, else ``-1``) or ``bernoulli`` (``1`` with probability
    ``<theta, a>``, else ``0``: the pipeline's fixed-arm instances, in the arena); the release is
    the same (calibrated for rewards in [-1, 1], so conservative on {0, 1}).
    """
    X = np.asarray(X, dtype=float)
    K = X.shape[0]
    means = X @ theta
    if rewards == "bernoulli":
        if np.any(means < -1e-12) or np.any(means > 1 + 1e-12):
            raise ValueError("rewards in {0, 1} need 0 <= <theta, a> <= 1 for every action")
    elif rewards != "pm1":
        raise ValueError(f"rewards must be pm1 or bernoulli, got {rewards!r}")
    elif np.any(np.abs(means) > 1 + 1e-12):
        raise ValueError("rewards in [-1, 1] need |<theta, a>| <= 1 for every action")
    if not rho > 0:
        raise ValueError(f"rho = {rho!r}: must be > 0 (inf for GOPE)")
    delta_c = 1.0 / T if delta_c is None else delta_c
    gaps = means.max() - means
    run = GopeRun(T=T)
    active = np.arange(K)
    t, phase = 0, 1
    while t < T:
        if len(active) == 1:
            run.starts.append(t)
            run.supports.append(active.copy())
            run.counts.append(np.array([T - t]))
            run.gaps.append(gaps[active])
            break
        design = g_optimal_design(X[active], factor=GOPE_DESIGN_FACTOR)
        Z = X[active] @ design.basis
        supp = design.support
        c = phase_size(design.g, phase, K, delta_c, rho)
        counts = np.ceil(c * design.weights[supp] - 1e-9).astype(np.int64)
        total = int(counts.sum())
        arms = active[supp]
        run.starts.append(t)
        run.supports.append(arms)
        run.gaps.append(gaps[arms])
        if t + total > T:  # truncated: the prefix of the interleaved order, then stop
            run.counts.append(prefix_allocation(counts, T - t))
            break
        run.counts.append(counts)
        if rewards == "bernoulli":
            sums = env_rng.binomial(counts, np.clip(means[arms], 0.0, 1.0)).astype(float)
        else:
            sums = 2.0 * env_rng.binomial(counts, (1.0 + means[arms]) / 2.0) - counts
        Zs = Z[supp]
        V = (Zs * counts[:, None]).T @ Zs
        theta_hat = np.linalg.solve(V, Zs.T @ sums)
        Vinv = np.linalg.inv(V)
        gV = float(np.max(np.einsum("ij,jk,ik->i", Zs, Vinv, Zs)))
        theta_tilde, sigma = release(theta_hat, V, gV, rho, noise_rng)
        values = Z @ theta_tilde
        keep = values.max() - values <= 2.0 * 2.0**-phase
        run.log.append(
            {
                "l": phase,
                "t_start": t,
                "c": c,
                "g": design.g,
                "support": len(supp),
                "sigma": sigma,
                "active": len(active),
                "kept": int(keep.sum()),
            }
        )
        active = active[keep]
        t += total
        phase += 1
    return run


def gope_regret(run: GopeRun, checkpoints: np.ndarray) -> np.ndarray:
    """Pseudo-regret at the checkpoints; inside a phase the played prefix is the largest-remainder
    allocation of :func:`prefix_allocation` (the evenly interleaved order, [R3])."""
    out = np.zeros(len(checkpoints))
    for k, c in enumerate(np.asarray(checkpoints, dtype=np.int64)):
        total = 0.0
        for s0, counts, gaps in zip(run.starts, run.counts, run.gaps, strict=True):
            if c <= s0:
                break
            total += float(prefix_allocation(counts, int(c - s0)) @ gaps)
        out[k] = total
    return out


__all__ = [
    "GOPE_DESIGN_FACTOR",
    "GopeRun",
    "gope_regret",
    "interleaved_order",
    "phase_size",
    "prefix_allocation",
    "release",
    "run_adac_gope",
]
