"""Configuration: schema errors name the key, the value and what is allowed; expansion is sound."""

import copy

import pytest
import yaml

from dpbandits.claims import load_claims
from dpbandits.config import (
    ConfigError,
    check_schema,
    expand_experiment,
    load_experiment,
    schema_errors,
)
from dpbandits.policies import POLICIES

from .conftest import ROOT, SCHEMAS

EXP_SCHEMA = SCHEMAS / "experiment.schema.yaml"
CFG_SCHEMA = SCHEMAS / "config.schema.yaml"


def _errors(data, schema=EXP_SCHEMA):
    return "\n".join(schema_errors(data, schema))


def test_shipped_files_are_valid(global_config, cz22_data):
    assert schema_errors(global_config, CFG_SCHEMA) == []
    assert schema_errors(cz22_data, EXP_SCHEMA) == []


@pytest.mark.parametrize(
    "mutate,expected",
    [
        (
            lambda d: d["series"]["LinUCB-LDP"].update(algorithm="ldp2"),
            ["series.LinUCB-LDP.algorithm = 'ldp2'", "allowed: linucb, ldp"],
        ),
        (
            lambda d: d["configurations"]["r1"].update(calibration="paper"),
            ["configurations.r1.calibration = 'paper'", "allowed: experiment, theory"],
        ),
        (
            lambda d: d["figures"]["cz22_fig1"]["panels"]["a"].update(epsilon=-0.2),
            ["figures.cz22_fig1.panels.a.epsilon = -0.2", "must be > 0"],
        ),
        (lambda d: d["defaults"].update(delta=1.5), ["defaults.delta = 1.5", "must be < 1"]),
        (lambda d: d["defaults"].update(delta=0), ["defaults.delta = 0", "must be > 0"]),
        (
            lambda d: d["defaults"].update(T=2000.5),
            ["defaults.T = 2000.5", "must be of type integer"],
        ),
        (lambda d: d["defaults"].update(T=-5), ["defaults.T = -5", "must be >= 1"]),
        (lambda d: d["defaults"].pop("trials"), ["defaults", "'trials' is a required property"]),
        (lambda d: d.update(horizon=5), ["horizon: unknown key", "allowed:"]),
        (
            lambda d: d["configurations"]["r1"].update(fidelty="script"),
            [
                "configurations.r1.fidelty: unknown key",
                "allowed: T, calibration, description, fidelity",
            ],
        ),
    ],
)
def test_schema_errors_name_key_value_and_allowed(cz22_data, mutate, expected):
    data = copy.deepcopy(cz22_data)
    mutate(data)
    msg = _errors(data)
    for part in expected:
        assert part in msg, msg


@pytest.mark.parametrize(
    "mutate,expected",
    [
        (lambda c: c.update(scale="huge"), ["scale = 'huge'", "allowed: paper, quick"]),
        (lambda c: c.update(root_seed=-1), ["root_seed = -1", "must be >= 0"]),
        (lambda c: c.update(colour="blue"), ["colour: unknown key"]),
        (lambda c: c.pop("checkpoints"), ["'checkpoints' is a required property"]),
        (lambda c: c["scales"]["quick"].update(T=0), ["scales.quick.T = 0", "must be >= 1"]),
    ],
)
def test_global_config_errors(global_config, mutate, expected):
    cfg = copy.deepcopy(global_config)
    mutate(cfg)
    with pytest.raises(ConfigError) as err:
        check_schema(cfg, CFG_SCHEMA, "config/config.yaml")
    for part in ["config/config.yaml", *expected]:
        assert part in str(err.value)


def test_semantic_errors_are_refused_with_the_key(global_config, cz22_data):
    data = copy.deepcopy(cz22_data)
    data["configurations"]["theory"]["series"]["LinUCB-JDP"] = {"algorithm": "jdp_standin"}
    with pytest.raises(
        ConfigError, match=r"configurations.theory.*LinUCB-JDP.*jdp_standin.*not available"
    ):
        expand_experiment(data, global_config, "cz22.yaml")
    data = copy.deepcopy(cz22_data)
    data["defaults"]["T"] = 20010  # B = 20 does not divide T
    with pytest.raises(ConfigError, match="must divide T=20010"):
        expand_experiment(data, global_config, "cz22.yaml")
    data = copy.deepcopy(cz22_data)
    data["primary"] = "r9"
    with pytest.raises(ConfigError, match="primary = 'r9'.*allowed: r1, r2, r3, theory"):
        expand_experiment(data, global_config, "cz22.yaml")
    data = copy.deepcopy(cz22_data)
    data["configurations"]["r2"]["panels"]["cz22_fig9a"] = {}
    with pytest.raises(ConfigError, match="panels.cz22_fig9a: unknown panel"):
        expand_experiment(data, global_config, "cz22.yaml")
    data = copy.deepcopy(cz22_data)
    data["configurations"]["r2"]["panels"]["cz22_fig1b"] = {
        "LinUCB-SDP": {"options": {"vec_scale": 10}}
    }
    with pytest.raises(ConfigError, match="LinUCB-SDP: unknown series"):
        expand_experiment(data, global_config, "cz22.yaml")


def test_schema_algorithms_match_the_policy_registry():
    schema = yaml.safe_load(EXP_SCHEMA.read_text())
    assert set(schema["$defs"]["algorithm"]["enum"]) == set(POLICIES)


def test_expansion_of_cz22(global_config):
    exp = load_experiment(ROOT / "config/experiments/cz22.yaml", global_config, EXP_SCHEMA)
    assert len(exp.cells) == 5 * 4 * 5  # panels x configurations x series
    assert len({c.path for c in exp.cells}) == len(exp.cells)
    assert len(exp.groups()) == 20
    r1 = [c for c in exp.cells if c.configuration == "r1" and c.figure == "cz22_fig1"]
    assert (
        {c.T for c in r1} == {20000}
        and {c.trials for c in r1} == {50}
        and {c.B for c in r1} == {20}
    )
    assert {(c.panel, c.epsilon) for c in r1} == {
        ("cz22_fig1a", 0.2),
        ("cz22_fig1b", 1.0),
        ("cz22_fig1c", 10.0),
    }
    # common random numbers: every cell of a panel shares its instances and reward streams
    for cells in exp.groups().values():
        assert (
            len({(c.instances, c.instance_seed, c.reward_seed_offset, c.d, c.K) for c in cells})
            == 1
        )
    # R2 differs from R1 only by vec_scale in Fig. 1(b), 1(c)
    r2 = {c.panel: c for c in exp.cells if c.configuration == "r2" and c.series == "LinUCB-SDP-Vec"}
    assert r2["cz22_fig1b"].options == {"vec_scale": 10} and r2["cz22_fig1a"].options == {
        "vec_scale": 1
    }
    # R3 and theory use the true tree for JDP
    jdp = {c.configuration: c.algorithm for c in exp.cells if c.series == "LinUCB-JDP"}
    assert jdp == {"r1": "jdp_standin", "r2": "jdp_standin", "r3": "jdp_tree", "theory": "jdp_tree"}
    ids = [f.id for f in exp.figures]
    assert ids[:2] == ["cz22_fig1", "cz22_fig2"] and len(set(ids)) == 8
    assert "cz22_fig1a" in exp.figure("cz22_fig1").image_names
    assert "cz22_fig1_pseudo" in exp.figure("cz22_fig1").image_names


def test_quick_scale_shrinks_every_cell_and_moves_the_outputs(global_config):
    cfg = {**global_config, "scale": "quick"}
    exp = load_experiment(ROOT / "config/experiments/cz22.yaml", cfg, EXP_SCHEMA)
    assert {(c.T, c.trials) for c in exp.cells} == {(2000, 5)}
    assert all(c.path.startswith("results/quick/sim/") for c in exp.cells)


def test_cell_hash_changes_with_any_setting(global_config):
    exp = load_experiment(ROOT / "config/experiments/cz22.yaml", global_config, EXP_SCHEMA)
    cell = exp.cells[0]
    other = type(cell)(**{**cell.as_dict(), "epsilon": cell.epsilon * 2})
    assert cell.config_hash() != other.config_hash()
    assert cell.config_hash() == type(cell).from_dict(cell.as_dict()).config_hash()


def test_claims_registry_loads_and_refuses_malformed_entries(tmp_path):
    claims = load_claims(ROOT / "config/claims/cz22.yaml", SCHEMAS / "claims.schema.yaml")
    ids = [c["id"] for c in claims]
    assert len(ids) == len(set(ids)) == 82  # 35 rates + 17 privacy claims + 30 figure orderings
    for panel in ("fig1a", "fig1b", "fig1c", "fig2a", "fig2b"):
        for stmt in (
            "amp_below_ldp",
            "vec_below_ldp",
            "jdp_below_amp",
            "jdp_below_vec",
            "linucb_lowest",
        ):
            assert f"cz22.{panel}.{stmt}" in ids
    data = yaml.safe_load((ROOT / "config/claims/cz22.yaml").read_text())
    bad = copy.deepcopy(data)
    bad["claims"][0]["kind"] = "vibes"
    path = tmp_path / "cz22.yaml"
    path.write_text(yaml.safe_dump(bad))
    with pytest.raises(
        ConfigError, match=r"claims.0.kind = 'vibes': not allowed; allowed: rate, ordering"
    ):
        load_claims(path, SCHEMAS / "claims.schema.yaml")
    bad = copy.deepcopy(data)
    bad["claims"][1]["id"] = bad["claims"][0]["id"]
    path.write_text(yaml.safe_dump(bad))
    with pytest.raises(ConfigError, match="duplicate id"):
        load_claims(path, SCHEMAS / "claims.schema.yaml")
    bad = copy.deepcopy(data)
    bad["claims"][-1]["audit"]["of"] = ["cz22.nope"]
    path.write_text(yaml.safe_dump(bad))
    with pytest.raises(ConfigError, match="'cz22.nope' is not a claim id"):
        load_claims(path, SCHEMAS / "claims.schema.yaml")


@pytest.mark.parametrize("name", ["cz22", "olucb", "dpdpe"])
def test_claims_reference_existing_panels_and_series(global_config, name):
    exp = load_experiment(ROOT / f"config/experiments/{name}.yaml", global_config, EXP_SCHEMA)
    panels = {c.panel for c in exp.cells}
    series = set(exp.series)
    sweeps = {sw.id: set(sw.schedules) for sw in exp.sweeps}
    grids = {sw.id: {g for g, m in sw.grids.items() if m != (g,)} for sw in exp.sweeps}
    confs = set(exp.data["configurations"])
    for claim in load_claims(ROOT / f"config/claims/{name}.yaml", SCHEMAS / "claims.schema.yaml"):
        audit = claim["audit"]
        assert set(audit.get("panels", [])) <= panels, claim["id"]
        assert set(audit.get("configurations", [])) <= confs, claim["id"]
        if "sweep" in audit:  # worst-case claims name gap grids, the others series
            named = grids if audit.get("worst_case") else sweeps
            assert set(audit["schedules"]) <= named[audit["sweep"]], claim["id"]
        for conf in audit.get("configurations", []):  # the series are drawn there
            assert {audit.get("a"), *audit.get("b", []), *audit.get("series", [])} - {None} <= set(
                exp.configuration_series(conf)
            ), claim["id"]
        baseline = audit.get("baseline")
        if audit.get("T_fit") == "gap":  # the baseline is a schedule (a grid) of the same sweep
            assert baseline in (grids if audit.get("worst_case") else sweeps)[audit["sweep"]]
            baseline = None
        named = {
            audit.get("a"),
            baseline,
            *audit.get("b", []),
            *audit.get("series", []),
            *(s for pair in audit.get("pairs", []) for s in pair),
        } - {None}
        assert named <= series, claim["id"]
    ids = {
        c["id"]
        for c in load_claims(ROOT / f"config/claims/{name}.yaml", SCHEMAS / "claims.schema.yaml")
    }
    assert set(exp.data.get("communication", {}).get("claims", {}).values()) <= ids


def test_expansion_of_olucb(global_config):
    exp = load_experiment(ROOT / "config/experiments/olucb.yaml", global_config, EXP_SCHEMA)
    ids = {f.id for f in exp.figures}
    # Figure 1 under three configurations; the combiner figure keeps its name (one configuration)
    assert ids == {"olucb_fig1", "olucb_fig1_learners", "olucb_fig1_fair", "olucb_combiner"}
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
    assert all(c.options["lambda_min"] == 0 for c in sweeps["worst"].cells)
    assert {c.point for c in sweeps["fav_d"].cells} == {
        "eps1_d5_T20000",
        "eps1_d10_T20000",
        "eps1_d20_T20000",
    }
    assert {c.instances for c in sweeps["fav_t"].cells} == {"fresh_sphere"}


def test_sweep_and_calibration_cells_are_placed_by_their_own_fields(global_config):
    """A sweep cell is placed by sweep, schedule and point, a calibration cell by its
    calibration id and point; neither borrows the figure fields, and the noise key and path
    keep the text they had when the figure fields carried those values."""
    from dpbandits.io import setting_columns

    olucb = load_experiment(ROOT / "config/experiments/olucb.yaml", global_config, EXP_SCHEMA)
    cell = next(c for sw in olucb.sweeps if sw.id == "fav_d" for c in sw.cells)
    assert (cell.figure, cell.panel, cell.configuration, cell.series) == ("", "", "", "")
    assert cell.place() == {"sweep": "fav_d", "schedule": cell.schedule, "point": cell.point}
    assert cell.seed_panel == f"sweep:fav_d:{cell.point}"
    assert cell.path == f"results/sim/olucb/fav_d/{cell.schedule}/{cell.point}.parquet"
    columns = list(setting_columns(cell.kind))
    assert columns[:4] == ["experiment", "sweep", "schedule", "point"]
    assert not {"figure", "panel", "configuration", "series"} & set(columns)
    assert list(setting_columns("figure"))[:5] == [
        "experiment", "figure", "panel", "configuration", "series"
    ]  # fmt: skip
    dpdpe = load_experiment(ROOT / "config/experiments/dpdpe.yaml", global_config, EXP_SCHEMA)
    cal = dpdpe.calibration("fixed_u")
    tried, ref = cal.cell(536), cal.reference
    assert (tried.calibration_id, tried.point, ref.calibration_id, ref.point) == (
        "fixed_u", "536", "fixed_u", "reference"
    )  # fmt: skip
    # the calibrated panel and series stay the figure cell's own
    assert (tried.panel, tried.series) == (cal.base.panel, cal.series)
    assert tried.seed_panel == "calibration:fixed_u:fixed_u:536"
    assert ref.seed_panel == "calibration:fixed_u:fixed_u:reference"
    assert ref.series != tried.series and ref.stem != tried.stem


def test_quick_scale_of_single_horizon_sweeps(global_config):
    quick = {**global_config, "scale": "quick"}
    exp = load_experiment(ROOT / "config/experiments/olucb.yaml", quick, EXP_SCHEMA)
    sweeps = {sw.id: sw for sw in exp.sweeps}
    assert sweeps["fav_eps"].T == (max(quick["scales"]["quick"]["sweep_T"]),)
    assert sweeps["worst"].T == tuple(quick["scales"]["quick"]["sweep_T"])
    assert exp.calibration("c_beta").base.trials == quick["scales"]["quick"]["trials"]


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


def _dpdpe_with(tmp_path, edit):
    data = yaml.safe_load((ROOT / "config/experiments/dpdpe.yaml").read_text())
    edit(data["sweeps"])
    path = tmp_path / "dpdpe.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_a_gap_grid_runs_one_series_per_gap_largest_first(global_config):
    exp = load_experiment(ROOT / "config/experiments/dpdpe.yaml", global_config, EXP_SCHEMA)
    sweep = next(s for s in exp.sweeps if s.id == "gap_client")
    names = sweep.grids["dpe_a50"]
    assert names == tuple(f"dpe_a50_g{k}" for k in range(1, 7))
    gaps = [sweep.cells_of(n)[0].instance_options["gap_scale"] for n in names]
    assert gaps == sorted(gaps, reverse=True) and len(set(gaps)) == 6
    assert {c.schedule for c in sweep.cells_of_entry("dpe_a50")} == set(names)
    # the grid's cells belong to the experiment like any other (paths, seeds)
    assert {c.experiment for c in sweep.cells} == {"dpdpe"}
    assert all(c.path.startswith("results/sim/dpdpe/gap_client/") for c in sweep.cells)
    # every gap of the grid is at most 1 at the shortest horizon (the instance's domain)
    power = sweep.cells_of(names[0])[0].instance_options["gap_power"]
    assert gaps[0] * min(sweep.T) ** -power <= 1


def test_a_gap_grid_outside_the_instance_domain_is_refused(tmp_path, global_config):
    def too_wide(sweeps):
        sweeps["gap_client"]["schedules"]["dpe_a50"]["gap_grid"] = [64, 8, 4]

    with pytest.raises(
        ConfigError, match=r"gap_client\.schedules\.dpe_a50\.gap_grid: gap scale 64"
    ):
        load_experiment(_dpdpe_with(tmp_path, too_wide), global_config, EXP_SCHEMA)

    def wrong_family(sweeps):
        sweeps["free"]["schedules"]["dpe"]["gap_grid"] = [1, 0.5, 0.25]

    with pytest.raises(ConfigError, match="needs instances two_action"):
        load_experiment(_dpdpe_with(tmp_path, wrong_family), global_config, EXP_SCHEMA)
