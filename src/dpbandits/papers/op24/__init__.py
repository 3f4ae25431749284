"""op24 (op24): Azize and Basu, the complexity of joint differential privacy in linear
contextual bandits (docs/papers/op24.md).

A figure-less study (:mod:`dpbandits.papers.study`): its bounds are audited by dedicated
experiments. Modules: :mod:`.declaration` (``STUDY``, what the workflow builds), :mod:`.plan`
(the run plan of config/experiments/op24.yaml), :mod:`.runs` (one run), :mod:`.verdicts` (the
verdict rules' application), :mod:`.plots`, :mod:`.table1` (Table 1 as the paper states it) and
:mod:`.privacy` (the plan's rows of the delivered-epsilon audit). The hooks below import
lazily, so that reading the declaration stays cheap while the workflow parses.
"""

from .declaration import STUDY  # noqa: F401  (the workflow reads it from the package)

#: What the control rows of ``op24_controls`` say (their table's note).
CONTROLS_NOTE = (
    "A planted contestant, epsilon-greedy exploring with probability min(1, 0.5 t^-0.1) (regret "
    "growing like t^0.9), runs on the same OP-E3 contexts and checkpoints as the claim it "
    "controls and is judged by the same rule (R-UP-T) against the same claimed exponent. "
    "detected: it reads exceeds in the learning regime, so these contexts and checkpoints could "
    "show a violation; where it is not detected, the claim's consistent rows of that "
    "configuration read untestable."
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
    import pandas as pd

    from dpbandits.io import read_results
    from dpbandits.tables import write_table as write

    from .verdicts import CONTROL_COLUMNS, VERDICT_SEMANTICS, Op24Audit

    frame = read_results(results["results"], expect=expected)
    audit = Op24Audit(
        frame, claims, parameters["fit_points"], parameters["fit_checkpoints"], max_detectable
    )
    rows, verdicts = audit.run()
    controls = pd.DataFrame(audit.controls, columns=list(CONTROL_COLUMNS))
    write(controls, outputs["controls_csv"], outputs["controls_md"],
          "op24: planted contestant controls", CONTROLS_NOTE)  # fmt: skip
    write(rows, outputs["verdicts_csv"], outputs["verdicts_md"], "op24: verdict rows",
          VERDICT_SEMANTICS)  # fmt: skip
    write(verdicts, outputs["claims_csv"], outputs["claims_md"], "op24: claim verdicts",
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
    table["footnotes"].append(f"Tier {tier}, scale {scale} (README, op24).")
    write(table, frame, outputs["csv"], outputs["md"], outputs["tex"])


def privacy_rows(plan, account: bool = True) -> list[dict]:
    """The plan's rows of the delivered-epsilon audit (:func:`.privacy.privacy_rows`;
    ``account=False``: their identities only)."""
    from .privacy import privacy_rows as rows

    return rows(plan, account)


def warm_up() -> None:
    """Compile the kernels only this paper's runs use (``dpb warmup``, :mod:`.warmup`). Loaded by
    name: no job runs it, so it stays out of the jobs' code fingerprints."""
    import importlib

    importlib.import_module(f"{__name__}.warmup").run()
