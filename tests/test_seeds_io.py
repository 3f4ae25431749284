"""Named seeds and the parquet layer."""

import subprocess
import sys

import numpy as np
import pyarrow.parquet as pq

from dpbandits.engine import SimulationResult
from dpbandits.io import read_metadata, read_results, result_table, write_result
from dpbandits.schema import METRICS
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
