"""cz22 (cz22): Chowdhury and Zhou, shuffle private linear contextual bandits (ICML 2022;
docs/papers/cz22.md).

Beyond its configuration (config/experiments/cz22.yaml, config/claims/cz22.yaml) over the shared
layers (its algorithms, LinUCB and its JDP, LDP and shuffle variants, are in
:mod:`dpbandits.policies` and the engine; its audit uses the shared rate fits and orderings), it
has :mod:`.communication`: the analytic communication cost of its shuffle protocols (Sec. 6).
"""


def communication_audit():
    """This paper's analytic communication audit, the module :mod:`.communication` (a function,
    not the attribute: importing the submodule sets ``communication`` on the package)."""
    from . import communication as module

    return module


def bench_workload(root, options) -> None:
    """This paper's ``make bench`` workload (:mod:`.bench`; ``options``: ``dpb bench``'s
    arguments). Loaded by name: no job runs it, so it stays out of the jobs' code fingerprints
    (:mod:`dpbandits.fingerprint`)."""
    import importlib

    importlib.import_module(f"{__name__}.bench").run(root, options)


#: ``dpb bench --authors-script PATH`` times the authors' public script beside this paper's
#: Figure 1 panel (:func:`dpbandits.dev.authors_script.time_script`).
BENCH_TIMES_AUTHORS_SCRIPT = True
