"""The policy base (policies/base.py): immutable quirks, clipping of negative quadratic forms,
the reported constants and the domain of epsilon, delta and width_scale (docs/mutation.md)."""

import dataclasses
import math

import pytest

from dpbandits.policies import Quirks, Setting, make_policy

SCRIPT = Quirks.from_fidelity("script")
CORRECTED = Quirks.from_fidelity("corrected")
PRIVATE = Setting(T=100, d=3, epsilon=1.0, delta=0.1)


def test_quirks_are_immutable_and_hashable():
    """One Quirks object is shared by every policy of a run: it must not change under them."""
    q = Quirks.from_fidelity("script")
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.nan_argmax = False
    assert hash(q) == hash(Quirks()) and len({q, Quirks(), CORRECTED}) == 2


@pytest.mark.parametrize(
    "calibration,quirks,clip",
    [
        ("theory", SCRIPT, True),  # the theorems never see NaN widths
        ("experiment", SCRIPT, False),  # quirk (5): NaN indices
        ("experiment", CORRECTED, True),
        ("experiment", Quirks.from_fidelity("script", nan_argmax=False), True),
    ],
)
def test_negative_quadratic_forms_are_clipped_unless_the_nan_quirk_is_on(calibration, quirks, clip):
    assert make_policy("linucb", Setting(T=100, d=3), calibration, quirks).clip is clip


def test_constants_report_the_radius_only_for_a_given_instance():
    """Spec §4.5: LinUCB's script width at d = 5, n = 20000, L = sqrt 2 is 7.2982 (printed to
    4 decimals), fixed over the horizon (quirk 2)."""
    p = make_policy("linucb", Setting(T=20000, d=5), "experiment", SCRIPT)
    c = p.constants(math.sqrt(2))
    assert c["radius_first"] == pytest.approx(7.2982, abs=1e-4)
    assert c["radius_last"] == c["radius_first"]
    assert p.constants() == {"lambda": 1e-4, "period": 1, "Gamma": 1.0}


@pytest.mark.parametrize("eps", [0.0, -0.5])
def test_private_policies_need_a_positive_epsilon(eps):
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        make_policy("ldp", dataclasses.replace(PRIVATE, epsilon=eps))


@pytest.mark.parametrize("delta", [0.0, 1.0, 1.5])
def test_private_policies_need_delta_in_the_open_unit_interval(delta):
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\)"):
        make_policy("ldp", dataclasses.replace(PRIVATE, delta=delta))


def test_epsilon_delta_and_width_scale_accept_points_just_inside_their_domain():
    make_policy("ldp", dataclasses.replace(PRIVATE, epsilon=1e-3, delta=0.999))
    make_policy("ldp", PRIVATE, width_scale=1e-3)


def test_width_scale_must_be_positive():
    with pytest.raises(ValueError, match="width_scale must be > 0"):
        make_policy("ldp", PRIVATE, width_scale=0.0)
