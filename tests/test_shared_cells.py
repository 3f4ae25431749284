"""Cells that repeat another job's simulation are copied, not simulated again
(``Experiment.shared_sources``, ``pipeline.copy_cell``): the same bytes as simulating them."""

import dataclasses
import json

import pandas as pd
import pyarrow.parquet as pq
import pytest

from dpbandits.config import LABEL_FIELDS, load_experiment
from dpbandits.io import META_KEY, CorruptResultError, write_csv_table
from dpbandits.papers import select as select_papers
from dpbandits.pipeline import copy_cell, read_shared, run_cell, run_cells

from .conftest import ROOT, SCHEMAS


def _experiment(name: str, global_config: dict, scale: str = "quick"):
    config = {**global_config, "scale": scale}
    select_papers(config)
    return load_experiment(
        ROOT / "config" / "experiments" / f"{name}.yaml", config, SCHEMAS / "experiment.schema.yaml"
    )


def _cell(exp, panel: str, configuration: str, series: str):
    (cell,) = [
        c
        for c in exp.cells
        if (c.panel, c.configuration, c.series) == (panel, configuration, series)
    ]
    return cell


@pytest.mark.parametrize("scale", ["quick", "paper"])
def test_sources_are_the_same_simulation_in_an_earlier_job(global_config, scale):
    for name in ("cz22", "olucb", "dpdpe"):
        exp = _experiment(name, global_config, scale)
        shared = exp.shared_sources()
        assert shared, name  # each of these papers has configurations that repeat series
        order = {key: i for i, key in enumerate(exp.jobs())}
        job_of = {c.stem: key for key, cells in exp.jobs().items() for c in cells}
        for stem, (source, job) in shared.items():
            cell = next(c for c in exp.cells if c.stem == stem)
            assert cell.computation_key() == source.computation_key()
            assert job == job_of[source.stem]
            assert order[job] < order[job_of[stem]]  # only earlier jobs: no cycle
            assert source.stem not in shared  # a source is simulated, not copied
        # every pair of equal keys in different jobs is found
        first = {}
        for key, cells in exp.jobs().items():
            for c in cells:
                k = c.computation_key()
                if k in first and first[k] != key:
                    assert c.stem in shared, c.stem
                first.setdefault(k, key)


def test_what_paper_003_r2_shares_with_r1(global_config):
    """R2 changes only LinUCB-SDP-Vec of Fig. 1(b) and 1(c): every other R2 series is R1's."""
    exp = _experiment("cz22", global_config)
    shared = exp.shared_sources()
    r2 = [c for c in exp.cells if c.configuration == "r2"]
    for c in r2:
        changed = c.series == "LinUCB-SDP-Vec" and c.panel in ("cz22_fig1b", "cz22_fig1c")
        if changed:
            assert c.stem not in shared and c.options.get("vec_scale") == 10
        else:
            source, job = shared[c.stem]
            assert (source.panel, source.configuration, source.series) == (c.panel, "r1", c.series)
            assert job == (c.panel, "r1")
    # R3 and the theory calibration change every series: nothing shared
    assert not [c for c in exp.cells if c.configuration in ("r3", "theory") and c.stem in shared]


def test_a_changed_setting_or_noise_key_is_not_a_repeat(global_config):
    exp = _experiment("cz22", global_config)
    cell = _cell(exp, "cz22_fig2b", "r2", "LinUCB-LDP")
    key = cell.computation_key()
    # labels only: the same key; but the panel keys the noise streams (noise_key: panel)
    assert set(LABEL_FIELDS) == {"figure", "panel", "configuration"}
    for name in ("figure", "configuration"):
        assert dataclasses.replace(cell, **{name: "x"}).computation_key() == key
    assert dataclasses.replace(cell, panel="x").computation_key() != key
    for change in ({"T": cell.T + 1}, {"series": "other"}, {"options": {"a": 1}}):
        assert dataclasses.replace(cell, **change).computation_key() != key
    settings = dataclasses.replace(cell, noise_key="settings")
    assert dataclasses.replace(settings, panel="x").computation_key() == settings.computation_key()


def _small(cell, **kw):
    return dataclasses.replace(cell, T=300, trials=2, checkpoints=3, **kw)


def test_a_copied_cell_is_the_bytes_of_simulating_it(global_config, tmp_path):
    exp = _experiment("cz22", global_config)
    for series in ("LinUCB-LDP", "LinUCB-SDP-Vec"):
        source = _small(_cell(exp, "cz22_fig2b", "r1", series))
        cell = _small(_cell(exp, "cz22_fig2b", "r2", series))
        src, simulated, copied = (tmp_path / f"{n}_{series}.parquet" for n in "abc")
        run_cell(source, src)
        run_cell(cell, simulated)
        copy_cell(cell, copied, source, src)
        assert copied.read_bytes() == simulated.read_bytes()
        assert src.read_bytes() != simulated.read_bytes()  # the labels differ
        meta = json.loads(pq.read_schema(copied).metadata[META_KEY])
        assert meta["cell"]["configuration"] == "r2"
    # dpdpe's cells keyed by their settings: the same setting in two figures (phase logs in
    # the metadata)
    exp = _experiment("dpdpe", global_config)
    shared = exp.shared_sources()
    stem, (source, _) = next((s, v) for s, v in shared.items() if v[0].panel != s.split("/")[1])
    cell = next(c for c in exp.cells if c.stem == stem)
    run_cell(source, tmp_path / "s.parquet")
    run_cell(cell, tmp_path / "sim.parquet")
    copy_cell(cell, tmp_path / "copy.parquet", source, tmp_path / "s.parquet")
    assert (tmp_path / "copy.parquet").read_bytes() == (tmp_path / "sim.parquet").read_bytes()


def test_copy_refuses_another_simulation_or_a_misplaced_file(global_config, tmp_path):
    exp = _experiment("cz22", global_config)
    source = _small(_cell(exp, "cz22_fig1b", "r1", "LinUCB-SDP-Vec"))
    run_cell(source, tmp_path / "src.parquet")
    other = _small(_cell(exp, "cz22_fig1b", "r2", "LinUCB-SDP-Vec"))  # vec_scale 10
    with pytest.raises(ValueError, match="settings differ"):
        copy_cell(other, tmp_path / "x.parquet", source, tmp_path / "src.parquet")
    twin = _small(_cell(exp, "cz22_fig1a", "r2", "LinUCB-SDP-Vec"))
    r1_of_twin = _small(_cell(exp, "cz22_fig1a", "r1", "LinUCB-SDP-Vec"))
    with pytest.raises(ValueError, match="was not written for"):
        copy_cell(twin, tmp_path / "y.parquet", r1_of_twin, tmp_path / "src.parquet")
    assert not (tmp_path / "x.parquet").exists() and not (tmp_path / "y.parquet").exists()


def test_run_cells_copies_shared_cells_with_the_sources_seconds(global_config, tmp_path):
    exp = _experiment("cz22", global_config)
    sources = [_small(_cell(exp, "cz22_fig2b", "r1", s)) for s in ("LinUCB", "LinUCB-JDP")]
    cells = [_small(_cell(exp, "cz22_fig2b", "r2", s)) for s in ("LinUCB", "LinUCB-JDP")]
    src_files = [tmp_path / f"src{i}.parquet" for i in range(2)]
    run_cells(sources, src_files)
    timing = tmp_path / "timing.csv"
    place = {"figure": "cz22_fig2", "panel": "cz22_fig2b", "configuration": "r1"}
    write_csv_table(  # as pipeline.write_timings writes it
        [
            {**place, "series": "LinUCB", "algorithm": "linucb", "T": 300, "trials": 2,
             "seconds": 1.5},
            {**place, "series": "LinUCB-JDP", "algorithm": "jdp_standin", "T": 300, "trials": 2,
             "seconds": 2.5},
        ],
        timing,
    )  # fmt: skip
    # the first cell copied, the second simulated here
    shared = read_shared(cells, [sources[0].as_dict(), None], [sources[0].path], [timing])
    assert list(shared) == [cells[0].stem] and shared[cells[0].stem][2] == 1.5
    shared = {cells[0].stem: (sources[0], src_files[0], 1.5)}
    outs = [tmp_path / f"out{i}.parquet" for i in range(2)]
    seconds = run_cells(cells, outs, shared=shared)
    assert seconds[0] == 1.5 and seconds[1] != 2.5
    direct = [tmp_path / f"direct{i}.parquet" for i in range(2)]
    run_cells(cells, direct)
    assert [p.read_bytes() for p in outs] == [p.read_bytes() for p in direct]
    with pytest.raises(ValueError, match="does not belong to"):
        read_shared(cells, [sources[0].as_dict(), None], [sources[1].path], [timing])
    empty = tmp_path / "t2.csv"
    write_csv_table(pd.DataFrame(columns=list(place) + ["series", "seconds"]), empty)
    with pytest.raises(ValueError, match="no timing row"):
        read_shared(cells[1:], [sources[1].as_dict()], [sources[1].path], [empty])
    empty.write_text(timing.read_text())  # a table unlike its record: refused, not read
    with pytest.raises(CorruptResultError, match="2 rows found, 0 recorded"):
        read_shared(cells[1:], [sources[1].as_dict()], [sources[1].path], [empty])
