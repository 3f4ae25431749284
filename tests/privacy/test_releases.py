"""The algorithms' release descriptions (privacy/releases.py): cz22's domain check (rewards in
[0, 1]), olucb's sensitivities (diameter ``2L`` of the arm ball, reward range), the returning
user's composition over batches, and PrivateLASSO's tree named in its description
(docs/mutation.md)."""

import math
from types import SimpleNamespace

import pytest

from dpbandits.policies import Quirks, Setting, make_policy
from dpbandits.privacy import releases as rel


def _cz22_policy(alg, T=20000, eps=1.0, calibration="experiment", **opts):
    setting = Setting(T=T, d=5, epsilon=eps, delta=0.1, B=20)
    return make_policy(alg, setting, calibration, Quirks.from_fidelity("script"), **opts)


@pytest.mark.parametrize(
    "universe",
    [rel.PAPER_OLUCB, rel.Universe("u", 1.0, 0.0, 2.0), rel.instance_universe("fresh_sphere")],
)
def test_cz22_release_refuses_rewards_outside_the_unit_interval(universe):
    with pytest.raises(ValueError, match=r"assume rewards in \[0, 1\]"):
        rel.cz22_release(_cz22_policy("ldp"), universe)


@pytest.mark.parametrize(
    "universe,dx,dy",
    [
        (rel.instance_universe("script"), 2.0 * math.sqrt(2.0), 1.0),
        (rel.PAPER_OLUCB, 2.0, 2.0),
        (rel.Universe("u", 0.25, 0.0, 1.0), 0.5, 1.0),
    ],
)
def test_olucb_sensitivities_are_the_diameter_and_the_reward_range(universe, dx, dy):
    # replace-one neighbours: x, x' anywhere in the ball of radius L (sup ||x - x'|| = 2L),
    # y, y' anywhere in [r_lo, r_hi]; x~ also carries the perturbation variance Delta2
    policy = SimpleNamespace(sigma=0.7, Delta2=0.3)
    cx, cy = rel.olucb_release(policy, universe).components
    assert cx.sensitivity == pytest.approx(dx, rel=1e-15) and cy.sensitivity == dy
    assert cx.scale == pytest.approx(math.sqrt(0.49 + 0.3), rel=1e-15) and cy.scale == 0.7


def test_returning_user_composition_is_noted_only_for_several_batches():
    # T = 40, B = 20: a returning user is in M = 2 batches; without returning users M = 1
    ru = rel.cz22_release(_cz22_policy("sdp_amp_ru", T=40), rel.PAPER_CZ22)
    assert ru.components[0].count == 2 and "M = 2 batches: M-fold composition" in ru.notes
    for alg in ("ldp", "sdp_amp"):
        one = rel.cz22_release(_cz22_policy(alg, T=40), rel.PAPER_CZ22)
        assert one.components[0].count == 1 and one.notes == ""


@pytest.mark.parametrize("d,has_apex", [(2, False), (3, True), (5, True)])
def test_one_batch_shuffle_names_a_third_input_only_from_d_3(d, has_apex):
    # the third input z = L e_3 must be orthogonal to the pair x0 = (a, b), x1 = (b, a):
    # d >= 3; its sides are the whitened distances of _apex_sides at the per-user std
    setting = Setting(T=20000, d=d, epsilon=0.2, delta=0.1, B=20)
    policy = make_policy("sdp_amp", setting, "experiment", Quirks.from_fidelity("script"))
    release = rel.cz22_release(policy, rel.instance_universe("script"))
    assert "shuffle_parts" in release.extra and ("shuffle_apex" in release.extra) == has_apex
    if has_apex:
        std = policy.noise_std / math.sqrt(policy.period)
        want = rel._apex_sides(math.sqrt(2.0), std, policy.convention)
        assert release.extra["shuffle_apex"] == pytest.approx(want, rel=1e-12)


def test_plasso_release_descriptions_name_the_tree():
    const = SimpleNamespace(Gamma=-0.5)
    for alg in ("private_lasso", "svt_noise_off", "tbap_noise_off"):
        release = rel.plasso_release(alg, const)
        assert "(d+1) x (d+1) moment matrix" in release.mechanism
        assert "support-block" not in release.mechanism and not release.private
    release = rel.plasso_release("support_block_tree", const)
    assert "support-block tree" in release.mechanism and not release.private
