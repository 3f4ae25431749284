"""The algorithms of the papers, each with named calibrations (see :mod:`.base`)."""

from __future__ import annotations

from .base import CALIBRATIONS, FIDELITIES, Policy, Quirks, Setting
from .combiner import Combiner, OnlineUCBDoubling
from .dpdpe import PHASED_POLICIES, TABLE_FUNCTIONS
from .etc import ExploreThenCommit, PhasedExploreThenCommit
from .gaussian import LDP, BatchedLDP, SDPAmp, SDPAmpRU
from .jdp import BatchedJDP, JDPStandin, JDPTree, JDPUser
from .linucb import LinUCB
from .onlineucb import OnlineUCB
from .op24 import OP24_POLICIES
from .plasso import PLASSO_POLICIES
from .vec import SDPVec, SDPVecRU

#: Registry: algorithm id -> policy class.
POLICIES: dict[str, type[Policy]] = {
    cls.algorithm: cls
    for cls in (
        LinUCB,
        LDP,
        JDPStandin,
        JDPTree,
        SDPAmp,
        SDPVec,
        BatchedLDP,
        BatchedJDP,
        SDPAmpRU,
        SDPVecRU,
        JDPUser,
        OnlineUCB,
        OnlineUCBDoubling,
        Combiner,
        *PHASED_POLICIES,
        *OP24_POLICIES,
        *PLASSO_POLICIES,
        ExploreThenCommit,
        PhasedExploreThenCommit,
    )
}


def runs_on(algorithm: str, calibration: str) -> frozenset[str]:
    """The instance settings (``fixed`` arm sets, ``fresh`` contexts, ``sparse`` contexts) the
    project's engines run ``algorithm`` under ``calibration`` on (the policy class's
    :meth:`~dpbandits.policies.base.Policy.runs_on`)."""
    return POLICIES[algorithm].runs_on(calibration)


def make_policy(
    algorithm: str,
    setting: Setting,
    calibration: str = "experiment",
    quirks: Quirks | None = None,
    **options,
) -> Policy:
    """Build a policy by id.

    Parameters
    ----------
    algorithm : str
        One of :data:`POLICIES`.
    setting : Setting
    calibration : {"experiment", "theory"}
    quirks : Quirks, optional
    **options
        Policy options (e.g. ``vec_scale`` for ``sdp_vec``).
    """
    try:
        cls = POLICIES[algorithm]
    except KeyError:
        raise ValueError(
            f"unknown algorithm {algorithm!r}; allowed: {', '.join(POLICIES)}"
        ) from None
    return cls(setting, calibration=calibration, quirks=quirks, **options)


__all__ = [
    "CALIBRATIONS",
    "FIDELITIES",
    "POLICIES",
    "Policy",
    "Quirks",
    "Setting",
    "make_policy",
    "runs_on",
    "TABLE_FUNCTIONS",
]
