"""Named seeds and the parquet layer."""

import subprocess
import sys

import numpy as np
import pyarrow.parquet as pq
import pytest

from dpbandits.engine import SimulationResult
from dpbandits.io import read_metadata, read_results, result_table, write_result
from dpbandits.result_columns import METRICS
from dpbandits.seeds import noise_generator, stable_hash


def test_stable_hash_is_the_same_in_another_process():
    code = "from dpbandits.seeds import stable_hash; print(stable_hash('cz22_fig1a'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(out.stdout) == stable_hash("cz22_fig1a")
    assert stable_hash("a") != stable_hash("b") and 0 <= stable_hash("x") < 2**32


def test_noise_generators_are_named_and_independent():
    a = noise_generator(1, "cz22", "cz22_fig1a", "ldp", 0).standard_normal(5)
    assert np.array_equal(a, noise_generator(1, "cz22", "cz22_fig1a", "ldp", 0).standard_normal(5))
    for other in [
        (2, "cz22", "cz22_fig1a", "ldp", 0),
        (1, "cz22", "cz22_fig1b", "ldp", 0),
        (1, "cz22", "cz22_fig1a", "sdp_amp", 0),
        (1, "cz22", "cz22_fig1a", "ldp", 1),
    ]:
        assert not np.array_equal(a, noise_generator(*other).standard_normal(5))


def _settings():
    return {
        "experiment": "e",
        "kind": "figure",
        "figure": "f",
        "panel": "fa",
        "configuration": "c",
        "series": "S",
        "algorithm": "ldp",
        "calibration": "experiment",
        "fidelity": "script",
        "instances": "script",
        "epsilon": 1.0,
        "delta": 0.1,
        "d": 3,
        "K": 10,
        "T": 50,
        "B": 1,
        "n_trials": 2,
        "private": True,
    }


def test_parquet_round_trip_is_byte_identical(tmp_path):
    cps = np.array([25, 50])
    metrics = {m: np.arange(4, dtype=float).reshape(2, 2) + i for i, m in enumerate(METRICS)}
    result = SimulationResult(cps, metrics, seconds=1.23)
    table = result_table(_settings(), result)
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    write_result(a, table, {"config_hash": "h"})
    write_result(
        b,
        result_table(_settings(), SimulationResult(cps, metrics, seconds=9.9)),
        {"config_hash": "h"},
    )
    assert a.read_bytes() == b.read_bytes()  # run time is not stored
    df = read_results([a])
    assert len(df) == 4 and list(df["t"]) == [25, 50, 25, 50] and list(df["trial"]) == [0, 0, 1, 1]
    finals = read_results([a, b], at_horizon=True)  # T = 50: the rows at t = 50 of both files
    assert list(finals["t"]) == [50] * 4 and list(finals["trial"]) == [0, 1, 0, 1]
    assert finals["regret_pseudo"].tolist() == df.loc[df["t"] == 50, "regret_pseudo"].tolist() * 2
    assert read_metadata(a)["config_hash"] == "h" and "package_version" in read_metadata(a)
    assert pq.read_schema(a).field("nonpd_refreshes").type == "int64"
    assert not list(tmp_path.glob(".*.tmp"))


def test_corrupt_or_foreign_results_are_refused_with_the_file_and_how_to_rebuild(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from dpbandits.io import CorruptResultError, read_results, write_result

    table = pa.table({"trial": [0, 0], "t": [1, 2], "T": [2, 2], "regret": [0.5, 1.0]})
    good = tmp_path / "good.parquet"
    write_result(good, table, {"cell": {}})
    assert len(read_results([good])) == 2
    # truncated (a crash while copying, a full disk): detected when read
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    # written by something else (no dpbandits metadata) and by an older schema
    foreign = tmp_path / "foreign.parquet"
    pq.write_table(table, foreign)
    old = tmp_path / "old.parquet"
    pq.write_table(table.replace_schema_metadata({b"dpbandits": b'{"schema_version": 0}'}), old)
    # a file lacking a column the readers need
    short = tmp_path / "short.parquet"
    write_result(short, table.drop(["t"]), {})
    for bad, why in ((cut, "not a readable parquet"), (foreign, "no 'dpbandits' metadata"),
                     (old, "schema version 0"), (short, "missing columns ['t']")):  # fmt: skip
        with pytest.raises(CorruptResultError) as err:
            read_results([good, bad])
        msg = str(err.value)
        assert str(bad) in msg and why in msg and f"snakemake --cores all {bad}" in msg


def test_a_file_of_another_cell_or_root_seed_is_refused_by_its_reader(tmp_path):
    # issue 20: readers compare the settings a file holds with the cell they expect
    import pyarrow as pa

    from dpbandits.config import Cell
    from dpbandits.io import ResultMismatchError, read_metadata, read_results, write_result

    table = pa.table({"trial": [0], "t": [2], "T": [2], "regret": [0.5]})
    fields = dict(
        experiment="cz22", figure="cz22_fig2", panel="cz22_fig2a", configuration="r1",
        series="LinUCB-LDP", algorithm="ldp", calibration="experiment", fidelity="script",
        T=2, d=10, K=100, epsilon=1.0, delta=0.1, B=20, trials=1, checkpoints=2,
        root_seed=20220717, scale="paper", instances="script", instance_seed=2,
        reward_seed_offset=0,
    )  # fmt: skip
    a = Cell(**fields)
    b = Cell(**{**fields, "panel": "cz22_fig2b", "d": 15})
    reseeded = Cell(**{**fields, "root_seed": 1})
    path = tmp_path / "a.parquet"
    write_result(path, table, {"cell": a.as_dict(), "config_hash": a.config_hash()})
    assert len(read_results([path], expect={path: a.as_dict()})) == 1
    assert read_metadata(path, expect=a.as_dict())["config_hash"] == a.config_hash()
    with pytest.raises(ResultMismatchError) as err:
        read_results([path], expect={path: b.as_dict()})  # fig2a's file where fig2b's belongs
    msg = str(err.value)
    assert str(path) in msg and "d = 10 (expected 15)" in msg
    assert "panel = 'cz22_fig2a' (expected 'cz22_fig2b')" in msg
    assert f"snakemake --cores all {path}" in msg  # how to rebuild
    with pytest.raises(ResultMismatchError, match="root_seed = 20220717 \\(expected 1\\)"):
        read_metadata(path, expect=reseeded.as_dict())  # a copy from a build with another seed
    with pytest.raises(ValueError, match="no expected settings"):
        read_results([path], expect={})  # a caller that expects must name every file


def test_a_file_cut_to_fewer_trials_or_without_a_column_is_refused_by_name(tmp_path):
    """Issue 45: a parquet rewritten with 2 of its 5 trials, or without its `regret_pseudo`
    column, its metadata kept, was read as if whole (a figure from 2 trials captioned 5, a
    legend entry with no curve)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from dpbandits.io import CorruptResultError, read_results, write_result

    n, C = 5, 3
    table = pa.table({
        "trial": [i for i in range(n) for _ in range(C)],
        "t": [t for _ in range(n) for t in (1, 2, 3)],
        "T": [3] * (n * C),
        "regret": [float(i) for i in range(n * C)],
        "regret_pseudo": [float(i) for i in range(n * C)],
    })  # fmt: skip
    good = tmp_path / "good.parquet"
    write_result(good, table, {"cell": {}})
    assert len(read_results([good])) == n * C
    assert len(read_results([good], at_horizon=True)) == n
    whole = pq.read_table(good)
    cut = tmp_path / "cut.parquet"  # the first 2 trials, the metadata kept
    pq.write_table(whole.filter(pc.less(whole["trial"], 2)), cut)
    dropped = tmp_path / "dropped.parquet"
    pq.write_table(whole.drop(["regret_pseudo"]), dropped)
    for bad, why in ((cut, "6 rows, 15 written"), (dropped, "missing ['regret_pseudo']")):
        for at_horizon in (False, True):
            with pytest.raises(CorruptResultError) as err:
                read_results([good, bad], at_horizon=at_horizon)
            assert str(bad) in str(err.value) and why in str(err.value)


def test_setting_columns_repeat_their_value_as_a_list_of_it_would(tmp_path):
    """Each setting column holds the cell's value in every row: the same file bytes as the
    column built from a Python list of the value (strings, numbers, flags, a missing value);
    another value changes them."""
    import pyarrow as pa

    cps = np.array([10, 20, 50])
    metrics = {m: np.arange(6, dtype=float).reshape(2, 3) * (i + 1) for i, m in enumerate(METRICS)}
    settings = {**_settings(), "fidelity": None, "epsilon": 2}  # an int for a float column
    table = result_table(settings, SimulationResult(cps, metrics, seconds=0.1))
    listed = {
        name: pa.array([table[name][0].as_py()] * table.num_rows, type=table[name].type)
        if name in settings
        else table[name]
        for name in table.column_names
    }
    a, b, c = (tmp_path / f"{x}.parquet" for x in "abc")
    write_result(a, table, {})
    write_result(b, pa.table(listed), {})
    assert a.read_bytes() == b.read_bytes()
    assert table["fidelity"].null_count == table.num_rows and table["epsilon"][0].as_py() == 2.0
    other = result_table({**settings, "epsilon": 3}, SimulationResult(cps, metrics, seconds=0.1))
    write_result(c, other, {})
    assert c.read_bytes() != a.read_bytes()
