# The arena across papers (config/arena.yaml, docs/arena.md): one simulation job per suite and
# dimension running both horizons' panels (every contestant under every calibration on the same
# instances and reward streams), the delivered epsilon of every cell next to them, then the
# leaderboard, the claim verdicts, the frontier figures and the page.
# Target: `arena`.


if ARENA:
    _ARENA_PRIORITY = ARENA.job_priorities()  # longest jobs first

    for _job, _cells in ARENA.jobs().items():

        rule:
            name:
                f"arena_sim_{_job}"
            input:
                calibrations=sorted(
                    {
                        EXPERIMENTS[ARENA.calibrations[cid]].calibration(cid).path
                        for c in _cells
                        for cid in c.calibration_ids
                    }
                ),
            output:
                parquet=[c.path for c in _cells],
                timing=arena_timing(_job),
            log:
                f"{LOGS}/sim/arena/{_job}.log",
            benchmark:
                f"{BENCH}/sim/arena/{_job}.tsv"
            priority: _ARENA_PRIORITY[_job]
            conda:
                CONDA_ENV
            threads: 1
            resources:
                mem_mb=job_mem_mb(_cells),  # from its size (dpbandits.runtime.job_memory)
                runtime=30,
            params:
                **settings_params("cell", [c.as_dict() for c in _cells], _cells),
                code=code_fingerprint("workflow/scripts/simulate.py"),  # reruns when the library code changes
                # one parameter per setting: a rerun's reason names the settings that changed
            script:
                "../scripts/simulate.py"

    rule arena_privacy:  # needs no simulation, but runs after them: their matched
        # calibrations' searches are cached for it (dpbandits.privacy.matching)
        input:
            arena="config/arena.yaml",
            after=[arena_timing(j) for j in ARENA.jobs()],
        output:
            csv=arena_privacy_file(),
        log:
            f"{LOGS}/arena/privacy.log",
        benchmark:
            f"{BENCH}/arena/privacy.tsv"
        conda:
            CONDA_ENV
        threads: 1
        resources:
            mem_mb=2048,
            runtime=10,
        params:
            code=code_fingerprint("workflow/scripts/arena_privacy.py"),  # reruns when the library code changes
            schema=f"{SCHEMAS}/arena.schema.yaml",
            scale=config["scale"],
            root_seed=config["root_seed"],
            calibrations_built=sorted(EXPERIMENTS),
        script:
            "../scripts/arena_privacy.py"

    rule arena_results:
        input:
            results=[c.path for c in ARENA.cells],
            timings=[arena_timing(j) for j in ARENA.jobs()],
            arena="config/arena.yaml",
            privacy=arena_privacy_file(),
        output:
            **{
                k: v
                for k, v in arena_outputs().items()
                if k not in ("page", "leaderboard_csv", "claims_csv")
            },
            leaderboard_csv=reported_file(
                arena_outputs()["leaderboard_csv"],
                "arena",
                "Arena",
                "Leaderboard: per suite, dimension, horizon, contestant and calibration, the "
                "nominal and delivered epsilon, the mean final pseudo-regret with its 95 % "
                "interval, the rank (ties where intervals overlap) and the wall time; rows "
                "`not run` say why.",
                {"what": "leaderboard"},
            ),
            claims_csv=reported_file(
                arena_outputs()["claims_csv"],
                "arena",
                "Arena",
                "The papers' pairwise claims the arena checks (e.g. shuffle between central "
                "and local), one status per claim from paired per-trial comparisons.",
                {"what": "claims"},
            ),
            page=reported_file(
                arena_outputs()["page"],
                "arena",
                "Arena",
                "The arena page: claims, leaderboard and one frontier figure per suite.",
                {"what": "arena.html"},
            ),
        log:
            f"{LOGS}/arena/results.log",
        benchmark:
            f"{BENCH}/arena/results.tsv"
        conda:
            CONDA_ENV
        threads: 1
        resources:
            mem_mb=2048,
            runtime=10,
        params:
            code=code_fingerprint("workflow/scripts/arena_results.py"),  # reruns when the library code changes
            schema=f"{SCHEMAS}/arena.schema.yaml",
            scale=config["scale"],
            root_seed=config["root_seed"],
            calibrations_built=sorted(EXPERIMENTS),
            expected=expected_settings(ARENA.cells),
            links={
                "Front page": os.path.relpath(
                    FRONT_PAGE, os.path.dirname(arena_outputs()["page"])
                ),
                "How to read the arena (docs/arena.md)": os.path.relpath(
                    "docs/arena.md", os.path.dirname(arena_outputs()["page"])
                ),
            },
        script:
            "../scripts/arena_results.py"

    rule arena:  # everything of the arena
        input:
            arena_outputs().values(),
