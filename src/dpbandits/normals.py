"""Standard normal draws of a NumPy ``Generator``, faster for large arrays, the same numbers.

:func:`standard_normal` returns exactly the numbers ``rng.standard_normal(size)`` returns, in the
same order, and leaves ``rng`` in the same state: the seeds stay the one source of every number,
and the canonical run does not move. For an array of at least :data:`MIN_COMPILED` entries it
fills the array in a compiled loop with numba's implementation of ``Generator.standard_normal``,
which is a port of NumPy's C code (the same 256-level ziggurat, the same calls to the
generator's own bit generator, the same arithmetic); smaller draws go to NumPy, whose call is
cheaper than numba's hand-over of the generator.

A normal drawn in the compiled loop costs less than NumPy's, but handing the generator over
costs a fixed time per call: :data:`MIN_COMPILED` is where the two break even (timings:
docs/performance.md). The equality
with NumPy (every number and the generator's state after) is checked by
``tests/test_normals.py`` on every bit generator NumPy offers and on enough draws to pass through
the ziggurat's rare branches (the wedges and the tail).

Unlike NumPy's call, the compiled loop does not take the bit generator's lock: a generator must
not be shared between threads while it draws (the pipeline's jobs are single-threaded).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Draws below this many entries are left to NumPy: numba's hand-over of a ``Generator`` (about
#: 12 µs) costs as much as the compiled loop saves on ~8000 draws (module docstring).
MIN_COMPILED = 8192


@njit(cache=True)
def _fill(rng, flat):
    """``flat[i] = rng.standard_normal()`` for ``i = 0, 1, ...`` (numba's Generator support)."""
    for i in range(flat.size):
        flat[i] = rng.standard_normal()


def standard_normal(
    rng: np.random.Generator, size: int | tuple[int, ...] | None = None, *, out=None
) -> np.ndarray | float:
    """``rng.standard_normal(size)`` or ``rng.standard_normal(out=out)``, the same numbers.

    Parameters
    ----------
    rng : numpy.random.Generator
        The stream; advanced exactly as NumPy's own call advances it.
    size : int or tuple of int, optional
        Shape of the draw (float64). ``None`` with ``out=None``: one float, as NumPy.
    out : ndarray, optional
        Written in place instead of a new array (not with ``size``). An array that is not
        float64, C-contiguous and writable is handed to NumPy, which fills or rejects it.

    Returns
    -------
    ndarray or float
        The draws (``out`` itself when given).
    """
    if out is None:
        if size is None or not isinstance(rng, np.random.Generator):
            return rng.standard_normal(size)
        out = np.empty(size)
    elif size is not None:
        raise ValueError("standard_normal: give size or out, not both")
    if (
        out.size < MIN_COMPILED
        or not isinstance(rng, np.random.Generator)
        or out.dtype != np.float64
        or not out.flags.c_contiguous
        or not out.flags.writeable
    ):
        return rng.standard_normal(out=out)
    _fill(rng, out.reshape(-1))
    return out
