"""LinUCB on fresh decision sets (op24, Sec. 3; OP-E3 of docs/papers/op24.md): the
cumulative pseudo-regret is recorded at checkpoints, which may be any increasing rounds in
``[1, T]`` (a checkpoint at round 1 included, round 0 refused), and only the op24 calibration
runs on fresh arms (docs/mutation.md). The tree, its noise and the reduction to LinUCB are
tested in tests/papers/op24/test_fresh_linucb.py.
"""

import numpy as np
import pytest

from dpbandits.engine.fresh_linucb import simulate_fresh
from dpbandits.policies.base import Setting
from dpbandits.policies.linucb import LinUCB

from .test_adac_oful import _contexts as _trials  # unit actions and theta*, uniforms


def test_a_checkpoint_at_the_first_round_records_the_first_rounds_regret():
    # round 1: no data, so theta~ = 0 and every unit arm has the same index
    # sqrt(beta_1) ||a||_{(lambda I)^{-1}}; the lowest index (arm 0) is played and the regret is
    # max_k <a_k, theta*> - <a_0, theta*>
    T, K, d, n = 20, 4, 3, 2
    A, U, theta = _trials(n, T, K, d, 9)
    policy = LinUCB(Setting(T=T, d=d), calibration="op24")
    run = simulate_fresh(policy, A, U, theta, [None] * n, np.array([1, T]))
    np.testing.assert_array_equal(run.actions[:, 0], 0)
    means = np.einsum("ikp,ip->ik", A[:, 0], theta)
    np.testing.assert_allclose(run.regret[:, 0], means.max(axis=1) - means[:, 0], rtol=1e-12)
    # the extra checkpoint changes nothing else
    last = simulate_fresh(policy, A, U, theta, [None] * n, np.array([T]))
    np.testing.assert_array_equal(run.regret[:, 1], last.regret[:, 0])


def test_a_checkpoint_before_the_first_round_is_refused():
    T, K, d = 10, 3, 2
    A, U, theta = _trials(1, T, K, d, 1)
    policy = LinUCB(Setting(T=T, d=d), calibration="op24")
    with pytest.raises(ValueError, match="checkpoints"):
        simulate_fresh(policy, A, U, theta, [None], np.array([0, T]))


@pytest.mark.parametrize("calibration", ["experiment", "theory"])
def test_fresh_decision_sets_refuse_every_calibration_but_op24(calibration):
    # the fresh-arm widths and the eigenvalue floor are those of op24.md ([R6], [R7]); the
    # fixed-arm calibrations' tables do not apply
    T, K, d = 10, 3, 2
    A, U, theta = _trials(1, T, K, d, 1)
    policy = LinUCB(Setting(T=T, d=d), calibration=calibration)
    with pytest.raises(ValueError, match="op24"):
        simulate_fresh(policy, A, U, theta, [None], np.array([T]))
