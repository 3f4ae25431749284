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


# -- a grid of its parts is no certificate above 0 (DP-PE's user counts) ---------------------


@pytest.mark.parametrize(
    "value,everywhere,verdict",
    [(0.0, True, "DELIVERED"), (0.0, False, "NOT-CERTIFIED"), (0.5, True, "NOT-CERTIFIED")],
)
def test_a_grid_release_reads_delivered_only_at_zero_everywhere(value, everywhere, verdict):
    from dpbandits.audit.privacy import release_bounds
    from dpbandits.privacy.release import Release

    release = Release(
        "a protocol of parts",
        (),
        extra={
            "epsilon_at": lambda delta: value,
            "lower_at": lambda delta: 0.0,
            "grid": "the largest over a grid of its parts",
            "zero_everywhere": lambda delta: everywhere,
        },
    )
    b = release_bounds(release, 1.0, 0.1)
    assert b["verdict"] == verdict and b["delivered_epsilon"] == value
    assert ("not a certificate" in b["how"]) == (verdict != "DELIVERED")
    # the release's own lower bound (0 here) is computed where the certificate does not decide
    assert math.isnan(b["lower_epsilon"]) == (verdict == "DELIVERED")


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


def test_dp_pe_reads_zero_everywhere_only_where_every_user_count_is_within_delta():
    from dpbandits.privacy.shuffle_release import zero_everywhere_pe

    # Figure 2's label (epsilon 10, delta 1/4) up to 10^6 users: every count within delta
    assert zero_everywhere_pe(10.0, 0.25, 1.0, 1.0, 10**6, 0.25)
    # planted: at internal epsilon 30 the shift is seen
    assert not zero_everywhere_pe(30.0, 0.25, 1.0, 1.0, 10**6, 0.25)
