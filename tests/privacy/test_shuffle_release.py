"""The shuffled sums' releases (privacy/shuffle_release.py): the exact count distribution of the
shuffle protocol, the scale invariance of DP-DPE's shuffle view, and its privatizer and width
names read at run time (compared by value; docs/mutation.md)."""

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy.stats import binom

from dpbandits.mechanisms.shuffle_sum import scalar_params
from dpbandits.policies import Setting, make_policy
from dpbandits.privacy.shuffle_release import count_pmf_pair, dpdpe_release


def test_count_pmf_pair_is_exact_for_a_few_trials():
    # N = n b = 2 binomial trials: the +-14 sd window covers every count, so each distribution
    # is the exact law of floor(z) + Bernoulli(frac z) + Binomial(N, p) (total mass 1)
    prm = replace(scalar_params(100.0, 0.5, 1, 0.3), b=2, p=0.3)
    N = prm.n * prm.b
    assert N == 2
    p_lo, p_hi = count_pmf_pair(prm, -0.2, 0.25)
    for y, got in ((-0.2, p_lo), (0.25, p_hi)):
        z = (y + prm.shift) * prm.g / prm.scale
        f, q = math.floor(z), z - math.floor(z)
        law = np.convolve([1.0 - q, q], binom.pmf(np.arange(N + 1), N, prm.p))
        want = {f + k: v for k, v in enumerate(law) if v > 0}
        assert set(got) == set(want)
        assert all(got[k] == pytest.approx(want[k], rel=1e-12) for k in want)
        assert sum(got.values()) == pytest.approx(1.0, rel=1e-12)


# DP-DPE's shuffle view (dpdpe): a setting where it is not 0 at the query delta
_DPE = Setting(T=2**14, d=2, epsilon=30.0, delta=0.01, K=2)
_QUERY = 1e-6


def _dpe_epsilon(policy):
    return dpdpe_release(policy).extra["epsilon_at"](_QUERY)


def test_dpdpe_shuffle_view_does_not_depend_on_the_reward_unit():
    # reports clipped to [-B, B]^s and encoded on [-B sqrt s, B sqrt s] (Eq. 19, Delta2 =
    # B sqrt s): z = (y + Delta2) g / (2 Delta2) is invariant under y, B -> c y, c B, and g, b, p
    # do not depend on B. c = 2 is exact in floating point.
    one = _dpe_epsilon(make_policy("sdp_dpe", _DPE))
    two = _dpe_epsilon(make_policy("sdp_dpe", _DPE, reward_bound=2.0))
    assert one > 0.05 and two == pytest.approx(one, rel=1e-12)


def test_dpdpe_shuffle_names_read_at_run_time_are_compared_by_value():
    # a privatizer or width name built at run time (e.g. read from a configuration file) gives
    # the same accounting as the literal: the same function of the same arguments (computing the
    # s1 view's epsilon takes seconds, so the release's accounting calls are compared)
    def accounting(**opts):
        f = dpdpe_release(make_policy("sdp_dpe", _DPE, **opts)).extra["epsilon_at"]
        return f.func, f.args

    literal = accounting()
    assert accounting(width="faithful") == literal
    s1 = accounting(width="s1")
    assert s1 != literal  # eps_hat = eps: the s1 diagnostic is another protocol
    assert accounting(width="".join(["s", "1"])) == s1
    policy = make_policy("sdp_dpe", _DPE)
    policy.privatizer = "".join(["shu", "ffle"])
    f = dpdpe_release(policy).extra["epsilon_at"]
    assert (f.func, f.args) == literal


def test_one_support_action_in_every_phase_shows_a_grids_match_is_not_private():
    """The lower bound of DP-DPE's shuffle protocol takes one support action in every phase that
    reports: at internal epsilon 1218.9 (where a grid of phases and sizes had matched epsilon 14)
    phase 5 (16 clients, b = 2) has no finite epsilon at delta 1/4, off the grid's phases; at the
    label (epsilon 10) the pair tells nothing apart."""
    from dpbandits.privacy.shuffle_release import _every_phase_lower

    # 18 phases report at T = 10^6 (h1 = 2)
    assert math.isinf(_every_phase_lower(1218.887313634455, 0.25, 1.0, 0.8, None, 1.0, 18, 0.25))
    assert _every_phase_lower(10.0, 0.25, 1.0, 0.8, None, 1.0, 18, 0.25) == 0.0
    # the planted part is phase 5: without it the pair tells less
    assert math.isfinite(_every_phase_lower(1218.887313634455, 0.25, 1.0, 0.8, None, 1.0, 4, 0.25))


def test_dp_pe_is_certified_over_every_user_count_up_to_the_horizon():
    from dpbandits.privacy import every_count

    setting = Setting(T=5000, d=3, epsilon=40.0, delta=0.1, K=10)
    release = dpdpe_release(make_policy("sdp_pe", setting, reward_bound=20.0))
    assert release.certified and "every user count" in release.mechanism
    value = release.extra["epsilon_at"](0.1)
    # the whole certificate is its largest part: none is above it, one reaches it
    top, parts = release.extra["worst_parts"](0.1)
    (label,) = parts
    assert top == value == release.extra["epsilon_parts"][label](0.1)
    counts = np.arange(1, 5001)
    assert value == every_count.count_epsilons(40.0, 0.1, 20.0, 1.0, counts, 0.1).max()
    assert len(release.extra["epsilon_parts"]) == 5000
    # the lower bound (exact counts of the extreme pair) stays below it
    assert release.extra["lower_at"](0.1) <= value
