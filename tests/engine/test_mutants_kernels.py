"""Tests that kill mutants left alive in engine/kernels.py (docs/mutation.md; the kernels'
mutants run with numba's JIT off).

``invert`` is the Gauss-Jordan inverse with partial pivoting every LinUCB kernel uses for its
Gram matrix. On well-conditioned matrices any pivot order gives the same inverse to rounding, so
the engine-versus-reference tests cannot tell; these two matrices can.
"""

import numpy as np

from dpbandits.engine.kernels import invert


def _invert(A):
    d = A.shape[0]
    out, work = np.zeros((d, d)), np.zeros((d, 2 * d))
    return invert(A, out, work), out


def test_a_singular_matrix_is_reported_not_inverted():
    # [[1, 2], [2, 4]]: after the first elimination step the second pivot is 4 - 2 * 2 = 0
    # exactly, so the column has no non-zero pivot
    ok, _ = _invert(np.array([[1.0, 2.0], [2.0, 4.0]]))
    assert ok is False


def test_partial_pivoting_keeps_a_tiny_leading_entry_exact():
    # A = [[e, 1], [1, 1]] with e = 1e-17 has the inverse 1/(e - 1) [[1, -1], [-1, e]], i.e.
    # [[-1, 1], [1, -e]] to rounding. Pivoting on the largest entry (1) gives it exactly;
    # pivoting on e divides by 1e-17 and loses the top-left entry entirely (0 instead of -1).
    e = 1e-17
    ok, inv = _invert(np.array([[e, 1.0], [1.0, 1.0]]))
    assert ok
    np.testing.assert_allclose(inv, [[-1.0, 1.0], [1.0, -e]], rtol=1e-12, atol=1e-15)
