"""Packing of a vector and a symmetric matrix into ``d + d(d+1)/2`` entries: the layout (the
vector, then the upper triangle row by row), leading batch axes kept by ``pack`` and ``unpack``,
and each row of a batch mirrored into its own matrix (docs/mutation.md)."""

import numpy as np

from dpbandits.mechanisms.packing import n_entries, pack, unpack


def _layout(v, M):
    # the module docstring's layout, written out by hand: the d vector entries, then the upper
    # triangle i <= j in row-major order
    d = len(v)
    return [*v, *(M[i][j] for i in range(d) for j in range(i, d))]


def test_pack_and_unpack_keep_leading_batch_axes():
    """``pack`` takes ``(..., d)`` and ``(..., d, d)`` and returns ``(..., E)``; ``unpack`` inverts
    it on any batch shape. Batch (2, 3) with d = 4 (neither batch size equals d or E = 14), exact
    since only copies are made."""
    d, batch = 4, (2, 3)
    rng = np.random.default_rng(0)
    vec = rng.normal(size=batch + (d,))
    A = rng.normal(size=batch + (d, d))
    mat = A + np.swapaxes(A, -1, -2)
    packed = pack(vec, mat)
    assert packed.shape == batch + (n_entries(d),) == (2, 3, 14)
    for a in range(2):
        for b in range(3):
            assert packed[a, b].tolist() == _layout(vec[a, b].tolist(), mat[a, b].tolist())
    v2, m2 = unpack(packed, d)
    assert v2.shape == batch + (d,) and m2.shape == batch + (d, d)
    assert np.array_equal(v2, vec) and np.array_equal(m2, mat)


def test_unpack_one_batch_axis_mirrors_each_row():
    # d = 2: rows (v0, v1, m00, m01, m11); three rows, a different matrix in each
    packed = np.array([[1.0, 2.0, 3.0, 4.0, 5.0], [0.0, 0.0, 1.0, 0.0, 1.0], [6, 7, 8, 9, 10]])
    vec, mat = unpack(packed, 2)
    assert vec.tolist() == [[1, 2], [0, 0], [6, 7]]
    assert mat.tolist() == [[[3, 4], [4, 5]], [[1, 0], [0, 1]], [[8, 9], [9, 10]]]
