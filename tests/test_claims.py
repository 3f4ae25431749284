"""The cz22 claims registry: every claim of the paper, and every reference resolves."""

from fractions import Fraction

import numpy as np
import pytest

from dpbandits.claims import load_claims
from dpbandits.config import load_experiment, load_yaml, nearest_divisor, resolve_schedule

from .conftest import ROOT, SCHEMAS

# The paper's claimed rates (Secs. 1, 3, 4, Apps. A-F) and privacy guarantees (Secs. 3, 4, Apps.
# B-F): every id must be in the registry.
RATE_IDS = """cz22.cite.ss18 cz22.cite.zch20 cz22.cite.mab cz22.abs.unique cz22.abs.returning
cz22.lem3.9 cz22.lemA.4 cz22.lemA.2 cz22.remA.5 cz22.rem3.10.local cz22.rem3.10.central
cz22.thm3.2 cz22.thmB.1
cz22.cor3.3 cz22.corB.2 cz22.corB.3 cz22.thm3.5 cz22.thmC.1 cz22.rem3.6 cz22.corC.2 cz22.corC.3
cz22.thm4.2.i cz22.thmE.3 cz22.corE.4 cz22.thm4.2.ii cz22.thmE.5 cz22.corE.6 cz22.prop4.3
cz22.rem4.4 cz22.propF.1 cz22.remF.2 cz22.propF.3 cz22.remF.4 cz22.sec3.2.between
cz22.sec6.comm""".split()
PRIVACY_IDS = """cz22.thm3.2.priv cz22.rem3.4.priv cz22.corB.2.priv cz22.corB.3.priv
cz22.thm3.5.priv cz22.rem3.7.priv cz22.corC.2.priv cz22.corC.3.priv cz22.lemB.4 cz22.thmE.2
cz22.thmE.3.priv cz22.thmE.5.priv cz22.propE.7.priv cz22.remD.5 cz22.propF.1.priv cz22.propF.3.priv
cz22.sec3.4.unique""".split()


@pytest.fixture(scope="module")
def claims():
    return load_claims(ROOT / "config/claims/cz22.yaml", SCHEMAS / "claims.schema.yaml")


@pytest.fixture(scope="module")
def experiment():
    cfg = load_yaml(ROOT / "config/config.yaml")
    return load_experiment(
        ROOT / "config/experiments/cz22.yaml", cfg, SCHEMAS / "experiment.schema.yaml"
    )


def test_every_rate_and_privacy_claim_of_the_paper_is_present(claims):
    ids = {c["id"] for c in claims}
    assert set(RATE_IDS) <= ids and set(PRIVACY_IDS) <= ids
    assert len(RATE_IDS) == 35 and len(PRIVACY_IDS) == 17
    kinds = {c["id"]: c["kind"] for c in claims}
    assert all(kinds[i] == "privacy" for i in PRIVACY_IDS)
    assert kinds["cz22.sec6.comm"] == "communication" and kinds["cz22.thm3.2"] == "rate"


def test_exponents_are_exact_fractions(claims):
    for c in claims:
        for key in ("T_exp", "eps_exp", "d_exp"):
            if c[key] is not None:
                Fraction(c[key])
    by_id = {c["id"]: c for c in claims}
    assert (by_id["cz22.thm3.2"]["T_exp"], by_id["cz22.thm3.2"]["eps_exp"]) == ("3/4", "-1/2")
    assert by_id["cz22.cor3.3"]["T_exp"] == "3/5" and by_id["cz22.rem4.4"]["T_exp"] == "2/3"


def test_every_audit_reference_resolves(claims, experiment):
    """Claims name experiments, sweeps, schedules, panels and series: all must exist."""
    sweeps = {s.id: s for s in experiment.sweeps}
    panels = {c.panel for c in experiment.cells}
    ids = {c["id"] for c in claims}
    for c in claims:
        a = c["audit"]
        if "none" in a:
            assert a["none"].strip(), c["id"]
            continue
        assert a["experiment"] == "cz22"
        if a["check"] in ("slope", "slope_between"):
            schedules = set(sweeps[a["sweep"]].schedules)
            named = set(a["schedules"]) | {a.get("lower"), a.get("upper")} - {None}
            assert named <= schedules, c["id"]
            if a["check"] == "slope":
                assert c["T_exp"] is not None or "T" not in a["fit"], c["id"]
        elif a["check"] == "summary":
            assert set(a["of"]) <= ids
        elif a["check"] == "communication":  # analytic: the experiment's communication section
            assert "communication" in experiment.data, c["id"]
        else:
            assert set(a["panels"]) <= panels, c["id"]


def test_every_rate_claim_with_a_stated_exponent_is_audited_or_says_why(claims):
    for c in claims:
        if c["kind"] == "rate":
            assert "none" in c["audit"] or c["audit"]["check"] == "slope", c["id"]


def test_schedules_follow_their_powers_of_T():
    assert nearest_divisor(20000, 20000**0.6) == 400
    assert nearest_divisor(2500, 2500**0.6) == 100
    assert nearest_divisor(12, 3.5) == 3  # ties go to the smaller divisor
    assert resolve_schedule({"B": {"power": "3/5"}}, 40000) == (625, {})
    assert resolve_schedule({"M": {"power": "1/3"}}, 40000) == (1250, {})  # M = 32
    assert resolve_schedule({"B": 20}, 5000) == (20, {})
    assert resolve_schedule({"options": {"M0": {"power": "1/3"}}}, 20000) == (1, {"M0": 27})


def test_sweep_cells(experiment):
    sweep = experiment.sweeps[0]
    assert sweep.T == (2520, 5040, 10080, 20160, 40320) and sweep.trials == 20
    assert len(sweep.cells_of("linucb")) == 5  # non-private: one cell per horizon
    cells = sweep.cells_of("sdp_amp_t35")
    assert len(cells) == 15 and all(c.T % c.B == 0 for c in cells)
    assert {c.instance_seed for c in sweep.cells} == {2}  # the same instances at every horizon
    assert len({c.seed_panel for c in sweep.cells}) == len({(c.epsilon, c.T) for c in sweep.cells})
    assert cells[0].path == "results/sim/cz22/rates/sdp_amp_t35/eps0.2_T2520.parquet"


def test_batch_schedules_follow_their_powers_over_the_rate_grid(experiment):
    # rounding B (or M) to a divisor of T must not bend the schedule: the log-log slope of the
    # achieved B on T stays within 0.03 of the power (the old grid gave 0.832 for 3/4)
    sweep = experiment.sweeps[0]
    lnT = np.log(np.asarray(sweep.T, dtype=float))
    for name, power in (
        ("sdp_amp_t35", 3 / 5),
        ("batched_ldp_t34", 3 / 4),
        ("batched_jdp_t12", 1 / 2),
        ("sdp_amp_ru_m13", 2 / 3),  # B = T / M with M ~ T^(1/3)
    ):
        by_T = {c.T: c.B for c in sweep.cells_of(name)}
        B = np.array([by_T[T] for T in sweep.T], dtype=float)
        slope = np.polyfit(lnT, np.log(B), 1)[0]
        assert abs(slope - power) < 0.03, (name, slope)


def test_the_noise_ratio_quoted_for_cor_c3_follows_from_the_calibrations(claims):
    """cz22.corC.3's reason compares Cor. C.3's P_Vec with Batched-LinUCB-LDP's script noise
    (schedule batched_ldp_t34 of the rates sweep, d = 5, delta = 0.1): one entry's binomial sd
    sqrt(b p (1 - p))/g against s = sqrt(ln(2.5/delta))/epsilon. The number it quotes must be that
    ratio at every epsilon the sweep runs."""
    import math
    import re

    from dpbandits.mechanisms.gaussian import s_ldp_experiment
    from dpbandits.mechanisms.vec import vec_params_local

    text = next(c for c in claims if c["id"] == "cz22.corC.3")["audit"]["none"]
    quoted = int(re.search(r"(\d+) times the Gaussian noise", text).group(1))
    for eps in (0.2, 1.0, 10.0):
        p = vec_params_local(eps, 0.1, 5)
        ratio = math.sqrt(p.b_trials * p.p * (1 - p.p)) / p.g / s_ldp_experiment(eps, 0.1)
        assert round(ratio) == quoted
