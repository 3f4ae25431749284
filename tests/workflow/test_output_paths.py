"""One owner for each output path: every generated file's path is made by one function or
constant of workflow/rules/common.smk (or the study protocol it calls), never spelled out again in
a rule. A rule that writes a path literal would give the file a second owner."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "workflow" / "rules"
#: A path literal under a results root: f"{RESULTS}/...", f"{PRIVACY_ROOT}/..." or a study root.
PATH_LITERAL = re.compile(r"f\"\{(RESULTS|PRIVACY_ROOT|study_root\([^)]*\))\}/")


def literals(text: str) -> list[str]:
    """The lines of ``text`` that spell out a results path."""
    return [line.strip() for line in text.splitlines() if PATH_LITERAL.search(line)]


def test_rules_files_other_than_common_spell_no_results_path():
    offenders = {
        f.name: literals(f.read_text())
        for f in sorted(RULES.glob("*.smk"))
        if f.name != "common.smk"
    }
    offenders["Snakefile"] = [
        line
        for line in literals((ROOT / "Snakefile").read_text())
        if "--report" not in line  # the report command printed at the end, not an output
    ]
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_check_sees_a_path_literal():
    # the planted case: the pattern this test relies on catches a rule that spells a path
    planted = '        csv=f"{RESULTS}/audit/{_name}_rates.csv",\n        md=rates_md(_name),'
    assert literals(planted) == ['csv=f"{RESULTS}/audit/{_name}_rates.csv",']
    assert literals('timing=f"{study_root(_name)}/timing/x.csv"')
    assert not literals('log=f"{LOGS}/audit/x.log"')
