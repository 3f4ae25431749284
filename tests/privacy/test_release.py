"""The data bounds of a release (privacy/release.py): a universe's reward range, and each instance
family's universe against the data its environment generates (docs/mutation.md)."""

import numpy as np
import pytest

from dpbandits.envs.contextual import rademacher_rewards
from dpbandits.envs.linear import make_instances
from dpbandits.envs.rewards import bernoulli_reward_table
from dpbandits.privacy import release


def test_reward_range_is_the_length_of_the_interval():
    assert release.Universe("u", 1.0, -1.0, 1.0).reward_range == 2.0
    assert release.Universe("u", 1.0, 0.25, 3.0).reward_range == 2.75
    assert release.PAPER_OLUCB.reward_range == 2.0 and release.PAPER_CZ22.reward_range == 1.0


@pytest.mark.parametrize(
    "family", ["script", "paper_text", "illcond", "fixed_sphere", "two_action", "fresh_sphere"]
)
def test_instance_bounds_are_those_of_the_generated_data(family):
    # the arms the environment draws lie in the ball of radius L (script: sqrt 2, attained), and
    # the rewards take exactly the values r_lo and r_hi: Bernoulli tables {0, 1} for the
    # fixed-arm families, Rademacher {-1, +1} for setting F (fresh_sphere)
    K, d = (2, 2) if family == "two_action" else (5, 4)
    opts = {"T": 100, "gap_scale": 1.0, "gap_power": 0.5} if family == "two_action" else {}
    inst = make_instances(family, 20, K, d, 3, **opts)
    u = release.instance_universe(family)
    assert inst.L.max() <= u.L * (1 + 1e-12)
    assert inst.L.max() == pytest.approx(u.L, rel=1e-12)  # every family attains its bound
    if family == "fresh_sphere":
        rng = np.random.default_rng(0)
        y = rademacher_rewards(rng.random((200, K)), rng.uniform(-0.5, 0.5, (200, K)))
    else:
        y = bernoulli_reward_table(np.clip(inst.mu[0], 0.2, 0.8), 200, 0).astype(float)
    assert (u.r_lo, u.r_hi) == (y.min(), y.max())
