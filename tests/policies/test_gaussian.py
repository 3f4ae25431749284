"""Gaussian-mechanism policies (policies/gaussian.py): the noise scheme and convention, the
returning-users noise scales and the theorems' conditions at their boundaries
(docs/mutation.md).

(tests/mechanisms/test_gaussian.py is the file of mechanisms/gaussian.py.)
"""

import math

import pytest

from dpbandits.policies import Quirks, Setting, make_policy

SCRIPT = Quirks.from_fidelity("script")
CORRECTED = Quirks.from_fidelity("corrected")
# relative step around a theorem's boundary: far above rounding (1e-16), far below any change of
# a constant of the condition (a wrong constant moves a boundary by several per cent)
EDGE = 1e-9


def _conditions(alg, st):
    return dict(make_policy(alg, st, "theory").conditions())


def _only(conds, key):
    (ok,) = [v for name, v in conds.items() if key in name]
    return ok


@pytest.mark.parametrize(
    "alg,B,scheme",
    [
        ("ldp", 20, "per_round"),
        ("batched_ldp", 1, "per_round"),
        ("batched_ldp", 20, "per_batch"),
        ("sdp_amp", 20, "per_batch"),
    ],
)
def test_scheme_is_per_round_exactly_when_the_model_refreshes_every_round(alg, B, scheme):
    """Base docstring: per_round is B = 1 (one fresh draw a round), per_batch a draw a batch."""
    p = make_policy(alg, Setting(T=400, d=3, epsilon=1.0, delta=0.1, B=B), "experiment", SCRIPT)
    assert p.scheme == scheme


def test_experiment_convention_follows_the_half_sum_quirk():
    """Quirk (4): the script symmetrises Gaussian matrix noise as (W + W^T)/2; corrected and
    theory use Alg. 2's mirrored upper triangle."""
    st = Setting(T=400, d=3, epsilon=1.0, delta=0.1, B=20)
    assert make_policy("sdp_amp", st, "experiment", SCRIPT).convention == "half_sum"
    assert make_policy("sdp_amp", st, "experiment", CORRECTED).convention == "upper_mirror"
    assert make_policy("sdp_amp", st, "theory", SCRIPT).convention == "upper_mirror"


# Returning users at epsilon = 4, delta = 2/e (ln(2/delta) = 1), T = 40, B = 20 (M = 2):
# per-batch budget eps_m = 4/(2 sqrt(2 * 2 * 1)) = 1, delta_m = delta/(2M) = 1/(2e).
RU = Setting(T=40, d=3, epsilon=4.0, delta=2 / math.e, B=20)


def test_returning_users_experiment_noise_is_table_e_at_the_per_batch_budget():
    """Table E's s = sqrt(ln(2.5 B/delta_m))/(eps_m sqrt(B)); 2.5 B/delta_m = 50 * 2e = 100 e,
    so s = sqrt(1 + ln 100)/sqrt(20)."""
    p = make_policy("sdp_amp_ru", RU, "experiment", SCRIPT)
    want = math.sqrt(1 + math.log(100)) / math.sqrt(20)
    assert p.consts["s"] == pytest.approx(want, rel=1e-12)


def test_returning_users_theory_sigma_stated_and_substituted_forms():
    """Thm. 4.2(i) as printed: 16 ln(2/delta) sqrt(T ln(5T/delta))/(eps B), 5T/delta = 100 e:
    16 sqrt(40 (1 + ln 100))/80. Substituted (Thm. 3.2 at the per-batch budget, docs/papers/
    cz22.md): 16 sqrt(T ln(2/delta) ln(5T/delta) ln(4M/delta))/(eps B), 4M/delta = 4 e."""
    stated = make_policy("sdp_amp_ru", RU, "theory", sigma_form="stated")
    want = 16 * math.sqrt(40 * (1 + math.log(100))) / 80
    assert stated.consts["sigma"] == pytest.approx(want, rel=1e-12)
    subst = make_policy("sdp_amp_ru", RU, "theory")
    want = 16 * math.sqrt(40 * (1 + math.log(100)) * (1 + math.log(4))) / 80
    assert subst.consts["sigma"] == pytest.approx(want, rel=1e-12)
    with pytest.raises(ValueError, match="sigma_form must be"):
        make_policy("sdp_amp_ru", RU, "theory", sigma_form="printed")


def test_ldp_condition_is_epsilon_at_most_one():
    """Prop. F.1 (Gaussian mechanism): epsilon <= 1, the end point included."""
    for eps, ok in [(1.0, True), (1.5, False)]:
        conds = _conditions("ldp", Setting(T=100, d=3, epsilon=eps, delta=0.1))
        assert _only(conds, "epsilon <= 1") is ok


def test_amp_lemma_b4_condition_uses_delta_over_two():
    """Thm. 3.2 applies Lemma B.4 with delta' = delta/2 to eps_0 = eps sqrt(B)/sqrt(ln(2/delta)):
    eps_0 <= ln(B/(16 ln(4/delta))). At delta = 4/e^2 (ln(4/delta) = 2, ln(2/delta) = 2 - ln 2)
    and B = 320 the right side is ln 10, so the boundary is eps = ln 10 sqrt(2 - ln 2)/sqrt(320)."""
    B, delta = 320, 4 * math.exp(-2)
    edge = math.log(10) * math.sqrt(2 - math.log(2)) / math.sqrt(B)
    for eps, ok in [(edge * (1 - EDGE), True), (edge * (1 + EDGE), False)]:
        conds = _conditions("sdp_amp", Setting(T=2 * B, d=3, epsilon=eps, delta=delta, B=B))
        assert _only(conds, "Lemma B.4") is ok


def test_returning_users_range_condition_boundary():
    """Thm. E.3: epsilon <= (2/B) ln(2/delta) sqrt(2T); at delta = 2/e, T = 50, B = 10 that is
    (2/10) * 1 * 10 = 2."""
    for eps, ok in [(2 * (1 - EDGE), True), (2 * (1 + EDGE), False)]:
        st = Setting(T=50, d=3, epsilon=eps, delta=2 / math.e, B=10)
        assert _only(_conditions("sdp_amp_ru", st), "Thm. E.3 range") is ok


def test_returning_users_lemma_b4_condition_per_batch_boundary():
    """Lemma B.4 per batch: eps_0 = eps_m sqrt(B)/sqrt(ln(2/delta_m)) <= ln(B/(16 ln(2/delta')))
    with delta' = delta_m/2, eps_m = eps/(2 sqrt(2 M ln(2/delta))), delta_m = delta/(2M). At
    delta = 16/e^3, M = 2, B = 200: ln(2/delta') = ln(16/delta) = 3, ln(2/delta_m) = 3 - ln 2,
    ln(2/delta) = 3 - ln 8; the right side is ln(200/48), so the boundary is
    eps = ln(25/6) sqrt(3 - ln 2)/sqrt(200) * 2 sqrt(4 (3 - ln 8))."""
    B, delta = 200, 16 * math.exp(-3)
    edge = (
        math.log(25 / 6)
        * math.sqrt(3 - math.log(2))
        / math.sqrt(B)
        * 2
        * math.sqrt(4 * (3 - math.log(8)))
    )
    for eps, ok in [(edge * (1 - EDGE), True), (edge * (1 + EDGE), False)]:
        st = Setting(T=2 * B, d=3, epsilon=eps, delta=delta, B=B)
        assert _only(_conditions("sdp_amp_ru", st), "Lemma B.4") is ok
