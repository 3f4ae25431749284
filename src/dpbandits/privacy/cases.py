"""The mechanisms the empirical auditor runs, each on its most distinguishing neighbouring pair.

Every case samples outputs with the project's own randomizer code and calibration functions
(the ones the simulations call), on a pair of neighbouring inputs at the extremes of the input
range, and carries the epsilon that accounting certifies *for that same pair*
(``delivered``); the delivered epsilon of the experiment row it stands for (``row``, from
:mod:`dpbandits.audit.privacy`) is at least as large (a supremum over all pairs). The auditor's
lower bound must never exceed ``delivered``.

Negative controls (``control = True``) are deliberately under-noised variants: their noise is
calibrated for the nominal epsilon and then divided by a factor, and the auditor must catch them
(lower bound above the nominal epsilon).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, partial

import numpy as np

from ..mechanisms.gaussian import draw_packed, entry_scales, s_ldp_experiment
from ..mechanisms.packing import pack
from ..mechanisms.shuffle_sum import count_ones, scalar_params, vector_params
from ..mechanisms.svt import sparse_vector_counts
from ..mechanisms.tree import draw_tree_nodes, n_levels, sigma_zcdp_node, tree_prefix_noise
from ..mechanisms.vec import encode, vec_params_experiment
from ..mechanisms.zcdp import dp_to_zcdp
from ..normals import standard_normal
from ..policies.dpdpe import sigma_nc, sigma_nl
from ..policies.onlineucb import onlineucb_sigma
from ..policies.private_lasso import lambda_t, plasso_constants
from . import releases as rel
from .accounting import gaussian_epsilon, pmf_pair_epsilon


@dataclass(frozen=True)
class Case:
    """One audited mechanism.

    Attributes
    ----------
    name : str
    represents : str
        The experiment rows (``privacy.csv``) this mechanism stands for.
    nominal : float
        The epsilon it is labelled with.
    delta : float
    delivered_by : float or callable
        The epsilon accounting certifies for this pair (``inf``: not private), or a function of
        no argument computing it: the accounting runs only when :attr:`delivered` is read (the
        workflow enumerates the cases' names while it parses).
    sampler : callable
        ``sampler(which, n, rng)`` as in :func:`dpbandits.privacy.empirical.audit`.
    control : bool
        A deliberately under-noised negative control.
    score : callable, optional
        Fixed score of the outputs (default: a linear score fitted on the selection half).
    """

    name: str
    represents: str
    nominal: float
    delta: float
    delivered_by: float | Callable[[], float]
    sampler: Callable
    control: bool = False
    score: Callable | None = None

    @cached_property
    def delivered(self) -> float:
        """The epsilon accounting certifies for this pair (``inf``: not private)."""
        value = self.delivered_by
        return float(value() if callable(value) else value)


def _pair(L: float) -> tuple[np.ndarray, np.ndarray]:
    """Two feature vectors of norm ``L`` at ``cos = -1/(2 L^2)`` (the pair attaining
    ``Delta_J(L)`` with rewards 1, docs/audit/privacy.md), in ``R^2`` padded to ``d``."""
    c = -1.0 / (2.0 * L * L)
    return np.array([L, 0.0]), np.array([L * c, L * math.sqrt(1.0 - c * c)])


def _stat(x: np.ndarray, r: float) -> np.ndarray:
    return pack(x * r, np.outer(x, x))


def gaussian_randomizer_case(
    eps: float, delta: float, d: int, L: float, divide: float = 1.0
) -> Case:
    """CZ22's per-user Gaussian randomizer with the script's LDP noise ``s`` and ``(W+W^T)/2``
    (``ldp``; ``sdp_amp`` and ``batched_ldp`` use the same randomizer), pair attaining ``Delta_J``.
    ``divide > 1``: the negative control."""
    x0, x1 = (np.pad(v, (0, d - 2)) for v in _pair(L))
    means = (_stat(x0, 1.0), _stat(x1, 1.0))
    std = s_ldp_experiment(eps, delta) / divide
    scales = entry_scales(d, std, "half_sum")
    # off-diagonal noise has std s/sqrt 2: the exact sensitivity is the whitened distance
    whitened = (means[1] - means[0]) / scales
    delivered = partial(gaussian_epsilon, 1.0, float(np.linalg.norm(whitened)), delta)

    def sampler(which, n, rng):
        return means[which] + draw_packed(rng, n, scales)

    label = "ldp (experiment/script)"
    return Case(
        f"Gaussian randomizer (x r, x x^T), LDP noise / {divide:g}"
        if divide > 1
        else "Gaussian randomizer (x r, x x^T), LDP noise",
        f"cz22 {label}, eps = {eps:g}, d = {d}, L = {L:.3g}",
        eps,
        delta,
        delivered,
        sampler,
        control=divide > 1,
    )


def amp_shuffle_case(eps: float, delta: float, d: int, L: float, B: int) -> Case:
    """P_Amp: ``B`` users' randomized messages, shuffled; one user differs (``Delta_J`` pair),
    the others hold ``x = 0``. As in cz22's Algorithm 1 the vector messages and the matrix
    messages are shuffled separately, so the output is two multisets with no link between a
    user's vector and matrix; the score is the sum of each multiset's largest projection on its
    part of the whitened difference direction (packed messages: the d vector entries first)."""
    from ..mechanisms.gaussian import s_amp_experiment

    x0, x1 = (np.pad(v, (0, d - 2)) for v in _pair(L))
    means = (_stat(x0, 1.0), _stat(x1, 1.0))
    std = s_amp_experiment(eps, delta, B)
    scales = entry_scales(d, std, "half_sum")
    w = (means[1] - means[0]) / scales**2
    delivered = partial(
        gaussian_epsilon, 1.0, float(np.linalg.norm((means[1] - means[0]) / scales)), delta
    )

    def sampler(which, n, rng):
        msgs = draw_packed(rng, n * B, scales).reshape(n, B, -1)
        msgs[:, 0, :] += means[which]  # the shuffler hides which message is user 0's
        # two shuffles: the largest vector projection and the largest matrix projection may
        # come from different users
        return (msgs[:, :, :d] @ w[:d]).max(axis=1) + (msgs[:, :, d:] @ w[d:]).max(axis=1)

    return Case(
        f"P_Amp shuffled batch (B = {B})",
        f"cz22 sdp_amp (experiment/script), eps = {eps:g}, d = {d}; local guarantee",
        eps,
        delta,
        delivered,
        sampler,
        score=lambda out: np.asarray(out, float),
    )


def vec_count_case(eps: float, delta: float, d: int, L: float, B: int, scale_b: float = 1.0):
    """P_Vec's scalar-sum bits for one entry: the count of ones of a batch of ``B`` users, one user
    at ``-L`` or ``+L``, the others at 0 (rounding as drawn). ``scale_b < 1``: the control."""
    prm = vec_params_experiment(eps, delta, B, d, vec_scale=1.0, truncate_b=False)
    b_trials = max(int(prm.b_trials * scale_b), 0)

    def exact() -> float:
        """Epsilon of the pair's exact count distributions: B - 1 users at 0 (floor +
        Bernoulli) + one user."""
        from scipy.stats import binom

        def pmf(v):
            z = (np.array([v] + [0.0] * (B - 1)) + L) * prm.g / L
            fl = np.floor(z)
            dist = np.array([1.0])
            for q in z - fl:
                dist = np.convolve(dist, [1.0 - q, q])
            noise = binom.pmf(np.arange(B * b_trials + 1), B * b_trials, prm.p)
            out = np.convolve(dist, noise)
            return int(fl.sum()), out

        (o0, p0), (o1, p1) = pmf(-L), pmf(L)
        size = max(o0 + p0.size, o1 + p1.size)
        P, Q = np.zeros(size), np.zeros(size)
        P[o0 : o0 + p0.size] = p0
        Q[o1 : o1 + p1.size] = p1
        return pmf_pair_epsilon(P, Q, delta)

    delivered = exact if b_trials > 0 else math.inf

    def sampler(which, n, rng):
        vals = np.zeros((n, B))
        vals[:, 0] = -L if which == 0 else L
        ones = encode(vals, prm.g, L, rng.random((n, B))).sum(axis=1)
        return ones + rng.binomial(B * b_trials, prm.p, size=n)

    control = scale_b < 1
    return Case(
        f"P_Vec scalar-sum bits (b = {b_trials})" + (" under-noised" if control else ""),
        f"cz22 sdp_vec (experiment/corrected), eps = {eps:g}, d = {d}; one entry",
        eps,
        delta,
        delivered,
        sampler,
        control=control,
        score=lambda out: np.asarray(out, float),
    )


def _gaussian_pair_case(
    name: str, represents: str, eps: float, delta: float, means, sigma: float
) -> Case:
    """A Gaussian release ``mean + N(0, sigma^2 I)`` on two inputs with the given means; the
    delivered epsilon is exact for the pair (sensitivity = the distance of the means)."""
    m0, m1 = (np.asarray(m, float) for m in means)
    delivered = partial(gaussian_epsilon, sigma, float(np.linalg.norm(m1 - m0)), delta)

    def sampler(which, k, rng):
        return (m0, m1)[which] + standard_normal(rng, (k, m0.size)) * sigma

    return Case(name, represents, eps, delta, delivered, sampler)


def olucb_case(eps: float, delta: float, d: int) -> Case:
    """OnlineUCB's release ``(x~, y~)`` (olucb Alg. 1), ``x`` at opposite ends of the unit ball,
    Bernoulli reward 0 vs 1 (the fixed-arm instances' universe)."""
    m0, m1 = np.zeros(d + 1), np.zeros(d + 1)
    m0[0], m1[0], m1[d] = -1.0, 1.0, 1.0
    return _gaussian_pair_case(
        "OnlineUCB (x~, y~) release",
        f"olucb OnlineUCB, eps = {eps:g}, d = {d}, instances paper_text",
        eps,
        delta,
        (m0, m1),
        onlineucb_sigma(eps, delta),
    )


def dpdpe_gaussian_case(eps: float, delta: float, s: int, n: int | None = None) -> Case:
    """DP-DPE's Gaussian privatizers, one client's clipped report at ``-1`` vs ``+1`` in every
    coordinate: central (``n`` clients, their mean plus ``N(0, sigma_nc^2 I)``, Thm 4.2) or, with
    ``n = None``, local (the client's report plus ``N(0, sigma_nl^2 I)``, Thm 4.4; the engine draws
    only the clients' aggregate noise, this is the randomizer the claim is about)."""
    if n is None:
        return _gaussian_pair_case(
            "DP-DPE local Gaussian randomizer",
            f"dpdpe LDP-DPE, eps = {eps:g}",
            eps,
            delta,
            (np.full(s, -1.0), np.full(s, 1.0)),
            sigma_nl(s, eps, delta, 1.0),
        )
    return _gaussian_pair_case(
        "DP-DPE central Gaussian privatizer",
        f"dpdpe CDP-DPE (and LDP-DPE, CDP-PE, LDP-PE: same Delta/sigma), eps = {eps:g}",
        eps,
        delta,
        (np.full(s, -1.0 / n), np.full(s, 1.0 / n)),
        sigma_nc(s, n, eps, delta, 1.0),
    )


def pe_shuffle_case(eps: float, delta: float, n: int) -> Case:
    """DP-PE's shuffle privatizer (Algorithm 4 at ``eps/2``): the count of ones of ``n`` users'
    rewards, one at ``-1`` vs ``+1``, the others at 0 (encoding ``g/2``, an integer for even
    ``g``)."""
    prm = scalar_params(eps, delta, n, 1.0)
    delivered = partial(rel.shuffle_sum_epsilon, prm, delta, -1.0, 1.0, 1)

    def sampler(which, k, rng):
        Y = np.zeros((k, n, 1))
        Y[:, 0, 0] = -1.0 if which == 0 else 1.0
        return count_ones(rng, Y, prm)

    return Case(
        f"DP-PE shuffle scalar sum (n = {n}, g = {prm.g}, b = {prm.b})",
        f"dpdpe SDP-PE, eps = {eps:g}",
        eps,
        delta,
        delivered,
        sampler,
        score=lambda out: np.asarray(out, float).reshape(len(out), -1)[:, 0],
    )


def dpdpe_shuffle_case(eps: float, delta: float, n: int, s: int) -> Case:
    """DP-DPE's shuffle privatizer (Algorithm 2): the counts of ones per coordinate, one client at
    ``-1`` vs ``+1`` in every coordinate, the others at integer encodings."""
    prm = vector_params(eps, delta, n, s, math.sqrt(s))
    delivered = partial(rel.shuffle_sum_epsilon, prm, delta, -1.0, 1.0, s)
    base = np.zeros((n, s))  # reports 0: encoding g/2, an integer for even g (g = 10 here)

    def sampler(which, k, rng):
        Y = np.broadcast_to(base, (k, n, s)).copy()
        Y[:, 0, :] = -1.0 if which == 0 else 1.0
        return count_ones(rng, Y, prm)

    return Case(
        f"DP-DPE shuffle vector sum (n = {n}, s = {s})",
        f"dpdpe SDP-DPE, eps = {eps:g}",
        eps,
        delta,
        delivered,
        sampler,
    )


def svt_screen_case(eps: float, T: int = 2**14, d: int = 100, s0: int = 5, K: int = 2) -> Case:
    """PrivateLASSO's SparseEstimation on a coordinate at the screening cut: ``|theta_hat_i| =
    4 lambda_t (1 +- 1e-3)`` (in ``S0`` or not: the noiseless screen of
    :func:`~dpbandits.policies.private_lasso.sparse_estimation`), then the sparse vector step.
    The output is whether ``i`` is selected."""
    c = plasso_constants(T, d, s0, K, eps)
    lam = lambda_t(T, c.lambda0, d)  # at the last episode's start, t ~ T
    cut = 4.0 * lam

    def sampler(which, n, rng):
        value = cut * (1.0 + 1e-3) if which == 0 else cut * (1.0 - 1e-3)
        theta = np.zeros(1)
        theta[0] = value
        S0 = np.flatnonzero(np.abs(theta) > cut)  # the screen, as in sparse_estimation
        return sparse_vector_counts(theta, S0, c.threshold(lam), c.xi, c.cap, rng, n).astype(float)

    return Case(
        "PrivateLASSO screen + sparse vector step",
        f"plasso private_lasso, eps = {eps:g}, T = {T}, d = {d} "
        "(nominal: one call, (eps1, delta1))",
        c.eps1,
        c.delta1,
        math.inf,
        sampler,
        score=lambda out: -np.asarray(out, float),
    )


def svt_query_case(eps: float, divide: float = 1.0, T: int = 2**14, d: int = 100) -> Case:
    """The sparse vector step alone on one query inside ``S0``: ``|theta_hat_i|`` at 0 vs 1 (its
    range after the radial rescale, sensitivity 1). One comparison with value noise
    ``Lap(2 xi)``: ``1/(2 xi)``-DP. ``divide > 1``: ``xi`` divided (negative control)."""
    c = plasso_constants(T, d, 5, 2, eps)
    xi = c.xi / divide
    thr = 0.5  # any threshold: the guarantee does not depend on it; mid-range distinguishes best
    delivered = 1.0 / (2.0 * xi)
    nominal = 1.0 / (2.0 * c.xi)  # what the calibration gives one comparison

    def sampler(which, n, rng):
        theta = np.array([0.0 if which == 0 else 1.0])
        S0 = np.array([0])
        return sparse_vector_counts(theta, S0, thr, xi, c.cap, rng, n).astype(float)

    return Case(
        "sparse vector step, one query" + (f" (xi / {divide:g})" if divide > 1 else ""),
        f"plasso sparse vector step, eps = {eps:g} (nominal: one comparison, 1/(2 xi))",
        nominal,
        0.0,
        delivered,
        sampler,
        control=divide > 1,
        score=lambda out: np.asarray(out, float),
    )


def tree_case(eps: float, delta: float, d: int, leaves: int, divide: float = 1.0) -> Case:
    """The binary-tree mechanism of JDP-LinUCB (op24 calibration, zCDP node noise) releasing every
    noisy prefix sum of ``leaves`` leaves; leaf 1 differs (unit ``a`` at ``cos = 1/2`` with
    rewards of opposite sign). ``divide > 1``: the control."""
    m = n_levels(leaves)
    sigma_n = sigma_zcdp_node(dp_to_zcdp(eps, delta), m) / divide
    scales = entry_scales(d, sigma_n, "upper_mirror")
    a0 = np.zeros(d)
    a1 = np.zeros(d)
    a0[0] = 1.0
    a1[0], a1[1] = 0.5, math.sqrt(0.75)
    z0, z1 = _stat(a0, 1.0), _stat(a1, -1.0)
    # leaf 1 lies in one node of every level: m nodes, exact whitened sensitivity
    delivered = partial(
        gaussian_epsilon, 1.0, math.sqrt(m) * float(np.linalg.norm((z1 - z0) / scales)), delta
    )

    def sampler(which, n, rng):
        # n trees in one call: the same draws, in the same order, as n calls one tree at a time
        noise = tree_prefix_noise(draw_tree_nodes(rng, leaves, scales, batch=n), leaves)[:, 1:]
        noise += (z0, z1)[which]  # leaf 1 is in every prefix
        return noise.reshape(n, -1)

    return Case(
        f"tree aggregation, {leaves} leaves" + (f", node noise / {divide:g}" if divide > 1 else ""),
        f"op24 JDP-LinUCB, eps = {eps:g}, delta = {delta:g}",
        eps,
        delta,
        delivered,
        sampler,
        control=divide > 1,
    )


def all_cases() -> list[Case]:
    """The audited mechanisms and the negative controls (settings of the figures' rows)."""
    L = math.sqrt(2.0)
    return [
        gaussian_randomizer_case(1.0, 0.1, 5, L),
        gaussian_randomizer_case(0.2, 0.1, 5, L),
        amp_shuffle_case(1.0, 0.1, 5, L, 20),
        vec_count_case(1.0, 0.1, 5, L, 20),
        olucb_case(10.0, 0.1, 5),
        dpdpe_gaussian_case(10.0, 0.25, 3, n=4),
        dpdpe_gaussian_case(10.0, 0.25, 3),
        dpdpe_shuffle_case(10.0, 0.25, 4, 3),
        pe_shuffle_case(10.0, 0.25, 4),
        svt_query_case(1e4),
        svt_screen_case(1e2),
        tree_case(1.0, 0.01, 2, 16),
        # negative controls: under-noised variants that must be caught
        gaussian_randomizer_case(0.2, 0.1, 5, L, divide=10.0),
        vec_count_case(0.2, 0.1, 5, L, 20, scale_b=1e-3),
        svt_query_case(1e4, divide=100.0),
        tree_case(1.0, 0.01, 2, 16, divide=10.0),
    ]


__all__ = ["Case", "all_cases"]
