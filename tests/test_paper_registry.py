"""The paper registry (src/dpbandits/papers) is the one list of papers the cross-paper parts use:
every entry has its files, and every cross-paper list agrees with it."""

from pathlib import Path

import pytest

from dpbandits import cli, report, verify
from dpbandits.config import load_yaml
from dpbandits.papers import PAPERS, paper, papers

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("prefix", list(PAPERS))
def test_every_registered_paper_has_its_files(prefix):
    p = paper(prefix)
    assert (ROOT / p.docs).is_file()
    assert (ROOT / "config" / "experiments" / f"{prefix}.yaml").is_file()
    assert (ROOT / "config" / "claims" / f"{prefix}.yaml").is_file()
    assert p.kind in ("figures", "bounds")


def test_the_config_builds_exactly_the_registered_papers_of_each_kind():
    cfg = load_yaml(ROOT / "config" / "config.yaml")
    assert set(cfg["experiments"]) == {p.prefix for p in papers("figures")}
    assert set(cfg["bound_audits"]) == {p.prefix for p in papers("bounds")}


def test_cross_paper_lists_come_from_the_registry():
    tables = {t.name for t in verify.TABLES}
    for p in papers():
        assert report.CATEGORIES[p.prefix] == f"Paper {p.number} ({p.prefix})"
        assert set(p.canonical) <= tables, p.prefix
        assert not p.bench or p.bench == "bench" or p.bench in cli.PAPER_WORKLOADS
    numbers = [p.number for p in papers()]
    assert len(set(numbers)) == len(numbers)


def test_an_unknown_paper_or_kind_is_named_in_the_error():
    with pytest.raises(KeyError, match="registered: olucb, plasso, op24, cz22, dpdpe"):
        paper("nope")
    with pytest.raises(ValueError, match="unknown paper kind"):
        papers("tables")
