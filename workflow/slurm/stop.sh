#!/usr/bin/env bash
# Stops the single-node SLURM cluster of workflow/slurm/setup.sh: cancels its jobs, `scontrol
# shutdown`, then TERM (KILL after 20 s) to slurmd, slurmctld and munged by their pid files.
# Safe to run when nothing runs.
set -uo pipefail

log() { echo "[slurm stop $(date +%T)] $*"; }

running() { # pidfile name -> the pid, if that process runs
    local pid
    [ -s "$1" ] || return 0
    pid=$(cat "$1" 2>/dev/null || true)
    [[ "$pid" =~ ^[0-9]+$ ]] || return 0
    [ "$(cat /proc/"$pid"/comm 2>/dev/null || true)" = "$2" ] && echo "$pid"
    return 0
}
gone() { # pid seconds
    for _ in $(seq $(($2 * 10))); do
        kill -0 "$1" 2>/dev/null || return 0
        sleep 0.1
    done
    return 1
}
stop() { # pidfile name
    local pid
    pid=$(running "$1" "$2")
    [ -n "$pid" ] || return 0
    log "stopping $2 (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    gone "$pid" 20 || {
        kill -KILL "$pid" 2>/dev/null || true
        gone "$pid" 5 || true
    }
}

ctld=$(running /run/slurmctld.pid slurmctld)
if [ -n "$ctld" ]; then
    jobs=$(squeue -h -o %i 2>/dev/null || true)
    if [ -n "$jobs" ]; then
        log "cancelling jobs $(echo $jobs)"
        # shellcheck disable=SC2086
        scancel --full $jobs 2>/dev/null || true
        for _ in $(seq 50); do
            [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
            sleep 0.2
        done
    fi
    scontrol shutdown >/dev/null 2>&1 || true
    gone "$ctld" 20 || true
fi
stop /run/slurmd.pid slurmd
stop /run/slurmctld.pid slurmctld
stop /run/munge/munged.pid munged
log "stopped"
