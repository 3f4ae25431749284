"""Paper 002 (op24): Azize and Basu, the complexity of joint differential privacy in linear
contextual bandits (docs/papers/op24.md).

A figure-less paper: its bounds are audited by dedicated experiments. Modules: :mod:`.plan` (the
run plan of config/experiments/op24.yaml), :mod:`.runs` (one run), :mod:`.verdicts` (the verdict
rules' application), :mod:`.plots`, :mod:`.table1` (Table 1 as the paper states it) and
:mod:`.privacy` (the plan's rows of the delivered-epsilon audit). The registry
(:mod:`dpbandits.papers`) calls the two hooks below; they import lazily, so that reading the
registry stays cheap while the workflow parses.
"""


def load_plan(path, schema, tier: str = "core", scale: str = "paper"):
    """The validated run plan (:func:`.plan.load_plan`)."""
    from .plan import load_plan as load

    return load(path, schema, tier, scale)


def privacy_rows(plan) -> list[dict]:
    """The plan's rows of the delivered-epsilon audit (:func:`.privacy.privacy_rows`)."""
    from .privacy import privacy_rows as rows

    return rows(plan)
