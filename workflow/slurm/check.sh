#!/usr/bin/env bash
# `make slurm-test`: the quick-scale DAG submitted to a real SLURM through the project's profile,
# its outputs compared byte for byte with a local run.
#
# 1. workflow/slurm/setup.sh installs Debian's SLURM and munge and starts a single-node cluster on
#    localhost (slurmctld + slurmd, this machine's CPUs);
# 2. two copies of the workflow build the same targets at `scale=quick`: one locally
#    (`--cores 2`), one with `--profile workflow/profiles/slurm` (every job an sbatch submission);
# 3. every parquet and CSV file of the two runs must be identical (timing tables and the wall
#    seconds of the final-regret tables excepted: they are measured run times), and every job of
#    the SLURM run must have been submitted to SLURM;
# 4. the daemons are shut down (also on failure).
#
# SLURM_TARGETS: the targets (default: one simulation of every paper, one figure through
# papermill and the privacy table; `all` for the whole quick DAG). Must run as root.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=${PYTHON:-$ROOT/.venv/bin/python}
DEFAULT_TARGETS=(
    cz22_fig1b
    results/quick/sim/op24/e1_I1b.parquet
    results/quick/sim/op24/e3_C1_d5_jdp.parquet
    results/quick/sim/olucb/worst/onlineucb_w/eps1_T500.parquet
    results/quick/sim/dpdpe/gap_private/cdp_a80/eps10_T500.parquet
    results/quick/sim/dpdpe/gap_private/sdp_a80/eps10_T500.parquet
    results/quick/sim/plasso/e1_F2_d100_K2_s5_private_lasso.parquet
    results/quick/audit/privacy.csv
)
# shellcheck disable=SC2206
TARGETS=(${SLURM_TARGETS:-${DEFAULT_TARGETS[*]}})
[ "${TARGETS[*]}" = all ] && TARGETS=()
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dpbandits-slurm.XXXXXX")
log() { echo "[slurm-test $(date +%T)] $*"; }

trap '"$ROOT/workflow/slurm/stop.sh"' EXIT
trap 'exit 130' INT # a signal ends the script through its EXIT trap: the daemons are stopped
trap 'exit 143' TERM
"$ROOT/workflow/slurm/setup.sh"

for run in local slurm; do
    mkdir -p "$WORK/$run"
    cp -r "$ROOT"/{Snakefile,workflow,config,notebooks,environment.yml} "$WORK/$run/"
done

log "local run (--cores 2) of ${TARGETS[*]:-the whole quick DAG}"
start=$SECONDS
(cd "$WORK/local" && "$PY" -m snakemake --cores 2 "${TARGETS[@]}" --config scale=quick) \
    >"$WORK/local.log" 2>&1 || {
    tail -40 "$WORK/local.log"
    exit 1
}
log "local run done in $((SECONDS - start)) s"

log "SLURM run through workflow/profiles/slurm"
start=$SECONDS
(cd "$WORK/slurm" && "$PY" -m snakemake --profile workflow/profiles/slurm --jobs 4 \
    --slurm-status-command squeue --slurm-init-seconds-before-status-checks 2 \
    "${TARGETS[@]}" --config scale=quick) >"$WORK/slurm.log" 2>&1 || {
    tail -60 "$WORK/slurm.log"
    exit 1
}
log "SLURM run done in $((SECONDS - start)) s"

"$PY" - "$WORK" <<'EOF'
"""Compare the two runs' parquet and CSV files; check every SLURM-run job went through sbatch."""
import hashlib
import re
import sys
from pathlib import Path

import pandas as pd

work = Path(sys.argv[1])
local, slurm = work / "local", work / "slurm"
log = (work / "slurm.log").read_text()
submitted = len(re.findall(r"has been submitted with SLURM jobid \d+", log))
finished = len(re.findall(r"^Finished job(id)? \d+", log, flags=re.M))
run = int(re.search(r"^total\s+(\d+)$", log, flags=re.M).group(1))
targets = [rule for rule in re.findall(r"^localrule (\w+):", log, flags=re.M)]
# every job that runs code was an sbatch submission; the local rules are the target-only rules
# (no script), which Snakemake completes itself
print(f"SLURM run: {run} jobs, {submitted} submitted to SLURM, {len(targets)} target-only rules")
assert submitted > 0 and submitted + len(targets) == run, "not every job went through SLURM"


def files(root):
    out = {}
    for p in sorted((root / "results").rglob("*")):
        rel = p.relative_to(root)
        if p.suffix in (".parquet", ".csv") and "timing" not in rel.parts:
            out[str(rel)] = p
    return out


a, b = files(local), files(slurm)
assert a and set(a) == set(b), f"different files: {sorted(set(a) ^ set(b))}"
differ = []
for rel, p in a.items():
    if rel.endswith("_final_regret.csv"):  # its wall_seconds column is a measured run time
        same = pd.read_csv(p).drop(columns="wall_seconds").equals(
            pd.read_csv(b[rel]).drop(columns="wall_seconds")
        )
    else:
        same = hashlib.sha256(p.read_bytes()).digest() == hashlib.sha256(b[rel].read_bytes()).digest()
    if not same:
        differ.append(rel)
assert not differ, f"SLURM and local outputs differ: {differ}"
n_parquet = sum(r.endswith(".parquet") for r in a)
print(f"byte-identical: {n_parquet} parquet and {len(a) - n_parquet} CSV files")
EOF
log "passed (work dir $WORK)"
