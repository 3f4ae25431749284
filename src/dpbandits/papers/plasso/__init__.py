"""Paper 001 (plasso): Shukla, differentially private high-dimensional bandits
(docs/papers/plasso.md).

A figure-less paper: its claimed rates are audited by dedicated experiments. Modules:
:mod:`.plan` (the run plan of config/experiments/plasso.yaml), :mod:`.runs` (one run),
:mod:`.verdicts` (the verdict rules), :mod:`.plots` and :mod:`.privacy` (the plan's rows of the
delivered-epsilon audit). The registry (:mod:`dpbandits.papers`) calls the two hooks below; they
import lazily, so that reading the registry stays cheap while the workflow parses.
"""


def load_plan(path, schema, tier: str = "core", scale: str = "paper"):
    """The validated run plan (:func:`.plan.load_plasso_plan`)."""
    from .plan import load_plasso_plan

    return load_plasso_plan(path, schema, tier, scale)


def privacy_rows(plan) -> list[dict]:
    """The plan's rows of the delivered-epsilon audit (:func:`.privacy.privacy_rows`)."""
    from .privacy import privacy_rows as rows

    return rows(plan)
