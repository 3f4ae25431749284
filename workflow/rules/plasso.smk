# PrivateLASSO audit (paper 001 = plasso; docs/papers/plasso.md): one simulation job per run
# of the plan (config/experiments/plasso.yaml at the chosen tier), the verdict tables, and the
# report page with the figures. Handles: plasso_audit (everything), plasso_verdicts, plasso_report.


if PLASSO_PLAN:

    for _run in PLASSO_PLAN.runs:

        rule:
            name:
                f"plasso_sim_{_run.id}"
            output:
                runs=f"{plasso_root()}/sim/plasso/{_run.id}.parquet",
                episodes=f"{plasso_root()}/sim/plasso/{_run.id}_episodes.parquet",
                timing=f"{plasso_root()}/timing/plasso/{_run.id}.csv",
            log:
                f"{LOGS}/sim/plasso/{PLASSO_PLAN.tier}/{_run.id}.log",
            benchmark:
                f"{BENCH}/sim/plasso/{PLASSO_PLAN.tier}/{_run.id}.tsv"
            conda:
                CONDA_ENV
            threads: 1
            resources:
                mem_mb=4096,
                runtime=120,
            params:
                code=code_fingerprint("simulation"),  # reruns when the library code changes
                run=_run.as_dict(),
                tier=PLASSO_PLAN.tier,
                scale=PLASSO_PLAN.scale,
            script:
                "../scripts/plasso_simulate.py"

    rule plasso_verdicts:
        input:
            runs=plasso_sim_files("runs"),
            episodes=plasso_sim_files("episodes"),
            claims=PLASSO_PLAN.claims,
        output:
            **reported(
                {
                    k: plasso_outputs()[k]
                    for k in (
                        "rows_csv",
                        "rows_md",
                        "claims_csv",
                        "claims_md",
                        "constants_csv",
                        "constants_md",
                    )
                },
                "plasso",
                "Audit",
                entries(
                    PLASSO_PLAN.title,
                    {
                        "rows_csv": (
                            "plasso_claims (rows)",
                            f"Every verdict row of the audit's rules (tier {PLASSO_PLAN.tier}):"
                            " per claim, family, algorithm and epsilon, the fitted statistic "
                            "against the claimed one.",
                        ),
                        "claims_csv": (
                            "plasso_claims",
                            "The verdict of every claim of the paper (tier "
                            f"{PLASSO_PLAN.tier}).",
                        ),
                        "constants_csv": (
                            "plasso_constants",
                            "The algorithm's constants in force in the runs (Algorithms 1-2 of paper 001).",
                        ),
                    },
                    tier=PLASSO_PLAN.tier,
                ),
            ),
        log:
            f"{LOGS}/audit/plasso_{PLASSO_PLAN.tier}_verdicts.log",
        benchmark:
            f"{BENCH}/audit/plasso_{PLASSO_PLAN.tier}_verdicts.tsv"
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
            fit_points=PLASSO_PLAN.fit_points,
            grids=PLASSO_PLAN.grids,
            parameters=PLASSO_PLAN.parameters,
            expected={
                **expected_runs(PLASSO_PLAN, plasso_sim_files("runs")),
                **expected_runs(PLASSO_PLAN, plasso_sim_files("episodes")),
            },
        script:
            "../scripts/plasso_verdicts.py"

    rule plasso_report:
        input:
            notebook="notebooks/plasso_audit.ipynb",
            runs=plasso_sim_files("runs"),
            episodes=plasso_sim_files("episodes"),
            rows=plasso_outputs()["rows_csv"],
            claims=plasso_outputs()["claims_csv"],
            constants=plasso_outputs()["constants_md"],
        output:
            **reported(
                {
                    **{
                        f"{fig}_{ext}": plasso_outputs()[f"{fig}_{ext}"]
                        for fig in PLASSO_FIGURES
                        for ext in ("pdf", "png")
                    },
                    "ipynb": plasso_outputs()["ipynb"],
                    "html": plasso_outputs()["page"],
                },
                "plasso",
                "Audit",
                entries(
                    PLASSO_PLAN.title,
                    {
                        "html": (
                            "plasso.html",
                            f"Audit page (tier {PLASSO_PLAN.tier}): verdict per claim, what "
                            "the simulations say, the constants, the figures and every verdict "
                            "row.",
                        ),
                        **{
                            f"{fig}_png": (f"plasso_{fig}", text)
                            for fig, text in PLASSO_FIGURE_CAPTIONS.items()
                        },
                    },
                    tier=PLASSO_PLAN.tier,
                ),
            ),
        log:
            f"{LOGS}/audit/plasso_{PLASSO_PLAN.tier}.log",
        benchmark:
            f"{BENCH}/audit/plasso_{PLASSO_PLAN.tier}.tsv"
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
                "title": PLASSO_PLAN.title,
                "tier": PLASSO_PLAN.tier,
                "scale": PLASSO_PLAN.scale,
                "grid": PLASSO_PLAN.grids["private_lasso"],
                "run_files": plasso_sim_files("runs"),
                "episode_files": plasso_sim_files("episodes"),
                "expected": {
                    **expected_runs(PLASSO_PLAN, plasso_sim_files("runs")),
                    **expected_runs(PLASSO_PLAN, plasso_sim_files("episodes")),
                },
                "rows_csv": plasso_outputs()["rows_csv"],
                "claims_csv": plasso_outputs()["claims_csv"],
                "constants_md": plasso_outputs()["constants_md"],
                "figures": {
                    fig: {
                        "pdf": plasso_outputs()[f"{fig}_pdf"],
                        "png": plasso_outputs()[f"{fig}_png"],
                    }
                    for fig in PLASSO_FIGURES
                },
            },
        script:
            "../scripts/render_notebook.py"

    rule plasso:  # everything of paper 001 (uniform target names)
        input:
            plasso_outputs().values(),

    rule plasso_audit:  # its audit page (which needs the verdicts and the figures)
        input:
            plasso_outputs()["page"],
