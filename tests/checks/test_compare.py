"""dpbandits.checks.compare: two builds give the same results unless a reproducible number differs;
measured run times (wall_seconds, wall-time claim rows, timing tables) are the only exceptions."""

import shutil

import pandas as pd
import pytest

from dpbandits.audit.checklist import COLUMNS, WALL_TIME_STATISTIC
from dpbandits.checks.compare import comparable, compare_trees, main


def _claims(wall_ratio: float, ordering_mean: float) -> pd.DataFrame:
    rows = [
        dict.fromkeys(COLUMNS, ""),
        dict.fromkeys(COLUMNS, ""),
    ]
    rows[0].update(
        claim_id="p.ordering",
        statistic="paired difference a - b",
        mean_diff=ordering_mean,
        verdict="PASS",
    )
    rows[1].update(
        claim_id="p.faster",
        statistic=WALL_TIME_STATISTIC,
        comparison=f"wall time A < B ({wall_ratio:.3g} s vs 1 s)",
        mean_diff=wall_ratio,
        verdict="PASS",
    )
    return pd.DataFrame(rows, columns=COLUMNS)


def _tree(root, wall_ratio=0.4, ordering_mean=-1.25, wall_seconds=3.5, timing=1.0):
    res = root / "results/quick"
    (res / "sim").mkdir(parents=True)
    (res / "tables").mkdir()
    (res / "timing").mkdir()
    pd.DataFrame({"trial": [0, 1], "regret": [1.5, 2.5]}).to_parquet(res / "sim/a.parquet")
    pd.DataFrame(
        {"algorithm": ["A"], "mean_realized": [10.0], "wall_seconds": [wall_seconds]}
    ).to_csv(res / "tables/p_final_regret.csv", index=False)
    _claims(wall_ratio, ordering_mean).to_csv(res / "tables/p_claims.csv", index=False)
    pd.DataFrame({"job": ["a"], "seconds": [timing]}).to_csv(res / "timing/a.csv", index=False)
    return root


def test_measured_run_times_alone_do_not_make_two_builds_differ(tmp_path):
    a = _tree(tmp_path / "a")
    b = _tree(tmp_path / "b", wall_ratio=0.45, wall_seconds=9.0, timing=7.0)
    result = compare_trees(a, b)
    assert result.same, result.describe()
    assert result.files == [
        "results/quick/sim/a.parquet",
        "results/quick/tables/p_claims.csv",
        "results/quick/tables/p_final_regret.csv",
    ]  # the timing table is not compared
    assert result.measured_rows == 1  # the wall-time row of tree a's claims table
    assert main([str(a), str(b)]) == 0


def test_a_reproducible_number_that_differs_is_reported(tmp_path):
    a = _tree(tmp_path / "a")
    b = _tree(tmp_path / "b", ordering_mean=-1.2500001)  # one digit of a seeded statistic
    result = compare_trees(a, b)
    assert not result.same and result.differ == ["results/quick/tables/p_claims.csv"]
    assert main([str(a), str(b)]) == 1


@pytest.mark.parametrize("change", ["parquet", "final_regret", "missing"])
def test_other_differences_are_reported(tmp_path, change):
    a = _tree(tmp_path / "a")
    b = tmp_path / "b"
    shutil.copytree(a, b)
    res = b / "results/quick"
    if change == "parquet":
        pd.DataFrame({"trial": [0, 1], "regret": [1.5, 2.6]}).to_parquet(res / "sim/a.parquet")
    elif change == "final_regret":
        table = pd.read_csv(res / "tables/p_final_regret.csv")
        table.loc[0, "mean_realized"] = 10.5
        table.to_csv(res / "tables/p_final_regret.csv", index=False)
    else:
        (res / "sim/a.parquet").unlink()
    result = compare_trees(a, b)
    assert not result.same
    assert (result.only_in_one if change == "missing" else result.differ) == [
        "results/quick/sim/a.parquet"
        if change in ("parquet", "missing")
        else "results/quick/tables/p_final_regret.csv"
    ]


def test_tables_without_measured_parts_are_compared_as_bytes(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("x,y\n1,0.10\n")
    assert comparable(path) == (b"x,y\n1,0.10\n", 0)  # not re-serialised (0.10 stays)


def test_empty_trees_are_not_the_same(tmp_path):
    (tmp_path / "a/results").mkdir(parents=True)
    (tmp_path / "b/results").mkdir(parents=True)
    assert not compare_trees(tmp_path / "a", tmp_path / "b").same


def test_parquet_files_are_compared_by_value_not_bytes(tmp_path, monkeypatch):
    # the same values written by another environment (other provenance, another package
    # version, another writer's footer) compare equal; one changed value does not
    import pyarrow as pa
    import pyarrow.parquet as pq

    from dpbandits import io as dio
    from dpbandits.checks.compare import parquet_values

    table = pa.table({"trial": [0, 1], "t": [2, 2], "T": [2, 2], "regret": [0.5, 1.25]})
    a, b, c = tmp_path / "a.parquet", tmp_path / "b.parquet", tmp_path / "c.parquet"
    dio.write_result(a, table, {"cell": {"d": 5}})
    other = {"git_commit": "f" * 40, "git_dirty": True, "numpy": "9.9", "pyarrow": "99.0"}
    monkeypatch.setattr("dpbandits.provenance.provenance", lambda root=".": other)
    monkeypatch.setattr(dio, "__version__", "9.9.9")
    dio.write_result(b, table, {"cell": {"d": 5}})
    raw = pq.read_table(b)
    pq.write_table(raw, b, compression="snappy")  # another writer: other bytes, same values
    assert a.read_bytes() != b.read_bytes()
    assert parquet_values(a) == parquet_values(b)
    dio.write_result(c, table.set_column(3, "regret", pa.array([0.5, 1.0])), {"cell": {"d": 5}})
    assert parquet_values(a) != parquet_values(c)
    dio.write_result(c, table, {"cell": {"d": 6}})  # same values, another cell
    assert parquet_values(a) != parquet_values(c)


def test_provenance_names_the_commit_and_the_numerical_stack(tmp_path):
    from dpbandits.provenance import NUMERICAL, one_line, provenance

    from ..conftest import ROOT

    here = provenance.__wrapped__(ROOT)
    assert len(here["git_commit"]) == 40 or here["git_commit"] == "unknown"
    assert all(here[name] for name in NUMERICAL) and here["python"].count(".") == 2
    elsewhere = provenance.__wrapped__(tmp_path)  # not a git work tree
    assert elsewhere["git_commit"] == "unknown" and elsewhere["git_dirty"] is None
    assert "numpy" in one_line(here) and here["package_version"] in one_line(here)
