# Figure-less studies (every paper of kind `bounds`; the protocol is
# dpbandits.papers.study): one simulation job per run of the study's plan
# (config/experiments/<prefix>.yaml at the chosen tier), the verdict tables, the paper's own
# tables, and the audit page with the figures. Targets: <prefix> (everything), <prefix>_audit
# (the page), <prefix>_verdicts, <prefix>_<table>, <prefix>_<figure>.


for _name, _plan in STUDY_PLANS.items():
    _study = study(_name)
    _runs = study_runs(_name)
    _out = study_outputs(_name)

    for _i, _run in enumerate(_plan.runs):

        rule:
            name:
                f"{_name}_sim_{_run.id}"
            output:
                **{kind: files[_i] for kind, files in _runs.items()},
                timing=study_timing(_name, _run),
            log:
                f"{LOGS}/sim/{_name}/{_plan.tier}/{_run.id}.log",
            benchmark:
                f"{BENCH}/sim/{_name}/{_plan.tier}/{_run.id}.tsv"
            conda:
                CONDA_ENV
            threads: 1
            resources:
                mem_mb=_study.sim_mem_mb,
                runtime=_study.sim_runtime,
            params:
                code=code_fingerprint("workflow/scripts/study_simulate.py"),  # reruns when the library code changes
                prefix=_name,
                kinds=list(_runs),
                run=_run.as_dict(),
                tier=_plan.tier,
                scale=_plan.scale,
            script:
                "../scripts/study_simulate.py"

    rule:
        name:
            f"{_name}_verdicts"
        input:
            **_runs,
            claims=_plan.claims,
        output:
            **reported(
                {
                    f"{key}_{ext}": _out[f"{key}_{ext}"]
                    for key in _study.verdict_files
                    for ext in ("csv", "md")
                },
                _name,
                "Audit",
                entries(
                    _plan.title,
                    {
                        f"{key}_csv": (
                            f"{_name}_{key}",
                            f"{caption} (tier {_plan.tier})",
                        )
                        for key, (_stem, caption) in _study.verdict_files.items()
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
            code=code_fingerprint("workflow/scripts/study_verdicts.py"),  # reruns when the library code changes
            prefix=_name,
            kinds=list(_runs),
            claims_schema=f"{SCHEMAS}/bound_claims.schema.yaml",
            max_detectable=config["audit"]["max_detectable_excess"],
            parameters=_plan.audit_parameters(),
            expected=study_expected(_name),
        script:
            "../scripts/study_verdicts.py"

    for _table, (_stem, _exts, _caption) in _study.tables.items():

        rule:
            name:
                f"{_name}_{_table}"
            input:
                **{f"{key}_csv": _out[f"{key}_csv"] for key in _study.verdict_files},
                claims=_plan.claims,
            output:
                **reported(
                    {ext: _out[f"{_table}_{ext}"] for ext in _exts},
                    _name,
                    "Tables",
                    entries(
                        _plan.title,
                        {
                            _exts[0]: (
                                f"{_name}_{_table}",
                                f"{_caption} (tier {_plan.tier})",
                            )
                        },
                        tier=_plan.tier,
                    ),
                ),
            log:
                f"{LOGS}/tables/{_name}_{_plan.tier}_{_table}.log",
            benchmark:
                f"{BENCH}/tables/{_name}_{_plan.tier}_{_table}.tsv"
            conda:
                CONDA_ENV
            threads: 1
            resources:
                mem_mb=1024,
                runtime=5,
            params:
                code=code_fingerprint("workflow/scripts/study_table.py"),  # reruns when the library code changes
                prefix=_name,
                table=_table,
                claims_schema=f"{SCHEMAS}/bound_claims.schema.yaml",
                tier=_plan.tier,
                scale=_plan.scale,
            script:
                "../scripts/study_table.py"

    rule:
        name:
            f"{_name}_audit"
        input:
            **_runs,
            notebook=f"notebooks/{_name}_audit.ipynb",
            tables=list(study_page_parameters(_name)["files"].values()),
            status=status_file(_name),
        output:
            **reported(
                {
                    **{
                        f"{fig}_{ext}": _out[f"{fig}_{ext}"]
                        for fig in _study.figures
                        for ext in ("pdf", "png")
                    },
                    "ipynb": _out["ipynb"],
                    "html": _out["page"],
                },
                _name,
                "Audit",
                entries(
                    _plan.title,
                    {
                        # the page stays out of Snakemake's report (several MB; the front page
                        # links it); its figures are in it
                        **{
                            f"{fig}_png": (f"{_name}_{fig}", caption)
                            for fig, caption in _study.figures.items()
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
            code=code_fingerprint(
                "workflow/scripts/render_notebook.py", f"notebooks/{_name}_audit.ipynb"
            ),
            # reruns when the library code changes
            # a plain value: tracked by Snakemake, an edit reruns the page
            parameters={
                **study_page_parameters(_name),
                "status_csv": status_file(_name),
                "results_root": RESULTS,
                "page_dir": os.path.dirname(_out["page"]),
            },
        script:
            "../scripts/render_notebook.py"

    for _fig in _study.figures:

        rule:  # one figure of the audit page (drawn by the page's notebook)
            name:
                f"{_name}_{_fig}"
            input:
                _out[f"{_fig}_pdf"],
                _out[f"{_fig}_png"],

    rule:  # everything of the paper
        name:
            _name
        input:
            _out.values(),
