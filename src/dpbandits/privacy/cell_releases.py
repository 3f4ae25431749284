"""The release of one simulation cell: which of :mod:`dpbandits.privacy.releases`' descriptions
applies to a cell's policy (paper 001's split, OnlineUCB, DP-DPE's privatizers, paper 002's zCDP
algorithms and tree, paper 003's LinUCB-type algorithms), and the key of everything a cell's
accounting depends on. Shared by the privacy audit (:mod:`dpbandits.audit.privacy`), the arena
and the matched calibration (:mod:`dpbandits.privacy.matching`)."""

from __future__ import annotations

from . import releases as rel


def cell_release(cell, policy):
    """(release under the instances, release under the paper's bounds, universe name)."""
    if policy.engine == "plasso":  # paper 001: Algorithm 1's split at the cell's (eps, delta)
        s0 = int(cell.instance_options["s0"])
        release = rel.plasso_release(policy.algorithm, policy.run_constants(s0))
        return release, None, "contexts clipped to [-C_X, C_X], rewards to [-C_r, C_r]"
    universe = rel.instance_universe(cell.instances)
    if policy.algorithm in ("onlineucb", "onlineucb_doubling", "combiner"):
        return (
            rel.olucb_release(policy, universe),
            rel.olucb_release(policy, rel.PAPER_OLUCB),
            universe.name,
        )
    if getattr(policy, "privatizer", None):
        return rel.dpdpe_release(policy), None, "reports clipped to [-B, B] (the paper's bound)"
    if policy.engine == "op24":  # paper 002's zCDP algorithms at rho from the (eps, delta) target
        release = rel.op24_release(
            policy.algorithm, policy.rho, cell.T, rewards=policy.opts.get("rewards", "pm1")
        )
        return release, None, universe.name
    if policy.calibration == "op24":  # paper 002's JDP-LinUCB (the tree, zCDP at cell.delta)
        release = rel.op24_release("jdp_linucb", policy.setting.epsilon, cell.T, delta=cell.delta)
        return release, None, universe.name
    if policy.algorithm in rel.CZ22_ALGORITHMS:
        return (
            rel.cz22_release(policy, universe),
            rel.cz22_release(policy, rel.PAPER_CZ22),
            universe.name,
        )
    raise ValueError(f"{cell.stem}: no release description for {policy.algorithm!r}")


#: Cell fields that do not enter a release's accounting: where the cell is shown.
_PLACE = (
    "experiment",
    "figure",
    "panel",
    "configuration",
    "series",
    "sweep",
    "schedule",
    "point",
    "calibration_id",
)


def cell_accounting_key(cell) -> str:
    """Everything about a cell that its privacy accounting can depend on."""
    data = {k: v for k, v in cell.as_dict().items() if k not in _PLACE}
    data["instance_options"] = {
        k: v for k, v in data.get("instance_options", {}).items() if k != "gap_scale"
    }
    return repr(sorted(data.items()))
