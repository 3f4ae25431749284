"""Text and layout of a figure: titles wrapped to the width they have, legends outside the axes,
the quick-scale stamp, and the texts a page check finds clipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import matplotlib.pyplot as plt
from matplotlib.font_manager import FontProperties
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.textpath import TextToPath

from dpbandits.pages import quick_path

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
