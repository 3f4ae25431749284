# The claim audit: per paper, the fits of its rate claims on its horizon sweeps and a papermill
# report page; across papers, `audit` writes results/audit/{rates,orderings}.csv and report.html.


for _name, _exp in EXPERIMENTS.items():
    if communication_outputs(_name):

        rule:
            name:
                f"audit_{_name}_communication"
            output:
                **reported(
                    communication_outputs(_name),
                    _name,
                    "Audit",
                    entries(
                        paper_title(_name),
                        {
                            "summary_csv": (
                                f"{_name}_communication",
                                "Analytic communication audit (no simulation): the claimed "
                                "communication of every protocol against the count of its "
                                "messages, with the verdict.",
                            ),
                            "costs_csv": (
                                f"{_name}_communication_costs",
                                "Analytic communication audit: the counted cost of every "
                                "protocol, per setting.",
                            ),
                        },
                    ),
                ),
            log:
                f"{LOGS}/audit/{_name}_communication.log",
            benchmark:
                f"{BENCH}/audit/{_name}_communication.tsv"
            conda:
                CONDA_ENV
            threads: 1
            resources:
                mem_mb=1024,
                runtime=5,
            params:
                code=code_fingerprint("workflow/scripts/communication_audit.py"),  # reruns when the library code changes
                experiment=_name,
                settings=_exp.data["communication"],
                tolerance=config["audit"]["tolerance"],
            script:
                "../scripts/communication_audit.py"

    rule:
        name:
            f"audit_{_name}_fits"
        input:
            sweeps=sweep_files(_name),
            claims=f"config/claims/{_name}.yaml",
        output:
            finals=audit_outputs(_name)["finals"],
            csv=reported_file(
                audit_outputs(_name)["rates_csv"],
                _name,
                "Audit",
                f"{paper_title(_name)}. Rate audit: the fitted exponents of every rate "
                "claim on the horizon (and epsilon) sweeps, with bootstrap intervals, "
                "against the claimed exponents, and the verdict of each.",
                {"what": f"{_name}_rates"},
            ),
            md=audit_outputs(_name)["rates_md"],
            controls_csv=audit_outputs(_name)["controls_csv"],
            controls_md=audit_outputs(_name)["controls_md"],
        log:
            f"{LOGS}/audit/{_name}_fits.log",
        benchmark:
            f"{BENCH}/audit/{_name}_fits.tsv"
        conda:
            CONDA_ENV
        threads: 1
        resources:
            mem_mb=2048,
            runtime=10,
        params:
            code=code_fingerprint("workflow/scripts/audit_fits.py"),  # reruns when the library code changes
            experiment=_name,
            claims_schema=f"{SCHEMAS}/claims.schema.yaml",
            tolerance=config["audit"]["tolerance"],
            max_detectable=config["audit"]["max_detectable_excess"],
            grids=[
                [
                    sw.id,
                    entry,
                    list(series),
                    [sw.cells_of(m)[0].instance_options["gap_scale"] for m in series],
                ]
                for sw in _exp.sweeps
                for entry, series in sw.grids.items()
                if len(series) > 1
            ],
            bootstrap=config["audit"]["bootstrap"],
            seed=config["audit"]["seed"],
            expected=expected_settings([c for sw in _exp.sweeps for c in sw.cells]),
        script:
            "../scripts/audit_fits.py"

    rule:
        name:
            f"audit_{_name}"
        input:
            notebook="notebooks/audit_report.ipynb",
            rates=audit_outputs(_name)["rates_csv"],
            orderings=table_outputs(_name)["claims"],
            # the sweeps' final rows as the fits read them (identity-checked there), not the
            # sweep files: Snakemake hashes every input of a job once per output when it
            # records the job, and a page has 60-68 outputs (docs/performance.md)
            finals=audit_outputs(_name)["finals"],
            figures=[cell.path for cell in page_figure_cells(_name)],
            calibrations=[cal.path for cal in _exp.calibrations],
            claims=f"config/claims/{_name}.yaml",
            communication=list(communication_outputs(_name).values()),
            privacy_delivered=PRIVACY_FILES["delivered_csv"],
            privacy_empirical=PRIVACY_FILES["empirical_csv"],
            status=status_file(_name),
        # the page and its rate figures stay out of Snakemake's report (several MB each, which
        # made the report too large to open): the front page links them
        output:
            **audit_plots(_name),
            ipynb=audit_outputs(_name)["ipynb"],
            html=audit_outputs(_name)["page"],
        log:
            f"{LOGS}/audit/{_name}.log",
        benchmark:
            f"{BENCH}/audit/{_name}.tsv"
        conda:
            CONDA_ENV
        # One thread: the page renders its rate figures in `workers` processes, but two
        # threads would hold both cores of a 2-core machine for the whole page, and a
        # one-thread job runs in the warm worker (faster in all, the same bytes).
        threads: 1
        resources:
            mem_mb=2048,
            runtime=10,
        params:
            code=code_fingerprint(
                "workflow/scripts/render_notebook.py", "notebooks/audit_report.ipynb"
            ),
            # reruns when the library code changes
            # a plain value (tracked by Snakemake: an edit reruns the page); `workers` is set
            # to the job's threads by render_notebook.py
            parameters={
                "workers": 1,
                "experiment": _name,
                "title": _exp.data["title"],
                "primary": _exp.data["primary"],
                "claims_file": f"config/claims/{_name}.yaml",
                "claims_schema": f"{SCHEMAS}/claims.schema.yaml",
                "rates_csv": audit_outputs(_name)["rates_csv"],
                "orderings_csv": table_outputs(_name)["claims"],
                "finals": audit_outputs(_name)["finals"],
                "figure_files": [cell.path for cell in page_figure_cells(_name)],
                "expected": expected_settings(page_figure_cells(_name)),
                "calibration_files": [cal.path for cal in _exp.calibrations],
                "privacy_delivered_csv": PRIVACY_FILES["delivered_csv"],
                "privacy_empirical_csv": PRIVACY_FILES["empirical_csv"],
                "status_csv": status_file(_name),
                "results_root": RESULTS,
                "scale": config["scale"],
                "communication": {
                    k: v
                    for k, v in communication_outputs(_name).items()
                    if k.endswith("_csv")
                },
                "communication_claims": _exp.data.get("communication", {}).get(
                    "claims", {}
                ),
                "plots": {
                    c["id"]: {
                        "pdf": audit_plots(_name)[f"{c['id']}_pdf"],
                        "png": audit_plots(_name)[f"{c['id']}_png"],
                    }
                    for c in CLAIMS[_name]
                    if c["audit"].get("check")
                    in ("slope", "slope_between", "slope_trend")
                },
            },
        script:
            "../scripts/render_notebook.py"


# Every claim's status, decided once per paper: the pages, the report and scoreboard.csv read it.
for _name in [*EXPERIMENTS, *STUDY_PLANS]:

    rule:
        name:
            f"audit_{_name}_status"
        input:
            **status_inputs(_name),
        output:
            csv=status_file(_name),
        log:
            f"{LOGS}/audit/{_name}_status.log",
        benchmark:
            f"{BENCH}/audit/{_name}_status.tsv"
        conda:
            CONDA_ENV
        threads: 1
        resources:
            mem_mb=1024,
            runtime=5,
        params:
            code=code_fingerprint("workflow/scripts/audit_status.py"),  # reruns when the library code changes
            paper=_name,
            bound_paper=_name in STUDY_PLANS,
            primary=(
                EXPERIMENTS[_name].data["primary"] if _name in EXPERIMENTS else None
            ),
            claims_schema=(
                f"{SCHEMAS}/bound_claims.schema.yaml"
                if _name in STUDY_PLANS
                else f"{SCHEMAS}/claims.schema.yaml"
            ),
            evidence=claim_evidence(_name),
        script:
            "../scripts/audit_status.py"


rule audit:
    input:
        [audit_outputs(name)["page"] for name in EXPERIMENTS],
        study_pages=[entry["file"] for entry in study_pages()],
        study_claims=[entry["claims"] for entry in study_pages()],
        rates=[audit_outputs(name)["rates_csv"] for name in EXPERIMENTS],
        controls=[audit_outputs(name)["controls_csv"] for name in EXPERIMENTS],
        orderings=[table_outputs(name)["claims"] for name in EXPERIMENTS],
        status=[status_file(name) for name in [*EXPERIMENTS, *STUDY_PLANS]],
    output:
        **reported(
            {
                **SUMMARY_FILES,
            },
            "audit",
            "Summary",
            entries(
                "All papers",
                {
                    "rates": (
                        "rates",
                        "Every rate claim of every paper with its fitted exponents and "
                        "verdict (the papers' rate tables stacked).",
                    ),
                    "orderings": (
                        "orderings",
                        "Every ordering claim of every paper, per configuration and metric.",
                    ),
                    "controls": (
                        "controls",
                        "Planted violations and claim-meeting controls of every rate fit: "
                        "the planted excess, the verdict and whether it was detected.",
                    ),
                    "scoreboard_csv": (
                        "scoreboard",
                        "One status per claim of every paper (supported, contradicted, "
                        "inconclusive, untestable, not audited) with the reason.",
                    ),
                    "report": (
                        "report.html",
                        "The audit summary page: verdict counts per paper and the links to "
                        "each paper's audit page.",
                    ),
                },
            ),
        ),
    log:
        f"{LOGS}/audit/summary.log",
    benchmark:
        f"{BENCH}/audit/summary.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=2048,
        runtime=10,
    params:
        code=code_fingerprint("workflow/scripts/audit_summary.py"),  # reruns when the library code changes
        claims_schema=f"{SCHEMAS}/claims.schema.yaml",
        scale=config["scale"],
        # per paper: its title and its page, relative to the report
        papers=[
            {"name": name, "title": exp.data["title"], "page": f"{name}.html"}
            for name, exp in EXPERIMENTS.items()
        ]
        + [
            {"name": b["name"], "title": b["title"], "page": b["page"]}
            for b in study_pages()
        ],
    script:
        "../scripts/audit_summary.py"


# Uniform target names (README): `<prefix>_audit` is a paper's audit page.
for _name in EXPERIMENTS:

    rule:
        name:
            f"{_name}_audit"
        input:
            audit_outputs(_name)["page"],
