"""dpbandits.normals: the compiled fill returns NumPy's own standard normals, in NumPy's order,
and leaves the generator where NumPy's call leaves it (the seeds stay the one source of every
number, and the canonical run does not move)."""

import numpy as np
import pytest

from dpbandits import normals
from dpbandits.normals import MIN_COMPILED, standard_normal

#: Where NumPy's 256-level ziggurat starts its tail (``ziggurat_nor_r`` in NumPy's
#: distributions.c): a draw beyond it comes from the tail's rejection loop (two log1p calls).
ZIGGURAT_R = 3.6541528853610088

#: The project draws from PCG64 (``seeds.py``, the papers' streams); the others are checked too,
#: since the fill goes through whichever bit generator the Generator holds.
BIT_GENERATORS = [
    np.random.PCG64,
    np.random.PCG64DXSM,
    np.random.Philox,
    np.random.SFC64,
    np.random.MT19937,
]


def _pair(bit_generator, seed=20261127):
    return np.random.Generator(bit_generator(seed)), np.random.Generator(bit_generator(seed))


def _same_state(a, b) -> bool:
    """Equal bit-generator states (nested dicts holding ints and arrays)."""

    def same(x, y):
        if isinstance(x, dict):
            return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
        if isinstance(x, np.ndarray):
            return np.array_equal(x, y)
        return x == y

    return same(a.bit_generator.state, b.bit_generator.state)


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS, ids=lambda b: b.__name__)
def test_a_long_draw_is_numpys_through_the_wedges_and_the_tail(bit_generator):
    """2^22 draws: about 1100 land beyond the ziggurat's tail start, several thousand come out of
    the wedges' rejection test; a branch computed otherwise would move every later draw."""
    ours, numpys = _pair(bit_generator)
    got = standard_normal(ours, 1 << 22)
    want = numpys.standard_normal(1 << 22)
    assert np.array_equal(got, want)
    assert np.count_nonzero(np.abs(want) > ZIGGURAT_R) > 500  # the tail branch was taken
    assert _same_state(ours, numpys)
    assert np.array_equal(ours.random(5), numpys.random(5))  # the next draws agree too


@pytest.mark.parametrize(
    "size", [MIN_COMPILED, (MIN_COMPILED + 7,), (97, 13, 11), (3, MIN_COMPILED)], ids=str
)
def test_shapes_and_values_match_numpy(size):
    ours, numpys = _pair(np.random.PCG64, seed=5)
    got = standard_normal(ours, size)
    want = numpys.standard_normal(size)
    assert got.shape == want.shape and got.dtype == want.dtype == np.float64
    assert np.array_equal(got, want)
    assert _same_state(ours, numpys)


def test_out_is_filled_in_place_and_returned():
    ours, numpys = _pair(np.random.PCG64, seed=6)
    out = np.full((MIN_COMPILED // 4, 4, 3), np.nan)
    assert standard_normal(ours, out=out) is out
    assert np.array_equal(out, numpys.standard_normal(out.shape))
    assert _same_state(ours, numpys)


def test_mixed_calls_small_and_large_keep_numpys_sequence():
    """Calls below the threshold go to NumPy, those above to the compiled fill: interleaved with
    each other and with other draws, the sequence is still NumPy's."""
    ours, numpys = _pair(np.random.PCG64, seed=7)
    for size in (1, MIN_COMPILED - 1, 5 * MIN_COMPILED + 3, 17, 2 * MIN_COMPILED):
        assert np.array_equal(standard_normal(ours, size), numpys.standard_normal(size))
        assert np.array_equal(ours.integers(0, 10**9, 3), numpys.integers(0, 10**9, 3))
    assert standard_normal(ours) == numpys.standard_normal()  # size None: one float, as NumPy
    assert _same_state(ours, numpys)


def test_the_compiled_fill_serves_large_draws_only(monkeypatch):
    """So that the equality tests above compare the compiled path, not NumPy with itself."""
    calls = []
    fill = normals._fill
    monkeypatch.setattr(
        normals, "_fill", lambda rng, flat: calls.append(flat.size) or fill(rng, flat)
    )
    rng = np.random.default_rng(8)
    standard_normal(rng, MIN_COMPILED - 1)
    with pytest.raises(ValueError):  # not contiguous: handed to NumPy, which refuses it
        standard_normal(rng, out=np.empty(MIN_COMPILED * 4)[::2])
    standard_normal(rng, (2, MIN_COMPILED))
    standard_normal(np.random.RandomState(8), 2 * MIN_COMPILED)  # legacy stream: NumPy's own
    assert calls == [2 * MIN_COMPILED]


def test_outputs_numpy_refuses_get_numpys_errors():
    """An ``out`` that is float32, strided or read-only is handed to NumPy, which refuses it with
    its own error, before anything is drawn; a legacy RandomState draws its own stream."""
    ours, numpys = _pair(np.random.PCG64, seed=9)
    with pytest.raises(TypeError, match="wrong type"):
        standard_normal(ours, out=np.empty(MIN_COMPILED, dtype=np.float32))
    with pytest.raises(ValueError, match="contiguous"):
        standard_normal(ours, out=np.zeros(4 * MIN_COMPILED)[::2])
    frozen = np.empty(MIN_COMPILED)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        standard_normal(ours, out=frozen)
    assert _same_state(ours, numpys)
    legacy = standard_normal(np.random.RandomState(3), 2 * MIN_COMPILED)
    assert np.array_equal(legacy, np.random.RandomState(3).standard_normal(2 * MIN_COMPILED))


def test_size_and_out_together_are_refused():
    with pytest.raises(ValueError, match="size or out"):
        standard_normal(np.random.default_rng(0), 3, out=np.empty(3))
