"""The protocol of the figure-less studies (dpbandits.papers.study): every registered study
declares what the one rules file needs, its paths are distinct, and a bad declaration is
refused before the workflow builds anything."""

from pathlib import Path

import pytest

from dpbandits.papers import papers
from dpbandits.papers import study as layout

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "workflow" / "schemas"
HOOKS = ("load_plan", "simulate", "write_verdicts", "privacy_rows")


def _module(prefix: str):
    return next(p for p in papers("bounds") if p.prefix == prefix).module


def _plan(prefix: str, scale: str = "quick"):
    return _module(prefix).load_plan(
        str(ROOT / f"config/experiments/{prefix}.yaml"),
        str(SCHEMAS / f"{prefix}.schema.yaml"),
        "core",
        scale,
    )


@pytest.mark.parametrize("prefix", [p.prefix for p in papers("bounds")])
def test_every_study_declares_the_protocol(prefix):
    module = _module(prefix)
    module.STUDY.check(prefix)
    for hook in HOOKS + (("write_table",) if module.STUDY.tables else ()):
        assert callable(getattr(module, hook)), hook
    plan = _plan(prefix)
    assert isinstance(plan, layout.StudyPlan)
    assert len({r.id for r in plan.runs}) == len(plan.runs)
    assert {"fit_points", "grids"} <= set(plan.audit_parameters())
    # notebook parameters name every table the page reads and every figure it draws
    params = layout.page_parameters(prefix, module.STUDY, plan, "results/quick")
    assert "claims_csv" in params["files"]
    assert set(params["figures"]) == set(module.STUDY.figures)
    assert set(params["run_files"]) == set(module.STUDY.run_files)
    assert len(params["expected"]) == len(plan.runs) * len(module.STUDY.run_files)


def test_no_two_files_of_the_studies_share_a_path():
    paths = []
    for p in papers("bounds"):
        plan, study = _plan(p.prefix), p.module.STUDY
        paths += list(layout.outputs(p.prefix, study, "results").values())
        paths += [f for files in layout.run_paths(p.prefix, study, plan, "results").values()
                  for f in files]  # fmt: skip
        paths += [layout.timing_path(p.prefix, run, "results") for run in plan.runs]
    assert len(paths) > 50
    assert sorted({f for f in paths if paths.count(f) > 1}) == []


def _study(**changes):
    base = dict(run_files={"results": ""}, verdict_files={"claims": ("audit/x", "c")},
                figures={"e1": "caption"}, page="page")  # fmt: skip
    base.update(changes)
    return layout.Study(**base)


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"run_files": {"results": "_r"}}, "suffix ''"),
        ({"run_files": {"results": "", "timing": "_t"}}, "claims or timing"),
        ({"verdict_files": {"rows": ("audit/x", "c")}}, "'claims' table"),
        ({"figures": {"audit": "c"}}, "clash"),
        ({"tables": {"e1": ("tables/x", ("csv",), "c")}}, "clash"),
    ],
)
def test_a_bad_declaration_is_refused(changes, words):
    with pytest.raises(ValueError, match=words):
        _study(**changes).check("toy")


def test_a_good_declaration_passes_and_makes_every_path():
    study = _study(tables={"table1": ("tables/toy_table1", ("csv", "tex"), "c")})
    study.check("toy")
    out = layout.outputs("toy", study, "R")
    assert out == {
        "claims_csv": "R/audit/x.csv",
        "claims_md": "R/audit/x.md",
        "table1_csv": "R/tables/toy_table1.csv",
        "table1_tex": "R/tables/toy_table1.tex",
        "e1_pdf": "R/figures/toy_e1.pdf",
        "e1_png": "R/figures/toy_e1.png",
        "ipynb": "R/audit/toy.ipynb",
        "page": "R/audit/toy.html",
    }


def test_an_unknown_tier_is_refused_with_the_key():
    from dpbandits.config import ConfigError

    with pytest.raises(ConfigError, match="config key tier = 'huge': allowed core, full"):
        layout.check_tier("huge")
