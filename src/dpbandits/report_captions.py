"""Captions, categories and labels of the outputs shown in Snakemake's HTML report.

``snakemake --report results/report.html`` (``make report``) collects every output marked with
``report()`` in the rules. Each one gets a caption saying which paper, figure or table, panel,
configuration and calibration it shows; Snakemake reads captions from reStructuredText files, so
the text built here is written once per distinct caption to ``.snakemake/report-captions/``
(named by its hash, written only when missing) and the rule points at that file.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from dpbandits.papers import papers
from dpbandits.runtime.atomic_files import write_atomically
from dpbandits.textsafe import rst_text

#: Report category of each registered paper (:mod:`dpbandits.papers`) and of the two audits.
CATEGORIES = {
    **{p.prefix: p.category for p in papers()},
    "audit": "Claim audit (all papers)",
    "privacy": "Privacy audit (all papers)",
    "arena": "Arena (all papers)",
}

#: What each figure metric is, in captions.
METRICS = {
    "regret_realized": "cumulative realized regret",
    "regret_pseudo": "cumulative pseudo-regret",
}


@dataclass(frozen=True)
class Entry:
    """One output in the report: its caption text and its labels (columns of the report)."""

    caption: str
    labels: dict = field(default_factory=dict)


def _write_once(body: str, folder: str | Path, prefix: str = "") -> str:
    """Write ``body`` to ``folder/<prefix><hash>.rst`` unless it exists; return its absolute
    path. Named by content and written atomically, so concurrent parses (cluster jobs) are
    harmless."""
    digest = prefix + hashlib.sha256(body.encode()).hexdigest()[:20]
    folder = Path(folder).resolve()
    path = folder / f"{digest}.rst"
    if not path.exists() and not write_atomically(path, body.encode()):
        raise OSError(f"cannot write the report caption {path}")
    return str(path)


def workflow_description(
    template: str | Path, folder: str | Path = ".snakemake/report-captions"
) -> str:
    """The report's front page: ``template`` (reStructuredText with Jinja) followed by the
    provenance of the build (:func:`dpbandits.provenance.one_line`, made literal); its path."""
    from dpbandits.provenance import one_line

    body = Path(template).read_text().rstrip() + f"\n\nMade by {rst_text(one_line())}.\n"
    return _write_once(body, folder, "workflow-")


def caption_file(text: str, folder: str | Path = ".snakemake/report-captions") -> str:
    """Write ``text`` as a reStructuredText caption and return the file's absolute path.

    Snakemake renders a caption as a Jinja template and then as reStructuredText, and captions
    carry text from the configuration: the text is made literal for both
    (:func:`dpbandits.textsafe.rst_text`: one paragraph, punctuation backslash-escaped, so no
    template tag, directive or inline markup survives) and wrapped in Jinja's ``raw`` block as
    a second guard. Files are named by the text's hash and written once (:func:`_write_once`).
    """
    return _write_once(f"{{% raw %}}\n{rst_text(text)}\n{{% endraw %}}\n", folder)


def _label(value) -> str:
    """A label value: a plain string without braces (Snakemake formats labels as patterns)."""
    return str(value).replace("{", "(").replace("}", ")")


def figure_entries(fig, paper: str) -> dict[str, Entry]:
    """Entries of the combined PNG image per metric that one figure notebook writes (with every
    panel's caption), keyed like :func:`figure_outputs` in ``workflow/rules/common.smk``. The
    single panels' images stay out of the report (the combined figure shows them).

    Parameters
    ----------
    fig : dpbandits.config.FigureSpec
        The figure under one configuration.
    paper : str
        The paper's title.
    """
    # the configuration's calibration (a matched configuration's non-private series run under
    # the calibration it matches: their cells are the published configuration's)
    calibrations = (
        [fig.calibration]
        if fig.calibration
        else sorted({c.calibration for p in fig.panels for c in p.cells})
    )
    base = {
        "figure": fig.figure,
        "configuration": fig.configuration,
        "calibration": ", ".join(calibrations),
    }
    out = {}
    for metric in fig.metrics:
        combined, panels = fig.names(metric)
        letters = ", ".join(f"({p.letter})" for p in fig.panels)
        each = " ".join(p.caption for p in fig.panels if p.caption)  # "(a) epsilon = ..."
        out[f"{combined}_png"] = Entry(
            f"{paper}. {fig.title}: panels {letters}, {METRICS.get(metric, metric)}. "
            f"{each + ' ' if each else ''}{fig.caption}",
            {**base, "panel": "all", "metric": metric},
        )
        # the single panels stay out of the report (the combined figure shows them; the files
        # are in results/figures/): the report stays small enough to open
    return {
        key: Entry(e.caption, {n: _label(v) for n, v in e.labels.items()}) for key, e in out.items()
    }


def entries(paper: str, items: dict[str, tuple[str, str]], **labels) -> dict[str, Entry]:
    """Entries of a rule's tables and pages: ``items`` maps an output key to (what it is, its
    caption); every entry is labelled ``what`` plus ``labels``."""
    return {
        key: Entry(
            f"{paper}. {caption}",
            {"what": _label(what), **{k: _label(v) for k, v in labels.items()}},
        )
        for key, (what, caption) in items.items()
    }
