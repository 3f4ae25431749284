"""How much memory a simulation job needs, known before it runs.

The workflow estimates each job's peak memory from its cells while it parses (no array is
allocated: the estimate is arithmetic on T, K, d, the trials and the checkpoints), declares
``mem_mb`` from it, and refuses a cell whose estimate exceeds the configured limit with the
estimate in the message, instead of letting the job be killed (or swap) hours later.

The model (MiB, one cell at a time; a job runs its cells one after the other):

``BASE_MB`` (``PHASED_BASE_MB`` for dpdpe's engine) + ``WORK_COPIES`` x working set +
per-play tables + results

* working set: the engine's trials run in chunks of :data:`CHUNK_BYTES`, at least one trial
  (:func:`bytes_per_trial`: the trial's reward table ``T x K`` booleans plus its noise or
  statistics arrays);
* per-play tables of the combiner policies: ``2 x M x T x 8`` fields of 8 bytes (the tables
  and their stacked copy);
* results: ``trials x checkpoints`` rows of :data:`RESULT_COLUMNS` float64 columns, three copies
  (numpy, pyarrow, pandas).

The estimate must be at least a job's measured peak (``benchmarks/sim/**.tsv``, ``max_rss``,
of a cold process: recalibrate with ``--config warm_worker=false``, as ``max_rss`` is otherwise
the hand-off process's) and not far above it; tests/runtime/test_job_memory.py keeps
representative jobs between 1x and 2x their peak.
"""

from __future__ import annotations

import math

#: Interpreter, numpy, numba's compiled kernels, pyarrow (MiB): the fixed-arm and fresh-arm
#: engines (their largest jobs: 1.0-1.25 GB measured with about 500 MB of working set)...
BASE_MB = 800
#: ... and the phased-elimination engine (dpdpe: 0.29-0.38 GB measured for every job).
PHASED_BASE_MB = 420
#: Engine memory budget of one chunk of trials (bytes); results do not depend on it.
CHUNK_BYTES = 256 * 2**20
#: Copies of the working set alive at once (inputs and the kernels' temporaries).
WORK_COPIES = 2
#: Float64 columns of a results table (metrics and diagnostics, an upper bound).
RESULT_COLUMNS = 24
#: Smallest memory a simulation job declares (MiB).
MIN_JOB_MB = 2048


def bytes_per_trial(scheme: str, T: int, K: int, d: int, n_refresh: int, n_batches: int) -> int:
    """Working memory of one trial of the fixed-arm engines (bytes): the trial's reward table
    (``T x K`` booleans) and its statistics.

    ``scheme``: the policy's noise scheme (``vec``, ``onlineucb``, ``combiner`` or a Gaussian
    one); ``n_refresh``, ``n_batches``: the policy's statistics refreshes and batches. Policies
    on other engines state their own (:meth:`dpbandits.policies.base.Policy.trial_bytes`).
    """
    E = d + d * (d + 1) // 2  # packed entries (dpbandits.mechanisms.packing.n_entries)
    rewards = T * K
    if scheme == "vec":
        return rewards + 8 * E * (T + n_batches)
    if scheme in ("onlineucb", "combiner"):
        return rewards + 8 * T * (2 * d + 1)
    return rewards + 8 * E * (2 * n_refresh + 1)


def instance_megabytes(K: int, d: int) -> float:
    """Least memory (MiB) of any simulation of ``K`` arms in ``d`` dimensions: the interpreter
    (:data:`PHASED_BASE_MB`, the smallest base) and one ``K x d`` float64 arm array."""
    return PHASED_BASE_MB + 8.0 * K * d / 2**20


def job_memory_mb(
    per_trial: int, trials: int, T: int, checkpoints: int, n_bases: int = 0, base_mb: int = BASE_MB
) -> int:
    """Estimated peak memory (MiB) of simulating one cell (module docstring); ``base_mb``: the
    policy's :attr:`~dpbandits.policies.base.Policy.base_mb`."""
    work = min(trials * per_trial, max(CHUNK_BYTES, per_trial))
    tables = 2 * n_bases * T * 8 * 8
    results = 3 * trials * checkpoints * RESULT_COLUMNS * 8
    return math.ceil(base_mb + (WORK_COPIES * work + tables + results) / 2**20)


def declared_mb(estimate_mb: int) -> int:
    """``mem_mb`` a job declares: its estimate plus 20 %, rounded up to 256 MiB, at least
    :data:`MIN_JOB_MB`."""
    return max(MIN_JOB_MB, 256 * math.ceil(1.2 * estimate_mb / 256))
