"""Rate audit: exponent fits, verdicts and claim evaluation (issue: claim audit)."""

import numpy as np
import pandas as pd
import pytest

from dpbandits.audit.rates import (
    RATE_COLUMNS,
    Fit,
    combine,
    evaluate_rate_claims,
    fit_exponent,
    verdict,
)

T = np.array([2500, 5000, 10000, 20000, 40000], dtype=float)


def _curves(exponent, n=30, noise=0.05, seed=0, scale=3.0):
    """c_i T^exponent with multiplicative instance effects and noise."""
    rng = np.random.default_rng(seed)
    c = scale * rng.lognormal(0.0, 0.2, size=(n, 1))
    return c * T**exponent * rng.lognormal(0.0, noise, size=(n, T.size))


@pytest.mark.parametrize("exponent", [0.5, 0.6, 0.75])
def test_fit_recovers_known_exponents(exponent):
    fit = fit_exponent(T, _curves(exponent), n_boot=2000, seed=1)
    assert fit.ci_low <= exponent <= fit.ci_high
    assert abs(fit.slope - exponent) < 0.03
    assert fit.n_levels == 5 and fit.n_trials == 30


def test_bootstrap_interval_shrinks_with_more_instances():
    narrow = fit_exponent(T, _curves(0.6, n=200, noise=0.3), n_boot=1000, seed=2)
    wide = fit_exponent(T, _curves(0.6, n=10, noise=0.3), n_boot=1000, seed=2)
    assert narrow.ci_high - narrow.ci_low < wide.ci_high - wide.ci_low


def test_fit_is_nan_when_a_mean_is_not_positive():
    Y = _curves(0.5)
    Y[:, 2] = -1.0
    fit = fit_exponent(T, Y)
    assert np.isnan(fit.slope) and verdict(fit, 0.5) == "inconclusive"
    with pytest.raises(ValueError):
        fit_exponent([1.0, 1.0], np.ones((3, 2)))


def _fit(lo, hi):
    return Fit((lo + hi) / 2, lo, hi, 0.0, 5, 20)


@pytest.mark.parametrize(
    "lo,hi,upper,lower",
    [
        # claimed 0.75, tol 0.05: upper needs hi <= 0.80; lower needs lo >= 0.70
        (0.60, 0.78, "consistent", "inconclusive"),
        (0.70, 0.85, "inconclusive", "consistent"),
        (0.81, 0.90, "exceeds", "consistent"),
        (0.55, 0.72, "consistent", "inconclusive"),
        (0.40, 0.65, "consistent", "below"),
    ],
)
def test_verdicts_for_both_directions(lo, hi, upper, lower):
    assert verdict(_fit(lo, hi), 0.75, "upper", 0.05) == upper
    assert verdict(_fit(lo, hi), 0.75, "lower", 0.05) == lower


def test_combine_takes_the_worst():
    assert combine(["consistent", "inconclusive"]) == "inconclusive"
    assert combine(["consistent", "exceeds", "inconclusive"]) == "exceeds"
    assert combine(["consistent", "consistent"]) == "consistent"


def _sweep_frame(exponents: dict[str, float], eps_exponent=0.5, n=25, seed=3):
    """Final pseudo-regret of schedules at every (epsilon, T): LinUCB-like baseline plus a
    privacy cost a * T^e * (1/epsilon)^eps_exponent."""
    rng = np.random.default_rng(seed)
    rows = []
    base = 2.0 * T**0.5
    for trial in range(n):
        u = rng.lognormal(0, 0.1)
        for j, t in enumerate(T):
            rows.append(
                dict(
                    sweep="s",
                    schedule="linucb",
                    epsilon=np.nan,
                    d=5,
                    T=int(t),
                    t=int(t),
                    trial=trial,
                    regret_pseudo=base[j] * u,
                )
            )
        for sched, e in exponents.items():
            for eps in (0.2, 1.0, 10.0):
                for j, t in enumerate(T):
                    cost = 0.5 * t**e * (1 / eps) ** eps_exponent * rng.lognormal(0, 0.05)
                    rows.append(
                        dict(
                            sweep="s",
                            schedule=sched,
                            epsilon=eps,
                            d=5,
                            T=int(t),
                            t=int(t),
                            trial=trial,
                            regret_pseudo=base[j] * u + cost,
                        )
                    )
    return pd.DataFrame(rows)


def _claim(cid, schedules, T_exp, eps_exp, fit=("T", "epsilon"), check="slope", **extra):
    audit = {"experiment": "x", "sweep": "s", "check": check, "schedules": schedules, **extra}
    if check == "slope":
        audit["fit"] = list(fit)
    return {"id": cid, "direction": "upper", "T_exp": T_exp, "eps_exp": eps_exp, "audit": audit}


def test_claims_are_evaluated_against_synthetic_sweeps():
    df = _sweep_frame({"slow": 0.5, "fast": 0.9, "mid": 0.65})
    claims = [
        _claim("x.ok", ["fast"], "1", "-1/2"),
        _claim("x.bad", ["fast"], "1/2", "-1/2", fit=("T",), bound_scope="instance"),
        _claim(
            "x.between", ["mid"], "3/5", "-1/2", check="slope_between", lower="slow", upper="fast"
        ),
        _claim(
            "x.reversed",
            ["fast"],
            "3/5",
            "-1/2",
            check="slope_between",
            lower="slow",
            upper="mid",
            bound_scope="instance",
        ),
        {
            "id": "x.none",
            "direction": "upper",
            "T_exp": None,
            "eps_exp": None,
            "audit": {"none": "n/a"},
        },
    ]
    res = evaluate_rate_claims(claims, df, n_boot=500, seed=0)
    assert list(res.columns) == RATE_COLUMNS
    summary = res[res["schedule"] == "all"].set_index("claim_id")["verdict"].to_dict()
    assert summary == {
        "x.ok": "consistent",
        "x.bad": "exceeds",
        "x.between": "consistent",
        "x.reversed": "below",
    }
    eps_rows = res[(res["claim_id"] == "x.ok") & (res["variable"] == "1/epsilon")]
    assert len(eps_rows) == 1 and eps_rows["claimed"].iat[0] == 0.5
    # the privacy cost grows like (1/epsilon)^0.5 by construction
    assert eps_rows["ci_low"].iat[0] <= 0.5 <= eps_rows["ci_high"].iat[0]
    assert (res["caveat"].str.contains("finite-horizon")).all()


def test_empty_sweeps_give_an_empty_table_with_the_columns():
    assert list(evaluate_rate_claims([], None).columns) == RATE_COLUMNS


def test_a_claim_on_an_unknown_sweep_is_an_error():
    df = _sweep_frame({"fast": 0.9}, n=5)
    claim = _claim("x.c", ["fast"], "1", None, fit=("T",))
    claim["audit"]["sweep"] = "other"
    with pytest.raises(ValueError, match="no data of sweep 'other'"):
        evaluate_rate_claims([claim], df, n_boot=50)


def test_report_overview_summary_and_index(tmp_path):
    from dpbandits.audit.overview import claim_overview, plain_summary, write_index

    df = _sweep_frame({"fast": 0.9})
    claims = [
        _claim("x.rate", ["fast"], "1/2", "-1/2", fit=("T",), bound_scope="instance"),
        {
            "id": "x.order",
            "kind": "ordering",
            "source": "s",
            "algorithm": "A",
            "direction": "upper",
            "T_exp": None,
            "eps_exp": None,
            "audit": {"experiment": "x", "check": "below"},
        },
        {
            "id": "x.priv",
            "kind": "privacy",
            "source": "s",
            "algorithm": "A",
            "direction": "upper",
            "T_exp": None,
            "eps_exp": None,
            "audit": {"none": "separate audit"},
        },
    ]
    claims[0].update(kind="rate", source="s", algorithm="fast")
    rates = evaluate_rate_claims(claims, df, n_boot=200)
    orderings = pd.DataFrame(
        [
            {
                "claim_id": "x.order",
                "configuration": "r1",
                "metric": "realized",
                "comparison": "all",
                "verdict": "PASS",
            }
        ]
    )
    overview = claim_overview(claims, rates, orderings, "r1")
    assert overview.set_index("claim_id")["verdict"].to_dict() == {
        "x.rate": "exceeds",
        "x.order": "PASS",
        "x.priv": "not audited",
    }
    from dpbandits.audit.scoreboard import scoreboard

    board = scoreboard([("x", overview)])
    text = plain_summary(board, rates, "r1")
    assert "`x.rate`" in text and "finite-horizon" in text and "1 contradicted" in text
    out = tmp_path / "report.html"
    write_index(
        board, [{"name": "x", "title": "Paper X", "page": "x.html"}], str(out), str(tmp_path)
    )
    page = out.read_text()
    assert 'href="x.html"' in page and "x.priv" in page and "supported" in page
    assert 'data-claim="x.rate" data-status="contradicted"' in page


def test_overview_marks_a_comparison_whose_verdict_depends_on_the_configuration():
    from dpbandits.audit.overview import claim_overview

    claim = {
        "id": "x.beats",
        "kind": "ordering",
        "source": "s",
        "algorithm": "A",
        "direction": "upper",
        "T_exp": None,
        "eps_exp": None,
        "audit": {"experiment": "x", "check": "below", "configurations": ["main", "fair"]},
    }
    row = dict(claim_id="x.beats", comparison="all", metric="realized")
    orderings = pd.DataFrame(
        [
            {**row, "configuration": "main", "verdict": "PASS"},
            {**row, "configuration": "fair", "verdict": "FAIL"},
        ]
    )
    ov = claim_overview([claim], pd.DataFrame(), orderings, "main").iloc[0]
    assert ov["verdict"] == "PASS" and ov["all_configurations"] == "INCONCLUSIVE"
    assert "fair FAIL" in ov["how"]
    same = orderings.assign(verdict="PASS")
    assert (
        claim_overview([claim], pd.DataFrame(), same, "main").iloc[0]["all_configurations"]
        == "PASS"
    )


def test_overview_shows_the_privacy_audits_finding_for_privacy_claims():
    from dpbandits.audit.overview import claim_overview

    claim = {
        "id": "x.priv",
        "kind": "privacy",
        "source": "s",
        "algorithm": "A",
        "direction": "upper",
        "T_exp": None,
        "eps_exp": None,
        "audit": {"none": "noise scale from the theorem", "privacy_audit": [{"experiment": "x"}]},
    }
    privacy = pd.DataFrame(
        [{"claim_id": "x.priv", "status": "contradicted", "reason": "delivered 18.4 at nominal 10"}]
    )
    ov = claim_overview([claim], pd.DataFrame(), pd.DataFrame(), "main", privacy=privacy).iloc[0]
    assert ov["verdict"] == "contradicted" and "18.4" in ov["how"]
    assert (
        claim_overview([claim], pd.DataFrame(), pd.DataFrame(), "main").iloc[0]["verdict"]
        == "not audited"
    )
