"""Random draws of a policy and the noise the learner sees at each refresh.

:func:`draw_raw` is the only place that consumes a trial's noise generator, in a fixed layout,
so the engine and the reference loop see the same numbers (P_Vec's layout is
:func:`draw_vec_stacked`'s, which the engine calls for a chunk of trials at once and
:func:`draw_raw` for one). :func:`noise_table` turns the raw
draws into the noise in force at each refresh (vectorised); the reference rebuilds the same
quantity round by round, literally (see :mod:`dpbandits.dev.reference_loops`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..mechanisms.gaussian import draw_packed
from ..mechanisms.packing import n_entries
from ..mechanisms.tree import (
    draw_tree_nodes,
    standin_count,
    standin_n0,
    tree_prefix_noise,
    tree_recursion,
)
from ..normals import standard_normal
from ..policies.base import Policy
from .kernels import prefix_rows, tree_rows


def draw_raw(policy: Policy, rng: np.random.Generator) -> dict[str, object]:
    """All random draws of one trial of ``policy``, in a fixed order.

    Returns
    -------
    dict
        ``per_round``/``per_batch``: ``increments`` (rows, E) — one draw per round or per
        completed batch (the batch aggregate); ``onlineucb``: ``zeta`` (T or 0, d), ``noise_x``
        (T, d) and ``noise_y`` (T,), the user's perturbation and Gaussian mechanism; ``combiner``:
        the same with ``zeta`` standard normal (T, d), scaled by the playing base's
        ``sqrt(Delta^2)``; ``standin``:
        ``nodes`` (N0, E); ``tree``:
        ``levels`` (list of per-level node arrays); ``vec``: ``uniforms`` (T, E) for the
        randomized rounding and ``binomial`` (batches, E), the batch's total of binomial
        privacy bits per entry, ``Binomial(B * b_trials, p)`` (the sum of the ``B`` users'
        ``Binomial(b_trials, p)`` draws, an exact identity); ``none``: empty.
    """
    s = policy.setting
    scheme = policy.scheme
    if scheme == "none":
        return {}
    if scheme == "combiner":  # standard normal zeta (scaled by each base's Delta), eta_x, eta_y
        return {
            "zeta": standard_normal(rng, (s.T, s.d)),
            "noise_x": standard_normal(rng, (s.T, s.d)) * policy.sigma,
            "noise_y": standard_normal(rng, s.T) * policy.sigma,
        }
    if scheme == "onlineucb":  # zeta (Delta^2 > 0 only), then eta_x, then eta_y
        zeta = standard_normal(rng, (s.T if policy.Delta2 > 0 else 0, s.d)) * np.sqrt(policy.Delta2)
        return {
            "zeta": zeta,
            "noise_x": standard_normal(rng, (s.T, s.d)) * policy.sigma,
            "noise_y": standard_normal(rng, s.T) * policy.sigma,
        }
    if scheme == "vec":  # the layout of draw_vec_stacked, for one trial
        return {key: rows[0] for key, rows in draw_vec_stacked(policy, [rng]).items()}
    scales = policy.noise_scales()
    if scheme == "per_round":
        return {"increments": draw_packed(rng, s.T, scales)}
    if scheme == "per_batch":
        return {"increments": draw_packed(rng, policy.n_batches, scales)}
    if scheme == "standin":
        return {"nodes": draw_packed(rng, standin_n0(s.T), scales)}
    if scheme == "tree":
        return {"levels": draw_tree_nodes(rng, policy.n_batches, scales)}
    raise ValueError(f"unknown noise scheme {scheme!r}")


def draw_vec_stacked(policy: Policy, rngs) -> dict[str, np.ndarray]:
    """:func:`draw_raw` of the ``vec`` scheme for several trials (one generator each), stacked:
    ``{key: numpy.stack([draw_raw(policy, rng)[key] for rng in rngs])}``, the same numbers,
    each trial's uniforms drawn straight into its row of the stacked array (no array per trial
    and no copy of them all)."""
    s, v = policy.setting, policy.vec
    E = n_entries(s.d)
    uniforms = np.empty((len(rngs), s.T, E))
    binomial = []
    for i, rng in enumerate(rngs):  # each trial's uniforms, then its binomials, as draw_raw
        rng.random(out=uniforms[i])
        binomial.append(rng.binomial(policy.period * v.b_trials, v.p, size=(policy.n_batches, E)))
    return {"uniforms": uniforms, "binomial": np.stack(binomial)}


def noise_table(policy: Policy, raw: dict[str, object]) -> tuple[np.ndarray, np.ndarray]:
    """Noise in force at every refresh, as a table of distinct values and an index per refresh.

    Returns
    -------
    table : ndarray, shape (Q, E)
        Distinct packed noise values.
    index : ndarray of int64, shape (R,)
        Row of ``table`` in force at refresh ``r``. Consecutive refreshes with the same row
        carry identical noise, which lets the engine use rank-one updates.
    """
    d = policy.setting.d
    R = policy.n_refresh
    scheme = policy.scheme
    if scheme == "none":
        return np.zeros((1, n_entries(d))), np.zeros(R, dtype=np.int64)
    if scheme in ("per_round", "per_batch"):
        inc = raw["increments"]
        table = np.zeros((R, inc.shape[1]))
        # refresh r sees the draws of the r rounds / batches completed before it
        np.cumsum(inc[: R - 1], axis=0, out=table[1:])
        return table, np.arange(R, dtype=np.int64)
    if scheme == "standin":
        table = np.cumsum(raw["nodes"], axis=0)
        return table, standin_count(policy.refresh_rounds()).astype(np.int64) - 1
    if scheme == "tree":
        table = tree_prefix_noise(raw["levels"], policy.n_batches)[:R]
        return table, np.arange(R, dtype=np.int64)
    raise ValueError(f"scheme {scheme!r} has no noise table")


def noise_tables(
    policy: Policy, n: int, raw_of: Callable[[int], dict[str, object]]
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`noise_table` of ``n`` trials stacked, shape ``(n, Q, E)``: the same values bit for
    bit, and the same index.

    ``raw_of(i)`` gives trial ``i``'s :func:`draw_raw` (called once per trial, in order, so a
    caller may draw them one at a time). The per-round, per-batch and tree schemes' tables are
    written into the stacked array by compiled loops (:func:`~dpbandits.engine.kernels.
    prefix_rows`, :func:`~dpbandits.engine.kernels.tree_rows`): the same additions in the same
    order as :func:`noise_table`, without a table per trial and a copy of all of them.
    ``n >= 1``.
    """
    scheme = policy.scheme
    R = policy.n_refresh
    if scheme in ("per_round", "per_batch"):
        table, index = None, np.arange(R, dtype=np.int64)
        for i in range(n):
            inc = raw_of(i)["increments"]
            if inc.shape[0] < R - 1:
                raise ValueError(f"{inc.shape[0]} increments for {R} refreshes")
            if table is None:
                table = np.empty((n, R, inc.shape[1]))
            prefix_rows(np.ascontiguousarray(inc), table[i])
        return table, index
    if scheme == "tree":
        leaves = policy.n_batches
        rows = min(R, leaves + 1)  # noise_table: tree_prefix_noise(...)[:R]
        node, parent = tree_recursion(leaves)
        table = None
        for i in range(n):
            flat = np.concatenate(raw_of(i)["levels"])
            if table is None:
                table = np.empty((n, rows, flat.shape[1]))
            tree_rows(flat, node, parent, table[i])
        return table, np.arange(R, dtype=np.int64)
    tabs = [noise_table(policy, raw_of(i)) for i in range(n)]
    return np.stack([tab for tab, _ in tabs]), tabs[0][1]
