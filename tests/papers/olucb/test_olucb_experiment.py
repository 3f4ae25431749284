"""olucb: the expansion of config/experiments/olucb.yaml into cells, and the
errors its semantic checks give."""

import copy

import pytest

from dpbandits.config import ConfigError, expand_experiment, load_experiment, schema_errors

from ...conftest import ROOT, SCHEMAS

EXP_SCHEMA = SCHEMAS / "experiment.schema.yaml"


def _errors(data, schema=EXP_SCHEMA):
    return "\n".join(schema_errors(data, schema))


def test_expansion_of_olucb(global_config):
    exp = load_experiment(ROOT / "config/experiments/olucb.yaml", global_config, EXP_SCHEMA)
    ids = {f.id for f in exp.figures}
    # Figure 1 under three configurations; the combiner figure keeps its name (one configuration)
    assert ids == {
        "olucb_fig1",
        "olucb_fig1_learners",
        "olucb_fig1_fair",
        "olucb_fig1_matched",
        "olucb_combiner",
    }
    assert exp.configuration_series("learners") == (
        "OnlineUCB",
        "OnlineUCB-OGD",
        "OnlineUCB-theory",
        "OnlineUCB-oracle",
    )
    main = [c for c in exp.cells if c.configuration == "main"]
    assert {c.series for c in main} == {
        "OnlineUCB",
        "LinUCB-SDP-Amp",
        "LinUCB-SDP-Vec",
        "LinUCB-JDP",
        "LinUCB-LDP",
        "LinUCB",
    }
    # OnlineUCB on the unit scaling of the baselines' instances (docs/papers/olucb.md)
    assert {c.instances for c in main if c.series == "OnlineUCB"} == {"paper_text"}
    assert {c.instances for c in main if c.series != "OnlineUCB"} == {"script"}
    # panel-level instance families of the combiner figure; the known lambda_min is resolved
    comb = {(c.panel, c.series): c for c in exp.cells if c.configuration == "combiner"}
    assert comb["olucb_combinerb", "Combiner"].instances == "illcond"
    known_a = comb["olucb_combinera", "OnlineUCB-known-lambda"].resolved_options({"c_beta": 1e-3})
    known_b = comb["olucb_combinerb", "OnlineUCB-known-lambda"].resolved_options({"c_beta": 1e-3})
    assert known_a["lambda_min"] == pytest.approx(0.125)
    assert known_b["lambda_min"] == pytest.approx(0.1**2 / 8)
    assert comb["olucb_combinerb", "OnlineUCB-known-lambda"].policy({"c_beta": 1e-3}).Delta2 > 0
    # calibrations: trials disjoint from the evaluation trials, a half-decade grid
    cal = exp.calibration("c_beta")
    assert cal.base.first_trial == 1000 and cal.base.trials == 10
    assert cal.base.epsilon == 1.0 and cal.base.kind == "calibration"
    assert len(cal.grid) == 15 and cal.grid[0] == 1.0 and cal.grid[-1] == pytest.approx(1e-7)
    assert "c_beta" not in cal.base.options  # set per grid value
    assert cal.cell(1e-3).resolved_options()["c_beta"] == 1e-3
    fair = [c for c in exp.cells if c.configuration == "fair" and c.series == "LinUCB-LDP"]
    assert fair[0].calibration_ids == ["fair_ldp"]
    # sweeps: separate runs per horizon; a d-scan names its points by d
    sweeps = {sw.id: sw for sw in exp.sweeps}
    assert sweeps["worst"].T == (2048, 4096, 8192, 16384, 32768, 65536)
    # OnlineUCB's cells (the planted explore-then-commit contestant has no lambda_min)
    assert all(c.options["lambda_min"] == 0 for c in sweeps["worst"].cells if c.algorithm != "etc")
    assert {c.point for c in sweeps["fav_d"].cells} == {
        "eps1_d5_T20000",
        "eps1_d10_T20000",
        "eps1_d20_T20000",
    }
    assert {c.instances for c in sweeps["fav_t"].cells} == {"fresh_sphere"}


def test_olucb_semantic_errors(global_config):
    from dpbandits.config import load_yaml

    data = load_yaml(ROOT / "config/experiments/olucb.yaml")
    bad = copy.deepcopy(data)
    bad["figures"]["olucb_combiner"]["configurations"] = ["combiner", "nope"]
    with pytest.raises(ConfigError, match=r"figures.olucb_combiner.configurations: unknown"):
        expand_experiment(bad, global_config, "olucb.yaml")
    bad = copy.deepcopy(data)
    bad["series"]["OnlineUCB"]["options"]["c_beta"] = {"calibrated": "missing"}
    with pytest.raises(ConfigError, match=r"calibration \['missing'\] is not declared"):
        expand_experiment(bad, global_config, "olucb.yaml")
    bad = copy.deepcopy(data)
    bad["configurations"]["learners"]["show"] = ["OnlineUCB", "OnlineUCB-nope"]
    with pytest.raises(ConfigError, match=r"learners.show: unknown series \['OnlineUCB-nope'\]"):
        expand_experiment(bad, global_config, "olucb.yaml")
    bad = copy.deepcopy(data)
    bad["series"]["Combiner"]["options"]["radius_mode"] = "oracle"
    with pytest.raises(ConfigError, match="radius_mode must be one of"):
        expand_experiment(bad, global_config, "olucb.yaml")
    bad = copy.deepcopy(data)
    bad["series"]["OnlineUCB"]["options"]["lambda_min"] = "known"
    assert "lambda_min = 'known'" in _errors(bad)
