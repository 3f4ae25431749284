"""Setting F's fresh arms drawn block by block into one array (envs/contextual.py) are the
numbers the plain draw gives, bit for bit, whatever the horizon's relation to the block."""

import numpy as np
import pytest

from dpbandits.envs.contextual import BLOCK_ROUNDS, fill_unit_sphere, unit_sphere


@pytest.mark.parametrize("T", [1, 7, BLOCK_ROUNDS, BLOCK_ROUNDS + 1, 3 * BLOCK_ROUNDS - 5])
@pytest.mark.parametrize("K, d", [(1, 2), (10, 5), (3, 20)])
def test_block_fill_equals_the_plain_draw_bit_for_bit(T, K, d):
    plain = unit_sphere(np.random.default_rng([2, 7, 3]), (T, K), d)
    filled = fill_unit_sphere(np.random.default_rng([2, 7, 3]), np.empty((T, K, d)))
    assert filled.shape == plain.shape
    assert np.array_equal(filled.view(np.uint64), plain.view(np.uint64))
    assert np.allclose(np.linalg.norm(filled, axis=-1), 1.0)


def test_block_fill_writes_into_a_slice_of_a_larger_array():
    out = np.zeros((2, 600, 4, 3))
    fill_unit_sphere(np.random.default_rng(1), out[1])
    assert not out[0].any()
    assert np.array_equal(out[1], unit_sphere(np.random.default_rng(1), (600, 4), 3))
