"""Snakemake job: the arena's leaderboard, claim verdicts, frontier figures and page
(docs/arena.md) from its simulations."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

import pandas as pd

from dpbandits.arena import claims as arena_claims
from dpbandits.arena import frontier as frontier_doc
from dpbandits.arena.frontier import frontier_matched_figure, frontier_table, leaders
from dpbandits.arena.leaderboard import final_regret, leaderboard
from dpbandits.arena.page import write_page
from dpbandits.arena.plots import frontier_figure
from dpbandits.arena.spec import load_arena_for_job
from dpbandits.io import read_csv_table, read_results
from dpbandits.runtime.joblog import job_log
from dpbandits.tables import write_table

with job_log(snakemake.log[0]) as log:
    p, out = snakemake.params, snakemake.output
    arena = load_arena_for_job(snakemake.input.arena, p)
    frames = {c.path: read_results(c.path, expect=p.expected) for c in arena.cells}
    timing = pd.concat([read_csv_table(t) for t in snakemake.input.timings], ignore_index=True)
    place = {(c.panel, c.configuration, c.series): c.path for c in arena.cells}
    seconds = {
        place[(r.panel, r.configuration, r.series)]: float(r.seconds) for r in timing.itertuples()
    }
    privacy = read_csv_table(snakemake.input.privacy)
    board = leaderboard(arena, frames, seconds, privacy)
    finals = {c.path: final_regret(frames[c.path], c.T) for c in arena.cells}
    ran = board[board["status"] == "ran"]
    key = {(c.figure, c.d, c.T, c.series, c.configuration): c.path for c in arena.cells}
    learning = {
        key[(r.suite, r.d, r.T, r.contestant, r.calibration)]: bool(r.learning)
        for r in ran.itertuples()
    }
    rows = arena_claims.claim_rows(arena, finals, learning)
    claims = arena_claims.claim_table(arena, rows)
    write_table(
        board,
        out.leaderboard_csv,
        out.leaderboard_md,
        arena.data["title"],
        "Final pseudo-regret (mean and 95 % t-interval over the trials), rank with ties "
        "where intervals overlap, nominal and delivered epsilon (docs/arena.md).",
    )
    write_table(
        claims,
        out.claims_csv,
        out.claims_md,
        "Arena: the papers' pairwise claims",
        " ".join(arena_claims.__doc__.split("\n\n")[1:3]).replace("\n", " "),
    )
    write_table(rows, out.claim_rows_csv, out.claim_rows_md, "Arena: every claim row")
    frontier = frontier_table(board)
    leading = leaders(frontier)
    write_table(
        frontier,
        out.frontier_csv,
        out.frontier_md,
        "Arena: the privacy-utility frontier at matched privacy",
        " ".join(frontier_doc.__doc__.split()),
    )
    write_table(
        leading,
        out.frontier_leaders_csv,
        out.frontier_leaders_md,
        "Arena: which contestant leads at each matched epsilon",
        " ".join(leaders.__doc__.split()),
    )
    figures, matched_figures = {}, {}
    for sid, suite in arena.suites.items():
        if "not_built" in suite:
            continue
        title = f"Arena, suite {sid}: {suite['title']}"
        frontier_figure(
            board[board["ranking"] != "frontier"],
            sid,
            title,
            getattr(out, f"{sid}_pdf"),
            getattr(out, f"{sid}_png"),
        )
        figures[sid] = getattr(out, f"{sid}_png")
        png = getattr(out, f"{sid}_matched_png")
        refused = board[
            (board["suite"] == sid)
            & (board["status"] == "not run")
            & (board["calibration"] == "matched")
        ]
        why = " ".join(f"{r.contestant}: {r.note}." for r in refused.itertuples())
        frontier_matched_figure(
            frontier, sid, title, getattr(out, f"{sid}_matched_pdf"), png, empty=why
        )
        matched_figures[sid] = png
    write_page(
        arena,
        board,
        claims,
        rows,
        figures,
        out.page,
        scale=snakemake.params.scale,
        links=dict(snakemake.params.links),
        matched_figures=matched_figures,
        leaders=leading,
    )
    for r in claims.itertuples():
        log.info("%s: %s (%d rows)", r.claim_id, r.status, r.rows)
