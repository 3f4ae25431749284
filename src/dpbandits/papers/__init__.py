"""The registry of reproduced papers: one entry per paper, iterated by every cross-paper part.

A paper is either a **figure** paper (its experiment file ``config/experiments/<prefix>.yaml``
expands into simulation cells and figure notebooks, its claims are checked on the figure data
and on rate sweeps) or a **bound** paper (no figures: a run plan audits its claimed bounds with
dedicated experiments). The report's categories, the canonical summary tables that ``make
verify`` compares, the benchmark's workloads (a package's ``bench_workload`` hook) and the per-paper
branches of the privacy audit read the entries here instead of naming papers. What belongs to
one paper alone lives in its package ``dpbandits.papers.<prefix>`` (plan, runs, verdict rules,
findings, figures and tables, privacy rows, bench workload, Snakemake rules of its own);
mechanisms, environments, policies,
engine kernels and the shared statistics stay in their layers.

Adding a paper: a new :class:`Paper` line in :data:`PAPERS` plus its files (docs/adding-a-paper.md).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Paper:
    """One reproduced paper.

    Attributes
    ----------
    prefix : str
        The paper's id everywhere (config files, targets, result names), e.g. ``cz22``.
    number : str
        The paper's number in the project's reading list (``000`` ... ``004``), for citations.
    title : str
        Short title (the full citation is in ``docs/papers/<prefix>.md``).
    kind : str
        ``figures`` or ``bounds`` (module docstring).
    """

    prefix: str
    number: str
    title: str
    kind: str

    @property
    def category(self) -> str:
        """The paper's category in the HTML report: its prefix, the one name the project gives
        a paper (the reading-list number appears in citations only)."""
        return self.prefix

    @property
    def module(self):
        """The paper's package ``dpbandits.papers.<prefix>`` (a figure-less paper's package
        provides ``load_plan(path, schema, tier, scale)`` and ``privacy_rows(plan, account)``)."""
        import importlib

        return importlib.import_module(f"{__name__}.{self.prefix}")

    def hook(self, name: str):
        """What the paper's package offers under ``name`` (e.g. ``claim_notes``), or None when
        it offers nothing of that name or the paper has no package of its own (a paper may be
        configuration only)."""
        try:
            module = self.module
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{self.prefix}":
                raise
            return None
        return getattr(module, name, None)

    @property
    def rules(self) -> str | None:
        """The paper's own Snakemake rules, ``src/dpbandits/papers/<prefix>/rules.smk`` (included
        after the shared rules, whose names they may use), or None."""
        from pathlib import Path

        path = Path(__file__).parent / self.prefix / "rules.smk"
        return str(path) if path.is_file() else None

    @property
    def docs(self) -> str:
        """The paper's documentation page (relative to the repository root)."""
        return f"docs/papers/{self.prefix}.md"


KINDS = ("figures", "bounds")
KIND_NAMES = {"figures": "paper with figures", "bounds": "figure-less paper (bound audit)"}

#: Every reproduced paper, in build order (the order of the cross-paper tables' rows).
PAPERS: dict[str, Paper] = {
    p.prefix: p
    for p in (
        Paper(
            "cz22",
            "003",
            "Shuffle private linear contextual bandits",
            "figures",
        ),
        Paper(
            "olucb",
            "000",
            "Improved rate for locally differentially private linear bandits",
            "figures",
        ),
        Paper(
            "dpdpe",
            "004",
            "Differentially private linear bandits with partial distributed feedback",
            "figures",
        ),
        Paper(
            "op24",
            "002",
            "Open problem: the complexity of joint differential privacy in linear contextual "
            "bandits",
            "bounds",
        ),
        Paper(
            "plasso",
            "001",
            "Differentially private high-dimensional bandits",
            "bounds",
        ),
    )
}


def papers(kind: str | None = None) -> list[Paper]:
    """The registered papers, optionally only those of one ``kind`` (``figures``, ``bounds``)."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"unknown paper kind {kind!r}; known: {', '.join(KINDS)}")
    return [p for p in PAPERS.values() if kind is None or p.kind == kind]


def paper(prefix: str) -> Paper:
    """The entry of ``prefix`` (``KeyError`` naming the registered prefixes otherwise)."""
    try:
        return PAPERS[prefix]
    except KeyError:
        raise KeyError(
            f"no paper {prefix!r} in the registry (src/dpbandits/papers/__init__.py); "
            f"registered: {', '.join(PAPERS)}"
        ) from None


def communication_module(prefix: str):
    """The analytic communication audit of paper ``prefix``: its module
    ``dpbandits.papers.<prefix>.communication``, which provides ``audit(settings, tolerance)``
    (the ``communication`` section of its experiment file -> ``(costs, summary)``; ``summary``
    has ``fitted_exponent, claimed_exponent, verdict``) and ``NOTE`` (the tables' note), returned
    by the package's ``communication_audit()`` (a static import, so that the jobs' code
    fingerprints, :mod:`dpbandits.fingerprint`, see the module)."""
    return paper(prefix).module.communication_audit()


#: The config keys that select papers, and the kind of paper each takes.
SELECTION = {"experiments": "figures", "bound_audits": "bounds"}


def select(config: dict) -> dict:
    """Fill the paper selection of ``config`` and check it against the registry.

    ``experiments`` (figure papers) and ``bound_audits`` (figure-less ones) default to every
    registered paper of their kind; a given list must name registered papers of that kind.
    Returns ``config`` (changed in place). Raises :class:`dpbandits.config.ConfigError` naming
    the key, the bad value and what is allowed.
    """
    from ..config import ConfigError

    for key, kind in SELECTION.items():
        allowed = [p.prefix for p in papers(kind)]
        chosen = config.setdefault(key, list(allowed))
        if not isinstance(chosen, list):
            raise ConfigError(f"config key {key}: {chosen!r} is not a list of paper prefixes")
        for name in chosen:
            if name not in allowed:
                other = name in PAPERS and PAPERS[name].kind != kind
                raise ConfigError(
                    f"config key {key}: {name!r} is not a registered {KIND_NAMES[kind]}"
                    + (f" (it is a {KIND_NAMES[PAPERS[name].kind]})" if other else "")
                    + f"; allowed: {', '.join(allowed)} (src/dpbandits/papers/__init__.py)"
                )
    return config
