# The privacy audit (issue 8): the delivered epsilon of every privatised series of every figure
# and audit experiment (analytic: no simulation needed), the empirical auditor's lower bounds on
# every mechanism and on the negative controls, and the report page. Target: `privacy`.


rule privacy_delivered:
    input:
        experiments=[
            f"config/experiments/{name}.yaml" for name in config["experiments"]
        ],
        plans=[f"config/experiments/{name}.yaml" for name in config["bound_audits"]],
    output:
        csv=reported_file(
            PRIVACY_FILES["delivered_csv"],
            "privacy",
            "Privacy",
            (
                "Delivered privacy of every privatised series of every figure and audit "
                "experiment of the five papers: per experiment, figure, configuration, series "
                "and calibration, the nominal epsilon and delta it is labelled with and the "
                "epsilon its noise delivers (at the nominal delta, at delta = 1/T and under the "
                "paper's bounds), the verdict, the accounting method and notes "
                f"(tier {config['tier']})."
            ),
            {"what": "privacy"},
        ),
        md=PRIVACY_FILES["delivered_md"],
    log:
        f"{LOGS}/audit/privacy_delivered{PRIVACY_TAG}.log",
    benchmark:
        f"{BENCH}/audit/privacy_delivered{PRIVACY_TAG}.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=2048,
        runtime=20,
    params:
        code=code_fingerprint("workflow/scripts/privacy_delivered.py"),  # reruns when the library code changes
        config=sorted_config(config),  # the same text whatever the keys' order
        tier=config["tier"],
        experiment_schema=f"{SCHEMAS}/experiment.schema.yaml",
        plan_schemas={
            name: f"{SCHEMAS}/{name}.schema.yaml" for name in config["bound_audits"]
        },
    script:
        "../scripts/privacy_delivered.py"


rule privacy_empirical:
    output:
        csv=reported_file(
            PRIVACY_FILES["empirical_csv"],
            "privacy",
            "Privacy",
            (
                "Empirical privacy audit: for every randomizer and aggregate mechanism on its "
                "extreme neighbouring inputs, a lower bound on epsilon (threshold test, "
                "Clopper-Pearson limits, valid with probability 1 - alpha) next to the delivered "
                "epsilon; the seeded under-noised negative controls must be caught "
                f"(tier {config['tier']}: {config['privacy']['samples'][config['tier']]} "
                "samples per input and half)."
            ),
            {"what": "privacy_empirical"},
        ),
        md=PRIVACY_FILES["empirical_md"],
    log:
        f"{LOGS}/audit/privacy_empirical{PRIVACY_TAG}.log",
    benchmark:
        f"{BENCH}/audit/privacy_empirical{PRIVACY_TAG}.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=4096,
        runtime=120,
    params:
        code=code_fingerprint("workflow/scripts/privacy_empirical.py"),  # reruns when the library code changes
        samples=config["privacy"]["samples"][config["tier"]],
        seed=config["privacy"]["seed"],
        alpha=config["privacy"]["alpha"],
    script:
        "../scripts/privacy_empirical.py"


rule privacy_report:
    input:
        delivered=rules.privacy_delivered.output.csv,
        empirical=rules.privacy_empirical.output.csv,
    output:
        html=reported_file(
            PRIVACY_FILES["page"],
            "privacy",
            "Privacy",
            (
                "The privacy audit page: delivered against nominal epsilon per paper and "
                "figure, the verdicts, and the empirical lower bounds "
                f"(tier {config['tier']})."
            ),
            {"what": "privacy.html"},
        ),
    log:
        f"{LOGS}/audit/privacy_report{PRIVACY_TAG}.log",
    benchmark:
        f"{BENCH}/audit/privacy_report{PRIVACY_TAG}.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1024,
        runtime=5,
    params:
        code=code_fingerprint("workflow/scripts/privacy_report.py"),  # reruns when the library code changes
        front=os.path.relpath(FRONT_PAGE, os.path.dirname(PRIVACY_FILES["page"])),
    script:
        "../scripts/privacy_report.py"


rule privacy:
    input:
        rules.privacy_report.output,
        rules.privacy_delivered.output,
        rules.privacy_empirical.output,
