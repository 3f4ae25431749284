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
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("dpbandits")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0+unknown"
