# olucb's own rules, included through the registry (dpbandits.papers.Paper.rules) after the
# shared ones, whose names (EXPERIMENTS, RESULTS, LOGS, ...) they use.


# Robustness of the failed Figure 1 ordering of olucb (OnlineUCB below LinUCB-LDP) to the
# constants the paper leaves open (issue 19); in the default build: olucb's scoreboard job
# reads its table (dpbandits.papers.olucb.status_inputs).
if "olucb" in EXPERIMENTS and "robustness" in EXPERIMENTS["olucb"].data:

    rule olucb_robustness:
        input:
            calibrations=sorted(
                {
                    EXPERIMENTS["olucb"].calibration(cid).path
                    for cid in ("c_beta", "fair_ldp")
                }
            ),
        output:
            csv=f"{RESULTS}/audit/olucb_robustness.csv",
            md=f"{RESULTS}/audit/olucb_robustness.md",
        log:
            f"{LOGS}/audit/olucb_robustness.log",
        benchmark:
            f"{BENCH}/audit/olucb_robustness.tsv"
        conda:
            # relative to this file (the shared rules name theirs relative to workflow/rules/)
            "../../../../environment.yml"
        threads: 1
        resources:
            mem_mb=2048,
            runtime=30,
        params:
            code=code_fingerprint("workflow/scripts/paper_job.py"),  # reruns when the library code changes
            prefix="olucb",
            job="robustness_job",
            config_file="config/experiments/olucb.yaml",
            schema=f"{SCHEMAS}/experiment.schema.yaml",
        script:
            "../../../../workflow/scripts/paper_job.py"
