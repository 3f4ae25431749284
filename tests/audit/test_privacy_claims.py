"""Privacy claims against the privacy audit (issue 19 item 3): the statuses of
:func:`dpbandits.audit.privacy_claims.privacy_claim_status` on hand-made rows, and every
``privacy_audit`` selector of the registries against the rows the privacy audit enumerates.

Also pinned (docs/mutation.md), with the reasons checked word for word on hand-made rows: the worst
delivered row is the one furthest above its nominal epsilon as a *ratio*; an empirical lower bound
is consistent with accounting when it is at most the pair's certified epsilon (recomputed from the
bounds when the auditor's ``lb_le_delivered`` column is absent); ``nominal_epsilon`` selectors
match up to 1e-9 relative.
"""

import doctest
import math

import pandas as pd
import pytest

from dpbandits.audit import privacy_claims
from dpbandits.audit.privacy_claims import STATUSES, privacy_claim_status, select_rows
from dpbandits.bound_claims import load_bound_registry
from dpbandits.claims import load_claims
from dpbandits.papers import papers

from ..conftest import ROOT, SCHEMAS

REGISTRIES = ("cz22", "dpdpe", "olucb")  # claims.schema.yaml; plasso has its own format
#: Privacy claims per registry (olucb's second `privacy` is the spec_kind of the same claim).
PRIVACY_CLAIMS = {"cz22": 17, "dpdpe": 11, "olucb": 1, "plasso": 2}


def _d(series, nominal, delivered, verdict, experiment="dpdpe", **extra) -> dict:
    return {
        "experiment": experiment,
        "figure": "fig",
        "configuration": "conf",
        "series": series,
        "algorithm": series.lower(),
        "calibration": "experiment/script",
        "mechanism": "a Gaussian mechanism",
        "nominal_epsilon": nominal,
        "delivered_epsilon": delivered,
        "verdict": verdict,
        **extra,
    }


def _e(case, nominal, lb, delivered, control=False, alpha=0.05) -> dict:
    return {
        "case": case,
        "represents": f"{case} rows",
        "control": control,
        "nominal_epsilon": nominal,
        "delivered_epsilon": delivered,
        "epsilon_lower_bound": lb,
        "caught": lb > nominal,
        "lb_le_delivered": lb <= delivered,
        "alpha": alpha,
    }


def _claim(cid, selectors, kind="privacy", none="because"):
    audit = {"none": none}
    if selectors is not None:
        audit["privacy_audit"] = selectors
    return {"id": cid, "kind": kind, "audit": audit}


@pytest.fixture
def delivered():
    return pd.DataFrame(
        [
            _d("CDP", 1.0, 0.8, "DELIVERED"),
            _d("CDP", 10.0, 9.9, "DELIVERED"),
            _d("SDP", 10.0, 11.0, "NOT-CERTIFIED", lower_epsilon=math.nan),
            _d("VEC", 1.0, 1.7, "NOT-CERTIFIED", lower_epsilon=0.12),
            _d("JDP", 1.0, math.inf, "NOT-PRIVATE", lower_epsilon=math.inf),
        ]
    )


@pytest.fixture
def empirical():
    return pd.DataFrame(
        [
            _e("central", 10.0, 7.5, 18.4),
            _e("screen", 0.42, 7.9, math.inf),
            _e("shuffle", 10.0, 0.0, 0.0),
            _e("under-noised control", 0.2, 7.2, 12.0, control=True),
            _e("leaky accounting", 1.0, 0.9, 0.5),
        ]
    )


def _status(claims, delivered, empirical) -> pd.DataFrame:
    out = privacy_claim_status(claims, delivered, empirical)
    assert list(out.columns) == privacy_claims.COLUMNS
    assert set(out["status"]) <= set(STATUSES)
    assert all(r.endswith(".") and not r[0].islower() for r in out["reason"])
    return out.set_index("claim_id")


def test_supported_then_a_planted_violated_row_contradicts(delivered, empirical):
    claim = _claim("p.thm", [{"experiment": "dpdpe", "series": "CDP"}, {"case": "central"}])
    out = _status([claim], delivered, empirical)
    assert out.loc["p.thm", "status"] == "supported"
    assert "All 2 selected rows are DELIVERED" in out.loc["p.thm", "reason"]
    assert "2 DELIVERED of 2 rows" in out.loc["p.thm", "delivered_summary"]
    assert "central: lower bound 7.5 at nominal 10" in out.loc["p.thm", "empirical_summary"]

    planted = pd.concat(
        [
            delivered,
            pd.DataFrame(
                [_d("CDP", 10.0, 18.356, "VIOLATED", figure="fig2b", lower_epsilon=18.356)]
            ),
        ],
        ignore_index=True,
    )
    out = _status([claim], planted, empirical)
    assert out.loc["p.thm", "status"] == "contradicted"
    reason = out.loc["p.thm", "reason"]
    assert reason.startswith(
        "Lower bound 18.4 on epsilon above nominal 10 (VIOLATED; certified upper bound 18.4) "
        "in dpdpe fig2b"
    )
    assert "1 of 3 selected rows fail their nominal epsilon" in reason


def test_not_private_row_contradicts(delivered, empirical):
    out = _status(
        [_claim("p.jdp", [{"experiment": "dpdpe", "series": "JDP"}])], delivered, empirical
    )
    assert out.loc["p.jdp", "status"] == "contradicted"
    assert "No finite delivered epsilon at nominal 1 (NOT-PRIVATE)" in out.loc["p.jdp", "reason"]


def test_empirical_lower_bound_above_nominal_contradicts(delivered, empirical):
    out = _status([_claim("p.lem", [{"case": "screen"}])], delivered, empirical)
    assert out.loc["p.lem", "status"] == "contradicted"
    assert out.loc["p.lem", "reason"] == (
        "The empirical lower bound 7.9 exceeds the nominal 0.42 in case 'screen'."
    )
    assert "valid with probability 0.95" in out.loc["p.lem", "empirical_summary"]
    # without the auditor's significance columns, the lower bound itself decides
    bare = empirical.drop(columns=["caught", "lb_le_delivered"])
    out = _status([_claim("p.lem", [{"case": "screen"}])], delivered, bare)
    assert out.loc["p.lem", "status"] == "contradicted"
    # a certified DELIVERED row does not outweigh a significant empirical finding
    both = [{"experiment": "dpdpe", "series": "CDP"}, {"case": "screen"}]
    assert _status([_claim("p.x", both)], delivered, empirical).loc["p.x", "status"] == (
        "contradicted"
    )


def test_inconclusive_evidence(delivered, empirical):
    claims = [
        _claim("p.approx", [{"experiment": "dpdpe", "series": "SDP"}]),
        _claim("p.approx_exceeded", [{"experiment": "dpdpe", "series": "VEC"}]),
        _claim("p.mixed", [{"experiment": "dpdpe", "series": ["CDP", "SDP"]}]),
        _claim("p.empirical_only", [{"case": "shuffle"}]),
        _claim("p.leaky", [{"experiment": "dpdpe", "series": "CDP"}, {"case": "leaky accounting"}]),
    ]
    out = _status(claims, delivered, empirical)
    assert (out["status"] == "inconclusive").all()
    assert out.loc["p.approx", "reason"].startswith(
        "1 NOT-CERTIFIED row: the certified upper bound 11 exceeds the nominal 10"
    )
    assert "no lower bound is known" in out.loc["p.approx", "reason"]
    assert "the lower bound 0.12 does not" in out.loc["p.approx_exceeded", "reason"]
    assert out.loc["p.mixed", "reason"].startswith(
        "2 selected rows are DELIVERED but 1 NOT-CERTIFIED"
    )
    assert "never certify" in out.loc["p.empirical_only", "reason"]
    assert "exceeds the 0.5 accounting certifies" in out.loc["p.leaky", "reason"]


def test_not_audited_and_other_kinds(delivered, empirical):
    claims = [
        _claim("p.none", [], none="a composition theorem, nothing to run"),
        _claim("p.missing", None),
        _claim("p.rate", [{"experiment": "dpdpe", "series": "JDP"}], kind="rate"),
    ]
    out = _status(claims, delivered, empirical)
    assert list(out.index) == ["p.none", "p.missing"]  # non-privacy claims are skipped
    assert (out["status"] == "not audited").all()
    assert out.loc["p.none", "reason"] == (
        "No row of the privacy audit tests this claim: a composition theorem, nothing to run."
    )
    assert "no privacy_audit field" in out.loc["p.missing", "reason"]


def test_selector_matching(delivered, empirical):
    d, e = select_rows(
        "p.x",
        [
            {"experiment": "dpdpe", "series": "CDP", "nominal_epsilon": [10.0]},
            {"experiment": "dpdpe", "series": ["CDP", "JDP"], "nominal_epsilon": 1},
            {"case": ["central", "shuffle"]},
        ],
        delivered,
        empirical,
    )
    assert sorted(zip(d["series"], d["nominal_epsilon"], strict=True)) == [
        ("CDP", 1.0),
        ("CDP", 10.0),
        ("JDP", 1.0),
    ]
    assert list(e["case"]) == ["central", "shuffle"]


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        ({"experiment": "dpdpe", "series": "CDP-DPE"}, "matches no row of privacy.csv"),
        ({"case": "no such case"}, "matches no row of privacy_empirical.csv"),
        ({"series": "CDP"}, "experiment required"),
        ({"experiment": "dpdpe", "colour": "red"}, "unknown: colour"),
        ({"case": "central", "figure": "fig"}, "unknown: figure"),
        ({"case": "under-noised control"}, "negative control"),
    ],
)
def test_bad_selectors_raise(delivered, empirical, selector, message):
    with pytest.raises(ValueError, match="p.bad") as err:
        privacy_claim_status([_claim("p.bad", [selector])], delivered, empirical)
    assert message in str(err.value) and repr(selector) in str(err.value)


def test_docstring_example():
    failures, tried = doctest.testmod(privacy_claims, verbose=False)[:2]
    assert tried > 0 and failures == 0


# --- the registries against the rows the privacy audit enumerates (no simulation) --------------


def _registry_claims() -> dict[str, list[dict]]:
    out = {
        p: load_claims(ROOT / f"config/claims/{p}.yaml", SCHEMAS / "claims.schema.yaml")
        for p in REGISTRIES
    }
    out["plasso"] = load_bound_registry(
        str(ROOT / "config/claims/plasso.yaml"), str(SCHEMAS / "bound_claims.schema.yaml")
    )["claims"]
    return out


def test_every_privacy_claim_has_a_privacy_audit_field():
    for prefix, claims in _registry_claims().items():
        privacy = [c for c in claims if c["kind"] == "privacy"]
        assert len(privacy) == PRIVACY_CLAIMS[prefix], prefix
        for c in privacy:
            assert "privacy_audit" in c["audit"], c["id"]
            if not c["audit"]["privacy_audit"] and prefix != "plasso":
                assert c["audit"]["none"].strip(), c["id"]  # why nothing tests it


@pytest.fixture(scope="module")
def empirical_rows() -> pd.DataFrame:
    """The cases of privacy_empirical.csv (``all_cases`` builds the samplers, draws nothing)."""
    from dpbandits.privacy.cases import all_cases

    return pd.DataFrame(
        [
            {
                "case": c.name,
                "represents": c.represents,
                "control": c.control,
                "nominal_epsilon": c.nominal,
            }
            for c in all_cases()
        ]
    )


def _delivered_rows(scale: str, monkeypatch, account: bool = True) -> pd.DataFrame:
    """The rows of privacy.csv at ``scale`` (tier core), as privacy_delivered.py enumerates them,
    without the accounting (delivered epsilons are NaN); ``account=False``: the identities the
    workflow enumerates while it parses (no monkeypatch needed)."""
    from dpbandits.audit.privacy import delivered_table
    from dpbandits.config import load_experiment, load_yaml
    from dpbandits.papers.op24.plan import load_plan as load_op24_plan
    from dpbandits.papers.plasso.plan import load_plan as load_plasso_plan
    from dpbandits.privacy import matching, releases

    monkeypatch.setattr(releases, "delivered_epsilon", lambda release, delta: (math.nan, ""))

    # the matched cells' search needs the accountant; their rows' identities do not
    def unsearched(cell, build):
        return matching.Match(cell.epsilon, cell.epsilon, cell.epsilon, 0)

    monkeypatch.setattr(matching, "_search", unsearched)
    monkeypatch.setattr(
        releases, "lower_epsilon", lambda release, delta, upper=None: (math.nan, "")
    )
    cfg = load_yaml(ROOT / "config/config.yaml")
    cfg["scale"] = scale
    experiments = {
        name: load_experiment(
            ROOT / f"config/experiments/{name}.yaml", cfg, SCHEMAS / "experiment.schema.yaml"
        )
        for name in (p.prefix for p in papers("figures"))
    }
    op24 = load_op24_plan(
        str(ROOT / "config/experiments/op24.yaml"), str(SCHEMAS / "op24.schema.yaml"), "core", scale
    )
    plasso = load_plasso_plan(
        str(ROOT / "config/experiments/plasso.yaml"),
        str(SCHEMAS / "plasso.schema.yaml"),
        "core",
        scale,
    )
    return delivered_table(experiments, {"op24": op24, "plasso": plasso}, account=account)


#: What a selector can name of a row of privacy.csv (privacy_claims.DELIVERED_KEYS) and T.
IDENTITY = [*privacy_claims.DELIVERED_KEYS, "T"]


def test_the_identities_checked_while_parsing_are_the_rows_the_job_writes(monkeypatch):
    parsed = _delivered_rows("quick", monkeypatch, account=False)[IDENTITY]
    written = _delivered_rows("quick", monkeypatch)[IDENTITY]
    pd.testing.assert_frame_equal(parsed, written)


def _bad(claims, prefix, selector):
    """``claims`` with the first privacy claim's selectors replaced by ``[selector]``; its index."""
    claims = [dict(c, audit=dict(c["audit"])) for c in claims]
    i = next(i for i, c in enumerate(claims) if c["kind"] == "privacy")
    claims[i]["audit"]["privacy_audit"] = [selector]
    return claims, i


SELECTOR_CASES = [
    ("cz22", {"experiment": "cz22", "series": "LinUCB-Nope"},
     ["series allowed where {'experiment': 'cz22'}", "LinUCB-SDP-Amp"]),
    ("cz22", {"experiment": "cz23"}, ["experiment cz23 is not a registered paper"]),
    ("olucb", {"experiment": "olucb", "nominal_epsilon": 0.123},
     ["nominal_epsilon allowed where {'experiment': 'olucb'}"]),
    ("dpdpe", {"case": "no such case"}, ["matches none of the empirical auditor's cases"]),
    ("cz22", {"case": "Gaussian randomizer (x r, x x^T), LDP noise / 10"},
     ["selects a negative control"]),
    ("plasso", {"experiment": "plasso", "figure": "E9"}, ["figure allowed where"]),
]  # fmt: skip


@pytest.mark.parametrize("prefix,selector,expected", SELECTOR_CASES)
def test_a_selector_matching_no_row_is_refused_while_parsing(
    prefix, selector, expected, monkeypatch
):
    from dpbandits.audit.privacy_claims import check_selectors
    from dpbandits.config import ConfigError
    from dpbandits.papers import PAPERS

    identities = _identities(monkeypatch)
    claims, i = _bad(_registry_claims()[prefix], prefix, selector)
    with pytest.raises(ConfigError) as err:
        check_selectors(claims, identities, f"config/claims/{prefix}.yaml", PAPERS)
    text = str(err.value)
    assert f"config/claims/{prefix}.yaml" in text and f"claims.{i}.audit.privacy_audit.0" in text
    for piece in expected:
        assert piece in text, (piece, text)


def test_the_shipped_selectors_pass_and_unbuilt_papers_are_left_to_the_job(monkeypatch):
    from dpbandits.audit.privacy_claims import check_selectors
    from dpbandits.papers import PAPERS

    identities = _identities(monkeypatch)
    for prefix, claims in _registry_claims().items():
        check_selectors(claims, identities, prefix, PAPERS)
    # a build of cz22 alone: selectors of the other papers are not checked here
    only = identities[identities["experiment"] == "cz22"]
    check_selectors(_registry_claims()["olucb"], only, "olucb", PAPERS)


_IDENTITIES: list = []


def _identities(monkeypatch) -> pd.DataFrame:
    if not _IDENTITIES:
        _IDENTITIES.append(_delivered_rows("paper", monkeypatch, account=False))
    return _IDENTITIES[0]


@pytest.mark.parametrize("scale", ["quick", "paper"])
def test_every_selector_matches_rows_the_privacy_audit_enumerates(
    scale, monkeypatch, empirical_rows
):
    delivered = _delivered_rows(scale, monkeypatch)
    assert len(delivered) > 100
    for claims in _registry_claims().values():
        for c in claims:
            if c["kind"] != "privacy":
                continue
            for selector in c["audit"]["privacy_audit"]:
                # raises, naming the claim and the selector, when a selector matches nothing
                d, e = select_rows(c["id"], [selector], delivered, empirical_rows)
                assert len(d) + len(e) > 0


def test_upper_above_nominal_without_a_lower_bound_above_it_is_never_contradicted():
    # the cz22 r1 SDP-Amp case at nominal 0.2: upper 1.76, lower 0.12 -> inconclusive; the old
    # rule (upper > nominal: "EXCEEDED") contradicted the claim
    rows = pd.DataFrame([_d("AMP", 0.2, 1.76, "NOT-CERTIFIED", lower_epsilon=0.12)])
    out = _status([_claim("p.amp", [{"experiment": "dpdpe", "series": "AMP"}])], rows, EMPTY_E)
    assert out.loc["p.amp", "status"] == "inconclusive"
    rows = pd.DataFrame([_d("AMP", 1.0, 27.3, "VIOLATED", lower_epsilon=21.4)])
    out = _status([_claim("p.amp", [{"experiment": "dpdpe", "series": "AMP"}])], rows, EMPTY_E)
    assert out.loc["p.amp", "status"] == "contradicted"
    assert "Lower bound 21.4 on epsilon above nominal 1" in out.loc["p.amp", "reason"]


def test_old_vocabulary_is_refused():
    rows = pd.DataFrame([_d("AMP", 0.2, 1.76, "EXCEEDED")])
    with pytest.raises(ValueError, match="unknown verdicts"):
        _status([_claim("p.amp", [{"experiment": "dpdpe", "series": "AMP"}])], rows, EMPTY_E)


EMPTY_E = pd.DataFrame(
    columns=["case", "control", "nominal_epsilon", "delivered_epsilon", "epsilon_lower_bound"]
)


def test_a_violated_row_outside_its_statements_conditions_is_set_aside(delivered, empirical):
    # planted: a VIOLATED row contradicts the claim inside the statement's conditions; the same
    # row outside them (a theory calibration beyond its theorem's epsilon range) decides nothing
    claim = _claim("p.cor", [{"experiment": "cz22", "series": "SDP"}])
    bad = _d("SDP", 10.0, 100.0, "VIOLATED", experiment="cz22", lower_epsilon=90.0)
    ok = _d("SDP", 0.02, 0.0, "DELIVERED", experiment="cz22")
    inside = pd.DataFrame([{**bad, "outside_conditions": ""}, {**ok, "outside_conditions": ""}])
    assert _status([claim], inside, empirical).loc["p.cor", "status"] == "contradicted"
    cond = "Thm. 3.2 range epsilon < sqrt(ln(2/delta)/B)"
    outside = inside.assign(outside_conditions=[cond, ""])
    out = _status([claim], outside, empirical)
    assert out.loc["p.cor", "status"] == "supported"
    assert (
        "1 selected row outside the conditions of the calibration's statement set aside"
        in (out.loc["p.cor", "reason"])
    )
    every = inside.assign(outside_conditions=[cond, cond])
    out = _status([claim], every, empirical.iloc[0:0])
    assert out.loc["p.cor", "status"] == "inconclusive"
    assert "Every selected row (2) lies outside" in out.loc["p.cor", "reason"]


# -- the reasons, word for word --------------------------------------------------------------------


def _worded_row(series, nominal, delivered, verdict, lower=None) -> dict:
    where = {"experiment": "e", "figure": "fig", "configuration": "conf", "series": series}
    how = {"algorithm": series.lower(), "calibration": "cal", "mechanism": "m"}
    eps = {"nominal_epsilon": nominal, "delivered_epsilon": delivered, "verdict": verdict}
    return {**where, **how, **eps, "lower_epsilon": delivered if lower is None else lower}


def _unflagged_case(case, nominal, lb, delivered) -> dict:
    # no caught / lb_le_delivered columns: the status recomputes them from the bounds
    row = {"case": case, "represents": case, "control": False, "nominal_epsilon": nominal}
    return {**row, "delivered_epsilon": delivered, "epsilon_lower_bound": lb}


def _bare_claim(cid, selectors):
    return {"id": cid, "kind": "privacy", "audit": {"privacy_audit": selectors}}


def _reasons(claims, delivered, empirical):
    out = privacy_claim_status(claims, pd.DataFrame(delivered), pd.DataFrame(empirical))
    return out.set_index("claim_id")[["status", "reason", "delivered_summary"]]


def test_the_worst_violated_row_is_the_largest_ratio_to_nominal():
    # A: 3 at nominal 1 (ratio 3, difference 2); B: 15 at nominal 10 (ratio 1.5, difference 5)
    rows = [_worded_row("A", 1.0, 3.0, "VIOLATED"), _worded_row("B", 10.0, 15.0, "VIOLATED")]
    out = _reasons([_bare_claim("p.x", [{"experiment": "e"}])], rows, EMPTY_E).loc["p.x"]
    assert out["status"] == "contradicted"
    assert out["reason"] == (
        "Lower bound 3 on epsilon above nominal 1 (VIOLATED; certified upper bound 3) in "
        "e fig conf A (cal) "
        "(2 of 2 selected rows fail their nominal epsilon)."
    )
    assert out["delivered_summary"] == "2 VIOLATED of 2 rows; largest delivered/nominal 3/1"


def test_a_violation_names_the_smallest_failing_nominal_and_the_worst_rows_accounting():
    # a referee asked which nominal levels fail and through which calibration: B (18.4/10) is
    # the worst, A fails from nominal 5, C at nominal 1 is delivered
    classical = "analytic Gaussian; the classical calibration, proven for eps <= 1"
    rows = [
        _worded_row("C", 1.0, 0.48, "DELIVERED"),
        _worded_row("A", 5.0, 8.15, "VIOLATED"),
        {**_worded_row("B", 10.0, 18.36, "VIOLATED"), "method": classical},
    ]
    out = _reasons([_bare_claim("p.x", [{"experiment": "e"}])], rows, EMPTY_E).loc["p.x"]
    assert out["status"] == "contradicted"
    assert out["reason"] == (
        "Lower bound 18.4 on epsilon above nominal 10 (VIOLATED; certified upper bound 18.4) in "
        "e fig conf B (cal) (2 of 3 selected rows fail their nominal epsilon; the smallest "
        f"nominal epsilon that fails: 5); the row's accounting: {classical}."
    )


def test_supported_reason_for_one_row_and_for_several():
    # one row: "the one selected row"; two rows: the largest ratio is B's 3.6 / 4 = 0.9 (A's
    # is 0.8 / 1 = 0.8, though A's difference -0.2 is larger than B's -0.4)
    rows = [_worded_row("A", 1.0, 0.8, "DELIVERED"), _worded_row("B", 4.0, 3.6, "DELIVERED")]
    claims = [
        _bare_claim("p.one", [{"experiment": "e", "series": "A"}]),
        _bare_claim("p.two", [{"experiment": "e"}]),
    ]
    out = _reasons(claims, rows, EMPTY_E)
    assert (out["status"] == "supported").all()
    assert out.loc["p.one", "reason"] == (
        "The one selected row is DELIVERED (delivered epsilon 0.8 at nominal 1 in e fig conf A "
        "(cal))."
    )
    assert out.loc["p.two", "reason"] == (
        "All 2 selected rows are DELIVERED (largest delivered epsilon 3.6 at nominal 4 in e fig "
        "conf B (cal))."
    )


def test_an_empirical_bound_equal_to_the_certified_epsilon_is_consistent():
    # "eq": lower bound 0.5 = certified 0.5, below nominal 1: consistent, so the DELIVERED row
    # supports the claim and the reason names the largest lower bound; "over": 0.6 > 0.5 makes
    # the evidence inconclusive (still below nominal 1, so nothing is caught)
    rows = [_worded_row("A", 1.0, 0.8, "DELIVERED")]
    emp = [_unflagged_case("eq", 1.0, 0.5, 0.5), _unflagged_case("over", 1.0, 0.6, 0.5)]
    claims = [
        _bare_claim("p.eq", [{"experiment": "e"}, {"case": "eq"}]),
        _bare_claim("p.over", [{"experiment": "e"}, {"case": "over"}]),
    ]
    out = _reasons(claims, rows, emp)
    assert out.loc["p.eq", "status"] == "supported"
    assert out.loc["p.eq", "reason"] == (
        "The one selected row is DELIVERED (delivered epsilon 0.8 at nominal 1 in e fig conf A "
        "(cal)) and no empirical lower bound exceeds its nominal epsilon (largest 0.5 at "
        "nominal 1)."
    )
    assert out.loc["p.over", "status"] == "inconclusive"
    assert out.loc["p.over", "reason"] == (
        "The empirical lower bound 0.6 in case 'over' exceeds the 0.5 accounting certifies for "
        "its pair."
    )


def test_a_nominal_epsilon_selector_matches_up_to_rounding_only():
    # 0.1 + 0.2 = 0.30000000000000004 is 0.3 up to 2e-16 relative (within 1e-9);
    # 0.3000003 is 1e-6 relative away (outside)
    rows = pd.DataFrame(
        [
            _worded_row("A", 0.1 + 0.2, 0.2, "DELIVERED"),
            _worded_row("B", 0.3000003, 0.2, "DELIVERED"),
        ]
    )
    d, _ = select_rows("p.x", [{"experiment": "e", "nominal_epsilon": 0.3}], rows, EMPTY_E)
    assert list(d["series"]) == ["A"]


def test_the_untested_part_of_a_statement_ends_the_reason(delivered, empirical):
    """A claim whose rows test one part of its statement (cz22.corB.3.priv: the LDP part) says
    which part they leave untested, whatever its status."""
    claim = _claim("p.part", [{"experiment": "dpdpe", "series": "CDP"}])
    claim["audit"]["untested_part"] = "the O(eps, delta)-SDP part (its O hides the constant)."
    out = _status([claim], delivered, empirical)
    assert out.loc["p.part", "status"] == "supported"
    assert out.loc["p.part", "reason"].endswith(
        "). Not tested: the O(eps, delta)-SDP part (its O hides the constant)."
    )
    del claim["audit"]["untested_part"]
    assert "Not tested" not in _status([claim], delivered, empirical).loc["p.part", "reason"]
