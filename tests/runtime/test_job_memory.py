"""A job's memory is known before it runs (dpbandits.runtime.job_memory; issue 20, class 7).

The estimate must cover what jobs really use: the peaks below were measured (``max_rss`` of
``benchmarks/sim/**.tsv``) on the paper-scale build of 2026-11-24; the estimate must lie above
each and within twice it, so it neither lets a job be killed nor refuses reasonable sizes.
Parsing must not allocate memory proportional to T, and a cell too large for the limit is
refused with its estimate before any job runs.
"""

import tracemalloc

import pytest

from dpbandits.config import ConfigError, load_experiment, load_yaml
from dpbandits.runtime.job_memory import MIN_JOB_MB, declared_mb

from ..conftest import ROOT, SCHEMAS

#: (experiment, sweep or None, schedule or series, a predicate on the cell, measured peak MiB)
MEASURED = [
    ("cz22", None, "LinUCB-LDP", lambda c: c.panel == "cz22_fig2b" and c.configuration == "r3",
     1244),
    ("olucb", "fav_t", "combiner_f", lambda c: c.T == 65536, 915),
    ("olucb", "fav_d", "onlineucb_f", lambda c: c.d == 20, 874),
    ("dpdpe", "free", "sdp_t", lambda c: c.T == 10_000_000, 378),
]  # fmt: skip


def _experiment(name, config=None, data=None, tmp_path=None):
    config = config or load_yaml(ROOT / "config/config.yaml")
    path = ROOT / f"config/experiments/{name}.yaml"
    if data is not None:
        import yaml

        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False))
    return load_experiment(path, config, SCHEMAS / "experiment.schema.yaml")


@pytest.mark.parametrize("name,sweep,series,pick,measured", MEASURED)
def test_the_estimate_covers_the_measured_peak(name, sweep, series, pick, measured):
    exp = _experiment(name)
    if sweep is None:
        cells = [c for c in exp.cells if c.series == series and pick(c)]
    else:
        sw = next(s for s in exp.sweeps if s.id == sweep)
        cells = [c for c in sw.cells_of(series) if pick(c)]
    assert cells
    estimate = max(c.memory_mb() for c in cells)
    assert measured <= estimate <= 2 * measured, (estimate, measured)


def test_declared_memory_rounds_up_and_has_a_floor():
    assert declared_mb(100) == MIN_JOB_MB
    assert declared_mb(2000) == 2560  # 1.2 x 2000 = 2400, rounded up to 256 MiB
    assert declared_mb(10_000) == 12_032


def test_parsing_does_not_allocate_in_proportion_to_T(tmp_path):
    # T = 2 10^7 for olucb's combiner sweep: its per-play tables (about 5 GB) must not be built
    # while the workflow validates the cell
    data = load_yaml(ROOT / "config/experiments/olucb.yaml")
    data["sweeps"]["fav_t"]["T"] = [20_000_000]
    config = {**load_yaml(ROOT / "config/config.yaml"), "max_job_mb": 100_000}
    tracemalloc.start()
    try:
        _experiment("olucb", config, data, tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200 * 2**20


@pytest.mark.parametrize(
    "edit,expected",
    [
        (lambda d: d["defaults"].update(trials=10**9),
         ["trials = 1000000000", "would need about", "max_job_mb = 16384"]),
        (lambda d: d["figures"]["cz22_fig1"]["panels"]["b"].update(d=200),
         ["instances 'script' with K = 100, d = 200", "need K >= d >= 2"]),
    ],
    ids=["trials 10^9", "d > K"],
)  # fmt: skip
def test_a_cell_that_cannot_run_is_refused_while_parsing(edit, expected, tmp_path):
    data = load_yaml(ROOT / "config/experiments/cz22.yaml")
    edit(data)
    with pytest.raises(ConfigError) as err:
        _experiment("cz22", data=data, tmp_path=tmp_path)
    msg = str(err.value)
    assert not [s for s in expected if s not in msg], msg
