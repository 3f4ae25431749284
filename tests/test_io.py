"""CSV tables that other jobs read carry a content record (``<name>.csv.content.json``), and
every reader refuses a table that does not match it: cut, missing a column, edited, or without
its record."""

import csv
import json

import numpy as np
import pandas as pd
import pytest

from dpbandits.io import (
    CorruptResultError,
    content_record_path,
    read_csv_bytes,
    read_csv_rows,
    read_csv_table,
    write_csv_table,
)


def _frame(n=6):
    return pd.DataFrame(
        {
            "experiment": ["cz22"] * n,
            "series": [f"S{i}" for i in range(n)],
            "delivered_epsilon": np.linspace(0.1, 1.0, n) / 3,
            "T": np.arange(n) * 1000,
            "verdict": ["DELIVERED"] * (n - 1) + [""],
            "private": [True, False] * (n // 2),
        }
    )


def test_a_table_round_trips_with_its_record(tmp_path):
    path = tmp_path / "audit" / "privacy.csv"  # the folder is created
    frame = _frame()
    write_csv_table(frame, path)
    record = json.loads(content_record_path(path).read_text())
    assert content_record_path(path).name == "privacy.csv.content.json"
    assert record["rows"] == 6 and record["columns"] == list(frame.columns)
    assert record["writer"] == "dpbandits" and len(record["sha256"]) == 64
    back = read_csv_table(path, keep_default_na=False)
    pd.testing.assert_frame_equal(back, pd.read_csv(path, keep_default_na=False))
    assert back["series"].tolist() == frame["series"].tolist()
    assert np.array_equal(back["delivered_epsilon"], frame["delivered_epsilon"])  # all digits
    rows = read_csv_rows(path)
    assert len(rows) == 6 and rows[0]["series"] == "S0" and rows[5]["verdict"] == ""
    assert not list(tmp_path.rglob("*.tmp"))  # no temporary file left


def test_the_bytes_are_those_of_the_previous_writers(tmp_path):
    frame = _frame()
    old, new = tmp_path / "old.csv", tmp_path / "new.csv"
    frame.to_csv(old, index=False)  # tables.write_table, audit_status, pipeline, ...
    write_csv_table(frame, new)
    assert new.read_bytes() == old.read_bytes()
    frame.to_csv(old, index=False, float_format="%.3g")
    write_csv_table(frame, new, float_format="%.3g")
    assert new.read_bytes() == old.read_bytes()
    # the timing tables (io.write_rows_csv: csv.DictWriter, CRLF line ends)
    rows = [{"configuration": "r1", "panel": "p", "series": "S", "T": 50, "seconds": 1.25}] * 2
    with open(old, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    write_csv_table(rows, new)
    assert new.read_bytes() == old.read_bytes() and b"\r\n" in new.read_bytes()
    assert read_csv_rows(new)[1] == {
        "configuration": "r1", "panel": "p", "series": "S", "T": "50", "seconds": "1.25",
    }  # fmt: skip


def test_a_table_cut_to_fewer_rows_is_refused_naming_the_file_and_the_counts(tmp_path):
    path = tmp_path / "privacy.csv"
    write_csv_table(_frame(40), path)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:13]))  # the header and 12 rows; the record kept
    for read in (read_csv_table, read_csv_rows):
        with pytest.raises(CorruptResultError) as err:
            read(path)
        text = str(err.value)
        assert text.startswith(f"{path}: differs from its content record")
        assert "12 rows found, 40 recorded" in text and "SHA-256" in text
        assert f"snakemake --cores all --forcerun {path}" in text


def test_a_table_missing_a_column_is_refused_naming_it(tmp_path):
    path = tmp_path / "rates.csv"
    write_csv_table(_frame(), path)
    pd.read_csv(path).drop(columns="verdict").to_csv(path, index=False)
    with pytest.raises(CorruptResultError, match=r"6 rows found, 6 recorded; columns missing "
                       r"\['verdict'\], extra \[\]"):  # fmt: skip
        read_csv_table(path)
    frame = _frame()
    frame.loc[2, "T"] = 7  # same rows and columns, one value edited
    frame.to_csv(path, index=False)
    with pytest.raises(CorruptResultError, match=r"columns as recorded \(6\); the SHA-256"):
        read_csv_table(path)


def test_a_table_without_its_record_is_refused(tmp_path):
    path = tmp_path / "delivered.csv"
    _frame().to_csv(path, index=False)  # as written before the records
    with pytest.raises(CorruptResultError) as err:
        read_csv_table(path)
    assert str(err.value).startswith(f"{path}: no content record ({path}.content.json")
    assert f"--forcerun {path}" in str(err.value)
    content_record_path(path).write_text("{not json")
    with pytest.raises(CorruptResultError, match="cannot be read"):
        read_csv_bytes(path)
    content_record_path(path).write_text(json.dumps({"rows": 6}))
    with pytest.raises(CorruptResultError, match="lacks rows, columns, sha256, writer"):
        read_csv_bytes(path)
    with pytest.raises(FileNotFoundError):  # no table at all: as pandas said
        read_csv_table(tmp_path / "missing.csv")


def test_a_rewrite_replaces_the_record_and_no_rows_are_refused(tmp_path):
    path = tmp_path / "t.csv"
    write_csv_table(_frame(40), path)
    write_csv_table(_frame(4), path)  # the rerun of a job: a new record
    assert len(read_csv_table(path)) == 4
    empty = pd.DataFrame(columns=["a", "b"])
    write_csv_table(empty, path)
    assert read_csv_table(path).columns.tolist() == ["a", "b"]
    assert json.loads(content_record_path(path).read_text())["rows"] == 0
    with pytest.raises(ValueError, match="no rows"):
        write_csv_table([], path)
