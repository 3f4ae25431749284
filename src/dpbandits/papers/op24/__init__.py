"""Paper 002 (op24): Azize and Basu, the complexity of joint differential privacy in linear
contextual bandits (docs/papers/op24.md).

A figure-less study (:mod:`dpbandits.papers.study`): its bounds are audited by dedicated
experiments. Modules: :mod:`.plan` (the run plan of config/experiments/op24.yaml), :mod:`.runs`
(one run), :mod:`.verdicts` (the verdict rules' application), :mod:`.plots`, :mod:`.table1`
(Table 1 as the paper states it) and :mod:`.privacy` (the plan's rows of the delivered-epsilon
audit). The hooks below import lazily, so that reading the declaration stays cheap while the
workflow parses.
"""

from dpbandits.papers.study import Study

#: The declaration the workflow builds the study from (workflow/rules/studies.smk).
STUDY = Study(
    run_files={"results": ""},
    canonical={
        "op24_verdicts": (
            "audit/op24_verdicts.csv",
            ("claim_id", "rule", "experiment", "instance", "K", "d", "privacy"),
            ("statistic", "ci_low", "ci_high", "verdict"),
        ),
    },
    verdict_files={
        "verdicts": (
            "audit/op24_verdicts",
            "Every verdict row of the audit's rules: per claim, experiment, instance, algorithm "
            "and privacy level, the fitted statistic against the claimed one.",
        ),
        "claims": ("audit/op24_claims", "The verdict of every claim of the paper."),
    },
    tables={
        "table1": (
            "tables/op24_table1",
            ("csv", "md", "tex"),
            "Table 1 of the paper with the measured exponents (CSV, Markdown and LaTeX beside it).",
        ),
    },
    figures={
        "e1": "OP-E1 (finite-armed, AdaC-UCB): regret against T on I1 and the minimax "
        "family I2 with the bounds' non-private terms as guides; the private excess over Ada-UCB "
        "against T and, at T_max, against rho (slope -1/2 reference).",
        "e2": "OP-E2 (linear, AdaC-GOPE): the same panels for J1 and the hypercube family J2.",
        "gap": "OP-E3, the Section 3 gap: regret against T for LinUCB, JDP-LinUCB (epsilon, "
        "delta = 0.01), OFUL-RS and AdaC-OFUL (rho); the excess over the non-private reference "
        "against T and, at T_max, against epsilon with the upper (-1/2) and lower (-1) bounds' "
        "slopes.",
    },
    page="Audit page: verdict per claim, Table 1 with measured exponents, the figures and "
    "every verdict row.",
)


def load_plan(path, schema, tier: str = "core", scale: str = "paper"):
    """The validated run plan (:func:`.plan.load_plan`)."""
    from .plan import load_plan as load

    return load(path, schema, tier, scale)


def simulate(run: dict, files: dict, timing: str, tier: str, scale: str) -> None:
    """One run of the plan to its parquet file and timing table (:func:`.runs.write_run`)."""
    from .plan import Run
    from .runs import write_run

    write_run(Run.from_dict(run), files["results"], timing, tier, scale)


def write_verdicts(results, claims, parameters, max_detectable, expected, outputs):
    """Every verdict rule on the results; writes the verdict rows and the claim verdicts and
    returns the latter (:class:`.verdicts.Op24Audit`)."""
    from dpbandits.io import read_results
    from dpbandits.tables import write_table as write

    from .verdicts import VERDICT_SEMANTICS, Op24Audit

    frame = read_results(results["results"], expect=expected)
    rows, verdicts = Op24Audit(
        frame, claims, parameters["fit_points"], parameters["fit_checkpoints"], max_detectable
    ).run()
    write(rows, outputs["verdicts_csv"], outputs["verdicts_md"], "Paper 002: verdict rows",
          VERDICT_SEMANTICS)  # fmt: skip
    write(verdicts, outputs["claims_csv"], outputs["claims_md"], "Paper 002: claim verdicts",
          VERDICT_SEMANTICS)  # fmt: skip
    return verdicts


def write_table(name, claims, inputs, outputs, tier, scale) -> None:
    """Table 1 of the paper as stated (claims registry) with the measured columns of OP-E1 /
    OP-E2, to CSV, Markdown and LaTeX (:func:`.table1.table1`)."""
    from dpbandits.audit.paper_tables import write
    from dpbandits.io import read_csv_table

    from .table1 import table1

    if name != "table1":
        raise KeyError(f"op24 has no table {name!r}")
    table, frame = table1(
        claims, read_csv_table(inputs["verdicts_csv"]), read_csv_table(inputs["claims_csv"])
    )
    table["footnotes"].append(f"Tier {tier}, scale {scale} (README, paper 002).")
    write(table, frame, outputs["csv"], outputs["md"], outputs["tex"])


def privacy_rows(plan, account: bool = True) -> list[dict]:
    """The plan's rows of the delivered-epsilon audit (:func:`.privacy.privacy_rows`;
    ``account=False``: their identities only)."""
    from .privacy import privacy_rows as rows

    return rows(plan, account)
