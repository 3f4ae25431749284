"""cz22: the expansion of config/experiments/cz22.yaml into cells (panels,
configurations, series, common random numbers, the figures)."""

from dpbandits.config import load_experiment

from ...conftest import ROOT, SCHEMAS

EXP_SCHEMA = SCHEMAS / "experiment.schema.yaml"


def test_expansion_of_cz22(global_config):
    exp = load_experiment(ROOT / "config/experiments/cz22.yaml", global_config, EXP_SCHEMA)
    assert len(exp.cells) == 5 * 5 * 5  # panels x configurations x series
    assert len({c.path for c in exp.cells}) == len(exp.cells)
    assert len(exp.groups()) == 25
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
    assert jdp == {
        "r1": "jdp_standin",
        "r2": "jdp_standin",
        "r3": "jdp_tree",
        "matched": "jdp_tree",  # the stand-in is private at no noise level
        "theory": "jdp_tree",
    }
    ids = [f.id for f in exp.figures]
    assert ids[:2] == ["cz22_fig1", "cz22_fig2"] and len(set(ids)) == 10
    assert "cz22_fig1a" in exp.figure("cz22_fig1").image_names
    assert "cz22_fig1_pseudo" in exp.figure("cz22_fig1").image_names
