"""The figure rules of dpbandits.plotting: identical series said, distinct palette, no clipped
title, legends off the data, the arena's edge markers and the QUICK suffix."""

from __future__ import annotations

import itertools
import math

import matplotlib.colors as mcolors
import numpy as np
import pandas as pd
import pytest

from dpbandits import plotting
from dpbandits.plotting import plt


def _lab(color) -> np.ndarray:
    """CIE L*a*b* (D65) of an sRGB colour."""
    rgb = np.array(mcolors.to_rgb(color))
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = m @ lin / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _outside(fig) -> list[str]:
    """Texts reaching outside the figure (measured here, not with the helper under test)."""
    fig.canvas.draw()
    r, box = fig.canvas.get_renderer(), fig.bbox
    texts = list(fig.texts) + ([fig._suptitle] if fig._suptitle is not None else [])
    for ax in fig.axes:
        texts += [ax.title, ax.xaxis.label, ax.yaxis.label]
        if ax.get_legend() is not None:
            texts += ax.get_legend().get_texts()
    out = []
    for t in texts:
        if t.get_visible() and t.get_text():
            e = t.get_window_extent(r)
            if e.x0 < box.x0 - 1 or e.x1 > box.x1 + 1 or e.y0 < box.y0 - 1 or e.y1 > box.y1 + 1:
                out.append(t.get_text())
    return out


def _points(series_means: dict) -> pd.DataFrame:
    """Rows ``series, x, mean, std, se`` of final_regret_points."""
    rows = []
    for name, means in series_means.items():
        for x, m in zip((1, 2, 4, 8), means, strict=True):
            rows.append({"series": name, "x": x, "mean": m, "std": 0.0, "se": 0.0})
    return pd.DataFrame(rows)


# --- identical series -------------------------------------------------------------------------


def test_planted_identical_pair_is_caught_and_a_near_pair_is_not():
    x = np.arange(1.0, 51.0)
    a = 100 * np.sqrt(x)
    curves = {
        "A": (x, a),
        "B": (x, a.copy()),  # planted: the same numbers
        "C": (x, a * (1 + 1e-6)),  # near (a millionth) but distinct
        "D": (x, a + 1e-3),  # distinct by a thousandth
        "E": (x, a + 1e-12 * a.max()),  # within the tolerance: coincides
    }
    assert plotting.coincident_groups(curves) == [["A", "B", "E"]]
    assert plotting.coincident_groups({"A": (x, a), "C": (x, a * (1 + 1e-6))}) == []


def test_identical_needs_the_same_x_and_the_same_nans():
    x = np.arange(5.0)
    y = np.array([1.0, np.nan, 3.0, 4.0, 5.0])
    assert plotting.coincident_groups({"a": (x, y), "b": (x + 1, y)}) == []
    assert plotting.coincident_groups({"a": (x, y), "b": (x, np.nan_to_num(y))}) == []
    assert plotting.coincident_groups({"a": (x, y), "b": (x, y.copy())}) == [["a", "b"]]
    assert plotting.coincident_groups({"a": (x, y), "b": (x[:3], y[:3])}) == []


def test_final_regret_figure_says_identical_series_in_the_legend():
    """dpdpe Figure 2(a), configuration F: LDP-DPE and SDP-DPE are the same numbers."""
    plotting.set_style()
    flat = [1294.5] * 4
    pts = _points({"CDP-DPE": [1290, 1200, 1100, 1000], "LDP-DPE": flat, "SDP-DPE": flat})
    fig = plotting.final_regret_points(pts, ["CDP-DPE", "LDP-DPE", "SDP-DPE"], "epsilon")
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "LDP-DPE (= SDP-DPE)" in texts and "SDP-DPE (= LDP-DPE)" in texts
    assert "CDP-DPE" in texts  # a distinct series keeps its label
    # the hidden line shows: the second of the pair is dashed over the first
    line = [ln for ln in fig.axes[0].get_lines() if ln.get_label().startswith("SDP-DPE")][0]
    assert line.get_linestyle() != "-"
    plt.close(fig)


def test_regret_curves_say_identical_series_and_leave_near_ones():
    plotting.set_style()
    t = np.arange(100, 2001, 100)
    rows = []
    for name, mean in (
        ("LinUCB", np.sqrt(t)),
        ("A", 0.5 * t),
        ("B", 0.5 * t),
        ("C", 0.5 * t * (1 + 1e-5)),
    ):
        rows += [
            {"series": name, "t": ti, "mean": m, "se": 1.0, "std": 2.0}
            for ti, m in zip(t, mean, strict=True)
        ]
    fig = plotting.regret_curves(pd.DataFrame(rows), ["LinUCB", "A", "B", "C"], title="x")
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert texts == ["LinUCB", "A (= B)", "B (= A)", "C"]
    plt.close(fig)


def test_coincidence_note_names_the_groups():
    assert plotting.coincidence_note([]) == ""
    assert plotting.coincidence_note([["A", "B"]], "family F1") == (
        "family F1: A and B coincide (identical mean curves)."
    )
    assert plotting.coincidence_note([["A", "B", "C"]]) == (
        "A, B and C coincide (identical mean curves)."
    )


# --- palette ----------------------------------------------------------------------------------


def test_twenty_contestants_get_pairwise_distinct_colours_and_markers():
    names = [f"contestant {i}" for i in range(20)]
    styles = plotting.distinct_styles(names)
    colors = [mcolors.to_hex(s["color"]) for s in styles.values()]
    pairs = [(s["color"], s["marker"]) for s in styles.values()]
    assert len(set(colors)) == 20 and len(set(pairs)) == 20
    # told apart by eye: CIE76 difference of every two colours at least 20, none near black
    dist = [np.linalg.norm(_lab(a) - _lab(b)) for a, b in itertools.combinations(colors, 2)]
    assert min(dist) >= 20
    assert min(np.linalg.norm(_lab(c) - _lab("black")) for c in colors) >= 30
    # no two of ten consecutive names share a marker
    markers = [s["marker"] for s in styles.values()]
    assert all(len(set(markers[i : i + 10])) == 10 for i in range(11))
    # beyond 20: still distinct (colour, marker) pairs; stable by order
    many = plotting.distinct_styles(range(200))
    assert len({(s["color"], s["marker"]) for s in many.values()}) == 200
    assert plotting.distinct_styles(names) == styles


# --- titles and legends -----------------------------------------------------------------------


def test_a_long_title_is_wrapped_not_clipped():
    plotting.set_style()
    title = (
        "Figure 2(a) of dpdpe - final regret vs epsilon [F (faithful): W_l of Eq. 3 with "
        "Table 3's sigma_n] [QUICK: 5-trial smoke run]"
    )
    pts = _points({"CDP-DPE": [4, 3, 2, 1], "LDP-DPE": [5, 5, 5, 5]})
    fig = plotting.final_regret_points(pts, ["CDP-DPE", "LDP-DPE"], "epsilon", title=title)
    plotting.footnote(fig, "Mean over 5 runs; shaded band: +/- 1 standard deviation.")
    assert _outside(fig) == []
    assert plotting.clipped_texts(fig) == []
    plt.close(fig)

    fig, axes = plotting.panel_grid(1)  # the combined figure of one panel (dpdpe Figure 2(b))
    t = np.arange(100, 2001, 100)
    stats = pd.DataFrame({"series": "DPE", "t": t, "mean": np.sqrt(t), "se": 1.0, "std": 1.0})
    plotting.regret_curves(stats, ["DPE"], title="(a) epsilon = 10, d = 20", ax=axes[0])
    plotting.set_suptitle(fig, title)
    plotting.footnote(fig, "Mean over 5 runs.")
    assert _outside(fig) == []
    plt.close(fig)


def test_wrap_text_keeps_lines_within_the_width():
    plotting.set_style()
    text = "a fairly long title with many words " * 4
    wrapped = plotting.wrap_text(text.strip(), 2.0, 10)
    assert wrapped.replace("\n", " ") == text.strip()
    assert all(plotting.text_width_in(line, 10) <= 2.0 for line in wrapped.split("\n"))


def test_regret_curve_legend_covers_no_data():
    plotting.set_style()
    t = np.arange(100, 2001, 100)
    rows = [
        {"series": s, "t": ti, "mean": k * ti, "se": 1.0, "std": 1.0}
        for k, s in enumerate(["LinUCB", "LinUCB-JDP", "LinUCB-LDP"], 1)
        for ti in t
    ]
    fig = plotting.regret_curves(pd.DataFrame(rows), ["LinUCB", "LinUCB-JDP", "LinUCB-LDP"])
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    ax = fig.axes[0]
    assert not ax.get_legend().get_window_extent(r).overlaps(ax.get_window_extent(r))
    plt.close(fig)


def _gap_frame() -> pd.DataFrame:
    """A tiny OP-E3 run table: LinUCB, JDP-LinUCB(eps), AdaC-OFUL(rho) on C1."""
    rows = []
    t = np.array([100, 300, 1000, 3000])
    runs = [
        ("linucb", math.inf, 1.0),
        ("jdp_linucb", 1.0, 4.0),
        ("jdp_linucb", 10.0, 2.0),
        ("adac_oful", math.inf, 1.5),
        ("adac_oful", 0.1, 3.0),
    ]
    for alg, p, k in runs:
        for ti in t:
            rows.append(
                {
                    "instance": "C1",
                    "d": 5,
                    "T": 3000,
                    "K": 10,
                    "algorithm": alg,
                    "privacy": p,
                    "t": ti,
                    "regret": k * np.sqrt(ti) * np.log(ti),
                }
            )
    return pd.DataFrame(rows)


def test_op24_gap_legends_are_off_the_axes(tmp_path, monkeypatch):
    from dpbandits.papers.op24 import plots

    figs = []
    monkeypatch.setattr(plots, "save", lambda fig, *a, **k: figs.append(fig))
    monkeypatch.setattr(plots, "close", lambda fig: None)
    plots.gap_figure(_gap_frame(), str(tmp_path / "g.pdf"), str(tmp_path / "g.png"))
    fig = figs[0]
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    for ax in fig.axes:
        legend = ax.get_legend()
        assert legend is not None
        assert not legend.get_window_extent(r).overlaps(ax.get_window_extent(r))
    assert _outside(fig) == []
    plt.close(fig)


# --- plasso -----------------------------------------------------------------------------------


def _plasso_runs() -> pd.DataFrame:
    rows = []
    cells = [("private_lasso", e) for e in (1.0, 1e2, 1e4, 1e5, 1e6, 1e7, 1e8, math.inf)]
    cells += [
        ("np_th_lasso", math.inf),
        ("oracle_ols", math.inf),
        ("oracle_tbap", 1e3),
        ("oracle_tbap", 1e4),
        ("svt_noise_off", 1e4),
    ]
    rng = np.random.default_rng(0)
    for fam in ("F1", "F2"):
        for k, (alg, eps) in enumerate(cells):
            for T in (512, 1024, 2048):
                for trial in range(3):
                    rows.append(
                        {
                            "experiment": "PL-E1",
                            "family": fam,
                            "algorithm": alg,
                            "eps": eps,
                            "T": T,
                            "trial": trial,
                            "regret_T": (k + 1) * np.log(T) ** 2 + rng.random(),
                            "regret_unif_T": 0.5 * T,
                        }
                    )
    return pd.DataFrame(rows)


def test_plasso_regret_vs_T_legend_is_grouped_and_its_colours_distinct(tmp_path, monkeypatch):
    from dpbandits.papers.plasso import plots

    figs = []
    monkeypatch.setattr(plots, "save", lambda fig, *a, **k: figs.append(fig))
    monkeypatch.setattr(plots, "close", lambda fig: None)
    grid = [1.0, 1e2, 1e4, 1e5, 1e6, 1e7, 1e8, math.inf]
    plots.regret_vs_T(_plasso_runs(), grid, str(tmp_path / "r.pdf"), str(tmp_path / "r.png"))
    fig = figs[0]
    legend = fig.axes[-1].get_legend()
    texts = [t.get_text() for t in legend.get_texts()]
    for header in ("algorithm (marker, line)", "ε (colour)", "reference"):
        assert header in texts
        assert legend.get_texts()[texts.index(header)].get_fontweight() == "bold"
    # PrivateLASSO: one colour per epsilon, all distinct, from the shared palette (black: inf)
    ax = fig.axes[0]
    lines = [ln for ln in ax.get_lines() if ln.get_label().startswith("PrivateLASSO ε=")]
    colors = [mcolors.to_hex(ln.get_color()) for ln in lines]
    assert len(lines) == 8 and len(set(colors)) == 8
    palette = {c.lower() for c in plotting.DISTINCT_COLORS} | {"#000000"}
    assert set(colors) <= palette
    # the algorithm is the marker: every algorithm has its own
    markers = {
        ln.get_label().split(" ε=")[0]: ln.get_marker()
        for ln in ax.get_lines()
        if ln.get_marker() not in ("None", "", None)
    }
    assert len(set(markers.values())) == len(markers)
    assert _outside(fig) == []
    plt.close(fig)


# --- arena frontier ---------------------------------------------------------------------------


def _board() -> pd.DataFrame:
    base = {"suite": "s", "d": 5, "T": 100, "status": "ran", "trials": 4, "nominal_delta": 0.1}
    rows = [
        ("A", "experiment", 1.0, 0.5, 50.0),  # private, finite delivered epsilon
        ("B", "paper", 1.0, math.inf, 80.0),  # calibrated, but not private
        ("C", "paper", math.inf, math.nan, 10.0),  # non-private, epsilon not accounted
        ("D", "theory", 1.0, 0.0, 60.0),  # the noise meets delta alone
    ]
    return pd.DataFrame(
        [
            {
                **base,
                "contestant": c,
                "calibration": cal,
                "nominal_epsilon": nom,
                "delivered_epsilon": de,
                "mean_regret": y,
                "ci_low": 0.8 * y,
                "ci_high": 1.2 * y,
            }
            for c, cal, nom, de, y in rows
        ]
    )


def _frontier(board, tmp_path, monkeypatch, png="f.png"):
    """The figure :func:`dpbandits.arena.plots.frontier_figure` draws (its save caught)."""
    from dpbandits.arena.plots import frontier_figure

    figs = []
    monkeypatch.setattr(plotting, "save", lambda fig, *a, **k: figs.append(fig))
    monkeypatch.setattr(plotting, "close", lambda fig: None)
    frontier_figure(board, "s", "Arena, suite s", str(tmp_path / "f.pdf"), str(tmp_path / png))
    return figs[0]


def test_frontier_marks_infinite_epsilon_at_the_right_edge_and_the_target(tmp_path, monkeypatch):
    fig = _frontier(_board(), tmp_path, monkeypatch)
    ax = fig.axes[0]
    points = {
        ln.get_label().split(" (")[0]: ln.get_xdata()[0]
        for ln in ax.get_lines()
        if not ln.get_label().startswith("_")
    }
    # B (infinite) and C (NaN, not private) are drawn, at the same right edge beyond every
    # finite epsilon; D (zero) at the left edge
    assert set(points) == {"A", "B", "C", "D"}
    assert points["B"] == points["C"] > 1.0 > points["A"] > points["D"] > 0
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[-1] == "∞" and labels[0] == "0"
    assert ax.get_xticks()[-1] == pytest.approx(points["B"])
    texts = [t.get_text() for t in ax.texts]
    assert "ε = ∞ (not private)" in texts and "target ε = 1" in texts
    # the target: a vertical line at epsilon 1
    assert any(np.allclose(ln.get_xdata(), [1.0, 1.0]) for ln in ax.get_lines())
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any("ε = ∞ (not private)" in t for t in legend)
    assert any(t.startswith("target ε = 1") for t in legend)
    assert _outside(fig) == []
    plt.close(fig)


def test_frontier_uses_the_shared_palette_and_names_identical_points(tmp_path, monkeypatch):
    board = _board()
    twin = board[board["contestant"] == "A"].assign(contestant="A-twin")
    board = pd.concat([board, twin], ignore_index=True)
    fig = _frontier(board, tmp_path, monkeypatch)
    styles = plotting.distinct_styles(["A", "B", "C", "D", "A-twin"])
    legend = fig.legends[0]
    for handle, text in zip(legend.legend_handles, legend.get_texts(), strict=True):
        if text.get_text() in styles:
            assert mcolors.to_hex(handle.get_color()) == mcolors.to_hex(
                styles[text.get_text()]["color"]
            )
            assert handle.get_marker() == styles[text.get_text()]["marker"]
    assert getattr(fig, "coincident", None) == {
        (5, 100): [["A (experiment)", "A-twin (experiment)"]]
    }
    note = " ".join(t.get_text() for t in fig.texts).replace("\n", " ")
    assert "A (experiment) and A-twin (experiment) coincide" in note
    plt.close(fig)


def test_frontier_of_a_suite_without_finite_epsilon_still_draws_every_point(tmp_path, monkeypatch):
    """frontier_sparse: PrivateLASSO's delivered epsilon is infinite, the others non-private."""
    board = _board()
    board = board[board["contestant"].isin(["B", "C"])]
    fig = _frontier(board, tmp_path, monkeypatch, png="results/quick/arena/f.png")
    ax = fig.axes[0]
    drawn = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    assert len(drawn) == 2
    lo, hi = ax.get_xlim()
    assert all(lo < ln.get_xdata()[0] < hi for ln in drawn)
    assert "[QUICK: 4-trial smoke run]" in fig.get_suptitle()  # scale from the output path
    plt.close(fig)


# --- QUICK ------------------------------------------------------------------------------------


def test_quick_suffix_comes_from_the_output_path():
    assert plotting.is_quick("results/quick/figures/cz22_fig1.png")
    assert plotting.is_quick("/abs/work/results/quick/arena/frontier_fixed.png")
    assert not plotting.is_quick("results/figures/cz22_fig1.png")
    assert not plotting.is_quick("results/full/figures/quick.png")
    assert plotting.quick_suffix("results/quick/figures/a.png", 5) == " [QUICK: 5-trial smoke run]"
    assert plotting.quick_suffix("results/quick/figures/a.png") == " [QUICK: smoke run]"
    assert plotting.quick_suffix("results/figures/a.png", 5) == ""


@pytest.mark.parametrize("kind", ["suptitle", "single", "panels"])
def test_save_under_results_quick_says_quick_in_the_title(tmp_path, kind):
    plotting.set_style()
    out = tmp_path / "results" / "quick" / "figures"
    out.mkdir(parents=True)
    fig, axes = plotting.panel_grid(1 if kind == "single" else 2)
    for ax in axes:
        ax.plot([1, 2, 3], [1, 4, 9], label="s")
        ax.set_title("a panel")
    if kind == "suptitle":
        plotting.set_suptitle(fig, "Figure 1 of a paper")
    plotting.footnote(fig, "Mean over 5 runs.")
    plotting.save(fig, str(out / "f.pdf"), str(out / "f.png"))
    if kind == "single":
        title = axes[0].get_title()
    else:
        title = fig.get_suptitle()
    assert "[QUICK: smoke run]" in title
    if kind == "suptitle":
        assert title.startswith("Figure 1 of a paper")
    assert _outside(fig) == []
    # the title does not run into the axes
    r = fig.canvas.get_renderer()
    if kind != "single":
        top = max(ax.get_tightbbox(r).y1 for ax in axes)
        assert fig._suptitle.get_window_extent(r).y0 >= top - 1
    plt.close(fig)


def test_save_elsewhere_and_an_explicit_suffix_are_left_alone(tmp_path):
    plotting.set_style()
    fig, axes = plotting.panel_grid(2)
    plotting.set_suptitle(fig, "Figure 1")
    plotting.save(fig, str(tmp_path / "f.pdf"), str(tmp_path / "f.png"))
    assert fig.get_suptitle() == "Figure 1"
    quick = tmp_path / "results" / "quick"
    quick.mkdir(parents=True)
    plotting.set_suptitle(fig, "Figure 1" + plotting.quick_suffix(quick / "f.png", 5))
    plotting.save(fig, str(quick / "f.pdf"), str(quick / "f.png"))
    assert fig.get_suptitle() == "Figure 1 [QUICK: 5-trial smoke run]"
    plt.close(fig)
