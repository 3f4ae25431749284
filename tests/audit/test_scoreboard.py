"""The scoreboard: every audit's verdict words map to one status, privacy findings override.

Also pinned (docs/mutation.md; docs/auditing.md, "the scoreboard"): every claim gets one status,
the overview's verdict word mapped to a status, replaced by the privacy audit's finding unless that
finding is ``not audited``; a contradicted claim carries its robustness (``untested`` when nothing
says); the reason falls back to the overview's ``how``; the Markdown page. The privacy findings of
those tests are read from CSV text, as the pipeline reads ``privacy_claims.csv``: their strings are
then fresh objects, so a check by identity instead of equality shows.
"""

import io

import pandas as pd
import pytest

from dpbandits.audit import scoreboard as sb
from dpbandits.audit.fits import VERDICT_ORDER
from dpbandits.audit.ordering import VERDICTS as ORDERING_VERDICTS
from dpbandits.io import write_csv_table
from dpbandits.runtime.run_summary import STATUS_ORDER, scoreboard_lines


def test_every_rate_and_ordering_verdict_has_a_status():
    for word in (*VERDICT_ORDER, *ORDERING_VERDICTS, "not audited"):
        assert sb.status(word) in sb.STATUSES
    assert sb.status("untestable") == "untestable"
    assert sb.status("exceeds") == sb.status("FAIL") == "contradicted"


def test_an_unknown_verdict_word_is_refused_not_counted():
    with pytest.raises(ValueError, match="no scoreboard status"):
        sb.status("MAYBE")


def test_privacy_findings_replace_the_registry_verdict():
    ov = pd.DataFrame(
        {
            "claim_id": ["p.rate", "p.priv", "p.other"],
            "kind": ["rate", "privacy", "privacy"],
            "verdict": ["consistent", "not audited", "not audited"],
            "how": ["fit", "noise scale checked", "n/a"],
        }
    )
    privacy = pd.DataFrame(
        {
            "claim_id": ["p.priv", "p.other"],
            "status": ["contradicted", "not audited"],
            "reason": ["delivered epsilon 18.4 at nominal 10", "no row"],
        }
    )
    board = sb.scoreboard([("p", ov)], privacy).set_index("claim_id")
    assert board.loc["p.rate", "status"] == "supported"
    assert board.loc["p.priv", "status"] == "contradicted"
    assert "18.4" in board.loc["p.priv", "reason"]
    assert board.loc["p.other", "status"] == "not audited"
    counts = sb.counts(board.reset_index())
    assert counts.loc[0, "total"] == 3 and counts.loc[0, "contradicted"] == 1


def test_end_of_run_summary_prints_the_counts(tmp_path):
    assert STATUS_ORDER == sb.STATUSES
    ov = pd.DataFrame({"claim_id": ["a", "b"], "verdict": ["untestable", "PASS"]})
    path = tmp_path / "scoreboard.csv"
    write_csv_table(sb.scoreboard([("cz22", ov)]), path)
    lines = scoreboard_lines(path)
    assert lines[1].split() == ["cz22", "1", "supported,", "1", "untestable"]
    assert scoreboard_lines(tmp_path / "missing.csv") == []
    path.write_bytes(path.read_bytes().splitlines(keepends=True)[0])  # cut: the summary says so
    (line,) = scoreboard_lines(path)
    assert line.startswith(f"Scoreboard not shown: {path}: differs from its content record")


def test_a_comparison_that_flips_with_the_configuration_is_not_supported():
    ov = pd.DataFrame(
        {
            "claim_id": ["beats"],
            "verdict": ["PASS"],  # against the untuned baselines (primary configuration)
            "all_configurations": ["INCONCLUSIVE"],  # FAIL once every baseline is tuned
        }
    )
    assert sb.scoreboard([("olucb", ov)])["status"].iat[0] == "inconclusive"


def test_a_claim_no_audit_tests_carries_the_registrys_reason():
    # the studies' overviews (papers 001 and 002) have no `reason` column: a NOT-AUDITED claim
    # takes its registry note, a rate claim the rules that decided it (planted: the old board
    # left both empty)
    ov = pd.DataFrame(
        {
            "claim_id": ["op.q1", "op.rate"],
            "verdict": ["NOT-AUDITED", "consistent"],
            "rules": ["-", "R-UP-T: consistent"],
            "notes": ["an open question, not a claim", ""],
        }
    )
    board = sb.scoreboard([("op24", ov)]).set_index("claim_id")
    assert board.loc["op.q1", "status"] == "not audited"
    assert board.loc["op.q1", "reason"] == "an open question, not a claim"
    assert board.loc["op.rate", "reason"] == "R-UP-T: consistent"


def test_every_study_claim_that_no_audit_tests_has_a_note():
    # papers 001 and 002: a NOT-AUDITED / DESCRIPTIVE claim says in its registry why
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parents[2] / "config" / "claims"
    for name in ("op24", "plasso"):
        for claim in yaml.safe_load((root / f"{name}.yaml").read_text())["claims"]:
            if claim["audit"].get("rule") in ("NOT-AUDITED", "DESCRIPTIVE"):
                assert str(claim.get("notes", "")).strip(), f"{claim['id']} has no note"


def test_the_matched_verdict_is_reported_and_never_decides_an_ordering_claim():
    from dpbandits.audit.overview import _ordering_verdict, matched_phrase

    claim = {"id": "c", "audit": {"check": "below"}}
    # planted: the ordering holds at nominal epsilon in every configuration, fails at matched
    sums = {("c", "r1"): "PASS", ("c", "r2"): "PASS", ("c", "matched"): "FAIL"}
    verdict, how, across = _ordering_verdict(claim, sums, "r1", "realized")
    assert verdict == "PASS" and across is None  # the matched configuration is not "another"
    assert how.endswith("at matched privacy (configuration matched) FAIL: the paper's ordering "
                        "holds at nominal epsilon only")  # fmt: skip
    # the four answers; no matched rows: nothing said
    assert "holds at nominal and at matched" in matched_phrase("PASS", "PASS")
    assert "holds at matched epsilon only" in matched_phrase("WEAK", "PASS")
    assert "established at neither" in matched_phrase("FAIL", "WEAK")
    assert matched_phrase("PASS", None) == ""
    sums[("c", "r2")] = "FAIL"  # a nominal configuration that differs still does
    assert _ordering_verdict(claim, sums, "r1", "realized")[2] == "INCONCLUSIVE"


# -- privacy findings read from CSV text, fallbacks and the Markdown page --------------------------


def _privacy(csv: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(csv))


def test_every_privacy_finding_but_not_audited_replaces_the_overview_verdict():
    ov = pd.DataFrame(
        {
            "claim_id": ["a", "b", "c", "d"],
            "verdict": ["inconclusive", "not audited", "FAIL", "consistent"],
        }
    )
    privacy = _privacy(
        "claim_id,status,reason\n"
        "a,supported,all rows DELIVERED\n"
        "b,inconclusive,only approximations\n"
        "c,contradicted,delivered 18.4 at nominal 10\n"
        "d,not audited,no row tests it\n"
    )
    board = sb.scoreboard([("p", ov)], privacy).set_index("claim_id")
    assert board.loc["a", "status"] == "supported"
    assert board.loc["a", "verdict"] == "privacy audit: supported"
    assert board.loc["a", "reason"] == "all rows DELIVERED"
    assert board.loc["b", "status"] == "inconclusive"
    assert board.loc["c", "status"] == "contradicted"
    assert board.loc["c", "robustness"] == ""  # a privacy finding has no refit
    # "not audited" is no finding: the overview's verdict stands
    assert board.loc["d", "status"] == "supported" and board.loc["d", "verdict"] == "consistent"


def test_the_reason_falls_back_to_how_and_a_missing_robustness_is_untested():
    # two overviews, as the papers give them: one with a reason column, one with how; a
    # robustness column with a gap (NaN) for a contradicted claim
    with_reason = pd.DataFrame({"claim_id": ["r"], "verdict": ["PASS"], "reason": ["ordered"]})
    with_how = pd.DataFrame(
        {
            "claim_id": ["h", "x"],
            "verdict": ["exceeds", "exceeds"],
            "how": ["sweep s: fast", "sweep s: slow"],
            "robustness": [float("nan"), "robust"],  # a gap, as read from CSV
        }
    )
    board = sb.scoreboard([("p", with_reason), ("q", with_how)]).set_index("claim_id")
    assert board.loc["r", "reason"] == "ordered"
    assert board.loc["h", "reason"] == "sweep s: fast"
    assert board.loc["h", "robustness"] == "untested"
    assert board.loc["x", "robustness"] == "robust"


def test_markdown_has_the_counts_then_the_claims_without_an_index_column():
    ov = pd.DataFrame({"claim_id": ["a", "b"], "verdict": ["consistent", "FAIL"]})
    text = sb.markdown(sb.scoreboard([("p", ov)]))
    assert text.startswith("# Scoreboard: the status of every audited claim\n")
    assert text.endswith("\n") and not text.endswith("\n\n")
    tables = [line for line in text.splitlines() if line.startswith("|")]
    # header, separator, one row of counts; header, separator, two claims
    assert len(tables) == 7
    count_head = [c.strip() for c in tables[0].strip("|").split("|")]
    assert count_head == ["paper", *sb.STATUSES, "total"]
    assert [c.strip() for c in tables[2].strip("|").split("|")] == [
        "p",
        "1",
        "1",
        "0",
        "0",
        "0",
        "2",
    ]
    claim_head = [c.strip() for c in tables[3].strip("|").split("|")]
    assert claim_head == [c for c in sb.COLUMNS if c != "evidence"]
