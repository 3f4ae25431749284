"""``noise_tables``: the stacked noise tables the Gaussian kernels read, written in place by
compiled loops, must be the per-trial ``noise_table`` results stacked, bit for bit (every
simulated number depends on them)."""

import numpy as np
import pytest

from dpbandits.engine.noise import draw_raw, noise_table, noise_tables
from dpbandits.policies import Setting, make_policy

CASES = [
    ("ldp", 1, 200),  # per_round
    ("sdp_amp", 1, 37),  # per_round, odd horizon
    ("ldp", 20, 200),  # per_batch (period B)
    ("sdp_amp", 8, 64),  # per_batch
    ("jdp_tree", 1, 200),  # tree over rounds
    ("jdp_tree", 20, 200),  # tree over batches
    ("batched_jdp", 7, 21 * 7),  # tree over 21 batches (not a power of two)
    ("jdp_user", 1, 33),  # tree
    ("jdp_standin", 1, 200),  # standin (stacked per trial)
    ("linucb", 1, 50),  # no noise
]


@pytest.mark.parametrize("algorithm,B,T", CASES)
def test_stacked_tables_are_the_per_trial_tables(algorithm, B, T):
    policy = make_policy(algorithm, Setting(T=T, d=3, epsilon=1.0, delta=0.1, B=B))
    raws = [draw_raw(policy, np.random.default_rng([5, i])) for i in range(4)]
    one = [noise_table(policy, raw) for raw in raws]
    table, index = noise_tables(policy, len(raws), raws.__getitem__)
    expected = np.stack([t for t, _ in one])
    assert table.shape == expected.shape and table.dtype == expected.dtype
    assert table.tobytes() == expected.tobytes()  # bit for bit, signed zeros included
    assert np.array_equal(index, one[0][1])


def test_negative_zero_increments_keep_numpy_bits():
    """``numpy.cumsum`` copies the first row (a ``-0.0`` stays ``-0.0``) and adds from the
    second; the tree adds every node to a zero row (``0.0 + -0.0 = 0.0``): both as numpy."""
    for algorithm in ("ldp", "jdp_tree"):
        policy = make_policy(algorithm, Setting(T=16, d=2, epsilon=1.0, delta=0.1))
        raw = draw_raw(policy, np.random.default_rng(0))
        for value in raw.values():
            arrays = value if isinstance(value, list) else [value]
            for a in arrays:
                a[...] = -0.0  # the first rows: the first increment, node (j, 1) of a level
                a[3:] = np.arange(1.0, 1.0 + a[3:].size).reshape(a[3:].shape)
        expected = noise_table(policy, raw)[0]
        table = noise_tables(policy, 1, [raw].__getitem__)[0][0]
        assert table.tobytes() == expected.tobytes()


def test_too_few_increments_are_refused():
    policy = make_policy("ldp", Setting(T=50, d=2, epsilon=1.0, delta=0.1))
    raw = draw_raw(policy, np.random.default_rng(0))
    raw["increments"] = raw["increments"][:10]
    with pytest.raises(ValueError, match="increments"):
        noise_tables(policy, 1, [raw].__getitem__)
