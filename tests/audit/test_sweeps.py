"""Reading a paper's sweep files for the rate audit (docs/papers/dpdpe.md; docs/mutation.md): the
final rows, each trial's saturation cap and the schedules' options. The files are written with the
pipeline's own writer (:func:`dpbandits.io.write_result`) for cells on the two-action gap-scaling
instance, whose arms have means ``1`` and ``1 - Delta_T`` with
``Delta_T = gap_scale T^{-gap_power}``: random play loses ``Delta_T / 2`` a round, so the cap at
horizon ``T`` is ``T Delta_T / 2``. With ``gap_scale = 1``, ``gap_power = 1/2``: ``T = 100`` gives
``Delta = 0.1`` and a cap of 5, ``T = 400`` gives ``Delta = 0.05`` and a cap of 10 (up to
rounding).
"""

import pandas as pd
import pyarrow as pa
import pytest

from dpbandits.audit.sweeps import read_finals, read_sweeps, write_finals
from dpbandits.io import ResultMismatchError, read_results, write_result

from .two_action import two_action_cell


def _cell(T, schedule="sched_a", options=None, trials=2):
    return two_action_cell(T, trials, schedule=schedule, options=options or {})


def _write(path, cell, trials=(0, 1), extra=False):
    """Two checkpoints (T/2 and T) per trial; regret = 100 * trial + t; ``extra``: also a
    string and an integer column that the other files lack."""
    rows = [(i, t) for i in trials for t in (cell.T // 2, cell.T)]
    cols = {
        "trial": pa.array([i for i, _ in rows], pa.int64()),
        "t": pa.array([t for _, t in rows], pa.int64()),
        "T": pa.array([cell.T] * len(rows), pa.int64()),
        "regret_pseudo": pa.array([100.0 * i + t for i, t in rows]),
    }
    if extra:
        cols["series"] = pa.array([f"s{i}" for i, _ in rows])
        cols["comm_bits"] = pa.array([7 * t for _, t in rows], pa.int64())
    table = pa.table(cols)
    write_result(path, table, {"cell": cell.as_dict()})
    return str(path)


def test_reading_no_sweep_files_gives_no_frame_and_no_options():
    assert read_sweeps([]) == (None, {})


def test_final_rows_carry_each_cells_cap(tmp_path):
    a, b = _cell(100, options={"alpha": 0.5}), _cell(400, options={"alpha": 0.7})
    c = _cell(100, schedule="sched_b", options={"alpha": 0.9})
    paths = [_write(tmp_path / f"{i}.parquet", cell) for i, cell in enumerate((a, b, c))]
    expect = {p: x.as_dict() for p, x in zip(paths, (a, b, c), strict=True)}
    df, options = read_sweeps(paths, expect=expect)
    assert list(df.index) == list(range(6))  # one row label per row
    assert list(df["T"]) == [100, 100, 400, 400, 100, 100] and set(df["t"] == df["T"]) == {True}
    assert list(df["regret_pseudo"]) == [100.0, 200.0, 400.0, 500.0, 100.0, 200.0]
    # caps: T Delta_T / 2 = 5 at T = 100, 10 at T = 400
    assert list(df["cap"]) == pytest.approx([5.0, 5.0, 10.0, 10.0, 5.0, 5.0], rel=1e-12)
    # the options of each (sweep, schedule): the first file's
    assert options == {("rates", "sched_a"): {"alpha": 0.5}, ("rates", "sched_b"): {"alpha": 0.9}}


@pytest.mark.parametrize("trials", [(0, 2), (0, 3), (-1, 0)])
def test_trials_outside_the_cells_instances_are_refused(tmp_path, trials):
    # the cell has 2 trials (instances 0 and 1)
    path = _write(tmp_path / "x.parquet", _cell(100), trials)
    with pytest.raises(ValueError, match="outside the cell's"):
        read_sweeps([path])


@pytest.mark.parametrize("trials", [(0, 2), (1, 2), (2,)])
def test_trials_within_the_cells_instances_are_read(tmp_path, trials):
    # the cell has 3 trials (instances 0, 1, 2); a file may hold any of them
    path = _write(tmp_path / "x.parquet", _cell(100, trials=3), trials)
    df, _ = read_sweeps([path])
    assert list(df["trial"]) == list(trials) and list(df["cap"]) == pytest.approx(
        [5.0] * len(trials)
    )


def test_a_file_holding_another_cell_is_refused(tmp_path):
    path = _write(tmp_path / "x.parquet", _cell(100))
    with pytest.raises(ResultMismatchError):
        read_sweeps([path], expect={path: _cell(400).as_dict()})


def test_the_pages_finals_are_the_sweep_files_final_rows(tmp_path):
    # The audit page reads the fit job's finals file instead of the sweep files: it must get
    # the frame it got from the files themselves (values, dtypes, column order), the cap aside.
    # The third file has two columns the others lack (NaN-filled on concatenation).
    cells = (_cell(100), _cell(400), _cell(100, schedule="sched_b"))
    paths = [_write(tmp_path / f"{i}.parquet", cell, extra=i == 2) for i, cell in enumerate(cells)]
    df, _ = read_sweeps(paths)
    write_finals(df, tmp_path / "finals.parquet", "dpdpe")
    got = read_finals(tmp_path / "finals.parquet")
    want = read_results(paths, at_horizon=True)
    assert "cap" not in got and list(got.columns) == list(want.columns)
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_a_paper_without_sweeps_has_no_finals(tmp_path):
    write_finals(None, tmp_path / "finals.parquet", "cz22")
    assert read_finals(tmp_path / "finals.parquet") is None
