"""dpbandits.plotting.save: one draw per file, and the same bytes as Matplotlib's own save."""

from __future__ import annotations

from unittest import mock

import matplotlib.figure
import numpy as np

from dpbandits.plotting import footnote, panel_grid, plt, save, set_style


def _figure():
    set_style()
    fig, axes = panel_grid(2)
    t = np.arange(1, 200)
    for k, ax in enumerate(axes):
        ax.plot(t, np.sqrt(t) * (k + 1), label=f"series {k}")
        ax.set_title(f"panel {k}")
        ax.legend()
        fig.tight_layout()
    footnote(fig, "Mean over 3 runs.")
    return fig


def test_save_draws_once_per_file_and_writes_the_same_bytes(tmp_path):
    fig = _figure()
    with mock.patch.object(
        matplotlib.figure.Figure, "draw", autospec=True, side_effect=matplotlib.figure.Figure.draw
    ) as draw:
        save(fig, tmp_path / "a.pdf", tmp_path / "a.png")
    assert draw.call_count == 2  # Matplotlib alone: 4 (a layout pass before each save)
    plt.close(fig)

    fig = _figure()  # the same figure, saved as Matplotlib would with the layout engine kept
    with mock.patch.object(
        matplotlib.figure.Figure, "draw", autospec=True, side_effect=matplotlib.figure.Figure.draw
    ) as draw:
        fig.savefig(tmp_path / "b.pdf", metadata={"CreationDate": None, "ModDate": None})
        fig.savefig(tmp_path / "b.png", dpi=150, metadata={"Software": None})
    assert draw.call_count == 4
    plt.close(fig)
    for ext in ("pdf", "png"):
        assert (tmp_path / f"a.{ext}").read_bytes() == (tmp_path / f"b.{ext}").read_bytes()
