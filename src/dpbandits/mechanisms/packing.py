"""Packed layout of one (vector, symmetric matrix) statistic.

Algorithm 1 of CZ22 releases a vector ``phi*y`` (d entries) and a symmetric matrix
``phi phi^T`` (d(d+1)/2 free entries). Noise and messages are stored packed: the ``d`` vector
entries first, then the upper triangle ``i <= j`` in row-major order.
"""

from __future__ import annotations

import numpy as np


def n_entries(d: int) -> int:
    """Number of packed entries, ``d + d(d+1)/2``."""
    return d + d * (d + 1) // 2


def triu_pairs(d: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the upper triangle, row-major."""
    return np.triu_indices(d)


def is_diagonal(d: int) -> np.ndarray:
    """Boolean mask over the matrix part of the packed layout: True on the diagonal."""
    i, j = triu_pairs(d)
    return i == j


def pack(vec: np.ndarray, mat: np.ndarray) -> np.ndarray:
    """Pack ``(..., d)`` vectors and ``(..., d, d)`` symmetric matrices into ``(..., E)``."""
    d = vec.shape[-1]
    i, j = triu_pairs(d)
    return np.concatenate([vec, mat[..., i, j]], axis=-1)


def unpack(packed: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of :func:`pack`: the vector part and the mirrored symmetric matrix."""
    vec = packed[..., :d]
    i, j = triu_pairs(d)
    mat = np.zeros(packed.shape[:-1] + (d, d))
    mat[..., i, j] = packed[..., d:]
    mat[..., j, i] = packed[..., d:]
    return vec, mat
