"""The paper registry (src/dpbandits/papers) is the one list of papers the cross-paper parts use:
every entry has its files, and every cross-paper list agrees with it."""

import re
from pathlib import Path

import pytest

from dpbandits import report_captions as report
from dpbandits.checks import verify
from dpbandits.config import ConfigError, load_yaml
from dpbandits.papers import PAPERS, paper, papers, select

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("prefix", list(PAPERS))
def test_every_registered_paper_has_its_files(prefix):
    p = paper(prefix)
    assert (ROOT / p.docs).is_file()
    assert (ROOT / "config" / "experiments" / f"{prefix}.yaml").is_file()
    assert (ROOT / "config" / "claims" / f"{prefix}.yaml").is_file()
    assert p.kind in ("figures", "bounds")


def test_the_config_builds_every_registered_paper_unless_it_selects_fewer():
    cfg = load_yaml(ROOT / "config" / "config.yaml")
    assert "experiments" not in cfg and "bound_audits" not in cfg  # the registry decides
    select(cfg)
    assert cfg["experiments"] == [p.prefix for p in papers("figures")]
    assert cfg["bound_audits"] == [p.prefix for p in papers("bounds")]
    assert select({"experiments": ["olucb"], "bound_audits": []})["experiments"] == ["olucb"]


@pytest.mark.parametrize(
    "selection,message",
    [
        ({"experiments": ["nope"]}, "config key experiments: 'nope' is not a registered paper"),
        ({"experiments": ["op24"]}, "'op24' is not a registered paper with figures (it is a "),
        ({"bound_audits": ["cz22"]}, "allowed: op24, plasso"),
        ({"bound_audits": "op24"}, "config key bound_audits: 'op24' is not a list"),
    ],
)
def test_a_bad_selection_names_the_key_the_value_and_what_is_allowed(selection, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        select(dict(selection))


def test_cross_paper_lists_come_from_the_registry():
    tables = {t.name for t in verify.TABLES}
    for p in papers():
        assert report.CATEGORIES[p.prefix] == p.prefix
        study = p.hook("STUDY")
        own = set(study.canonical) if p.kind == "bounds" else {f"{p.prefix}_final_regret"}
        assert own and own <= tables, p.prefix
        hook = p.hook("bench_workload")
        assert hook is None or callable(hook), p.prefix
    numbers = [p.number for p in papers()]
    assert len(set(numbers)) == len(numbers)


def test_the_papers_whose_pages_read_figure_files_are_those_with_findings():
    # the audit page of a paper reads its figure cells' files only for its findings
    # (workflow/rules/common.smk: page_figure_cells)
    from dpbandits.papers.olucb.findings import FINDINGS

    flagged = {
        p.prefix for p in papers("figures") if getattr(p.module, "FINDINGS_READ_FIGURES", False)
    }
    assert flagged == set(FINDINGS)


def test_an_unknown_paper_or_kind_is_named_in_the_error():
    with pytest.raises(KeyError, match="registered: cz22, olucb, dpdpe, op24, plasso"):
        paper("nope")
    with pytest.raises(ValueError, match="unknown paper kind"):
        papers("tables")


@pytest.mark.parametrize("prefix", list(PAPERS))
def test_every_paper_has_its_package_and_a_figure_less_one_its_hooks(prefix):
    p = paper(prefix)
    assert p.module.__doc__ and f"({prefix})" in p.module.__doc__
    if p.kind == "bounds":
        schema = ROOT / "workflow" / "schemas" / f"{prefix}.schema.yaml"
        plan = p.module.load_plan(str(ROOT / "config/experiments" / f"{prefix}.yaml"), str(schema))
        rows = p.module.privacy_rows(plan)
        assert rows and {r["experiment"] for r in rows} == {prefix}


def test_a_hook_of_a_paper_without_a_package_is_none():
    """A paper may be configuration only (the toy paper of tests/workflow/test_adding_a_paper.py):
    asking its package for a hook gives None, not an import error in a job."""
    from dpbandits.papers import Paper

    assert paper("olucb").hook("claim_notes") is not None
    assert paper("cz22").hook("claim_notes") is None  # a package without that hook
    toy = Paper(**{**paper("cz22").__dict__, "prefix": "toy"})
    assert toy.hook("claim_notes") is None


def test_every_papers_own_rules_name_a_conda_environment_that_exists():
    """A conda path is relative to the file that holds the rule: a paper's rules.smk sits four
    levels below the project, not in workflow/rules/ (planted: the shared rules' relative path
    does not resolve from there)."""
    import re

    checked = 0
    for p in papers():
        if p.rules is None:
            continue
        here = Path(p.rules).parent
        for path in re.findall(r'conda:\s*\n(?:\s*#.*\n)*\s*"([^"]+)"', Path(p.rules).read_text()):
            assert (here / path).resolve() == (ROOT / "environment.yml").resolve(), (p.rules, path)
            checked += 1
        assert "CONDA_ENV" not in Path(p.rules).read_text(), p.rules
    assert checked >= 1
    assert not (here / "../../environment.yml").resolve().is_file()  # the shared rules' path
