"""Binary-tree (counting) mechanism and the script's stand-in (CZ22 Sec. 1 / SS18 / CSS10).

Leaves are the stream items ``z_1, z_2, ...`` (1-based). Node ``(j, k)`` covers the dyadic
interval ``((k-1) 2^j, k 2^j]`` and carries one noise draw ``Z_{j,k}``, drawn once and reused
every time the node appears. The noisy prefix after ``t`` items is the exact prefix plus the
noise of the nodes of the dyadic decomposition ``D(t)``: one node per set bit ``j`` of ``t``,
namely ``(j, t >> j)`` (CSS10's binary counting mechanism).
"""

from __future__ import annotations

import math

import numpy as np

from ..normals import standard_normal


def n_levels(T: int) -> int:
    """SS18's ``m = 1 + ceil(log2 T)``: the number of tree nodes any leaf belongs to (at most)."""
    return 1 + math.ceil(math.log2(T))


def released_nodes(n_leaves: int) -> int:
    """Nodes of one leaf that reach a released prefix when prefixes up to ``n_leaves - 1`` are
    released (round ``t`` uses the prefix of the ``t - 1`` rounds before it): leaf 1 is in node
    ``(j, 1)`` for every ``2^j <= n_leaves - 1``, so ``ceil(log2 n_leaves)`` nodes
    (``= bit_length(n_leaves - 1)``; 0 for one leaf), one fewer than :func:`n_levels`."""
    if n_leaves < 1:
        raise ValueError(f"n_leaves must be >= 1, got {n_leaves}")
    return (n_leaves - 1).bit_length()


def dyadic_decomposition(t: int) -> list[tuple[int, int]]:
    """Nodes ``(level j, index k)`` whose intervals partition ``[1, t]``.

    ``len(dyadic_decomposition(t)) == popcount(t)``.
    """
    if t < 0:
        raise ValueError(f"t must be >= 0, got {t}")
    return [(j, t >> j) for j in range(t.bit_length()) if (t >> j) & 1]


def level_rows(n_leaves: int) -> list[int]:
    """Rows of each level's node array, ``(n_leaves >> j) + 1`` for ``j = 0, 1, ...`` (at least
    one level): the layout :func:`draw_tree_nodes` draws and :func:`tree_recursion` indexes."""
    return [(n_leaves >> j) + 1 for j in range(max(1, n_leaves.bit_length()))]


def draw_tree_nodes(
    rng: np.random.Generator, n_leaves: int, scales: np.ndarray, batch: int | None = None
) -> list[np.ndarray]:
    """Noise of every node of a tree over ``n_leaves`` leaves.

    Level ``j`` gets an array of shape ``((n_leaves >> j) + 1, E)`` indexed by ``k`` (row 0 and
    even rows are never used; keeping them makes the layout trivial and fixed). Levels are drawn
    in order ``j = 0, 1, ...``.

    ``batch``: that many independent trees, each level of shape ``(batch, rows, E)``; tree ``b``
    holds exactly the values the ``b``-th of ``batch`` calls without ``batch`` would draw (the
    generator's draws are consumed in the same order, one tree after another), in one call.
    """
    rows = level_rows(n_leaves)
    if batch is None:
        return [standard_normal(rng, (r, scales.shape[0])) * scales for r in rows]
    z = standard_normal(rng, (batch, sum(rows), scales.shape[0])) * scales
    return np.split(z, np.cumsum(rows)[:-1], axis=1)


def tree_recursion(n_leaves: int) -> tuple[np.ndarray, np.ndarray]:
    """``(node, parent)`` of ``t = 0..n_leaves``: row ``t`` of the prefix noise is row
    ``parent[t] = t - lowbit(t)`` plus node ``node[t]`` of the levels concatenated in order
    (the node ``(ctz(t), t >> ctz(t))``, the last of ``D(t)``); ``parent[t] < t``. Entries of
    ``t = 0`` are 0 (row 0 is zero)."""
    rows = level_rows(n_leaves)
    offsets = np.cumsum([0] + rows[:-1])
    t = np.arange(n_leaves + 1)
    low = t & -t
    j = np.bitwise_count(np.maximum(low - 1, 0)).astype(np.int64)  # ctz(t) for t >= 1
    node = np.where(t > 0, offsets[j] + (t >> j), 0)
    return node.astype(np.int64), (t - low).astype(np.int64)


def tree_prefix_noise(levels: list[np.ndarray], n_leaves: int) -> np.ndarray:
    """Noise of the noisy prefix after ``t = 0..n_leaves`` items, shape (n_leaves + 1, E).

    Row ``t`` is ``sum_{(j, k) in D(t)} Z_{j,k}`` (row 0 is zero). Computed with the recursion
    ``S(t) = S(t - lowbit(t)) + Z_{j, t >> j}``, ``j = ctz(t)`` (the lowest set bit of ``t`` is
    the last node of ``D(t)``; :func:`tree_recursion`), one popcount layer at a time. Levels
    with leading (batch) axes (:func:`draw_tree_nodes` with ``batch``) give those axes in front,
    each tree's rows the same sums as alone.
    """
    flat = np.concatenate(levels, axis=-2)
    node, parent = tree_recursion(n_leaves)
    t = np.arange(1, n_leaves + 1)
    node, parent = node[1:], parent[1:]
    pc = np.bitwise_count(t)
    out = np.zeros((*flat.shape[:-2], n_leaves + 1, flat.shape[-1]))
    for p in range(1, int(pc.max(initial=0)) + 1):
        sel = pc == p
        out[..., t[sel], :] = out[..., parent[sel], :] + flat[..., node[sel], :]
    return out


def standin_count(t):
    """Number of pre-drawn node noises the script's stand-in sums at 0-based round ``t``.

    ``k(t) = floor(ln(1 + t)) + 1`` (the authors' script). Works elementwise on arrays.
    """
    return np.floor(np.log1p(np.asarray(t, dtype=float))).astype(int) + 1


def standin_n0(n: int) -> int:
    """Number of node noises the stand-in pre-draws: ``N0 = floor(ln n) + 1``."""
    return int(math.floor(math.log(n))) + 1


# --- calibrations ------------------------------------------------------------------------------


def sigma_ss18_node(epsilon: float, delta: float, m: int, L_tilde_sq: float = 2.0) -> float:
    """SS18 per-node noise ``sigma_n = 4 sqrt(m) L~^2 ln(4/delta) / epsilon`` (SS18's calibration).

    ``L~^2 = L^2 + Y^2`` (2 under CZ22 Assumption 3.1); ``m`` = number of tree levels.
    """
    return 4.0 * math.sqrt(m) * L_tilde_sq * math.log(4.0 / delta) / epsilon


def sigma_zcdp_node(rho: float, m: int, L_tilde_sq: float = 2.0) -> float:
    """Node noise of the tree under zCDP accounting ([R6] of docs/papers/op24.md).

    Replacing one round changes each of its ``m`` nodes by a matrix whose upper triangle has L2
    norm at most ``Delta = sqrt(2) L~^2``; ``m`` Gaussian releases of that sensitivity cost
    ``m Delta^2 / (2 sigma_n^2)``, so ``rho``-zCDP needs ``sigma_n^2 = m Delta^2 / (2 rho)``
    (``4 m / rho`` at ``L~^2 = 2``). Use ``rho = dp_to_zcdp(epsilon, delta)`` for (epsilon,
    delta)-JDP.
    """
    if not (rho > 0 and m >= 1):
        raise ValueError(f"need rho > 0 and m >= 1; got {rho!r}, {m!r}")
    Delta = math.sqrt(2.0) * L_tilde_sq
    return math.sqrt(m * Delta * Delta / (2.0 * rho))


def s_standin_experiment(epsilon: float, delta: float, n: int) -> float:
    """Script's JDP node noise ``s = sqrt(ln n) ln(2.5/delta) / epsilon`` (the script)."""
    return math.sqrt(math.log(n)) * math.log(2.5 / delta) / epsilon
