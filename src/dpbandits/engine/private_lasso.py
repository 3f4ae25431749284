"""Fast engine of PrivateThresholdedLASSO, its baselines and ablations (plasso, Algorithm 1;
Sec. 3; baselines and ablations as in docs/papers/plasso.md, 'Algorithms').

Per trial: at every episode start the support (LASSO + sparse vector step, or the oracle's
``S``), the history release ``H_l``; then the episode's rounds in one numba call per block of at
most :data:`BLOCK` rounds. A round adds the tree-prefix noise to the exact restricted statistics,
solves the ball-constrained least squares, plays greedily and appends the record. Only the
``(m + 1) x (m + 1)`` restricted block is kept per round; the ``d x d`` Gram matrix of the history
is updated once per episode (for the LASSO), never per round.

TBAP noise (Algorithm 1, line 12): ``N_H`` at the episode start, then the node first used at
prefix ``n'`` (the node of the lowest set bit of ``n'``) for ``n' = 1, 2, ...``; each a symmetric
Gaussian matrix (full standard-normal draw of the read block, row-major, upper triangle
mirrored). The prefix noise is kept as ``partial[h]`` = sum of the decomposition's nodes at
levels ``>= h``, so a round costs ``O((m+1)^2)`` amortised. Ties (``S = {}`` or all scores
equal) take ``floor(K u_t)`` with one uniform ``u_t`` per round from the tie stream.

Which matrix the tree aggregates (:class:`EpisodeTree`). ``full`` (every private variant except
the ablation below): the paper's tree (Section 3) over ``G_t = B_t^T B_t``, ``B_t = [X, r]``, a
``(d+1) x (d+1)`` matrix; the node noise covers all ``(d+1)^2`` entries and is calibrated to a
record's norm over all ``d`` coordinates, so it grows with ``d``. ``support_block`` (ablation
``support_block_tree``, "PrivateLASSO (support-block tree, ablation)"): the tree over the
``(m+1) x (m+1)`` block of ``S_l`` and the reward only, calibrated to ``m = |S_l|`` coordinates,
so its noise does not depend on ``d``. The estimate of either reads only the rows and columns of
``S_l`` and the reward; a node's entries are independent, so the engine draws the read block of
each node and never materialises the unread entries of the full tree (the trajectory has the
same law as with the whole ``(d+1)^2`` node drawn; :meth:`EpisodeTree.noise` draws any entries,
the whole node included). An episode with an empty support reads nothing and draws nothing; the
full tree still records its calibrated ``sigma_B`` (the release exists whatever the support),
the support-block tree records 0 (it releases nothing). Variants:

==================  =============  ======================  ============  =============
algorithm           support        SVT noise               TBAP noise    tree
==================  =============  ======================  ============  =============
private_lasso       S1 (SVT, cap)  Lap(xi), Lap(2 xi)      sigma_B       full
np_th_lasso         S0 (no cap)    none                    none          -- (exact)
oracle_ols          S              --                      none          -- (exact)
oracle_tbap         S              --                      sigma_B       full
svt_noise_off       S1             none (Gamma literal)    sigma_B       full
tbap_noise_off      S1             Lap(xi), Lap(2 xi)      none          -- (exact)
support_block_tree  S1 (SVT, cap)  Lap(xi), Lap(2 xi)      sigma_B       support_block
==================  =============  ======================  ============  =============

``support_block_tree`` plays with PrivateLASSO's random streams (:data:`STREAMS_OF`): common
random numbers, so the two differ only in the tree.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..envs.sparse import algorithm_streams, make_instance
from ..normals import standard_normal
from ..policies.private_lasso import (
    DEFAULTS,
    PlassoConstants,
    episode_length,
    episode_starts,
    plasso_constants,
    sparse_estimation,
)
from .trust_region import trust_region_solve

BLOCK = 4096
#: (support rule, SVT noise on, TBAP noise on, tree) of each algorithm; ``None``: no tree, the
#: exact statistics of the support's block.
VARIANTS = {
    "private_lasso": ("svt", True, True, "full"),
    "np_th_lasso": ("screen", False, False, None),
    "oracle_ols": ("oracle", False, False, None),
    "oracle_tbap": ("oracle", False, True, "full"),
    "svt_noise_off": ("svt", False, True, "full"),
    "tbap_noise_off": ("svt", True, False, None),
    "support_block_tree": ("svt", True, True, "support_block"),
}
PRIVATE = ("private_lasso", "oracle_tbap", "svt_noise_off", "tbap_noise_off", "support_block_tree")
#: Variants that play with another algorithm's streams (and its eps index).
STREAMS_OF = {"support_block_tree": "private_lasso"}
TREES = ("full", "support_block")


def symmetric_gaussian(rng: np.random.Generator, count: int, size: int) -> np.ndarray:
    """``count`` symmetric standard Gaussian matrices of side ``size`` (TBAP's Gaussian
    nodes: full draw, row-major, upper triangle mirrored)."""
    G = standard_normal(rng, (count, size, size))
    return np.triu(G) + np.swapaxes(np.triu(G, 1), -1, -2)


class EpisodeTree:
    """The TBAP release of one episode: which matrix the tree aggregates and its node noise.

    Parameters
    ----------
    tree : {"full", "support_block", None}
        None: no tree (the variants without TBAP noise), exact statistics of the support's block
        (recorded as the support block with ``sigma = 0``).
    const : PlassoConstants
    S : numpy.ndarray
        The episode's support ``S_l`` (sorted coordinates).
    n_ep : int
        The episode's length (sets the tree depth).
    noise : bool
        False: exact statistics (``sigma = 0``).

    Attributes
    ----------
    side : int
        Side of the aggregated matrix: ``d + 1`` (full: ``G_t`` of the paper's Section 3, the
        reward last) or ``m + 1`` (support block).
    read : numpy.ndarray
        Rows / columns of the aggregated matrix that the estimate reads: ``S_l``, then the reward.
    sigma : float
        Node sd :meth:`PlassoConstants.sigma_B` at ``width = side - 1``; 0 without noise and for an
        empty support block (nothing is released).
    """

    def __init__(self, tree, const: PlassoConstants, S: np.ndarray, n_ep: int, noise: bool):
        if tree is not None and tree not in TREES:
            raise ValueError(f"tree = {tree!r}: allowed {', '.join(TREES)} or None")
        m = int(S.size)
        self.tree = tree
        noise = noise and tree is not None
        if tree == "full":
            self.side = const.d + 1
            self.read = np.append(np.asarray(S, dtype=np.int64), const.d)
        else:
            self.side = m + 1
            self.read = np.arange(m + 1, dtype=np.int64)
        released = noise and (tree == "full" or m > 0)
        self.sigma = const.sigma_B(self.side - 1, n_ep) if released else 0.0
        self.delta = const.tbap_delta(self.side - 1)

    def noise(self, rng: np.random.Generator, count: int, entries=None) -> np.ndarray:
        """Noise of ``count`` nodes (or history releases) at ``entries x entries`` of the
        aggregated matrix, shape ``(count, k, k)``, ``k = len(entries)``.

        A node's noise is symmetric with independent ``N(0, sigma^2)`` entries on and above the
        diagonal of the whole aggregated matrix, so its restriction to any ``entries`` is a
        symmetric Gaussian matrix of side ``k`` with the same ``sigma``: drawn as a full
        standard-normal ``k x k`` draw, row-major, upper triangle mirrored. ``entries``: default
        :attr:`read` (what the engine draws); ``range(side)`` materialises the whole node.
        """
        entries = self.read if entries is None else np.asarray(entries, dtype=np.int64)
        if entries.size and (entries.min() < 0 or entries.max() >= self.side):
            raise ValueError(
                f"entries {entries.tolist()} outside the {self.tree or 'exact'} tree's "
                f"{self.side} x {self.side} matrix"
            )
        if len(set(entries.tolist())) != entries.size:
            raise ValueError(f"entries {entries.tolist()} repeat an index")
        return self.sigma * symmetric_gaussian(rng, count, entries.size)


@njit(cache=True)
def _ctz(n):
    h = 0
    while (n & 1) == 0:
        n >>= 1
        h += 1
    return h


@njit(cache=True)
def episode_rounds(XS, mu, eta, ties, nodes, noisy, stat, partial, j0, C_theta, C_r, arms, rewards):
    """Play rounds ``j0 .. j0 + n - 1`` of an episode (record index ``j`` = ``n'`` records
    available), updating ``stat`` (noisy history release + exact episode sum) and ``partial``
    (tree-prefix noise by level) in place.

    ``XS`` (n, K, m): contexts on the support; ``nodes[i]``: noise of the node first used at
    ``n' = j0 + i`` (unused for ``n' = 0``); ``ties`` (n,) uniforms.
    """
    n, K, m = XS.shape
    z = np.empty(m + 1)
    scores = np.empty(K)
    for i in range(n):
        j = j0 + i
        if noisy and j >= 1:
            h0 = _ctz(j)
            new = partial[h0 + 1] + nodes[i]
            for h in range(h0 + 1):
                partial[h] = new
        if noisy:
            P = stat + partial[0]
        else:
            P = stat
        theta = trust_region_solve(P[:m, :m].copy(), P[:m, m].copy(), C_theta)
        for k in range(K):
            s = 0.0
            for q in range(m):
                s += XS[i, k, q] * theta[q]
            scores[k] = s
        best = 0
        lo = scores[0]
        for k in range(1, K):
            if scores[k] > scores[best]:
                best = k
            if scores[k] < lo:
                lo = scores[k]
        if lo == scores[best]:
            best = min(int(ties[i] * K), K - 1)
        r = min(max(mu[i, best] + eta[i, best], -C_r), C_r)
        for q in range(m):
            z[q] = XS[i, best, q]
        z[m] = r
        for a in range(m + 1):
            for c in range(m + 1):
                stat[a, c] += z[a] * z[c]
        arms[i] = best
        rewards[i] = r


class _Trial:
    """State of one trial: the instance, streams, history and Gram matrix."""

    def __init__(self, inst, streams, T, d):
        self.inst = inst
        self.g_svt, self.g_tbap, self.g_tie = streams
        self.Z = np.empty((T, d))
        self.Y = np.empty(T)
        self.gram = np.zeros((d, d))
        self.gram_rows = 0

    def update_gram(self, n):
        """``Z^T Z`` over the first ``n`` rows (once per episode start)."""
        new = self.Z[self.gram_rows : n]
        self.gram += new.T @ new
        self.gram_rows = n


def _support(algorithm, tr, t, const, n):
    rule, svt_noise, _, _ = VARIANTS[algorithm]
    if rule == "oracle":
        S = tr.inst.support.astype(np.int64)
        return S, S, math.nan
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, 0.0
    tr.update_gram(n)
    return sparse_estimation(tr.Z[:n], tr.Y[:n], t, const, tr.g_svt, tr.gram, rule, svt_noise)


def run_trial(
    algorithm: str, const: PlassoConstants, tr: _Trial, episodes: list | None = None
) -> tuple[float, float]:
    """Run one trial for ``const.T`` rounds; returns (pseudo-regret, random play's regret) and
    appends one dict per episode to ``episodes``."""
    _, _, tbap_noise, tree = VARIANTS[algorithm]
    T = const.T
    regret = unif = 0.0
    S_true = set(tr.inst.support.tolist())
    for start in episode_starts(T):
        n_ep = episode_length(start, T)
        n = start - 1
        S0, S, lam = _support(algorithm, tr, start, const, n)
        m = S.size
        rel = EpisodeTree(tree, const, S, n_ep, tbap_noise)
        sigma = rel.sigma
        noisy = sigma > 0 and m > 0  # an empty support reads nothing: no draws
        zS = np.column_stack([tr.Z[:n, S], tr.Y[:n]])
        stat = zS.T @ zS  # the read block of the history's exact aggregated matrix
        if noisy:
            stat += rel.noise(tr.g_tbap, 1)[0]
        partial = np.zeros((max(n_ep.bit_length(), 1) + 1, m + 1, m + 1))
        for j0 in range(0, n_ep, BLOCK):
            nb = min(BLOCK, n_ep - j0)
            X, mu, eta = tr.inst.block(nb)
            ties = tr.g_tie.random(nb)
            if noisy:
                first = 1 if j0 == 0 else 0
                nodes = np.zeros((nb, m + 1, m + 1))
                nodes[first:] = rel.noise(tr.g_tbap, nb - first)
            else:
                nodes = np.zeros((1, 1, 1))
            arms = np.empty(nb, dtype=np.int64)
            rewards = np.empty(nb)
            XS = np.ascontiguousarray(X[:, :, S])
            episode_rounds(
                XS, mu, eta, ties, nodes, noisy, stat, partial, j0, const.C_theta, const.C_r,
                arms, rewards,
            )  # fmt: skip
            rows = np.arange(nb)
            t0 = start - 1 + j0
            tr.Z[t0 : t0 + nb] = X[rows, arms]
            tr.Y[t0 : t0 + nb] = rewards
            best = mu.max(axis=1)
            regret += float(np.sum(best - mu[rows, arms]))
            unif += float(np.sum(best - mu.mean(axis=1)))
        if episodes is not None:
            episodes.append(
                {
                    "t_l": start,
                    "lambda_t": lam,
                    "size_S0": int(S0.size),
                    "size_S": int(m),
                    "true_in_S": len(S_true.intersection(S.tolist())),
                    "xi": const.xi if VARIANTS[algorithm][1] else 0.0,
                    "Gamma": const.Gamma,
                    "sigma_B": sigma,
                    "Delta": rel.delta,
                    "tree_side": rel.side,
                    "s1_l": const.s1_episode(lam) if lam == lam and lam > 0 else math.nan,
                }
            )
    return regret, unif


def simulate_cell(
    experiment: str,
    family: str,
    d: int,
    s0: int,
    K: int,
    T: int,
    algorithm: str,
    eps: float,
    eps_index: int,
    trials: int,
    params: dict | None = None,
) -> tuple[np.ndarray, np.ndarray, list[list[dict]]]:
    """All trials of one (algorithm, eps, T) cell.

    Parameters
    ----------
    experiment, family : str
        ``PL-E1`` / ``PL-E2`` and ``F1`` / ``F2`` / ``F3`` (stream codes of :mod:`..envs.sparse`).
    d, s0, K, T : int
    algorithm : str
        A key of :data:`VARIANTS`.
    eps : float
        Privacy level (``inf`` for the non-private algorithms and PrivateLASSO(inf)).
    eps_index : int
        1-based position of ``eps`` in the algorithm's grid (0: ``inf`` / non-private;
        ``support_block_tree``: in PrivateLASSO's grid, whose streams it uses).
    trials : int
    params : dict, optional
        Overrides of :data:`dpbandits.policies.private_lasso.DEFAULTS`.

    Returns
    -------
    (regret, regret_unif, episodes)
        Pseudo-regret at ``T`` and random play's regret on the same draws, shape ``(trials,)``;
        per trial, the list of episode records.
    """
    if algorithm not in VARIANTS:
        raise ValueError(f"algorithm = {algorithm!r}: allowed {', '.join(VARIANTS)}")
    p = {**DEFAULTS, **(params or {})}
    sigma = p.pop("sigma")
    if algorithm not in PRIVATE and not math.isinf(eps):
        raise ValueError(f"{algorithm} is non-private: eps must be inf, got {eps!r}")
    const = plasso_constants(T, d, s0, K, eps, **p)
    regret = np.empty(trials)
    unif = np.empty(trials)
    episodes = []
    for trial in range(trials):
        inst = make_instance(experiment, family, d, s0, K, T, trial, sigma, p["C_X"])
        streams = algorithm_streams(
            experiment, family, d, s0, K, T, trial, STREAMS_OF.get(algorithm, algorithm), eps_index
        )
        eps_records: list[dict] = []
        regret[trial], unif[trial] = run_trial(
            algorithm, const, _Trial(inst, streams, T, d), eps_records
        )
        episodes.append(eps_records)
    return regret, unif, episodes


__all__ = [
    "BLOCK",
    "STREAMS_OF",
    "TREES",
    "VARIANTS",
    "EpisodeTree",
    "episode_rounds",
    "simulate_cell",
    "symmetric_gaussian",
]
