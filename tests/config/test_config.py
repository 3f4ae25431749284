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

from ..conftest import ROOT, SCHEMAS

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
    with pytest.raises(ConfigError, match="primary = 'r9'.*allowed: r1, r2, r3, matched, theory"):
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
