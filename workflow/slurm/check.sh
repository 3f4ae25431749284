#!/usr/bin/env bash
# `make slurm-test`: the quick-scale DAG submitted to a real SLURM through the project's profile,
# its outputs compared byte for byte with a local run.
#
# 1. workflow/slurm/setup.sh installs Debian's SLURM and munge and starts a single-node cluster on
#    localhost (slurmctld + slurmd, this machine's CPUs);
# 2. two copies of the workflow build the same targets at `scale=quick`, at the same time: one
#    locally (`--cores 2`), one with `--profile workflow/profiles/slurm` (every job an sbatch
#    submission);
# 3. every job of the SLURM run must have been submitted to SLURM, and every parquet and CSV file
#    of the two runs must be identical, measured run times excepted (timing tables, the
#    wall_seconds column of the final-regret tables, the wall-time rows of the claim tables;
#    src/dpbandits/compare.py);
# 4. the daemons are shut down (also on failure).
#
# SLURM_TARGETS: the targets (default: the whole quick DAG, 181 jobs; times: docs/performance.md;
# `smoke`: one simulation of every paper, one figure through papermill, a configuration whose
# job copies another's results (cz22's R2) and the privacy table, 15 jobs; or
# a list of targets). Must run as root.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=${PYTHON:-$ROOT/.venv/bin/python}
SMOKE_TARGETS=(
    cz22_fig1b
    results/quick/sim/cz22/cz22_fig2b/r2/LinUCB-LDP.parquet
    results/quick/sim/op24/e1_I1b.parquet
    results/quick/sim/op24/e3_C1_d5_jdp.parquet
    results/quick/sim/olucb/worst/onlineucb_w/eps1_T500.parquet
    results/quick/sim/dpdpe/gap_private/cdp_a80_g1/eps10_T500.parquet
    results/quick/sim/dpdpe/gap_private/sdp_a80_g1/eps10_T500.parquet
    results/quick/sim/plasso/e1_F2_d100_K2_s5_private_lasso.parquet
    results/quick/audit/privacy.csv
)
case "${SLURM_TARGETS:-all}" in
all) TARGETS=() ;;
smoke) TARGETS=("${SMOKE_TARGETS[@]}") ;;
*) read -r -a TARGETS <<<"$SLURM_TARGETS" ;;
esac
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dpbandits-slurm.XXXXXX")
log() { echo "[slurm-test $(date +%T)] $*"; }

local_run=
trap '[ -z "$local_run" ] || kill -- "-$local_run" 2>/dev/null; "$ROOT/workflow/slurm/stop.sh"' EXIT
trap 'exit 130' INT # a signal ends the script through its EXIT trap: the daemons are stopped
trap 'exit 143' TERM
"$ROOT/workflow/slurm/setup.sh"

for run in local slurm; do
    mkdir -p "$WORK/$run"
    cp -r "$ROOT"/{Snakefile,workflow,config,notebooks,environment.yml} "$WORK/$run/"
done

# the two runs at once: each spends most of its time waiting (SLURM's polls, the one long job at
# the end), so together they take about as long as the SLURM run alone
log "local run (--cores 2) and SLURM run (workflow/profiles/slurm) of ${TARGETS[*]:-the whole quick DAG}"
start=$SECONDS
# (its own process group, so that a failure or a signal stops it with the script)
setsid bash -c 'cd "$1" && shift && "$@" >../local.log 2>&1 && echo "$SECONDS" >../local.seconds' \
    _ "$WORK/local" "$PY" -m snakemake --cores 2 "${TARGETS[@]}" --config scale=quick &
local_run=$!
(cd "$WORK/slurm" && "$PY" -m snakemake --profile workflow/profiles/slurm \
    --slurm-status-command squeue --slurm-init-seconds-before-status-checks 2 \
    "${TARGETS[@]}" --config scale=quick) >"$WORK/slurm.log" 2>&1 || {
    tail -60 "$WORK/slurm.log"
    exit 1
}
log "SLURM run done in $((SECONDS - start)) s"
wait "$local_run" || {
    tail -40 "$WORK/local.log"
    exit 1
}
local_run=
log "local run done in $(cat "$WORK/local.seconds") s"

# every job that runs code was an sbatch submission; the local rules are the target-only rules
# (no script), which Snakemake completes itself
"$PY" - "$WORK/slurm.log" <<'EOF'
import re
import sys

log = open(sys.argv[1]).read()
submitted = len(re.findall(r"has been submitted with SLURM jobid \d+", log))
run = int(re.search(r"^total\s+(\d+)$", log, flags=re.M).group(1))
targets = re.findall(r"^localrule (\w+):", log, flags=re.M)
print(f"SLURM run: {run} jobs, {submitted} submitted to SLURM, {len(targets)} target-only rules")
assert submitted > 0 and submitted + len(targets) == run, "not every job went through SLURM"
EOF
# the same results: every parquet and CSV file byte for byte, measured run times aside
# (dpbandits.checks.compare says which)
"$PY" -m dpbandits.checks.compare "$WORK/local" "$WORK/slurm"
log "passed (work dir $WORK)"
