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
        csv=f"{PRIVACY_ROOT}/audit/privacy.csv",
        md=f"{PRIVACY_ROOT}/audit/privacy.md",
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
        config=config,
        tier=config["tier"],
        experiment_schema=f"{SCHEMAS}/experiment.schema.yaml",
        op24_schema=f"{SCHEMAS}/op24.schema.yaml",
        plasso_schema=f"{SCHEMAS}/plasso.schema.yaml",
    script:
        "../scripts/privacy_delivered.py"


rule privacy_empirical:
    output:
        csv=f"{PRIVACY_ROOT}/audit/privacy_empirical.csv",
        md=f"{PRIVACY_ROOT}/audit/privacy_empirical.md",
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
        html=f"{PRIVACY_ROOT}/audit/privacy.html",
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
    script:
        "../scripts/privacy_report.py"


rule privacy:
    input:
        rules.privacy_report.output,
        rules.privacy_delivered.output,
        rules.privacy_empirical.output,
