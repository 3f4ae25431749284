"""Batch schedules and sweep grids: a schedule's batch size at a horizon (a power of ``T``
rounded to a divisor of ``T``) and the members of a grid.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction


def grid_members(schedule: str, series) -> list[str]:
    """The series of gap grid ``schedule`` among ``series`` names, largest gap first (the names
    :func:`grid_series` gives them)."""
    found = {
        int(m.group(1)): s
        for s in series
        if (m := re.fullmatch(rf"{re.escape(schedule)}_g(\d+)", s))
    }
    return [found[k] for k in sorted(found)]


def grid_series(schedule: str, grid) -> list[tuple[str, float]]:
    """The series of a schedule's gap grid: ``(<schedule>_g<k>, gap_scale)``, ``k = 1, 2, ...``
    from the largest gap scale to the smallest."""
    return [(f"{schedule}_g{k}", float(g)) for k, g in enumerate(sorted(grid, reverse=True), 1)]


def parse_power(text: str) -> Fraction:
    """``"3/5"`` -> ``Fraction(3, 5)``."""
    return Fraction(text)


def nearest_divisor(T: int, target: float) -> int:
    """The divisor of ``T`` closest to ``target`` (the smaller one on ties)."""
    small = [k for k in range(1, math.isqrt(T) + 1) if T % k == 0]
    divisors = {*small, *(T // k for k in small)}
    return min(divisors, key=lambda k: (abs(k - target), k))


def resolve_schedule(entry: dict, T: int) -> tuple[int, dict]:
    """Batch size and options of a sweep schedule at horizon ``T``.

    ``B: int`` as given; ``B: {power: p}`` the divisor of ``T`` nearest ``T^p``;
    ``M: {power: p}`` the number of batches, the divisor of ``T`` nearest ``T^p``, so
    ``B = T / M``; option ``M0: {power: p}`` is ``round(T^p)``; ``explore: {power: a, scale: c}``
    (explore-then-commit) the option ``explore = ceil(c T^a)`` (``c`` 1 unless given).

    Raises ``ValueError`` for an ``explore`` power outside ``(0, 1]``.
    """
    B = 1
    if isinstance(entry.get("B"), int):
        B = entry["B"]
    elif "B" in entry:
        B = nearest_divisor(T, T ** float(parse_power(entry["B"]["power"])))
    if "M" in entry:
        B = T // nearest_divisor(T, T ** float(parse_power(entry["M"]["power"])))
    options = dict(entry.get("options", {}))
    if isinstance(options.get("M0"), dict):
        options["M0"] = max(1, round(T ** float(parse_power(options["M0"]["power"]))))
    if "explore" in entry:
        from ..policies.etc import explore_rounds

        power = parse_power(entry["explore"]["power"])
        if not 0 < power <= 1:
            raise ValueError(f"explore.power = {str(power)!r}: allowed a fraction in (0, 1]")
        options["explore"] = explore_rounds(T, float(power), entry["explore"].get("scale", 1.0))
    return B, options
