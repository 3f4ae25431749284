"""The release of one simulation cell: the description of :mod:`dpbandits.privacy.releases` that
the cell's policy names (:meth:`~dpbandits.policies.base.Policy.release_family`), at the cell's
instances and target, and the key of everything a cell's accounting depends on. Shared by the
privacy audit (:mod:`dpbandits.audit.privacy`), the arena and the matched calibration
(:mod:`dpbandits.privacy.matching`)."""

from __future__ import annotations

from . import releases as rel


def _plasso(cell, policy):
    """plasso: Algorithm 1's split at the cell's (epsilon, delta)."""
    s0 = int(cell.instance_options["s0"])
    release = rel.plasso_release(policy.algorithm, policy.run_constants(s0))
    return release, None, "contexts clipped to [-C_X, C_X], rewards to [-C_r, C_r]"


def _olucb(cell, policy):
    """olucb's OnlineUCB, Algorithm 7 and the combiner: under the instances and the paper's
    bounds."""
    universe = rel.instance_universe(cell.instances)
    return (
        rel.olucb_release(policy, universe),
        rel.olucb_release(policy, rel.PAPER_OLUCB),
        universe.name,
    )


def _dpdpe(cell, policy):
    """dpdpe's privatizers: reports clipped to the paper's bound."""
    return rel.dpdpe_release(policy), None, "reports clipped to [-B, B] (the paper's bound)"


def _op24_zcdp(cell, policy):
    """op24's zCDP algorithms at rho from the (epsilon, delta) target."""
    universe = rel.instance_universe(cell.instances)
    release = rel.op24_release(
        policy.algorithm, policy.rho, cell.T, rewards=policy.opts.get("rewards", "pm1")
    )
    return release, None, universe.name


def _op24_tree(cell, policy):
    """op24's JDP-LinUCB: the tree, zCDP at the cell's delta."""
    universe = rel.instance_universe(cell.instances)
    release = rel.op24_release("jdp_linucb", policy.setting.epsilon, cell.T, delta=cell.delta)
    return release, None, universe.name


def _cz22(cell, policy):
    """cz22's LinUCB-type algorithms: under the instances and the paper's bounds."""
    universe = rel.instance_universe(cell.instances)
    return (
        rel.cz22_release(policy, universe),
        rel.cz22_release(policy, rel.PAPER_CZ22),
        universe.name,
    )


#: Release descriptions by the family a policy names: each returns (release under the
#: instances, release under the paper's bounds or None, universe name).
RELEASES = {
    "plasso": _plasso,
    "olucb": _olucb,
    "dpdpe": _dpdpe,
    "op24_zcdp": _op24_zcdp,
    "op24_tree": _op24_tree,
    "cz22": _cz22,
}


def cell_release(cell, policy):
    """(release under the instances, release under the paper's bounds, universe name)."""
    family = policy.release_family()
    if family not in RELEASES:
        raise ValueError(f"{cell.stem}: no release description for {policy.algorithm!r}")
    return RELEASES[family](cell, policy)


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
