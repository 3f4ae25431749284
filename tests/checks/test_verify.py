"""`make verify`: a build is compared with the canonical run by value, one line per paper."""

import shutil

import pandas as pd
import pytest

from dpbandits.checks.verify import compare, main, write
from dpbandits.io import CorruptResultError, read_csv_table, write_csv_table

FINAL = "tables/cz22_final_regret.csv"


def _tree(root):
    (root / "tables").mkdir(parents=True)
    (root / "audit").mkdir()
    write_csv_table(pd.DataFrame(
        {
            "figure": ["f", "f"], "panel": ["a", "a"], "configuration": ["r1", "r1"],
            "algorithm": ["LinUCB", "LinUCB-LDP"], "epsilon": [1.0, 1.0], "d": [5, 5],
            "n_trials": [50, 50], "mean_realized": [100.0, 4321.5], "se_realized": [1.0, 2.0],
            "mean_pseudo": [90.0, 4300.25], "se_pseudo": [1.0, 2.0], "wall_seconds": [1.1, 2.2],
        }
    ), root / FINAL)  # fmt: skip
    write_csv_table(pd.DataFrame(
        {
            "claim_id": ["olucb.a", "olucb.a"], "schedule": ["s", "all"], "variable": ["T", ""],
            "fixed": ["eps=1", ""], "slope": [0.5, None], "ci_low": [0.45, None],
            "ci_high": [0.55, None], "claimed": [0.5, None], "n_levels": [5, None],
            "n_trials": [20, None], "verdict": ["consistent", "consistent"],
            "regime": ["learning", "learning"], "detectable_excess": [0.1, 0.1],
            "robustness": ["", ""],
        }
    ), root / "audit/rates.csv")  # fmt: skip


def test_a_build_matches_its_own_summary_and_a_change_is_named(tmp_path, capsys):
    res, canon = tmp_path / "results", tmp_path / "canonical"
    _tree(res)
    write(res, canon)
    report = compare(res, canon)
    assert report["cz22"]["differing"] == 0 and report["cz22"]["matched"] == 14
    assert report["olucb"]["differing"] == 0
    # wall time is measured, not reproduced: a different one is no difference
    df = read_csv_table(res / FINAL)
    df["wall_seconds"] = 99.0
    df.loc[1, "mean_realized"] *= 1 + 1e-12  # within rtol 1e-9: the same number
    write_csv_table(df, res / FINAL)
    assert compare(res, canon)["cz22"]["differing"] == 0
    df.loc[1, "mean_realized"] *= 1 + 1e-6  # beyond it
    write_csv_table(df, res / FINAL)
    rates = read_csv_table(res / "audit/rates.csv", keep_default_na=False)
    rates.loc[0, "verdict"] = "exceeds"
    write_csv_table(rates, res / "audit/rates.csv")
    report = compare(res, canon)
    assert report["cz22"]["differing"] == 1 and report["cz22"]["files"] == {FINAL}
    assert report["olucb"]["verdicts_changed"] == 1
    assert compare(res, canon, rtol=1e-5)["cz22"]["differing"] == 0  # a cross-platform rtol
    assert main(["--results", str(res), "--canonical", str(canon)]) == 1
    out = capsys.readouterr().out
    assert "cz22: 13 values matched, 1 differing, 0 verdicts changed" in out
    assert f"look at results/{FINAL}" in out
    # the cell is named: its keys, the column, the canonical and the current value
    assert (
        "cz22_final_regret: figure = f, panel = a, configuration = r1, algorithm = LinUCB-LDP:"
        in out
    )
    assert "mean_realized 4321.5 -> 4321.50432" in out
    assert "rates: claim_id = olucb.a, schedule = s, variable = T, fixed = eps=1: verdict" in out


def test_a_missing_file_counts_every_value_as_differing(tmp_path):
    res, canon = tmp_path / "results", tmp_path / "canonical"
    _tree(res)
    write(res, canon)
    shutil.rmtree(res / "audit")
    assert compare(res, canon)["olucb"]["differing"] == 2 * 10


def test_a_cut_results_table_is_refused_not_compared(tmp_path):
    res, canon = tmp_path / "results", tmp_path / "canonical"
    _tree(res)
    write(res, canon)
    final = res / FINAL
    final.write_bytes(b"".join(final.read_bytes().splitlines(keepends=True)[:2]))  # one row
    with pytest.raises(CorruptResultError, match="1 rows found, 2 recorded"):
        compare(res, canon)
