"""dpdpe (dpdpe): differentially private linear bandits with partial distributed feedback
(docs/papers/dpdpe.md).

What belongs to this paper alone beyond its configuration: :mod:`.communication` (the analytic
communication cost of DP-DPE, without simulation). Its policies (DP-DPE, DP-PE and their
privatizers) are in :mod:`dpbandits.policies`.
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
