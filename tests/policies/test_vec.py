"""SDP-Vec policies (policies/vec.py): the theory noise proxy and encoding range, Thm. 3.5's
range conditions at their end points and calibration names built at run time
(docs/mutation.md).

(tests/mechanisms/test_vec.py is the file of mechanisms/vec.py.)
"""

import math

import pytest

from dpbandits.policies import Quirks, Setting, make_policy
from dpbandits.policies.vec import SDPVec

SCRIPT = Quirks.from_fidelity("script")

# Thm. C.1 at d = 2, B = 4, delta = 0.1 and a very large epsilon = 6000, where every constant is
# small enough to follow by hand: g = max(2 sqrt 4, 2, 4) = 4,
# b = ceil(24e4 * 16 * ln^2(4 * 5/0.1)/(6000^2 * 4)) = ceil(0.749) = 1, p = 1/4; T = 32, M = 8.
SMALL = Setting(T=32, d=2, epsilon=6000.0, delta=0.1, B=4)


def _runtime(name):
    """The same text as a literal, but a distinct object (as names read from YAML are)."""
    return "".join(list(name))


def test_theory_sigma_tilde_is_the_hoeffding_proxy_of_all_bits():
    """Each of the T users sends b + 1 bits in [0, 1] (proxy 1/4 each), scaled by 1/g:
    sigma~ = sqrt(T (b + 1))/(2 g) = sqrt(32 * 2)/8 = 1 in SMALL."""
    p = SDPVec(SMALL, calibration="theory")
    assert (p.vec.g, p.vec.b, p.vec.p) == (4.0, 1.0, 0.25)
    assert p.consts["sigma_tilde"] == pytest.approx(1.0, rel=1e-12)


def test_theory_encodes_on_the_unit_range_whatever_the_instance():
    """Thm. C.1 encodes with Delta = 1; the script with Delta = L. The binomial noise over all
    batches is (Delta/g) sqrt(B b p(1-p)) sqrt(M) = (1/4) sqrt(4 * 3/16) sqrt(8) = sqrt(6)/4 at
    Delta = 1 in SMALL, for any L."""
    p = SDPVec(SMALL, calibration="theory")
    assert p.encoding_range(2.0) == 1.0
    assert p.cumulative_noise_std(2.0) == pytest.approx(math.sqrt(6) / 4, rel=1e-12)
    assert SDPVec(SMALL, calibration="experiment", quirks=SCRIPT).encoding_range(2.0) == 2.0


@pytest.mark.parametrize(
    "eps,delta,eps_ok,delta_ok",
    [(1.0, 0.1, True, True), (15.0, 0.4, True, True), (15.000001, 0.5, False, False)],
)
def test_theorem_3_5_range_conditions_at_their_end_points(eps, delta, eps_ok, delta_ok):
    """Thm. 3.5: epsilon <= 15 (end point included) and delta < 1/2 (excluded)."""
    st = Setting(T=32, d=2, epsilon=eps, delta=delta, B=4)
    conds = dict(make_policy("sdp_vec", st, "theory").conditions())
    assert conds["Thm. 3.5 range epsilon <= 15"] is eps_ok
    assert conds["Thm. 3.5 range delta < 1/2"] is delta_ok


@pytest.mark.parametrize("alg", ["sdp_vec", "sdp_vec_ru"])
@pytest.mark.parametrize("calibration", ["experiment", "theory"])
def test_calibration_names_built_at_run_time_give_the_same_constants(alg, calibration):
    """Names read from a configuration file are equal to, not identical with, the literals."""
    st = Setting(T=400, d=3, epsilon=1.0, delta=0.1, B=20)
    lit = make_policy(alg, st, calibration, SCRIPT)
    run = make_policy(alg, st, _runtime(calibration), SCRIPT)
    assert run.constants() == lit.constants()
    assert run.encoding_range(2.0) == lit.encoding_range(2.0)


# Cor. C.3 at d = 5, delta0 = 0.1, eps0 = 1 by hand: g = max{5, 4} = 5, ln(4 * 26/0.1) = ln 1040
# = 6.946976, b = 24e4 * 25 * 6.946976^2 = 6e6 * 48.26049 = 2.895629e8 (rounded up).
COR_C3 = dict(T=40320, d=5, epsilon=1.0, delta=0.1)


@pytest.mark.parametrize("B", [1, 20, 2880])
def test_the_privacy_target_calibrates_one_users_bits_at_every_batch_size(B):
    """Cor. C.3: g = max{d, 4} and b without Thm. C.1's 1/B, the same at every B; the stated
    local level is (eps0, delta0) itself."""
    p = make_policy("sdp_vec", Setting(B=B, **COR_C3), "theory", target="privacy")
    assert p.vec.g == 5.0
    assert p.vec.b == pytest.approx(2.895629e8, rel=1e-6)
    assert float(p.vec.b).is_integer()
    assert p.stated_local_level() == (1.0, 0.1)
    assert dict(p.conditions()) == {
        "Cor. C.3 range epsilon_0 <= 15": True,
        "Cor. C.3 range delta_0 < 1/2": True,
        "Cor. C.3 needs integer b": True,
    }
    # the utility target at the same B: Thm. C.1's b carries 1/B and g = max{2 sqrt B, d, 4}
    u = make_policy("sdp_vec", Setting(B=B, **COR_C3), "theory")
    assert u.stated_local_level() == pytest.approx((math.sqrt(B), 0.1))
    assert (u.vec.g, u.vec.b) == ((5.0, p.vec.b) if B == 1 else (u.vec.g, u.vec.b))
    if B > 1:
        assert u.vec.b < p.vec.b


def test_the_privacy_target_is_refused_where_cor_c3_does_not_apply():
    """Only the theory calibration of the unique-user protocol has Cor. C.3's form."""
    st = Setting(B=20, **COR_C3)
    with pytest.raises(ValueError, match="target 'privacy' .* theory calibration"):
        make_policy("sdp_vec", st, "experiment", target="privacy")
    with pytest.raises(ValueError, match="target must be one of utility, privacy"):
        make_policy("sdp_vec", st, "theory", target="local")
    with pytest.raises(ValueError, match="unknown option"):
        make_policy("sdp_vec_ru", st, "theory", target="privacy")
