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
                "allowed: calibration, description, fidelity",
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
    assert len(ids) == len(set(ids)) == 82  # spec §8 (35) + §8.1 (17) + §7.3 (30)
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


def test_claims_reference_existing_panels_and_series(global_config):
    exp = load_experiment(ROOT / "config/experiments/cz22.yaml", global_config, EXP_SCHEMA)
    panels = {c.panel for c in exp.cells}
    series = set(exp.series)
    for claim in load_claims(ROOT / "config/claims/cz22.yaml", SCHEMAS / "claims.schema.yaml"):
        audit = claim["audit"]
        assert set(audit.get("panels", [])) <= panels, claim["id"]
        named = {
            audit.get("a"),
            audit.get("baseline"),
            *audit.get("b", []),
            *audit.get("series", []),
            *(s for pair in audit.get("pairs", []) for s in pair),
        } - {None}
        assert named <= series, claim["id"]
