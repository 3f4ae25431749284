"""dpbandits: seeded, vectorised reproductions of differentially private linear bandits.

Modules
-------
envs        instance generators and reward tables
mechanisms  privacy mechanisms with their calibration functions
policies    the algorithms (calibrations, refresh schedules, noise schemes)
engine      the fast, trial-vectorised simulator
reference   a slow per-trial loop that pins the engine down in tests
audit       claim checks on simulated data
io          the parquet schema
cpu         the same numbers on every x86-64 CPU (NumPy's and OpenBLAS's instruction sets)
"""

from importlib.metadata import PackageNotFoundError, version

from dpbandits.runtime import cpu

# Before NumPy is imported: the same vector instructions on every x86-64 CPU with AVX2, so the
# same numbers (dpbandits.runtime.cpu; DPBANDITS_NATIVE_SIMD=1 opts out).
cpu.pin()

try:
    __version__ = version("dpbandits")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0+unknown"
