# Bound audits (papers without figures; paper 002 = op24): one simulation job per run of the plan
# (config/experiments/op24.yaml at the chosen tier), then the verdicts, Table 1, and the report
# page with the figures. Handles: op24 (everything), op24_table1, op24_gap, audit_op24.


for _name, _plan in BOUND_PLANS.items():
    for _run in _plan.runs:

        rule:
            name:
                f"{_name}_sim_{_run.id}"
            output:
                parquet=f"{bound_root(_name)}/sim/{_name}/{_run.id}.parquet",
                timing=f"{bound_root(_name)}/timing/{_name}/{_run.id}.csv",
            log:
                f"{LOGS}/sim/{_name}/{_plan.tier}/{_run.id}.log",
            benchmark:
                f"{BENCH}/sim/{_name}/{_plan.tier}/{_run.id}.tsv"
            conda:
                CONDA_ENV
            threads: 1
            resources:
                mem_mb=2048,
                runtime=60,
            params:
                code=code_fingerprint("simulation"),  # reruns when the library code changes
                run=_run.as_dict(),
                tier=_plan.tier,
                scale=_plan.scale,
            script:
                "../scripts/bound_simulate.py"

    rule:
        name:
            f"{_name}_verdicts"
        input:
            results=bound_sim_files(_name),
            claims=_plan.claims,
        output:
            **reported(
                {
                    "csv": bound_outputs(_name)["verdicts_csv"],
                    "md": bound_outputs(_name)["verdicts_md"],
                    "claims_csv": bound_outputs(_name)["claims_csv"],
                    "claims_md": bound_outputs(_name)["claims_md"],
                },
                _name,
                "Audit",
                entries(
                    paper_title(_name),
                    {
                        "csv": (
                            f"{_name}_verdicts",
                            f"Every verdict row of the audit's rules (tier {_plan.tier}): "
                            "per claim, experiment, instance, algorithm and privacy level, the "
                            "fitted statistic against the claimed one.",
                        ),
                        "claims_csv": (
                            f"{_name}_claims",
                            f"The verdict of every claim of the paper (tier {_plan.tier}).",
                        ),
                    },
                    tier=_plan.tier,
                ),
            ),
        log:
            f"{LOGS}/audit/{_name}_{_plan.tier}_verdicts.log",
        benchmark:
            f"{BENCH}/audit/{_name}_{_plan.tier}_verdicts.tsv"
        conda:
            CONDA_ENV
        threads: 1
        resources:
            mem_mb=2048,
            runtime=10,
        params:
            code=code_fingerprint("audit"),  # reruns when the library code changes
            claims_schema=f"{SCHEMAS}/bound_claims.schema.yaml",
            max_detectable=config["audit"]["max_detectable_excess"],
            fit_points=_plan.fit_points,
            fit_checkpoints=_plan.fit_checkpoints,
            expected=expected_runs(_plan, bound_sim_files(_name)),
        script:
            "../scripts/bound_verdicts.py"

    rule:
        name:
            f"{_name}_table1"
        input:
            verdicts=bound_outputs(_name)["verdicts_csv"],
            claims_verdicts=bound_outputs(_name)["claims_csv"],
            claims=_plan.claims,
        output:
            **reported(
                {
                    "csv": bound_outputs(_name)["table1_csv"],
                    "md": bound_outputs(_name)["table1_md"],
                    "tex": bound_outputs(_name)["table1_tex"],
                },
                _name,
                "Tables",
                entries(
                    paper_title(_name),
                    {
                        "csv": (
                            f"{_name}_table1",
                            f"Table 1 of the paper with the measured exponents (tier "
                            f"{_plan.tier}; CSV, Markdown and LaTeX beside it).",
                        )
                    },
                    tier=_plan.tier,
                ),
            ),
        log:
            f"{LOGS}/tables/{_name}_{_plan.tier}_table1.log",
        benchmark:
            f"{BENCH}/tables/{_name}_{_plan.tier}_table1.tsv"
        conda:
            CONDA_ENV
        threads: 1
        resources:
            mem_mb=1024,
            runtime=5,
        params:
            code=code_fingerprint("audit"),  # reruns when the library code changes
            claims_schema=f"{SCHEMAS}/bound_claims.schema.yaml",
            tier=_plan.tier,
            scale=_plan.scale,
        script:
            "../scripts/bound_table1.py"

    rule:
        name:
            f"audit_{_name}"
        input:
            notebook=f"notebooks/{_name}_audit.ipynb",
            results=bound_sim_files(_name),
            verdicts=bound_outputs(_name)["verdicts_csv"],
            claims_verdicts=bound_outputs(_name)["claims_csv"],
            table1=bound_outputs(_name)["table1_md"],
        output:
            **reported(
                {
                    **{
                        f"{fig}_{ext}": bound_outputs(_name)[f"{fig}_{ext}"]
                        for fig in BOUND_FIGURES
                        for ext in ("pdf", "png")
                    },
                    "ipynb": bound_outputs(_name)["ipynb"],
                    "html": bound_outputs(_name)["page"],
                },
                _name,
                "Audit",
                entries(
                    paper_title(_name),
                    {
                        "html": (
                            f"{_name}.html",
                            f"Audit page (tier {_plan.tier}): verdict per claim, Table 1 with "
                            "measured exponents, the figures and every verdict row.",
                        ),
                        **{
                            f"{fig}_png": (f"{_name}_{fig}", text)
                            for fig, text in BOUND_FIGURE_CAPTIONS.items()
                        },
                    },
                    tier=_plan.tier,
                ),
            ),
        log:
            f"{LOGS}/audit/{_name}_{_plan.tier}.log",
        benchmark:
            f"{BENCH}/audit/{_name}_{_plan.tier}.tsv"
        conda:
            CONDA_ENV
        threads: 1
        resources:
            mem_mb=2048,
            runtime=10,
        params:
            code=code_fingerprint("audit"),  # reruns when the library code changes
            # a plain value: tracked by Snakemake, an edit reruns the page
            parameters={
                "title": _plan.title,
                "tier": _plan.tier,
                "scale": _plan.scale,
                "result_files": bound_sim_files(_name),
                "expected": expected_runs(_plan, bound_sim_files(_name)),
                "verdicts_csv": bound_outputs(_name)["verdicts_csv"],
                "claims_csv": bound_outputs(_name)["claims_csv"],
                "table1_md": bound_outputs(_name)["table1_md"],
                "figures": {
                    fig: {
                        "pdf": bound_outputs(_name)[f"{fig}_pdf"],
                        "png": bound_outputs(_name)[f"{fig}_png"],
                    }
                    for fig in BOUND_FIGURES
                },
            },
        script:
            "../scripts/render_notebook.py"

    rule:
        name:
            f"{_name}_gap"
        input:
            bound_outputs(_name)["gap_pdf"],
            bound_outputs(_name)["gap_png"],

    rule:
        name:
            _name
        input:
            bound_outputs(_name).values(),

    rule:
        name:
            f"{_name}_audit"  # the audit page (uniform target names)
        input:
            bound_outputs(_name)["page"],
