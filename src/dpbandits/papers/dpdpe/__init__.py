"""Paper 004 (dpdpe): differentially private linear bandits with partial distributed feedback
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
