"""Sparse vector step of PrivateLASSO's SparseEstimation (plasso, Algorithm 2 lines 4-14;
[R10, R14, R15] of docs/papers/plasso.md) and its Laplace calibration.

The calibration (Algorithm 2 line 1) lives next to the selection so that unit tests, tables and
simulations use the same numbers:

* ``eps' = eps1 / sqrt(8 s_bar ln(1/delta1))``, ``xi = sqrt(32 ln(1/delta1)) / eps'`` (the scale of
  the threshold noise ``zeta ~ Lap(xi)``; the value noise is ``nu ~ Lap(2 xi)``);
* ``Gamma = s_bar^{-1/2} [(xi ln((1 - delta)/eps) - C_theta) / sqrt(ln d ln T) - 1]``, taken
  literally [R10] (negative as soon as ``eps > 1 - delta``);
* cap ``s0 + sqrt(s_bar)``: the loop stops once that many coordinates have passed.
"""

from __future__ import annotations

import math

import numpy as np


def svt_xi(eps1: float, delta1: float, s_bar: float) -> float:
    """Laplace scale ``xi = sqrt(32 ln(1/delta1)) / eps'`` with ``eps' = eps1 / sqrt(8 s_bar
    ln(1/delta1))`` (Algorithm 2 line 1); 0 for ``eps1 = inf``."""
    if math.isinf(eps1):
        return 0.0
    L = math.log(1.0 / delta1)
    eps_prime = eps1 / math.sqrt(8.0 * s_bar * L)
    return math.sqrt(32.0 * L) / eps_prime


def svt_gamma(
    xi: float, eps: float, delta: float, C_theta: float, d: int, T: int, s_bar: float
) -> float:
    """``Gamma`` of Algorithm 2 line 1, literally [R10]; ``-inf`` in the non-private limit
    (``eps = inf``, PrivateLASSO(inf) of docs/papers/plasso.md)."""
    if math.isinf(eps):
        return -math.inf
    inner = (xi * math.log((1.0 - delta) / eps) - C_theta) / math.sqrt(math.log(d) * math.log(T))
    return (inner - 1.0) / math.sqrt(s_bar)


def svt_cap(s0: int, s_bar: float) -> float:
    """The count at which the loop stops, ``s0 + sqrt(s_bar)``; ``|S1| <= ceil`` of it."""
    return s0 + math.sqrt(s_bar)


def sparse_vector_select(
    theta_hat: np.ndarray,
    S0: np.ndarray,
    threshold: float,
    xi: float,
    cap: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Algorithm 2 lines 4-14: the coordinates of ``S0`` whose noisy value passes the noisy
    threshold, visited in increasing index order [R14], stopping at the cap.

    For each ``i`` the generator draws ``zeta_i ~ Lap(xi)`` then ``nu_i ~ Lap(2 xi)`` (no draws when
    ``xi = 0``); ``i`` passes if ``|theta_hat_i| + nu_i > threshold + zeta_i`` ([R15]: absolute
    value). ``S1``, ``c`` start empty and 0 [R13].

    Parameters
    ----------
    theta_hat : numpy.ndarray
        The LASSO estimate, shape ``(d,)``.
    S0 : numpy.ndarray
        Screened coordinates (sorted).
    threshold : float
        ``4 lambda_t Gamma sqrt(s_bar)`` (``-inf`` passes everything).
    xi : float
        Laplace scale (0: the noise-free limit).
    cap : float
        ``s0 + sqrt(s_bar)``.
    rng : numpy.random.Generator
        The algorithm's SVT stream.

    Returns
    -------
    numpy.ndarray
        ``S1`` (sorted int array), a subset of ``S0`` with at most ``ceil(cap)`` elements.
    """
    selected = []
    for i in np.sort(np.asarray(S0, dtype=np.int64)):
        if xi > 0:
            zeta = rng.laplace(0.0, xi)
            nu = rng.laplace(0.0, 2.0 * xi)
        else:
            zeta = nu = 0.0
        if abs(theta_hat[i]) + nu > threshold + zeta:
            selected.append(int(i))
            if len(selected) >= cap:
                break
    return np.array(selected, dtype=np.int64)


def sparse_vector_counts(
    theta_hat: np.ndarray,
    S0: np.ndarray,
    threshold: float,
    xi: float,
    cap: float,
    rng: np.random.Generator,
    n: int,
) -> np.ndarray:
    """``|S1|`` of ``n`` independent runs of :func:`sparse_vector_select` on the same input, bit
    for bit what ``n`` calls one after another return, the generator left in the same state.

    When no run can stop early (``|S0| <= cap``) every run draws the same ``2 |S0|`` values,
    so all runs are drawn at once (``zeta_i`` then ``nu_i`` per coordinate, run after run, as
    the calls draw them); otherwise the calls are made one by one.
    """
    S0 = np.sort(np.asarray(S0, dtype=np.int64))
    if S0.size > cap:  # a run may stop before the last coordinate: its draws depend on its noise
        return np.array(
            [sparse_vector_select(theta_hat, S0, threshold, xi, cap, rng).size for _ in range(n)]
        )
    value = np.abs(theta_hat[S0])
    if xi > 0:
        noise = rng.laplace(0.0, np.array([xi, 2.0 * xi]), size=(n, S0.size, 2))
        zeta, nu = noise[..., 0], noise[..., 1]
    else:
        zeta = nu = np.zeros((n, S0.size))
    return np.count_nonzero(value + nu > threshold + zeta, axis=1)


__all__ = ["sparse_vector_counts", "sparse_vector_select", "svt_cap", "svt_gamma", "svt_xi"]
