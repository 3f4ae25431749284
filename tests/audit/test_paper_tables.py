"""A paper's tables rendered from its claims registry (dpdpe, Tables 1-4; docs/papers/dpdpe.md;
docs/mutation.md): the claimed T-exponent of a sum of terms (the largest), the measured columns
(mean ± standard error at the table's horizon, the fitted T-exponent, the horizons) and the
calibration values of Tables 3 and 4 at the stated point, and the Markdown and LaTeX files.

Measured data are exact power laws ``c_i T^k`` per trial: every bootstrap resample of the trials
has mean ``mean(c) T^k``, so the fitted slope and both interval ends are ``k`` exactly (up to
rounding), printed ``k [k, k]`` to 3 decimals.
"""

import math
from types import SimpleNamespace

import pandas as pd
import pytest

from dpbandits.audit import paper_tables as pt
from dpbandits.policies.dpdpe import pe_sigma_n

CLAIMS = {
    "half": {"T_exp": "1/2"},
    "alpha": {"T_exp": "1", "T_exp_alpha": "-1/2"},  # T^(1 - alpha/2)
    "none": {},
    "third": {"T_exp": "1/3"},
}


def test_claimed_exponent_is_the_largest_term():
    # alpha = 0.8: max(1/2, 1 - 0.4) = 0.6; alpha = 0.2: max(1/2, 0.9) = 0.9
    assert pt.claimed_exponent(CLAIMS, ["half", "alpha"], 0.8) == pytest.approx(0.6, rel=1e-12)
    assert pt.claimed_exponent(CLAIMS, ["alpha", "half"], 0.2) == pytest.approx(0.9, rel=1e-12)
    assert pt.claimed_exponent(CLAIMS, ["half", "none"], None) == 0.5  # no alpha term: no alpha
    assert math.isnan(pt.claimed_exponent(CLAIMS, ["none"], 0.8))
    # alpha = 0: T^(1 - 0/2), exponent 1
    assert pt.claimed_exponent(CLAIMS, ["alpha"], 0.0) == 1.0


def test_claimed_exponent_depending_on_alpha_needs_alpha():
    with pytest.raises(ValueError, match="alpha: the exponent depends on alpha"):
        pt.claimed_exponent(CLAIMS, ["half", "alpha"], None)


def _results():
    """Sweep 'free' schedule S: regret 1 T^(1/2) and 3 T^(1/2) (trials 0, 1), communication
    10 T bits; figure 'fig2' configurations F1, F2 series S: regret 2 T (T = 100, 400); plus
    rows that must not be selected (t < T, another series, configuration or figure)."""
    rows = []

    def add(figure, conf, series, T, t, regret, comm):
        # a sweep file is placed by sweep and schedule, a figure file by figure, configuration
        # and series (dpbandits.io.setting_columns)
        if conf == "x":
            place = {"sweep": figure, "schedule": series}
        else:
            place = {"figure": figure, "configuration": conf, "series": series}
        for trial, c in enumerate((1.0, 3.0)):
            rows.append(
                {
                    **place,
                    "T": T,
                    "t": t,
                    "trial": trial,
                    "regret_pseudo": c * regret,
                    "comm_bits": comm,
                    "comm_reals": comm / 10,
                }
            )

    for T in (100, 400, 1600):
        add("free", "x", "S", T, T, math.sqrt(T), 10.0 * T)
        add("free", "x", "S", T, T // 2, 1e6, 1e6)  # an earlier checkpoint
        add("free", "x", "other", T, T, 1e6, 1e6)
    add("fig2", "F1", "S", 100, 100, 200.0, 5.0)
    add("fig2", "F2", "S", 400, 400, 800.0, 20.0)
    add("fig2", "F3", "S", 1600, 1600, 1e6, 1e6)  # a configuration not asked for
    add("fig1", "F1", "S", 100, 100, 1e6, 1e6)  # another figure, same configuration
    return pd.DataFrame(rows)


SWEEP = {"sweep": "free", "series": "S", "communication": "comm_bits", "label": "T"}


def test_measured_columns_of_a_sweep_give_mean_se_fitted_exponents_and_horizons():
    out = pt.measured_columns(_results(), SWEEP, 400)
    # T = 400: regret 20 and 60, mean 40, SE = std(ddof=1)/sqrt(2) = 28.28/1.414 = 20
    assert out == {
        "T (measured) (T)": "400",
        "measured regret (T)": "40 ± 20",
        "fitted T-exponent of the regret (T)": "0.500 [0.500, 0.500]",
        "measured communication (T)": "4000 ± 0 bits",
        "fitted T-exponent of the communication (T)": "1.000 [1.000, 1.000]",
        "horizons (T)": "100, 400, 1600",
    }


def test_measured_columns_fall_back_to_the_largest_horizon():
    # at_T = 10^4 was not simulated: T = 1600, regret 40 and 120, mean 80, SE 40
    out = pt.measured_columns(_results(), SWEEP | {"communication": "comm_reals"}, 10_000)
    assert out["T (measured) (T)"] == "1600"
    assert out["measured regret (T)"] == "80 ± 40"
    assert out["measured communication (T)"] == "1600 ± 0 reals"


def test_measured_columns_of_figure_configurations_pool_only_the_listed_ones():
    fig = {"figure": "fig2", "configuration": ["F1", "F2"], "series": "S"}
    out = pt.measured_columns(_results(), fig | {"communication": "comm_bits"}, 400)
    # no label: no tag; regret 2 T over T = 100, 400: slope 1; communication T/20: slope 1
    assert out["fitted T-exponent of the regret"] == "1.000 [1.000, 1.000]"
    assert out["horizons"] == "100, 400" and out["measured regret"] == "1600 ± 8e+02"  # SE .2g
    one = {"figure": "fig2", "configuration": "F1", "series": "S", "communication": "comm_bits"}
    out = pt.measured_columns(_results(), one, 100)
    assert out["fitted T-exponent of the regret"] == "n/a (one horizon)"
    assert out["horizons"] == "100" and out["measured regret"] == "400 ± 2e+02"


def test_measured_columns_without_results_are_refused():
    with pytest.raises(ValueError, match="no simulation results"):
        pt.measured_columns(_results(), SWEEP | {"series": "missing"}, 400)


def test_a_fit_without_a_finite_interval_prints_its_slope_alone_and_one_value_has_no_se():
    assert pt._fit_text(SimpleNamespace(slope=math.nan, ci_low=0.1, ci_high=0.2)) == "n/a"
    assert pt._fit_text(SimpleNamespace(slope=0.25, ci_low=math.nan, ci_high=0.3)) == "0.250"
    assert pt._fit_text(SimpleNamespace(slope=0.25, ci_low=0.2, ci_high=math.inf)) == "0.250"
    # one value: no standard error
    assert pt._mean_text(pd.Series([2.5]).to_numpy()) == "2.5 ± nan"


AT3 = {"d": 20, "s": 25, "n": 256, "epsilon": 10.0, "delta": 0.25, "B": 1.0}
AT4 = {"d": 20, "s": 25, "h": 8192.0, "epsilon": 10.0, "delta": 0.25, "B": 1.0}


def test_table3_central_value_at_the_stated_point():
    # sigma_nc = 2 B sqrt(2 s ln(1.25/delta))/(eps n) = 2 sqrt(50 ln 5)/2560 = 0.00700830;
    # S = 4 d ln ln d + 16 = 103.7752; sigma_n = 2 sigma_nc sqrt(S d) = 0.638558
    assert pt.evaluate("dpdpe_sigma_n", "central", AT3) == pytest.approx(0.638558, rel=1e-5)
    assert pt.evaluate("dpdpe_sigma_n", "none", AT3) == 0.0


def test_table4_values_at_the_stated_point():
    # CDP-PE: 2 d sigma_nc sqrt(s)/h with sigma_nc = 2 sqrt(2 ln 5)/10 = 0.358825:
    # 2 * 20 * 0.358825 * 5 / 8192 = 0.00876038
    assert pt.evaluate("pe_sigma_n", "central", AT4) == pytest.approx(0.00876038, rel=1e-5)
    # SDP-PE: batches of T_l(x) = ceil(8192/25) = 328 pulls for each of the 25 actions
    want = pe_sigma_n("shuffle", 25, 8192.0, 20, 10.0, 0.25, 1.0, [328] * 25)
    assert pt.evaluate("pe_sigma_n", "shuffle", AT4) == want


TABLE = {
    "title": "Table X",
    "columns": ["Algorithm", "rate", "Notes"],
    "rows": [
        {"cells": ["DP_E", "T^{1/2}", "50% \\ x"], "claims": {"regret": ["half"]}},
        {
            "cells": ["B", "T", "none"],
            "claims": {"regret": ["half"], "communication": "third"},
        },
    ],
    "footnotes": ["note one"],
}


def test_render_adds_claimed_exponent_columns_that_name_alpha_when_a_claim_needs_it():
    frame = pt.render(TABLE, CLAIMS)
    assert list(frame["claimed T-exponent of the regret"]) == ["0.5", "0.5"]
    # the communication claim of row 2 only (empty elsewhere)
    assert list(frame["claimed T-exponent of the communication"]) == ["", "0.333"]
    # T^(1 - alpha/2) needs alpha; at alpha = 0.5 it is 0.75, the column names alpha
    alpha_row = {"cells": ["C", "T", "x"], "claims": {"communication": "alpha"}}
    table = TABLE | {"rows": [*TABLE["rows"], alpha_row]}
    with pytest.raises(ValueError, match="depends on alpha"):
        pt.render(table, CLAIMS)
    frame = pt.render(table | {"measured": {"alpha": 0.5}}, CLAIMS)
    col = "claimed T-exponent of the communication (alpha = 0.5)"
    assert list(frame[col]) == ["", "0.333", "0.75"]
    assert list(frame["claimed T-exponent of the regret (alpha = 0.5)"]) == ["0.5", "0.5", ""]


def test_render_lists_the_claims_of_a_row():
    table = {
        "columns": ["Algorithm"],
        "rows": [
            {"cells": ["A"], "claims": {"regret": ["half", "x"], "communication": "alpha"}},
            {"cells": ["B"], "claims": {"regret": ["half"]}},
        ],
    }
    frame = pt.render(table, CLAIMS | {"x": {"T_exp": "1/4"}} | {"alpha": {"T_exp": "1/3"}})
    assert list(frame["claims"]) == ["half, x, alpha", "half"]


def test_measured_rows_need_results():
    table = {
        "columns": ["Algorithm"],
        "measured": {"at_T": 400},
        "rows": [{"cells": ["A"], "measured": SWEEP}],
    }
    with pytest.raises(ValueError, match="need the simulation results"):
        pt.render(table, CLAIMS)
    frame = pt.render(table, CLAIMS, _results())
    assert frame.iloc[0]["measured regret (T)"] == "40 ± 20"


def test_written_tables_put_formulas_in_math_mode_except_in_the_first_column(tmp_path):
    rows = [{"cells": ["DP_E", "T^{1/2}", "50% \\ x"]}, {"cells": ["B", "T", "none"]}]
    table = TABLE | {"rows": rows, "measured": {"note": "measured note"}}
    frame = pt.render(table | {"measured": {}}, CLAIMS)
    csv, md, tex = tmp_path / "t.csv", tmp_path / "t.md", tmp_path / "t.tex"
    pt.write(table, frame, csv, md, tex)
    assert pd.read_csv(csv).shape == (2, 3)
    text = md.read_text()
    assert text.startswith("# Table X\n\n")
    # formulas of the paper's columns after the first: in $...$; the first column never
    assert "$T^{1/2}$" in text and "$DP_E$" not in text and "| DP_E " in text
    assert "$50% \\ x$" in text and "$none$" not in text  # a backslash marks a formula
    assert text.endswith("- note one\n- measured note\n")
    lines = tex.read_text().splitlines()
    assert lines[:5] == [
        "% Table X",
        "\\begin{tabular}{lll}",
        "\\hline",
        "Algorithm & rate & Notes \\\\",
        "\\hline",
    ]
    # first column escaped, formula columns in $...$
    assert lines[5] == "DP\\_E & $T^{1/2}$ & $50% \\ x$ \\\\"
    assert lines[6] == "B & T & none \\\\"
    assert lines[7:] == ["\\hline", "\\end{tabular}", "% note one", "% measured note"]


def test_latex_escapes_text_cells():
    assert pt._latex_cell("Algorithm", "a_b 5% ± c\\d", ["Algorithm", "x"]) == (
        "a\\_b 5\\% $\\pm$ c\\textbackslash{}d"
    )
    assert pt._latex_cell("x", "plain 5%", ["Algorithm", "x"]) == "plain 5\\%"
    assert pt._latex_cell("x", "a^2", ["Algorithm", "x"]) == "$a^2$"
