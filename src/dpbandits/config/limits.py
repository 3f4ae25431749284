"""What a cell may ask for, checked while the workflow parses: its memory against the job limit,
its instances (built once as a probe), its seeds' ranges, and the refusal of a calibration
that cannot be built.
"""

from __future__ import annotations

import functools
import json

from ..policies.base import Policy
from .specs import Cell, Experiment
from .validation import remember_valid, valid_keys
from .yamlfile import ConfigError

#: Most points of a calibration grid after the first (each point is a simulated cell of one
#: job: the shipped grids have 4-13; a thousand is hours of simulation in one job).
MAX_GRID_POINTS = 1000

#: Default of the config key ``max_job_mb``: the largest memory one simulation job may need.
MAX_JOB_MB = 16384

#: Memory estimates of the cells checked so far, by config hash (:func:`job_mem_mb`).
_MEMORY_MB: dict[str, int] = {}


def job_mem_mb(cells) -> int:
    """``mem_mb`` a job declares for simulating ``cells`` one after the other
    (:func:`dpbandits.runtime.job_memory.declared_mb` of the largest estimate)."""
    from dpbandits.runtime.job_memory import declared_mb

    need = 0
    for c in cells:
        key = c.config_hash()
        if key not in _MEMORY_MB:
            _MEMORY_MB[key] = c.memory_mb()
        need = max(need, _MEMORY_MB[key])
    return declared_mb(need)


@functools.lru_cache(maxsize=256)
def _probe_instances(family: str, K: int, d: int, seed: int, T: int, options: str) -> None:
    """Build one instance of the family, so that an impossible shape (e.g. ``d > K``) or option
    is refused while the workflow parses instead of inside a job. A probe that passed is
    remembered with the passed validations (:data:`VALID_CACHE`), keyed by its arguments and by
    the code that builds instances (its import closure): drawing a large instance is a good
    part of a parse; a failing probe runs again every time, so its error is always reported."""
    import hashlib

    from ..envs import linear
    from ..fingerprint import fingerprint

    args = f"probe|{family}|{K}|{d}|{seed}|{T}|{options}|{fingerprint(linear.__file__)}"
    key = hashlib.sha256(args.encode()).hexdigest()
    if key in valid_keys():
        return
    linear.make_instances(family, 1, K, d, seed, T=T, **json.loads(options))
    remember_valid(key)


def check_shape(cell: Cell, max_job_mb: int, where: str) -> None:
    """Refuse a cell whose arms alone would not fit a job, before anything is allocated.

    Building a cell's policy or probing its instances allocates the ``K x d`` arm array (and,
    for some calibrations, a population of instances), so this comes first: the least memory
    any engine needs, :func:`dpbandits.runtime.job_memory.instance_megabytes`, against
    ``max_job_mb``.
    """
    from dpbandits.runtime.job_memory import instance_megabytes

    need = instance_megabytes(cell.K, cell.d)
    if need > max_job_mb:
        raise ConfigError(
            f"{where}: K = {cell.K}, d = {cell.d}: the arms alone (K x d float64) need about "
            f"{need:,.0f} MiB, above max_job_mb = {max_job_mb} MiB; allowed: K x d x 8 bytes "
            "within max_job_mb (config/config.yaml)"
        )


def check_cell(cell: Cell, policy: Policy, max_job_mb: int, where: str) -> None:
    """Refuse a cell whose job would need more memory than ``max_job_mb`` (the estimate of
    :mod:`dpbandits.runtime.job_memory` is in the message) or whose instances cannot be built; the
    estimate comes first, so that nothing the size forbids is allocated."""
    need = _MEMORY_MB[cell.config_hash()] = cell.memory_mb(policy)
    if need > max_job_mb:
        raise ConfigError(
            f"{where}: T = {cell.T}, trials = {cell.trials}, K = {cell.K}, d = {cell.d}, "
            f"checkpoints = {cell.checkpoints}: the job would need about {need} MiB "
            f"(dpbandits.runtime.job_memory), above max_job_mb = {max_job_mb} MiB; reduce T, "
            "trials or checkpoints, or raise max_job_mb in config/config.yaml if the machine has "
            "the memory"
        )
    try:
        _probe_instances(
            cell.instances,
            cell.K,
            cell.d,
            cell.instance_seed,
            cell.T,
            json.dumps(cell.instance_options, sort_keys=True),
        )
    except ValueError as exc:
        raise ConfigError(
            f"{where}: instances {cell.instances!r} with K = {cell.K}, d = {cell.d}: {exc}"
        ) from None


#: Largest seed of a legacy ``numpy.random.RandomState`` (the authors' script's instance and
#: reward streams): seeds are unsigned 32-bit integers.
MAX_LEGACY_SEED = 2**32 - 1


def check_seed_ranges(experiment: Experiment, source: str) -> None:
    """Refuse a cell whose legacy seeds leave ``[0, 2**32 - 1]``: trial ``i`` of a cell draws its
    rewards from ``RandomState(reward_seed_offset + first_trial + i)`` and its instances from
    ``RandomState(instance_seed)`` (:mod:`dpbandits.pipeline`), so the largest seed is
    ``reward_seed_offset + first_trial + trials - 1``. The message names the file, the figure or
    sweep, the three keys' values and the limit."""
    cells = list(experiment.cells)
    for sweep in experiment.sweeps:
        cells += sweep.cells
    for cal in experiment.calibrations:
        cells += [cal.base] + ([cal.reference] if cal.reference is not None else [])
    for cell in cells:
        where = cell.figure or cell.experiment
        last = cell.reward_seed_offset + cell.first_trial + cell.trials - 1
        if last > MAX_LEGACY_SEED:
            raise ConfigError(
                f"{source}: {where}: reward_seed_offset ({cell.reward_seed_offset}) + first_trial "
                f"({cell.first_trial}) + trials ({cell.trials}) - 1 = {last} is above "
                f"{MAX_LEGACY_SEED}, the largest seed of the reward streams; allowed: a sum of at "
                f"most {MAX_LEGACY_SEED}"
            )
        if cell.instance_seed > MAX_LEGACY_SEED:
            raise ConfigError(
                f"{source}: {where}: instance_seed = {cell.instance_seed} is above "
                f"{MAX_LEGACY_SEED}, the largest seed of the instance stream; allowed: 0 to "
                f"{MAX_LEGACY_SEED}"
            )


def calibration_refusal(exc: Exception) -> str:
    """The end of a refusal of a cell whose policy cannot be calibrated: the error's text and,
    unless it says it, what is allowed (an extreme epsilon or delta overflows or divides by 0)."""
    text = str(exc) or type(exc).__name__
    if isinstance(exc, ArithmeticError):
        text = f"the noise calibration fails ({type(exc).__name__}: {text})"
    if "allowed" not in text:
        text += "; allowed: values whose noise calibration is finite"
    return text
