"""Size limits of the op24 run plan (``dpbandits.papers.op24.plan``): a run too large for a
simulation job is refused by ``load_plan`` while the workflow parses, naming the file, the key
path, the value, the estimate and the limit, before anything is allocated; the shipped tiers
still load."""

import time
import tracemalloc
from pathlib import Path

import pytest
import yaml

from dpbandits.config import ConfigError, load_yaml
from dpbandits.papers.op24 import STUDY
from dpbandits.papers.op24.plan import (
    MAX_LOG10_T,
    Run,
    load_plan,
    op_e3_checkpoints,
    run_megabytes,
)
from dpbandits.papers.op24.runs import simulate_run

ROOT = Path(__file__).resolve().parents[2]
PLAN = ROOT / "config/experiments/op24.yaml"
SCHEMA = ROOT / "workflow/schemas/op24.schema.yaml"
LIMIT = f"allowed: at most {STUDY.sim_mem_mb:,} MiB"


def _load(tmp_path, mutate, scale="paper", **kwargs):
    """The shipped plan, mutated, written to ``tmp_path`` and loaded (as tests/test_bad_input.py
    does)."""
    data = load_yaml(PLAN)
    mutate(data)
    path = tmp_path / "op24.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return load_plan(str(path), str(SCHEMA), "core", scale, **kwargs)


def _run(i: int, **values):
    """Mutation setting keys of core run ``i``."""
    return lambda data: data["tiers"]["core"]["runs"][i].update(values)


def _trials(key: str, value: int):
    def mutate(data):
        if key == "quick":
            data["quick"]["trials"] = value
        else:
            data["tiers"]["core"]["trials"][key] = value

    return mutate


#: (what, mutation, scale, substrings the message must contain)
CASES = [
    ("OP-E1 K = 1e9", _run(1, K=10**9), "paper",
     ["op24.yaml: tiers.core.runs.1.K = 1000000000", "run e1_I2_K5", "MiB", LIMIT]),
    ("OP-E3 K = 1e9", _run(5, K=10**9), "paper",
     ["op24.yaml: tiers.core.runs.5.K = 1000000000", "run e3_C1_d5_linucb", "MiB", LIMIT]),
    ("trials = 1e9", _trials("OP-E1", 10**9), "paper",
     ["tiers.core.trials.OP-E1 = 1000000000", "run e1_I1", "MiB", LIMIT]),
    ("OP-E3 trials = 1e9", _trials("OP-E3", 10**9), "paper",
     ["tiers.core.trials.OP-E3 = 1000000000", "MiB", LIMIT]),
    ("quick trials = 1e9", _trials("quick", 10**9), "quick",
     ["quick.trials = 1000000000", "MiB", LIMIT]),
    ("T = 10^12", _run(0, T=[10**12]), "paper",
     ["op24.yaml: tiers.core.runs.0.T.0 = 1000000000000", f"must be <= {10**MAX_LOG10_T}"]),
    ("OP-E3 d = 20, K = 10^4, T_max = 2^20", _run(5, d=20, K=10_000, log2_T_max=20), "paper",
     ["tiers.core.runs.5.K = 10000", "tiers.core.runs.5.d = 20",
      "tiers.core.runs.5.log2_T_max = 20", "T_max = 1048576", "MiB", LIMIT]),
    ("K beyond any float", _run(1, K=10**400), "paper",
     [f"tiers.core.runs.1.K = {10**400}", "MiB", LIMIT]),
]  # fmt: skip


@pytest.mark.parametrize(("what", "mutate", "scale", "expect"), CASES, ids=[c[0] for c in CASES])
def test_oversized_run_refused(tmp_path, what, mutate, scale, expect):
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, mutate, scale)
    for part in expect:
        assert part in str(err.value), (what, str(err.value))


def test_refused_before_allocating(tmp_path):
    _load(tmp_path, lambda d: None)  # imports and the schema cache warm
    tracemalloc.start()
    try:
        with pytest.raises(ConfigError, match="tiers.core.runs.1.K = 1000000000"):
            _load(tmp_path, _run(1, K=10**9))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20


@pytest.mark.parametrize("tier", ["core", "full"])
@pytest.mark.parametrize("scale", ["paper", "quick"])
def test_shipped_tiers_load(tier, scale):
    plan = load_plan(str(PLAN), str(SCHEMA), tier, scale)
    assert plan.runs
    assert all(run_megabytes(r) <= STUDY.sim_mem_mb for r in plan.runs)


def test_limit_is_a_parameter(tmp_path):
    with pytest.raises(ConfigError, match=r"allowed: at most 100 MiB"):
        _load(tmp_path, lambda d: None, limit_mb=100)


def test_large_allowed_plan_loads_fast_without_allocating(tmp_path):
    # T_max = 2^20, K = 10, d = 10: 880 MiB of decision sets per trial, two copies fit in 2 GiB
    mutate = _run(5, d=10, K=10, log2_T_max=20)
    _load(tmp_path, lambda d: None)  # imports and the schema cache warm
    tracemalloc.start()
    start = time.perf_counter()
    try:
        plan = _load(tmp_path, mutate)
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 1000 < run_megabytes(plan.runs[5]) <= STUDY.sim_mem_mb
    assert seconds < 0.8
    assert peak < 20 * 2**20


def test_schema_T_maximum_is_the_grid_limit():
    T = load_yaml(SCHEMA)["$defs"]["run"]["properties"]["T"]["items"]
    assert T["maximum"] == 10**MAX_LOG10_T


def _small(experiment, instance, algorithm, K, d, T, trials, privacy=1.0, index=2):
    cps = op_e3_checkpoints(T.bit_length() - 1) if experiment == "OP-E3" else (T,)
    return Run(
        id="small", experiment=experiment, instance=instance, algorithm=algorithm, K=K, d=d,
        privacy=(privacy,), privacy_index=(index,), horizons=(T,), checkpoints=cps,
        trials=trials,
    )  # fmt: skip


@pytest.mark.parametrize(
    "run",
    [
        _small("OP-E3", "C1", "linucb", 50, 5, 2**10, 3, 0.0, 0),  # chunk of 3 trials
        _small("OP-E2", "J2", "adac_gope", 2**13, 13, 1000, 2),  # one trial at a time
    ],
    ids=["OP-E3", "OP-E2"],
)
def test_estimate_is_a_lower_bound_of_a_real_run(run):
    """The estimate is at most the measured peak (Python-traced allocations: numpy's and the
    row lists, not Arrow's) of a small real run, and not far below it."""
    if run.experiment == "OP-E3":
        simulate_run(run)  # compiled kernels loaded
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        simulate_run(run)
        peak_mib = (tracemalloc.get_traced_memory()[1] - base) / 2**20
    finally:
        tracemalloc.stop()
    need = run_megabytes(run)
    assert 0.5 * peak_mib <= need <= peak_mib


def test_a_horizon_grid_whose_points_repeat_is_refused_before_it_is_built(tmp_path):
    # 10^9 points at step 1e-9 end below 10^8, so the grid's range check passes; the grid would
    # be a billion rounded horizons, nearly all equal
    data = load_yaml(ROOT / "config/experiments/op24.yaml")
    data["horizons"] = {"log10_first": 3, "log10_step": 1e-9, "points": 10**9}
    path = tmp_path / "op24.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(ConfigError, match=r"horizons.log10_step = 1e-09: consecutive horizons"):
        load_plan(str(path), str(SCHEMA))
