"""The disk cache of the shuffle protocols' part certificates: a matched calibration's search in
one job and the privacy row at its result in another share them."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

#: Certificates of the shuffle protocols' parts already computed, on disk (relative to the working
#: directory, beside the workflow's parse caches): a matched calibration's search in one job and
#: the privacy row at its result in another share them. Keyed by the code of the modules that
#: compute them (shuffle_release, every_part and what they import): an edit computes them again.
PART_CACHE = Path(".snakemake") / "shuffle-certificates.json"

_PARTS: dict[str, float] = {}


@functools.cache
def _part_code() -> str:
    from ..fingerprint import fingerprint

    here = Path(__file__).parent
    return fingerprint(str(here / "shuffle_release.py"), str(here / "every_part.py"))


def cached_part(text: str, compute) -> float:
    """The certificate named ``text`` (everything it depends on but the code), from this process,
    from :data:`PART_CACHE`, or ``compute()`` (then kept for :func:`flush_part_cache`)."""
    name = hashlib.sha256(f"{_part_code()}|{text}".encode()).hexdigest()
    if name not in _PARTS:
        from dpbandits.runtime.atomic_files import changed_json_cache

        _PARTS.update(changed_json_cache(PART_CACHE))
    if name in _PARTS:
        return float(_PARTS[name])
    value = float(compute())
    _PARTS[name] = value
    _NEW[name] = value
    return value


#: Certificates computed in this process and not yet in :data:`PART_CACHE`.
_NEW: dict[str, float] = {}


def flush_part_cache() -> None:
    """Add this process's new part certificates to :data:`PART_CACHE` (best effort: a failed or
    concurrent write loses entries of the cache only). Called after each whole certificate and
    after each matched search."""
    from dpbandits.runtime.atomic_files import merge_json_cache

    if _NEW and merge_json_cache(PART_CACHE, _NEW):
        _NEW.clear()
