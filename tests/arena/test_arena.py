"""The arena across papers (docs/arena.md): its expansion leaves no hole, its contestants share
instances and reward streams, its statistics are the stated ones, and its claim verdicts can
fail (a reversed ordering on a small instance FAILs, a regime near random play counts for
nothing)."""

import dataclasses
import json
import math

import numpy as np
import pytest
import yaml
from scipy import stats

from dpbandits.arena import claims as arena_claims
from dpbandits.arena.leaderboard import (
    DELIVERED_COLUMNS,
    delivered,
    delivered_table,
    final_regret,
    leaderboard,
    mean_interval,
    random_regret,
    ranks_with_ties,
)
from dpbandits.arena.spec import load_arena
from dpbandits.config import ConfigError
from dpbandits.io import read_results
from dpbandits.pipeline import _reward_seeds, cell_instances, run_cells

from ..conftest import ROOT, SCHEMAS

FILE, SCHEMA = str(ROOT / "config" / "arena.yaml"), str(SCHEMAS / "arena.schema.yaml")


def _arena(scale="quick", **kw):
    return load_arena(FILE, SCHEMA, scale, 20220717, **kw)


def test_every_suite_and_contestant_either_runs_or_says_why():
    arena = _arena()
    ran = {(c.figure, c.series) for c in arena.cells}
    # (a contestant refused only at matched privacy runs its named calibrations: see below)
    missing = {
        (r["suite"], r["contestant"]) for r in arena.not_run if r["calibration"] != "matched"
    }
    for suite in arena.suites:
        for contestant in arena.contestants:
            assert ((suite, contestant) in ran) != ((suite, contestant) in missing)
    assert all(r["reason"] for r in arena.not_run)
    # every named calibration of a running contestant is simulated at every (d, T) of its suites
    named = [c for c in arena.cells if not c.configuration.startswith("matched")]
    fixed = [c for c in named if c.figure == "fixed"]
    # d x T x (6 cz22/olucb contestants x 2 + 6 dpdpe x 1 + AdaC-UCB and AdaC-GOPE x 1)
    assert len(fixed) == 2 * 2 * 20
    fresh = [c for c in named if c.figure == "fresh"]
    # OnlineUCB x 2, AdaC-OFUL, JDP-LinUCB and LinUCB-op24 x 1
    assert len(fresh) == 2 * 2 * 5
    sparse = [c for c in named if c.figure == "sparse"]
    # PrivateLASSO, NP-Th-LASSO and Oracle-OLS, on plasso's family F1 with s0 = 5
    assert len(sparse) == 2 * 2 * 3
    assert {json.dumps(c.instance_options, sort_keys=True) for c in sparse} == {
        '{"s0": 5, "sparse_family": "F1"}'
    }


def test_one_job_per_suite_and_dimension_runs_both_horizons_as_apart(tmp_path):
    """The simulation jobs group the panels by (suite, d); a job of two horizons gives each cell
    the numbers it gets alone, also on the sparse suite, whose instances depend on T."""
    arena = _arena()
    jobs = arena.jobs()
    assert sorted(jobs) == sorted(f"{s}_d{d}" for s, ds in _DIMS.items() for d in ds)
    for name, cells in jobs.items():
        assert {f"{c.figure}_d{c.d}" for c in cells} == {name}
        assert len({c.T for c in cells}) == 2
    assert sum(len(c) for c in jobs.values()) == len(arena.cells)
    # longest first: the fixed suite (20 contestant-calibrations) at the larger d, then the
    # smaller; the sparse suite's short horizons last
    prio = arena.job_priorities()
    assert sorted(prio.values()) == list(range(len(jobs)))
    assert max(prio, key=prio.get) == "fixed_d10" and min(prio, key=prio.get) == "sparse_d100"
    cells = [
        dataclasses.replace(c, trials=2) for c in jobs["sparse_d100"] if c.series == "Oracle-OLS"
    ]
    together = [str(tmp_path / f"both_{c.T}.parquet") for c in cells]
    run_cells(cells, together, {})
    for cell, path in zip(cells, together, strict=True):
        alone = str(tmp_path / f"alone_{cell.T}.parquet")
        run_cells([cell], [alone], {})
        assert read_results(path).equals(read_results(alone))


_DIMS = {"fixed": (5, 10), "fresh": (5, 10), "sparse": (100, 200)}


def test_a_calibration_table_the_build_does_not_make_gives_a_not_run_row():
    arena = _arena(calibrations_built={"cz22", "dpdpe"})
    rows = [r for r in arena.not_run if r["contestant"] == "OnlineUCB" and r["suite"] != "sparse"]
    assert {(r["suite"], r["calibration"]) for r in rows} == {
        ("fixed", "experiment"),
        ("fresh", "experiment"),
    }
    assert "olucb" in rows[0]["reason"]
    assert not [
        c for c in arena.cells if c.series == "OnlineUCB" and c.configuration == "experiment"
    ]


def test_contestants_of_a_panel_share_instances_and_rewards_not_noise():
    arena = _arena()
    panel = arena.panels()["fixed_d5_T2000"]
    a, b = panel[0], panel[-1]
    assert a.series != b.series
    ia, ib = cell_instances(a), cell_instances(b)
    np.testing.assert_array_equal(ia.X, ib.X)
    np.testing.assert_array_equal(ia.theta, ib.theta)
    assert _reward_seeds(a) == _reward_seeds(b)
    assert a.seed_panel == b.seed_panel and a.series != b.series  # noise keyed by series too


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda d: d["contestants"]["LinUCB"].update(algorithm="linucbb"), "algorithm = 'linucbb'"),
        (
            lambda d: d["contestants"]["DP-DPE-local"]["calibrations"].update(theory={}),
            "policy calibration 'theory' is not available for ldp_dpe",
        ),
        (
            lambda d: (
                d["contestants"].update(Ghost={"paper": "cz22", "trust": "none", "not_run": "x"}),
                d["claims"][0]["below"].append(["LinUCB", "Ghost"]),
            ),
            "names 'Ghost'",
        ),
        (
            lambda d: d["suites"]["fixed"].update(instance_options={"s0": 5}),
            "suites.fixed (instances 'paper_text', K = 100, d = 5, instance_options = {'s0': 5})",
        ),
        (
            lambda d: d["suites"]["sparse"]["instance_options"].update(s0=500),
            "s0 = 500: must be in",
        ),
        (
            lambda d: d["suites"]["fresh"].update(instances="paper_text"),
            "suites.fresh.instances = 'paper_text' does not give the setting 'fresh'",
        ),
        (lambda d: d["contestants"]["LinUCB"].update(paper="nope"), "paper = 'nope'"),
        (
            lambda d: d["contestants"]["AdaC-OFUL"].update(settings=["fixed", "fresh"]),
            "adac_oful under calibration 'zcdp' runs on fresh only",
        ),
        (
            lambda d: d["contestants"]["LinUCB-JDP"].update(settings=["fresh"]),
            "jdp_tree under calibration 'experiment' runs on fixed only",
        ),
    ],
)
def test_a_bad_arena_file_is_refused_with_the_key(tmp_path, edit, words):
    data = yaml.safe_load(open(FILE))
    edit(data)
    bad = tmp_path / "arena.yaml"
    bad.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=words.replace("(", r"\(").replace(")", r"\)")):
        load_arena(str(bad), SCHEMA, "quick")


def test_mean_interval_is_the_student_t_interval():
    x = np.array([3.0, 5.0, 4.0, 8.0, 6.0])
    mean, lo, hi = mean_interval(x)
    half = stats.t.ppf(0.975, 4) * x.std(ddof=1) / math.sqrt(5)
    assert mean == pytest.approx(5.2) and (lo, hi) == pytest.approx((5.2 - half, 5.2 + half))


def test_ranks_tie_where_intervals_overlap():
    low = np.array([1.0, 1.5, 5.0, 5.5, 20.0])
    high = np.array([2.0, 6.0, 7.0, 8.0, 30.0])
    # 1 and 2 overlap; 3 and 4 lie above 1 only (they overlap 2); 5 lies above all four
    assert ranks_with_ties(low, high).tolist() == [1, 1, 2, 2, 5]


def test_claim_status_counts_only_learning_rows():
    assert arena_claims.status([]) == "untestable"
    assert arena_claims.status(["PASS", "PASS"]) == "supported"
    assert arena_claims.status(["PASS", "WEAK"]) == "inconclusive"
    assert arena_claims.status(["PASS", "FAIL", "WEAK"]) == "contradicted"


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """LinUCB and LinUCB-LDP on the fixed suite at d = 5, T = 5000, 8 trials (two seconds)."""
    arena = _arena()
    keep = [
        c
        for c in arena.panels()["fixed_d5_T5000"]
        if c.series in ("LinUCB", "LinUCB-LDP") and c.configuration == "experiment"
    ]
    cells = [dataclasses.replace(c, trials=8) for c in keep]
    tmp = tmp_path_factory.mktemp("arena")
    paths = [str(tmp / f"{c.series}.parquet") for c in cells]
    run_cells(cells, paths, {})
    frames = {c.path: read_results(p) for c, p in zip(cells, paths, strict=True)}
    small = dataclasses.replace(arena, cells=tuple(cells), not_run=())
    return small, frames


def test_a_known_ordering_passes_and_its_reverse_fails(small_run):
    arena, frames = small_run
    finals = {c.path: final_regret(frames[c.path], c.T) for c in arena.cells}
    learning = dict.fromkeys(finals, True)
    data = dict(arena.data)
    data["claims"] = [
        {"id": "known", "paper": "cz22", "statement": "s", "below": [["LinUCB", "LinUCB-LDP"]]},
        {"id": "reversed", "paper": "cz22", "statement": "s", "below": [["LinUCB-LDP", "LinUCB"]]},
    ]
    arena = dataclasses.replace(arena, data=data)
    rows = arena_claims.claim_rows(arena, finals, learning)
    assert rows.set_index("claim_id")["verdict"].to_dict() == {"known": "PASS", "reversed": "FAIL"}
    table = arena_claims.claim_table(arena, rows).set_index("claim_id")["status"].to_dict()
    assert table == {"known": "supported", "reversed": "contradicted"}
    # outside the learning regime the same rows count for nothing
    rows = arena_claims.claim_rows(arena, finals, dict.fromkeys(finals, False))
    assert set(arena_claims.claim_table(arena, rows)["status"]) == {"untestable"}


def test_the_leaderboard_ranks_with_intervals_and_delivered_epsilon(small_run):
    arena, frames = small_run
    board = leaderboard(arena, frames, {}).set_index("contestant")
    assert board.loc["LinUCB", "rank"] == 1 and board.loc["LinUCB-LDP", "rank"] == 2
    assert board.loc["LinUCB", "delivered_epsilon"] == math.inf
    ldp = next(c for c in arena.cells if c.series == "LinUCB-LDP")
    assert board.loc["LinUCB-LDP", "delivered_epsilon"] == pytest.approx(delivered(ldp)[0])
    # random play's regret on these instances: T times the mean gap to the arms' average
    inst = cell_instances(ldp)
    gap = np.mean(inst.means.max(axis=1) - inst.means.mean(axis=1))
    assert random_regret(ldp) == pytest.approx(ldp.T * gap)
    assert bool(board.loc["LinUCB", "learning"])


def test_the_leaderboard_reads_the_delivered_epsilon_table_it_is_given(small_run):
    """The results job's leaderboard takes delivered epsilon from the privacy job's table (a
    planted value shows), equals the one that computes it, and refuses a table missing a cell."""
    arena, frames = small_run
    table = delivered_table(arena)
    assert len(table) == len(arena.cells) and list(table.columns) == list(DELIVERED_COLUMNS)
    own = leaderboard(arena, frames, {})
    assert leaderboard(arena, frames, {}, table).equals(own)
    planted = table.copy()
    planted.loc[planted["contestant"] == "LinUCB-LDP", "delivered_epsilon"] = 123.0
    board = leaderboard(arena, frames, {}, planted).set_index("contestant")
    assert board.loc["LinUCB-LDP", "delivered_epsilon"] == 123.0
    with pytest.raises(ValueError, match="no row in the delivered-epsilon table"):
        leaderboard(arena, frames, {}, table[table["contestant"] != "LinUCB-LDP"])


def test_one_quick_point_of_the_arena_builds_every_output(tmp_path):
    """Every contestant of the fixed suite at one quick point (d = 5, T = 2000, 4 trials), then
    the leaderboard, the claims, the frontier figure and the page, as the results job makes
    them (the whole quick arena is built by the end-to-end tests)."""
    from dpbandits.arena.page import write_page
    from dpbandits.arena.plots import frontier_figure

    arena = _arena()
    # the named calibrations and two matched contestants (the whole matched ranking and the
    # frontier: the end-to-end tests)
    cells = [
        c
        for c in arena.panels()["fixed_d5_T2000"]
        if not c.configuration.startswith("matched")
        or (c.configuration == "matched" and c.series in ("LinUCB-LDP", "DP-PE-central"))
    ]
    paths = [str(tmp_path / f"{c.series}_{c.configuration}.parquet") for c in cells]
    seconds = run_cells(cells, paths, {"c_beta": 0.01})
    frames = {c.path: read_results(p) for c, p in zip(cells, paths, strict=True)}
    point = dataclasses.replace(arena, cells=tuple(cells))
    board = leaderboard(point, frames, {c.path: s for c, s in zip(cells, seconds, strict=True)})
    ran = board[board["status"] == "ran"]
    assert len(ran) == len(cells) == 20 + 2 and ran["rank"].min() == 1
    assert set(ran["ranking"]) == {"matched", "nominal"}
    assert (board["status"] == "not run").sum() == len(arena.not_run)
    private = ran[ran["trust"] != "none"]
    assert (
        np.isfinite(private["delivered_epsilon"]).all() and (private["nominal_epsilon"] == 1).all()
    )
    finals = {c.path: final_regret(frames[c.path], c.T) for c in cells}
    rows = arena_claims.claim_rows(point, finals, dict.fromkeys(finals, True))
    assert set(rows["claim_id"]) == {c["id"] for c in arena.data["claims"]}
    table = arena_claims.claim_table(point, rows)
    assert set(table["status"]) <= {"supported", "contradicted", "inconclusive"}
    frontier_figure(board, "fixed", "t", str(tmp_path / "f.pdf"), str(tmp_path / "f.png"))
    write_page(
        point, board, table, rows, {"fixed": str(tmp_path / "f.png")}, str(tmp_path / "a.html")
    )
    page = (tmp_path / "a.html").read_text()
    assert "data:image/png;base64," in page and "AdaC-OFUL" in page  # a not-run row, with reason


# -- matched privacy: the primary ranking and the frontier ----------------------------------------


def test_every_private_contestant_is_matched_or_says_why():
    arena = _arena()
    private = {
        cid for cid, c in arena.contestants.items() if "algorithm" in c and c["trust"] != "none"
    }
    matched = {c.series for c in arena.cells if c.configuration == "matched"}
    refused = {r["contestant"]: r["reason"] for r in arena.not_run if r["calibration"] == "matched"}
    assert matched | set(refused) == private and not matched & set(refused)
    # PrivateLASSO's noiseless screen: no noise level of its calibration delivers any epsilon
    assert "no finite epsilon" in refused["PrivateLASSO"]
    # the frontier: every matched contestant at every epsilon, at each suite's first point only
    frontier = [c for c in arena.cells if c.configuration.startswith("matched_e")]
    eps = set(arena.data["matched"]["frontier"]) - {arena.data["target"]["epsilon"]}
    assert {c.epsilon for c in frontier} == eps
    assert {c.panel for c in frontier} == {"fixed_d5_T2000", "fresh_d5_T2000"}
    matched_at_first = {
        (c.figure, c.series) for c in arena.cells if c.configuration == "matched" and c.d == 5
    }
    assert len(frontier) == len(eps) * len(matched_at_first)


def test_the_matched_ranking_follows_the_noise_a_contestant_runs_with(tmp_path, monkeypatch):
    """Planted: LinUCB-JDP's matched noise scaled up (its internal epsilon divided by 1000): it
    leads LinUCB-LDP honestly and falls behind it planted, and its delivered epsilon no longer
    meets the label within 1 % (the leaderboard reads the noise the ranking used)."""
    from dpbandits.privacy import matching

    monkeypatch.setattr(matching, "DISK_CACHE", tmp_path / "matched.json")
    arena = _arena()
    keep = [
        # the matched cells at the longer quick horizon (the arena runs them at the shorter)
        dataclasses.replace(c, trials=16, configuration="matched", calibration="matched")
        for c in arena.panels()["fixed_d5_T5000"]
        if c.configuration == "experiment" and c.series in ("LinUCB-LDP", "LinUCB-JDP")
    ]

    def ranks():
        paths = [str(tmp_path / f"{c.series}.parquet") for c in keep]
        run_cells(keep, paths, {})
        frames = {c.path: read_results(p) for c, p in zip(keep, paths, strict=True)}
        small = dataclasses.replace(arena, cells=tuple(keep), not_run=())
        board = leaderboard(small, frames, {}).set_index("contestant")
        return board["rank"].to_dict(), board["delivered_epsilon"].to_dict()

    monkeypatch.setattr(matching, "_CACHE", {})
    honest, eps = ranks()
    assert honest["LinUCB-JDP"] < honest["LinUCB-LDP"]
    assert all(0.99 <= v <= 1.0 for v in eps.values())
    real = matching._search

    def scaled(cell, build):
        found = real(cell, build)
        if cell.algorithm != "jdp_tree":
            return found
        return dataclasses.replace(found, internal_epsilon=found.internal_epsilon / 1000)

    monkeypatch.setattr(matching, "_CACHE", {})
    monkeypatch.setattr(matching, "DISK_CACHE", tmp_path / "planted.json")
    monkeypatch.setattr(matching, "_search", scaled)
    planted, eps = ranks()
    assert planted["LinUCB-JDP"] > planted["LinUCB-LDP"]
    assert eps["LinUCB-JDP"] < 0.5


def test_the_frontier_ranks_per_epsilon_and_names_the_leaders():
    from dpbandits.arena.frontier import frontier_table, leaders

    def row(name, eps, mean, half, ranking, trust="central"):
        return {
            "suite": "s", "d": 5, "T": 100, "contestant": name, "paper": "p", "trust": trust,
            "ranking": ranking, "nominal_epsilon": eps, "delivered_epsilon": eps * 0.995,
            "mean_regret": mean, "ci_low": mean - half, "ci_high": mean + half,
            "random_regret": 1000.0, "status": "ran", "privacy_verdict": "DELIVERED",
        }  # fmt: skip

    import pandas as pd

    board = pd.DataFrame(
        [
            row("A", 1.0, 100, 5, "matched"),
            row("B", 1.0, 104, 5, "matched"),  # overlaps A: tied leaders
            row("C", 1.0, 300, 5, "matched"),
            row("A", 0.1, 500, 5, "frontier"),
            row("B", 0.1, 200, 5, "frontier"),  # B leads alone at 0.1
            row("C", 0.1, 900, 5, "frontier"),
            row("A", 1.0, 90, 5, "nominal"),  # a nominal row is not on the frontier
            row("L", math.inf, 50, 2, "matched", trust="none"),
        ]
    )
    table = frontier_table(board)
    assert set(table["epsilon"]) == {0.1, 1.0} and len(table) == 6
    assert (table["floor_regret"] == 50).all() and (table["random_regret"] == 1000).all()
    lead = leaders(table).set_index("epsilon")
    assert lead.loc[1.0, "leaders"] == "A, B" and lead.loc[0.1, "leaders"] == "B"
    assert lead.loc[0.1, "leader_regret"] == 200 and lead.loc[1.0, "contestants"] == 3


def test_a_contestant_certified_below_the_band_is_marked_on_the_frontier(tmp_path):
    from dpbandits.arena.frontier import frontier_matched_figure, frontier_table, in_band, leaders

    # the band of epsilon 10 is [9.9, 10]: 9.9 and 10 are in it, 9.886 (a discrete knob's jump)
    # and 2.674 (a certificate that stays below at the least noise) are not, nor is 10.01
    assert in_band(10.0, [9.9, 10.0, 9.886, 2.674, 10.01]).tolist() == [
        True, True, False, False, False
    ]  # fmt: skip
    import pandas as pd

    def row(name, delivered, mean, verdict="DELIVERED"):
        return {
            "suite": "s", "d": 5, "T": 100, "contestant": name, "paper": "p", "trust": "central",
            "ranking": "frontier", "nominal_epsilon": 10.0, "delivered_epsilon": delivered,
            "mean_regret": mean, "ci_low": mean - 5, "ci_high": mean + 5,
            "random_regret": 1000.0, "status": "ran", "privacy_verdict": verdict,
        }  # fmt: skip

    rows = [row("A", 9.95, 100), row("P", 2.674, 90), row("N", 9.95, 95, "NOT-CERTIFIED")]
    table = frontier_table(pd.DataFrame(rows))
    by = table.set_index("contestant")
    assert by["in_band"].to_dict() == {"A": True, "P": False, "N": True}
    assert by["certified"].to_dict() == {"A": True, "P": True, "N": False}
    # tied (intervals overlap); P named with its epsilon, N as not certified
    lead = leaders(table)["leaders"].iloc[0]
    assert lead == "P (certified 2.67, below the band), N (not certified at this epsilon), A"
    frontier_matched_figure(table, "s", "t", str(tmp_path / "f.pdf"), str(tmp_path / "f.png"))
    assert (tmp_path / "f.png").stat().st_size > 1000


def test_a_suite_without_a_matched_contestant_says_why_instead_of_empty_axes(tmp_path):
    import pandas as pd

    from dpbandits.arena.frontier import COLUMNS, frontier_matched_figure

    png = tmp_path / "f.png"
    frontier_matched_figure(pd.DataFrame(columns=COLUMNS), "sparse", "t", str(tmp_path / "f.pdf"),
                            str(png), empty="PrivateLASSO: cannot be matched.")  # fmt: skip
    import matplotlib.image

    height, width = matplotlib.image.imread(png).shape[:2]
    assert width > 2 * height  # the short notice, not a frame of empty axes
