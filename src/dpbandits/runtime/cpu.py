"""The same numbers on any x86-64 CPU: pin NumPy's and OpenBLAS's choice of vector instructions.

NumPy and OpenBLAS pick their kernels at run time from the CPU's instruction sets. On a CPU with
AVX-512, NumPy's ``exp``, ``log``, ``power``, ``expm1``, ``log10`` ... and OpenBLAS's matrix
products take code paths whose results differ from the AVX2 ones in the last bit; a bandit run
turns a last-bit difference into a different arm at some round, and from there into a different
trajectory: on a CPU with AVX-512, a paper-scale build without the pin differs from the
canonical run in hundreds of values (docs/running.md); with it, in none.

:func:`pin` (called when the package is imported, so before NumPy in every process of the
pipeline, and inherited by the processes those start) sets

- ``NPY_DISABLE_CPU_FEATURES``: NumPy's dispatch targets above AVX2 (x86-64-v3), under their
  names in NumPy 2.4 and in earlier releases (NumPy ignores names it does not know);
- ``OPENBLAS_CORETYPE=Haswell`` (OpenBLAS's AVX2 kernels), only on a CPU that has AVX2 and FMA.

A variable the user has set is left as it is, and ``DPBANDITS_NATIVE_SIMD=1`` skips the pin
(faster on AVX-512 machines, different numbers). CPUs without AVX2, and other architectures
(arm64), take other code paths again: there the numbers agree with the canonical run only to
rounding (``make verify RTOL=1e-6``, and trajectories may still part).
"""

from __future__ import annotations

import os

#: NumPy's dispatch targets above AVX2: 2.4's names first, then the AVX-512 names of 1.2x-2.3.
NUMPY_ABOVE_AVX2 = (
    "X86_V4", "AVX512_ICL", "AVX512_SPR", "AVX512F", "AVX512CD", "AVX512_KNL", "AVX512_KNM",
    "AVX512_SKX", "AVX512_CLX", "AVX512_CNL", "AVX512_FP16",
)  # fmt: skip

#: OpenBLAS's kernels for AVX2 with FMA (its ``Haswell`` core type, Intel's and AMD's alike).
OPENBLAS_CORE = "Haswell"

#: Set to 1 to keep NumPy's and OpenBLAS's own choice of instructions.
OPT_OUT = "DPBANDITS_NATIVE_SIMD"


def _cpu_flags() -> set[str]:
    """The CPU's feature flags from ``/proc/cpuinfo`` (empty where there is none)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def pinned_environment(flags: set[str] | None = None) -> dict[str, str]:
    """The variables :func:`pin` sets on a CPU with these feature flags (default: this one's).

    Empty unless the CPU has AVX2 and FMA (x86-64 with ``/proc/cpuinfo``).
    """
    flags = _cpu_flags() if flags is None else flags
    if not {"avx2", "fma"} <= flags:
        return {}
    return {
        "NPY_DISABLE_CPU_FEATURES": " ".join(NUMPY_ABOVE_AVX2),
        "OPENBLAS_CORETYPE": OPENBLAS_CORE,
    }


def pin(environ: dict | None = None) -> dict[str, str]:
    """Set :func:`pinned_environment`'s variables in ``environ`` (default ``os.environ``) where
    they are unset, unless ``DPBANDITS_NATIVE_SIMD=1``; return what was set.

    Takes effect in a process only if NumPy (and OpenBLAS) is imported after it; child processes
    inherit it.
    """
    environ = os.environ if environ is None else environ
    if environ.get(OPT_OUT) == "1":
        return {}
    wanted = {k: v for k, v in pinned_environment().items() if k not in environ}
    environ.update(wanted)
    return wanted


def numpy_dispatch_above_avx2() -> list[str]:
    """NumPy's dispatch targets above AVX2 that this process uses (empty when pinned, or on a CPU
    without AVX-512). Imports NumPy."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    return [f for f in __cpu_dispatch__ if f in NUMPY_ABOVE_AVX2 and __cpu_features__.get(f)]


def openblas_core_types() -> list[str]:
    """The core type of every OpenBLAS loaded in this process (NumPy's, SciPy's), by
    threadpoolctl. Imports NumPy, SciPy's BLAS and threadpoolctl."""
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401
    import threadpoolctl

    return sorted(
        str(i.get("architecture"))
        for i in threadpoolctl.threadpool_info()
        if i.get("internal_api") == "openblas"
    )
