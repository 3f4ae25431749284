"""`make verify`: a build is compared with the canonical run by value, one line per paper."""

import shutil

import pandas as pd

from dpbandits.verify import compare, main, write

FINAL = "tables/cz22_final_regret.csv"


def _tree(root):
    (root / "tables").mkdir(parents=True)
    (root / "audit").mkdir()
    pd.DataFrame(
        {
            "figure": ["f", "f"], "panel": ["a", "a"], "configuration": ["r1", "r1"],
            "algorithm": ["LinUCB", "LinUCB-LDP"], "epsilon": [1.0, 1.0], "d": [5, 5],
            "n_trials": [50, 50], "mean_realized": [100.0, 4321.5], "se_realized": [1.0, 2.0],
            "mean_pseudo": [90.0, 4300.25], "se_pseudo": [1.0, 2.0], "wall_seconds": [1.1, 2.2],
        }
    ).to_csv(root / FINAL, index=False)  # fmt: skip
    pd.DataFrame(
        {
            "claim_id": ["olucb.a", "olucb.a"], "schedule": ["s", "all"], "variable": ["T", ""],
            "fixed": ["eps=1", ""], "slope": [0.5, None], "ci_low": [0.45, None],
            "ci_high": [0.55, None], "claimed": [0.5, None], "n_levels": [5, None],
            "n_trials": [20, None], "verdict": ["consistent", "consistent"],
            "regime": ["learning", "learning"], "detectable_excess": [0.1, 0.1],
            "robustness": ["", ""],
        }
    ).to_csv(root / "audit/rates.csv", index=False)  # fmt: skip


def test_a_build_matches_its_own_summary_and_a_change_is_named(tmp_path, capsys):
    res, canon = tmp_path / "results", tmp_path / "canonical"
    _tree(res)
    write(res, canon)
    report = compare(res, canon)
    assert report["cz22"]["differing"] == 0 and report["cz22"]["matched"] == 14
    assert report["olucb"]["differing"] == 0
    # wall time is measured, not reproduced: a different one is no difference
    df = pd.read_csv(res / FINAL)
    df["wall_seconds"] = 99.0
    df.loc[1, "mean_realized"] *= 1 + 1e-12  # within rtol 1e-9: the same number
    df.to_csv(res / FINAL, index=False)
    assert compare(res, canon)["cz22"]["differing"] == 0
    df.loc[1, "mean_realized"] *= 1 + 1e-6  # beyond it
    df.to_csv(res / FINAL, index=False)
    rates = pd.read_csv(res / "audit/rates.csv", keep_default_na=False)
    rates.loc[0, "verdict"] = "exceeds"
    rates.to_csv(res / "audit/rates.csv", index=False)
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
