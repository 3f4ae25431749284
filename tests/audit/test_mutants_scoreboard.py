"""Tests that kill mutants left alive in audit/scoreboard.py (docs/mutation.md).

The scoreboard (docs/auditing.md, "the scoreboard") gives every claim one status: the overview's
verdict word mapped to a status, replaced by the privacy audit's finding unless that finding is
``not audited``; a contradicted claim carries its robustness (``untested`` when nothing says).
The privacy findings are read from CSV text here, as the pipeline reads ``privacy_claims.csv``:
their strings are then fresh objects, so a check by identity instead of equality shows.
"""

import io

import pandas as pd

from dpbandits.audit import scoreboard as sb


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
