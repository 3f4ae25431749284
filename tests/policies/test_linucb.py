"""Non-private LinUCB (policies/linucb.py): the theory radius by hand, the op24 calibration's
metadata and calibration names built at run time (docs/mutation.md)."""

import math

import numpy as np
import pytest

from dpbandits.policies import Quirks, Setting
from dpbandits.policies.linucb import LinUCB

SCRIPT = Quirks.from_fidelity("script")


def _runtime(name):
    """The same text as a literal, but a distinct object (as names read from YAML are)."""
    return "".join(list(name))


def test_theory_radius_is_the_noiseless_explicit_radius_at_alpha_one_over_t():
    """Spec §3.10 with sigma~ = 0: Sigma_N = Sigma_n = nu = 0, lambda = lambda_min = lambda_max = 1,
    so beta_t = R sqrt(2 ln(2/alpha) + d ln(1 + t L^2/d)) + S with R = 1/2, S = L = 1 and
    alpha = 1/T. At T = 4, d = 2: 2 ln(2T) = 6 ln 2 and d ln(1 + t/d) = 2 ln 2 at t = 2, so the
    radius is 1/2 sqrt(6 ln 2) + 1 at round 0 and 1/2 sqrt(8 ln 2) + 1 at round 2."""
    p = LinUCB(Setting(T=4, d=2), calibration="theory")
    assert p.lam == 1.0
    r = p.radius(1.0)
    assert r.shape == (4,)
    assert r[0] == pytest.approx(0.5 * math.sqrt(6 * math.log(2)) + 1, rel=1e-12)
    assert r[2] == pytest.approx(0.5 * math.sqrt(8 * math.log(2)) + 1, rel=1e-12)


def test_op24_records_delta_c_and_no_gamma():
    """op24 (JDP-LinUCB's calibration, docs/papers/op24.md): the metadata names delta_c = 0.01,
    not Gamma."""
    c = LinUCB(Setting(T=8, d=3), calibration="op24").constants()
    assert c["delta_c"] == 0.01
    assert c["lambda"] == 1.0
    assert "Gamma" not in c


def test_calibration_names_built_at_run_time_select_the_same_calibration():
    """Names read from a configuration file are equal to, not identical with, the literals."""
    st = Setting(T=16, d=3)
    exp = LinUCB(st, calibration=_runtime("experiment"), quirks=SCRIPT)
    assert exp.lam == 1e-4  # quirk 3: lambda = 1e-4 Gamma with Gamma = 1
    assert exp.consts == {"Gamma": 1.0}
    op24 = LinUCB(st, calibration=_runtime("op24"))
    ref = LinUCB(st, calibration="op24")
    assert op24.constants() == ref.constants()
    np.testing.assert_array_equal(op24.radius(1.0), ref.radius(1.0))
