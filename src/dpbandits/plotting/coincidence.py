"""Series that coincide: groups of lines (or points) equal within :data:`COINCIDE_RTOL`, said in
the legend so that a line hidden under another is never silent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
from matplotlib.container import ErrorbarContainer

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
