"""The declaration the workflow builds op24's study from (workflow/rules/studies.smk),
re-exported by the package (``STUDY``); its own module, so that the plan reads it without
importing the package."""

from dpbandits.papers.study import Study

#: The declaration the workflow builds the study from (workflow/rules/studies.smk).
STUDY = Study(
    run_files={"results": ""},
    experiments=("OP-E1", "OP-E2", "OP-E3"),
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
        "controls": (
            "audit/op24_controls",
            "The planted contestant's control of each upper-bound T-fit on OP-E3: whether a "
            "learner whose regret grows like t^0.9 reads as exceeding the claim on the same "
            "contexts and checkpoints.",
        ),
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
