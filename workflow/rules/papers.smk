# Per paper: `<name>_tables` (final-regret table, claim checklist, audit metrics) and `<name>`,
# every output of the paper (figures, tables, calibration tables, audit page). The figure rules
# (`<prefix>_fig1`, ...) come from the registry (figures.smk).


def figure_timings(name):
    """Timing tables of the figure simulation jobs of experiment ``name``."""
    exp = EXPERIMENTS[name]
    return sorted({timing_file(name, group, conf) for group, conf in exp.jobs()})


def paper_tables(name):
    """The paper's own tables (claims registry ``tables:``), validated when the workflow loads."""
    return REGISTRIES[name].get("tables", {})


def paper_table_inputs(name):
    """Result files the measured columns of the paper's tables read."""
    exp = EXPERIMENTS[name]
    wanted = [
        m
        for table in paper_tables(name).values()
        for row in table["rows"]
        if "measured" in row
        for m in [row["measured"], *row.get("measured_also", [])]
    ]
    paths = set()
    for m in wanted:
        if "sweep" in m:
            paths |= {
                c.path for sw in exp.sweeps if sw.id == m["sweep"] for c in sw.cells
            }
        else:
            paths |= {
                c.path
                for c in exp.cells
                if c.figure == m["figure"]
                and c.configuration
                in (
                    [m["configuration"]]
                    if isinstance(m["configuration"], str)
                    else m["configuration"]
                )
            }
    return sorted(paths)


for _name, _exp in EXPERIMENTS.items():
    if paper_tables(_name):
        _table_inputs = set(paper_table_inputs(_name))

        rule:
            name:
                f"{_name}_paper_tables"
            input:
                results=paper_table_inputs(_name),
                claims=f"config/claims/{_name}.yaml",
            output:
                **reported(
                    paper_table_outputs(_name),
                    _name,
                    "Tables",
                    entries(
                        paper_title(_name),
                        {
                            f"{_t}_csv": (
                                _t,
                                f"{_spec.get('title', _t)}: the paper's table with its "
                                "measured columns (CSV; Markdown and LaTeX beside it).",
                            )
                            for _t, _spec in paper_tables(_name).items()
                        },
                    ),
                ),
            log:
                f"{LOGS}/tables/{_name}_paper.log",
            benchmark:
                f"{BENCH}/tables/{_name}_paper.tsv"
            conda:
                CONDA_ENV
            threads: 1
            resources:
                mem_mb=2048,
                runtime=10,
            params:
                code=code_fingerprint("workflow/scripts/paper_tables.py"),  # reruns when the library code changes
                tables=list(paper_tables(_name)),
                claims_schema=f"{SCHEMAS}/claims.schema.yaml",
                expected={
                    path: cells
                    for path, cells in expected_settings(
                        [c for sw in _exp.sweeps for c in sw.cells] + list(_exp.cells)
                    ).items()
                    if path in _table_inputs
                },
            script:
                "../scripts/paper_tables.py"

        for _table in paper_tables(_name):

            rule:
                name:
                    _table
                input:
                    [
                        f
                        for k, f in paper_table_outputs(_name).items()
                        if k.rsplit("_", 1)[0] == _table
                    ],

    rule:
        name:
            f"{_name}_tables"
        input:
            results=[cell.path for cell in _exp.cells],
            timings=figure_timings(_name),
            claims=f"config/claims/{_name}.yaml",
            privacy=PRIVACY_FILES["delivered_csv"],  # delivered epsilon beside each ordering
        output:
            **reported(
                table_outputs(_name),
                _name,
                "Tables",
                entries(
                    paper_title(_name),
                    {
                        "final": (
                            f"{_name}_final_regret",
                            "Regret at the horizon of every simulated series, per figure, "
                            "panel, configuration and series (with each cell's calibration "
                            "and the job's wall seconds).",
                        ),
                        "claims": (
                            f"{_name}_claims",
                            "Claim checklist: every ordering claim of the claims registry, "
                            "checked per configuration and metric on the simulated figures.",
                        ),
                        "matrix": (
                            f"{_name}_claims_matrix",
                            "The checklist's summary verdicts as a claim by configuration "
                            "matrix.",
                        ),
                        "metrics": (
                            f"{_name}_metrics",
                            "Audit metrics per configuration, panel and series: privacy-cost "
                            "ratios and log-log slopes of the regret curves.",
                        ),
                    },
                ),
            ),
        log:
            f"{LOGS}/tables/{_name}.log",
        benchmark:
            f"{BENCH}/tables/{_name}.tsv"
        conda:
            CONDA_ENV
        threads: 1
        resources:
            mem_mb=2048,
            runtime=10,
        params:
            code=code_fingerprint("workflow/scripts/experiment_tables.py"),  # reruns when the library code changes
            experiment=_name,
            cells=[cell.as_dict() for cell in _exp.cells],
            claims_schema=f"{SCHEMAS}/claims.schema.yaml",
        script:
            "../scripts/experiment_tables.py"

    rule:
        name:
            _name
        input:
            [f for fig in _exp.figures for f in figure_outputs(fig).values()],
            table_outputs(_name).values(),
            paper_table_outputs(_name).values(),
            [cal.path for cal in _exp.calibrations],
            audit_outputs(_name)["page"],
