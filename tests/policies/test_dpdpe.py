"""Phased elimination (policies/dpdpe.py): Table 4's shuffle noise scale by hand, the
privatizer names (unknown ones refused, run-time ones equal to the literals), Algorithm 2's
eps_hat under each width and the options each phased policy accepts (docs/mutation.md)."""

import math

import pytest

from dpbandits.policies import Setting, make_policy
from dpbandits.policies.dpdpe import dpdpe_sigma_n, pe_sigma_n, pe_sigma_ns

ST = Setting(T=10_000, d=4, epsilon=2.0, delta=0.1, K=50)
PRIVATE = ("cdp_dpe", "ldp_dpe", "sdp_dpe", "cdp_pe", "ldp_pe", "sdp_pe")


def _runtime(name):
    """The same text as a literal, but a distinct object (as names read from YAML are)."""
    return "".join(list(name))


def test_pe_shuffle_sigma_n_at_hand_computed_values_is_linear_in_d():
    """Table 4, shuffle: 2 d sigma_ns sqrt(s)/h, sigma_ns the Hoeffding std of Algorithm 4's
    sum for the largest batch. Algorithm 4 at eps/2 = 1, delta = 0.1, B = 1 (ln(2/delta) = ln 20
    = 2.995732): n = 2: g = ceil(2 sqrt 2) = 3, b = ceil(180 * 9 ln 20 / 2) = ceil(2426.54) =
    2427; n = 5: g = 5, b = ceil(180 * 25 ln 20 / 5) = ceil(2696.16) = 2697. The output
    (2B/g)(ones - n b p) - nB sums n (b + 1) bits in [0, 1], each of proxy 1/4, so its proxy is
    (2/g)^2 n (b + 1)/4 = n (b + 1)/g^2: 2 * 2428/9 = 539.556 (n = 2), 5 * 2698/25 = 539.6
    (n = 5, the larger)."""
    assert pe_sigma_ns((2,), 2.0, 0.1, 1.0) ** 2 == pytest.approx(2 * 2428 / 9, rel=1e-12)
    assert pe_sigma_ns((2, 5), 2.0, 0.1, 1.0) ** 2 == pytest.approx(539.6, rel=1e-12)
    s, h = 2, 10.0
    for d in (4, 8):
        want = 2 * d * math.sqrt(539.6) * math.sqrt(s) / h
        got = pe_sigma_n("shuffle", s, h, d, 2.0, 0.1, 1.0, counts=(2, 5))
        assert got == pytest.approx(want, rel=1e-12)
    # linear in d (Table 4: the factor is 2 d, not 2/d)
    ratio = pe_sigma_n("shuffle", s, h, 8, 2.0, 0.1, 1.0, (2, 5)) / pe_sigma_n(
        "shuffle", s, h, 4, 2.0, 0.1, 1.0, (2, 5)
    )
    assert ratio == pytest.approx(2.0, rel=1e-12)


@pytest.mark.parametrize("name", ["binomial", "gaussian", "laplace", "tree", "zzz", ""])
def test_unknown_privatizers_raise(name):
    # names sorting before and after each known one ("central" < "local" < "none" < "shuffle")
    with pytest.raises(ValueError, match="unknown privatizer"):
        pe_sigma_n(name, 2, 10.0, 4, 2.0, 0.1, 1.0, counts=(2, 5))
    with pytest.raises(ValueError, match="unknown privatizer"):
        dpdpe_sigma_n(name, 2, 16, 4, 2.0, 0.1, 1.0)


@pytest.mark.parametrize("name", ["none", "central", "local", "shuffle"])
def test_privatizer_names_compared_by_value(name):
    """audit/paper_tables.py passes privatizer names read from the claims YAML: a name built at
    run time must give what the literal gives."""
    pe_args = (2, 10.0, 4, 2.0, 0.1, 1.0, (2, 5))
    assert pe_sigma_n(_runtime(name), *pe_args) == pe_sigma_n(name, *pe_args)
    dpe_args = (2, 16, 4, 2.0, 0.1, 1.0)
    assert dpdpe_sigma_n(_runtime(name), *dpe_args) == dpdpe_sigma_n(name, *dpe_args)


def test_width_s1_is_shuffle_only_also_for_runtime_names():
    for alg in ("dpe", "cdp_dpe", "ldp_dpe"):
        with pytest.raises(ValueError, match="shuffle-only"):
            make_policy(alg, ST, width=_runtime("s1"))
    make_policy("sdp_dpe", ST, width=_runtime("s1"))


@pytest.mark.parametrize("width", ["faithful", "tight", "s1"])
def test_sdp_params_eps_hat_by_width(width):
    """Algorithm 2's eps_hat = eps/(18 sqrt(ln(2/delta))) (Eq. 22) under the widths F and T;
    only the s1 diagnostic runs it at eps_hat = eps. eps = 2, delta = 0.1: ln 20 = 2.995732,
    eps_hat = 2/(18 * 1.730818) = 0.0641959."""
    p = make_policy("sdp_dpe", ST, width=width)
    want = 2.0 if width == "s1" else 2.0 / (18.0 * math.sqrt(math.log(20.0)))
    assert p.sdp_params(64, 3).eps_hat == pytest.approx(want, rel=1e-12)
    assert p.sdp_params(64, 3).eps_hat == pytest.approx(0.0641959 if width != "s1" else 2, 1e-5)


@pytest.mark.parametrize("alg", PRIVATE)
def test_private_phased_policies_need_epsilon(alg):
    for eps in (None, 0.0):
        with pytest.raises(ValueError, match="epsilon must be > 0"):
            make_policy(alg, Setting(T=10_000, d=4, epsilon=eps, delta=0.1, K=50))


@pytest.mark.parametrize("alg", ["dpe", "pe"])
def test_non_private_phased_policies_need_no_epsilon(alg):
    make_policy(alg, Setting(T=10_000, d=4, K=50))


@pytest.mark.parametrize("alg", ["dpe", "cdp_dpe", "pe", "sdp_pe"])
def test_phased_policies_have_no_width_scale(alg):
    """width_scale multiplies a per-round confidence radius; phased elimination has none."""
    with pytest.raises(ValueError, match="unknown option"):
        make_policy(alg, ST, width_scale=2.0)
