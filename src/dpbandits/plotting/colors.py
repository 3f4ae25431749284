"""Colours and markers of the series: fixed colours by series label, one palette for the rest."""

from __future__ import annotations

from collections.abc import Iterable

#: Stable colours by series label (Okabe-Ito, colour-blind safe), the same in every figure.
SERIES_COLORS = {
    "LinUCB": "#000000",
    "LinUCB-JDP": "#0072B2",
    "LinUCB-SDP-Amp": "#009E73",
    "LinUCB-SDP-Vec": "#E69F00",
    "LinUCB-LDP": "#D55E00",
    # dpdpe: the same colour for the same trust model
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
