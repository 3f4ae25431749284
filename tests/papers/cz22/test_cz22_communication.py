"""The analytic communication audit of cz22 (Sec. 6): counts by hand, and its verdicts on a
planted violation and on the statement itself."""

import math

import pandas as pd
import pytest
import yaml

from dpbandits.audit.overview import communication_verdict
from dpbandits.papers import communication_module
from dpbandits.papers.cz22.communication import amp_reals, communication_audit, vec_bits

from ...conftest import ROOT


def test_bits_per_user_at_figure_1_by_hand():
    # Theorem C.1 at B = 20, d = 5, epsilon = 1, delta = 0.1: g = ceil(max{2 sqrt(20), 5, 4}) = 9,
    # b = ceil(24 10^4 * 81 * ln^2(4 * 26 / 0.1) / 20) = ceil(46909182.4...) = 46909183
    b = math.ceil(24e4 * 81 * math.log(1040.0) ** 2 / 20)
    assert b == 46909183
    got = vec_bits("theory", 1.0, 0.1, 20, 5)
    assert (got["g"], got["b"]) == (9.0, b)
    assert got["bits_alg"] == (5 + 25) * (9 + b)  # Alg. 6, line 9: (g + b) per entry, d + d^2
    assert got["bits_needed"] == (5 + 15) * (2 * 9 + b)  # d + d(d+1)/2 counts of <= 2g + b
    assert got["bits_stated"] == 25 * (9 + b)  # Sec. 6: d^2 (g + b)
    assert got["bits_literal"] == pytest.approx(25 * (math.sqrt(20) + math.log(10.0)))
    # the script: g = 2 sqrt(20), b = g^2 ln(d/delta)^2/(eps^2 B) = 4 ln(50)^2 = 61.2, 61 drawn
    script = vec_bits("script", 1.0, 0.1, 20, 5)
    assert script["b"] == 61 == math.floor(4 * math.log(50.0) ** 2)
    assert script["bits_alg"] == pytest.approx(30 * (2 * math.sqrt(20) + 61))
    # P_Amp (Alg. 2): a 5-vector and a 5 x 5 matrix, 15 distinct matrix entries drawn
    assert amp_reals(5) == {"reals_sent": 30, "reals_distinct": 20}


def _settings():
    return yaml.safe_load((ROOT / "config/experiments/cz22.yaml").read_text())["communication"]


def test_the_statement_read_through_theorem_c1_is_met():
    costs, summary = communication_module("cz22").audit(_settings(), tolerance=0.05)
    assert set(costs["variable"]) == {"B", "d", "1/epsilon", "ln(1/delta)"}
    verdict, _ = communication_verdict(summary, "cz22.sec6.comm")
    assert verdict == "consistent"
    lit = summary[(summary["reading"] == "literal") & (summary["calibration"] == "theory")]
    # the literal g + b ~ sqrt(B) + log(1/delta)/eps^2: Theorem C.1's b carries ln^2, reported
    row = lit[(lit["variable"] == "ln(1/delta)") & (lit["count"] == "bits_alg")].iloc[0]
    assert row["fitted_exponent"] > row["claimed_exponent"] + 0.5 and not row["counts"]


def test_a_planted_excess_is_contradicted_and_missing_rows_are_not_a_verdict():
    _, summary = communication_audit(_settings(), {"bits": "x"}, tolerance=0.05)
    planted = summary.copy()
    hit = planted.index[planted["counts"].astype(bool)][1]
    planted.loc[hit, "verdict"] = "exceeds"
    verdict, reason = communication_verdict(planted, "x")
    assert verdict == "exceeds" and "P_Vec" in reason
    assert communication_verdict(summary, "other")[0] == "MISSING"
    assert communication_verdict(None, "x")[0] == "MISSING"
    assert communication_verdict(pd.DataFrame({"alpha": []}), "x")[0] == "MISSING"
