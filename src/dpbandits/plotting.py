"""One plotting style for every figure of the project.

Besides the style, the shared rules every figure follows:

* identical series are said in the legend (:func:`mark_coincident`): a line hidden by another
  is never silent;
* titles are wrapped to the width they have (:func:`wrap_text`), so none is clipped;
* legends sit outside the axes (:func:`legend_below`, :func:`legend_right`);
* series without a fixed colour take colours and markers from one palette
  (:func:`distinct_styles`);
* a figure written under ``results/quick/`` says so in its title (:func:`quick_suffix`,
  enforced by :func:`save`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402
from matplotlib.font_manager import FontProperties  # noqa: E402
from matplotlib.layout_engine import ConstrainedLayoutEngine, PlaceHolderLayoutEngine  # noqa: E402
from matplotlib.textpath import TextToPath  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter  # noqa: E402

from dpbandits.pages import quick_path  # noqa: E402

#: Stable colours by series label (Okabe-Ito, colour-blind safe), the same in every figure.
SERIES_COLORS = {
    "LinUCB": "#000000",
    "LinUCB-JDP": "#0072B2",
    "LinUCB-SDP-Amp": "#009E73",
    "LinUCB-SDP-Vec": "#E69F00",
    "LinUCB-LDP": "#D55E00",
    # paper 004: the same colour for the same trust model
    "DPE": "#000000",
    "CDP-DPE": "#0072B2",
    "LDP-DPE": "#D55E00",
    "SDP-DPE": "#009E73",
    "SDP-DPE-S1-diagnostic": "#999999",
    "DPE-FixedU": "#E69F00",
    "PE": "#000000",
    "CDP-PE": "#0072B2",
    "LDP-PE": "#D55E00",
    "SDP-PE": "#009E73",
}


def series_style(name: str, i: int) -> dict:
    """Colour (stable by label) and line style (dashed for diagnostics) of one series."""
    color = SERIES_COLORS.get(name, FALLBACK_COLORS[i % len(FALLBACK_COLORS)])
    return {"color": color, "ls": "--" if "diagnostic" in name else "-"}


#: Fallback colours for series without a fixed colour.
FALLBACK_COLORS = ("#CC79A7", "#56B4E9", "#F0E442", "#999999")
#: Colours of successive lines of a plot without named series.
CYCLE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999999")

#: Twenty colours for series without a fixed colour (the arena's contestants, a study's epsilon
#: grid): the six chromatic Okabe-Ito colours first (colour-blind safe), then fourteen chosen
#: greedily, each maximising its smallest CIEDE2000 difference to those chosen before it, among
#: named colours of CIE lightness 20 to 75 (visible on white; no black, which the project keeps
#: for non-private references); the darkest of them come last, so few series stay far from black.
DISTINCT_COLORS = (
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#BE03FD",
    "#9DC100",
    "#F10C45",
    "#A8A495",
    "#886806",
    "#7E4071",
    "#FF9A8A",
    "#8F8CE7",
    "#388004",
    "#696969",
    "#2000B1",
    "#680018",
    "#014D4E",
    "#373E02",
)
#: Ten filled markers of distinct shapes.
DISTINCT_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")


def distinct_styles(names: Iterable[str]) -> dict[str, dict]:
    """A colour and a marker for each name, all told apart: the palette of many series.

    The ``i``-th distinct name (in the order given) gets the colour ``DISTINCT_COLORS[i % 20]``
    and the marker ``DISTINCT_MARKERS[(i + 3 * (i // 20)) % 10]``. Up to 20 names have pairwise
    distinct colours (and no two of ten consecutive names share a marker); up to 200 names have
    pairwise distinct (colour, marker) pairs. The same names in the same order get the same
    styles in every figure.

    Returns
    -------
    dict
        Name -> ``{"color": str, "marker": str}``.
    """
    out = {}
    for i, name in enumerate(dict.fromkeys(names)):
        out[name] = {
            "color": DISTINCT_COLORS[i % len(DISTINCT_COLORS)],
            "marker": DISTINCT_MARKERS[(i + 3 * (i // len(DISTINCT_COLORS))) % 10],
        }
    return out


#: Relative tolerance of :func:`coincident_groups`: two curves coincide when they differ by at
#: most this fraction of the plot's scale (the largest finite absolute value drawn), far below
#: a pixel and far above floating-point noise of identical computations.
COINCIDE_RTOL = 1e-9


def _scale(arrays) -> float:
    finite = [np.abs(a[np.isfinite(a)]) for a in arrays]
    finite = [a for a in finite if a.size]
    return float(max(a.max() for a in finite)) if finite else 0.0


def _same(a: np.ndarray, b: np.ndarray, tol: float) -> bool:
    if a.shape != b.shape:
        return False
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if not np.array_equal(nan_a, nan_b):
        return False
    ok = ~nan_a
    return bool(np.all((a[ok] == b[ok]) | (np.abs(a[ok] - b[ok]) <= tol)))


def coincident_groups(curves: Mapping, rtol: float = COINCIDE_RTOL) -> list[list]:
    """Groups of curves that draw the same line, so that one hides the others.

    Two curves coincide when they have the same number of points, their x values and their y
    values each differ by at most ``rtol`` times the scale of all the curves' x (resp. y)
    values (the largest finite absolute value; a scale of 0 asks exact equality) at every
    point, and they are NaN at the same points (infinities must be equal). Empty curves draw
    nothing and coincide with none.

    Parameters
    ----------
    curves : mapping
        Key (a series name) -> ``(x, y)``, array-likes of one length.
    rtol : float
        Relative tolerance, of the plot's scale (default :data:`COINCIDE_RTOL`).

    Returns
    -------
    list of list
        Every group of two or more coinciding keys, in the order of ``curves`` (within and
        across groups).
    """
    data = {}
    for key, (x, y) in curves.items():
        x, y = np.asarray(x, float).ravel(), np.asarray(y, float).ravel()
        if x.shape != y.shape:
            raise ValueError(f"{key}: x and y of different lengths ({x.size}, {y.size})")
        if x.size:
            data[key] = (x, y)
    x_tol = rtol * _scale([x for x, _ in data.values()])
    y_tol = rtol * _scale([y for _, y in data.values()])
    groups: list[list] = []
    for key, (x, y) in data.items():
        for group in groups:
            x0, y0 = data[group[0]]
            if _same(x0, x, x_tol) and _same(y0, y, y_tol):
                group.append(key)
                break
        else:
            groups.append([key])
    return [g for g in groups if len(g) > 1]


def _line_data(line):
    try:
        return np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
    except (TypeError, ValueError):  # dates, categories: not compared
        return None


def mark_coincident(ax, rtol: float = COINCIDE_RTOL) -> list[list[str]]:
    """Say in the legend which labelled lines of ``ax`` coincide, and let each of them show.

    Call it after drawing and before the legend. Labelled lines and the data lines of labelled
    error-bar plots with the same transform are compared by :func:`coincident_groups` (on
    their data, with ``rtol``). In each group every label gains
    ``" (= <the others>)"``, e.g. ``"LDP-DPE (= SDP-DPE)"``; the ``k``-th member after the
    first is redrawn with a dash pattern of period ``n`` dashes (``n``: the group's size) offset
    by ``k`` dashes, so the colours of the ``n`` lines alternate along the curve, and its
    markers hollow and larger (by up to 6 points for the last), so they ring the markers
    under them. Lines whose label starts
    with ``_`` (no legend entry) are left alone.

    Returns
    -------
    list of list of str
        The original labels of each group of coinciding lines.
    """
    # (the artist whose label the legend shows, the line drawn): labelled lines, and the data
    # line of each labelled error-bar plot (whose label is the container's)
    items = [(ln, ln) for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    for c in ax.containers:
        if isinstance(c, ErrorbarContainer) and c.lines[0] is not None:
            if not str(c.get_label()).startswith("_"):
                items.append((c, c.lines[0]))
    by_transform: dict[int, list] = {}
    for item in items:
        by_transform.setdefault(id(item[1].get_transform()), []).append(item)
    found = []
    for same in by_transform.values():
        curves = {i: d for i, (_, ln) in enumerate(same) if (d := _line_data(ln)) is not None}
        for group in coincident_groups(curves, rtol):
            labelled = [same[i][0] for i in group]
            members = [same[i][1] for i in group]
            labels = [str(a.get_label()) for a in labelled]
            n = len(members)
            for k, m in enumerate(members):
                others = ", ".join(lab for j, lab in enumerate(labels) if j != k)
                labelled[k].set_label(f"{labels[k]} (= {others})")
                if k == 0:
                    continue
                if m.get_linestyle() not in ("None", "", " ", "none"):
                    dash = 4.0
                    m.set_linestyle((k * dash, (dash, (n - 1) * dash)))
                if m.get_marker() not in (None, "None", "", " ", "none"):
                    m.set_markerfacecolor("none")
                    m.set_markersize(m.get_markersize() + 6.0 * k / (n - 1))
            found.append(labels)
    return found


def coincidence_note(
    groups: Iterable[Iterable[str]], where: str = "", what: str = "identical mean curves"
) -> str:
    """A caption sentence naming coinciding series, ``""`` when there are none.

    E.g. ``"family F1: A and B coincide (identical mean curves)."``; ``where`` prefixes the
    sentence, ``what`` says in what they are identical.
    """
    parts = []
    for g in groups:
        g = list(g)
        parts.append(" and ".join([", ".join(g[:-1]), g[-1]]) if len(g) > 1 else g[0])
    if not parts:
        return ""
    lead = f"{where}: " if where else ""
    return f"{lead}{'; '.join(parts)} coincide ({what})."


def mark_all_coincident(axes, what: str = "identical mean curves") -> str:
    """:func:`mark_coincident` on every axes of ``axes``; the caption sentences naming the
    coinciding series of each, prefixed by the axes' title (and y label, for a title shared by
    several axes); ``""`` when none coincide.

    For figures whose legend does not show every axes' own labels (a legend shared by panels).
    """
    axes = list(np.ravel(axes))
    titles = [ax.get_title().replace("\n", " ") for ax in axes]
    notes = []
    for ax, title in zip(axes, titles, strict=True):
        groups = mark_coincident(ax)
        if groups:
            where = title if titles.count(title) == 1 else f"{title} ({ax.get_ylabel()})"
            notes.append(coincidence_note(groups, where, what))
    return " ".join(notes)


#: Text widths are measured with Matplotlib's own font machinery (points, no figure needed).
_TEXT_TO_PATH = TextToPath()


def text_width_in(text: str, fontsize: float, weight: str = "normal") -> float:
    """Width in inches of one line of ``text`` at ``fontsize`` points in the current font."""
    prop = FontProperties(size=fontsize, weight=weight)
    width, _, _ = _TEXT_TO_PATH.get_text_width_height_descent(text, prop, ismath=False)
    return width / 72.0


def wrap_text(text: str, width_in: float, fontsize: float, weight: str = "normal") -> str:
    """``text`` with each of its lines broken at spaces so that none is wider than ``width_in``.

    Widths are measured at ``fontsize`` points in the current style's font (call
    :func:`set_style` first). Existing line breaks are kept; a single word wider than
    ``width_in`` stays whole on its own line.
    """
    out = []
    for line in text.split("\n"):
        words, current = line.split(" "), ""
        for word in words:
            trial = f"{current} {word}" if current else word
            if current and text_width_in(trial, fontsize, weight) > width_in:
                out.append(current)
                current = word
            else:
                current = trial
        out.append(current)
    return "\n".join(out)


def axes_width_in(ax) -> float:
    """Width of ``ax`` in inches at its current position."""
    return ax.get_position().width * ax.figure.get_figwidth()


def set_title(ax, text: str, fontsize: float = 10) -> None:
    """Title of ``ax``, wrapped to the axes' width (:func:`wrap_text`)."""
    ax.set_title(wrap_text(text, axes_width_in(ax), fontsize), fontsize=fontsize)


def set_suptitle(fig, text: str, fontsize: float = 11) -> None:
    """Title of ``fig``, wrapped to the figure's width less half an inch."""
    fig.suptitle(wrap_text(text, fig.get_figwidth() - 0.5, fontsize), fontsize=fontsize)


def _slot_width_in(ax) -> float:
    """Width in inches an axes and its legend may take: its share of the figure's width in its
    grid, less room for the y labels (so the panels of a row get the same legend columns,
    whatever the layout has done yet); the axes' own width when it is not in a grid."""
    spec = ax.get_subplotspec()
    if spec is None:
        return axes_width_in(ax)
    share = len(spec.colspan) / spec.get_gridspec().ncols
    return ax.figure.get_figwidth() * share - 0.8


def _legend_fontsize(kw: dict) -> float:
    size = kw.get("fontsize", plt.rcParams["legend.fontsize"])
    return FontProperties(size=size).get_size_in_points()


def legend_below(ax, handles=None, ncol: int | None = None, **kw):
    """The legend of ``ax`` under its x label, outside the axes (it covers no data).

    ``ncol`` defaults to as many columns as fit the axes' share of the figure's width.
    ``handles`` defaults to the labelled artists of ``ax``; other keywords go to
    :meth:`~matplotlib.axes.Axes.legend`. The figure's layout (``tight_layout``) makes room
    for it.
    """
    if handles is None:
        handles, _ = ax.get_legend_handles_labels()
    if not handles:
        return None
    size = _legend_fontsize(kw)
    kw.setdefault("fontsize", size)
    if ncol is None:
        widest = max((text_width_in(h.get_label(), size) for h in handles), default=1.0)
        ncol = max(1, min(len(handles), int(_slot_width_in(ax) // (widest + 0.55))))
    # the legend's top this many legend-font sizes under the axes: room for ticks and x label
    pad = 3.6 * plt.rcParams["font.size"] / size
    return ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                     borderaxespad=pad, ncol=ncol, frameon=True, **kw)  # fmt: skip


def legend_right(ax, handles=None, **kw):
    """The legend of ``ax`` beside its right edge, outside the axes (it covers no data)."""
    if handles is None:
        handles, _ = ax.get_legend_handles_labels()
    if not handles:
        return None
    kw.setdefault("fontsize", _legend_fontsize(kw))
    return ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                     borderaxespad=0.0, frameon=True, **kw)  # fmt: skip


def section_handles(sections: Mapping[str, list]) -> list:
    """Legend handles with a header entry before each section (see :func:`bold_headers`).

    ``sections``: header -> its handles (artists with labels). A header is an invisible
    handle labelled with the header text.
    """
    from matplotlib.lines import Line2D

    out = []
    for header, handles in sections.items():
        if not handles:
            continue
        out.append(Line2D([], [], ls="none", marker="none", label=header))
        out.extend(handles)
    return out


def bold_headers(legend, headers: Iterable[str]) -> None:
    """Set the entries of ``legend`` labelled by ``headers`` in bold (section headers)."""
    headers = set(headers)
    for text in legend.get_texts():
        if text.get_text() in headers:
            text.set_fontweight("bold")


#: Whether a path is an output of the quick build (one rule for figures, tables and pages).
is_quick = quick_path


def quick_suffix(path, n_trials: int | None = None) -> str:
    """``" [QUICK: <n>-trial smoke run]"`` for an output under ``results/quick/``, else ``""``.

    Appended to a figure's title so a quick-scale image cannot pass for the paper-scale one;
    ``n_trials`` (when known) is said in it.
    """
    if not is_quick(path):
        return ""
    trials = f"{n_trials}-trial " if n_trials else ""
    return f" [QUICK: {trials}smoke run]"


def _says_quick(fig) -> bool:
    texts = list(fig.texts) + [ax.title for ax in fig.axes]
    if fig._suptitle is not None:
        texts.append(fig._suptitle)
    return any("QUICK" in t.get_text() for t in texts)


def stamp_quick(fig, path) -> bool:
    """Put :func:`quick_suffix` of ``path`` in the title of ``fig`` unless a text says QUICK.

    The suffix is appended to the figure's title (its suptitle; else the title of its only
    axes); a figure with neither gets a suptitle. The title is wrapped to the figure's width and
    the axes (when laid out by ``tight_layout`` or placed by hand) move down by the height the
    title gains. Returns whether the figure was changed.
    """
    suffix = quick_suffix(path)
    if not suffix or _says_quick(fig):
        return False
    renderer = fig.canvas.get_renderer()
    titled = [ax for ax in fig.axes if ax.get_title()]
    if fig._suptitle is not None and fig._suptitle.get_text():
        text, size = fig._suptitle, fig._suptitle.get_fontsize()
        before = text.get_window_extent(renderer).height
        text.set_text(wrap_text(text.get_text() + suffix, fig.get_figwidth() - 0.5, size))
    elif len(fig.axes) == 1 and titled:
        text, size = titled[0].title, titled[0].title.get_fontsize()
        before = text.get_window_extent(renderer).height
        width = max(axes_width_in(titled[0]), fig.get_figwidth() - 0.5)
        text.set_text(wrap_text(text.get_text() + suffix, width, size))
    else:
        before = 0.0
        text = fig.suptitle(suffix.strip(), fontsize=10, y=0.995, va="top")
    grown = text.get_window_extent(renderer).height - before
    if grown > 0 and not isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine):
        pad = 4.0 * fig.dpi / 72 if before == 0.0 else 0.0
        top = fig.subplotpars.top - (grown + pad) / (fig.get_figheight() * fig.dpi)
        fig.subplots_adjust(top=top)
    return True


def clipped_texts(fig) -> list[str]:
    """The visible, non-empty texts of ``fig`` (titles, axis labels, axes and figure texts,
    legend entries; not tick labels) that reach outside the figure by more than a pixel: each
    would be cut in the image.
    """
    fig.canvas.draw()  # legends and layout engines place their texts when drawn
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    texts = list(fig.texts)
    if fig._suptitle is not None:
        texts.append(fig._suptitle)
    for leg in fig.legends:
        texts.extend(leg.get_texts())
    for ax in fig.axes:
        texts.extend([ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label])
        texts.extend(ax.texts)
        if ax.get_legend() is not None:
            texts.extend(ax.get_legend().get_texts())
    out = []
    for t in texts:
        if not t.get_visible() or not t.get_text():
            continue
        e = t.get_window_extent(renderer)
        if e.x0 < box.x0 - 1 or e.x1 > box.x1 + 1 or e.y0 < box.y0 - 1 or e.y1 > box.y1 + 1:
            out.append(t.get_text())
    return out


def set_style() -> None:
    """The style of every figure: matplotlib's copy of seaborn's whitegrid theme.

    (The style sheet ships with matplotlib; importing seaborn itself would cost each notebook
    ~1.3 s for scipy.stats.)
    """
    plt.style.use("seaborn-v0_8-whitegrid")
    plt.rcParams.update({"font.size": 11, "axes.titlesize": 10, "legend.fontsize": 9})


def regret_curves(
    stats: pd.DataFrame,
    series: list[str],
    title: str = "",
    ylabel: str = "Regret",
    ax=None,
    band: str = "se",
    per_round: bool = False,
):
    """Mean regret curves with a +/- 1 standard-error (or standard-deviation) band.

    The title is wrapped to the axes' width, the legend sits under the axes and series with
    identical mean curves are said in it (:func:`mark_coincident`).

    Parameters
    ----------
    stats : DataFrame
        Output of :func:`dpbandits.regret_stats.curve_stats`.
    series : list of str
        Series to draw, in legend order.
    title, ylabel : str
    ax : matplotlib Axes, optional
    band : {"se", "std"}
        Half-width of the shaded band.
    per_round : bool
        Draw ``R(t)/t`` (mean and band divided by ``t``).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.4))
    for i, name in enumerate(series):
        s = stats[stats["series"] == name].sort_values("t")
        style = series_style(name, i)
        scale = s["t"] if per_round else 1.0
        mean, half = s["mean"] / scale, s[band] / scale
        ax.plot(s["t"], mean, label=name, lw=1.8, **style)
        ax.fill_between(s["t"], mean - half, mean + half, color=style["color"], alpha=0.25, lw=0)
    ax.xaxis.set_major_locator(MaxNLocator(5, integer=True))
    ax.xaxis.set_major_formatter(
        FuncFormatter(lambda x, _: f"{x / 1000:g}k" if x >= 1000 else f"{x:g}")
    )
    ax.set_xlabel("Round")
    ax.set_ylabel(ylabel)
    if title:
        set_title(ax, title, fontsize=10)
    mark_coincident(ax)
    legend_below(ax, fontsize=9)
    ax.set_xlim(left=0)
    if not per_round:
        ax.set_ylim(bottom=min(0.0, float(stats["mean"].min())))
    ax.figure.tight_layout()
    return ax.figure


def final_regret_points(
    points: pd.DataFrame,
    series: list[str],
    xlabel: str,
    title: str = "",
    band: str = "std",
    logx: bool = False,
    ax=None,
):
    """Mean final regret against a setting (epsilon or T), one line per series, with a band.

    Title, legend and identical series as in :func:`regret_curves`.

    Parameters
    ----------
    points : DataFrame
        Columns ``series, x, mean, std, se``.
    series : list of str
        Series to draw, in legend order.
    xlabel, title : str
    band : {"se", "std"}
    logx : bool
        Log-log axes (for horizons).
    ax : matplotlib Axes, optional
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.4))
    for i, name in enumerate(series):
        s = points[points["series"] == name].sort_values("x")
        if s.empty:
            continue
        style = series_style(name, i)
        ax.plot(s["x"], s["mean"], marker="o", ms=4, label=name, lw=1.8, **style)
        lo = np.maximum(s["mean"] - s[band], s["mean"] * 1e-3) if logx else s["mean"] - s[band]
        ax.fill_between(s["x"], lo, s["mean"] + s[band], color=style["color"], alpha=0.25, lw=0)
    if logx:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("Final regret R(T)")
    if title:
        set_title(ax, title, fontsize=10)
    mark_coincident(ax)
    legend_below(ax, fontsize=9)
    ax.figure.tight_layout()
    return ax.figure


def close(fig) -> None:
    """Release a figure's memory."""
    plt.close(fig)


def rate_panel(
    ax,
    levels,
    values,
    slope: float,
    intercept: float,
    claimed: float | None,
    label: str,
    color: str,
) -> None:
    """Log-log points (mean +/- 1.96 SE over instances), the fitted line and the claimed slope.

    The claimed slope is drawn through the geometric centre of the points (dashed), so its
    steepness can be compared with the fit (solid) by eye. Non-positive means are not drawn.
    """
    levels = np.asarray(levels, float)
    values = np.asarray(values, float)
    mean = values.mean(axis=0)
    se = values.std(axis=0, ddof=1) / np.sqrt(values.shape[0])
    ok = mean > 0
    lower = np.minimum(1.96 * se, mean * 0.999)
    ax.errorbar(
        levels[ok],
        mean[ok],
        yerr=[lower[ok], 1.96 * se[ok]],
        fmt="o",
        ms=4,
        capsize=2,
        color=color,
        label=label,
    )
    xs = np.geomspace(levels.min(), levels.max(), 50)
    if np.isfinite(slope):
        ax.plot(xs, np.exp(intercept) * xs**slope, color=color, lw=1.3)
    if claimed is not None and ok.sum() >= 2:
        lx, ly = np.log(levels[ok]), np.log(mean[ok])
        ax.plot(
            xs, np.exp(ly.mean() + claimed * (np.log(xs) - lx.mean())), color=color, lw=1, ls="--"
        )
    if not ok.any():  # nothing positive to draw: leave the axes' scale to the other series
        return
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.minorticks_off()
    # plain tick labels: log axes default to mathtext labels, whose parsing dominates the time
    ax.set_xticks(levels)
    ax.xaxis.set_major_formatter(FuncFormatter(_plain))
    ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(_plain))


def _plain(value: float, _pos=None) -> str:
    """Tick label without mathtext: 2500 -> '2.5k', 0.2 -> '0.2'."""
    if value >= 1000:
        return f"{value / 1000:g}k"
    return f"{value:g}"


def panel_grid(n: int):
    """A row of ``n`` panel axes for a combined figure (room under each for its legend)."""
    fig, axes = plt.subplots(1, n, figsize=(5.2 * n, 4.8), squeeze=False)
    return fig, list(axes[0])


def footnote(fig, text: str) -> None:
    """A note under the axes (e.g. what the band is), so a PNG explains itself.

    The note is wrapped to the figure's width (:func:`wrap_text`) and the figure laid out by
    ``tight_layout`` above it.
    """
    text = wrap_text(text, fig.get_figwidth() - 0.4, 8)
    lines = text.count("\n") + 1
    bottom = max(0.05, (lines * 8 * 1.3 / 72 + 0.12) / fig.get_figheight())
    fig.tight_layout(rect=(0, bottom, 1, 1))
    fig.text(0.5, 0.012, text, ha="center", va="bottom", fontsize=8, color="0.3")


def decade_labels(axes) -> None:
    """Label only the major ticks of log axes (minor labels overlap); ``axes``: one or many."""
    for ax in np.ravel(axes):
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())


def save(fig, pdf: str, png: str, dpi: int = 150) -> None:
    """Save as PDF and PNG without timestamps in the metadata.

    A figure written under ``results/quick/`` that does not say QUICK yet gets the suffix of
    :func:`quick_suffix` in its title first (:func:`stamp_quick`).

    A figure laid out by ``tight_layout`` keeps a placeholder layout engine, and Matplotlib
    draws a figure with any layout engine once more, unrendered, before each save; that draw
    lays out every text again and changes nothing (the placeholder does no layout), so it is
    dropped: the saved bytes are the same, each save costs one draw instead of two.
    """
    stamp_quick(fig, png)
    if isinstance(fig.get_layout_engine(), PlaceHolderLayoutEngine):
        fig.set_layout_engine(None)
    fig.savefig(pdf, metadata={"CreationDate": None, "ModDate": None})
    fig.savefig(png, dpi=dpi, metadata={"Software": None})
