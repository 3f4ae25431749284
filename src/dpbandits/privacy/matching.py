"""Matched calibration: the noise at which a calibration delivers its label.

A calibration maps a privacy level ``(epsilon, delta)`` to a noise level (a Gaussian sigma, the
tree's node noise, P_Vec's precision, bits and binomial trials, DP-DPE's zCDP rho, ...). The
paper's map is often loose or wrong: the noise it prescribes for ``epsilon`` delivers some other
epsilon (docs/audit/matched.md). The *matched* calibration keeps the paper's map and the algorithm,
and evaluates the map at an *internal* epsilon chosen so that the accountant's certified upper
bound at the cell's delta equals the target epsilon within :data:`TOLERANCE` (from below):

``(1 - TOLERANCE) target <= delivered(internal) <= target``.

Every knob of the mechanism moves together, as the paper's map moves it, and the learning
constants that the map derives from the noise (e.g. the confidence width) follow. The search
(:func:`match`) is a bracketing search on the internal epsilon, followed by bisection in log
space; it needs ``delivered`` to be non-decreasing in the internal epsilon (less noise never
delivers more privacy), and certifies its result by evaluating ``delivered`` at the returned
point. Where the map's discrete knobs (a binomial protocol's trials ``b`` and precision ``g``)
jump over the band, a second search holds them at the closest level from below and turns the
policy's continuous :attr:`~dpbandits.policies.base.Policy.noise_knob` (the privacy bits'
probability, scaled by ``p_scale`` in (0, 1]) until the certificate is in the band. Some
certificates are discontinuous in every knob: a binomial protocol's certificate at ``delta`` is
at most its largest finite privacy loss while the mass with infinite loss stays below ``delta``,
and infinite once it passes; such a match stays below the band (:attr:`Match.gap`, with the
jump in :attr:`Match.above`). A target no noise level of the map can deliver (a release that is
not private at any noise, such as the authors' JDP stand-in; a certificate that stays above the
target however much noise is added) raises :class:`NotMatchable` with the reason.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from .releases import flush_part_cache

#: Relative tolerance of a match: the certified epsilon lies in ``[(1 - TOLERANCE) target,
#: target]``.
TOLERANCE = 0.01
#: The internal epsilon is searched within ``[target / SPAN, target * SPAN]``.
SPAN = 1e6
#: Most evaluations of ``delivered`` one search makes (bracketing and bisection).
MAX_EVALUATIONS = 80


class NotMatchable(ValueError):
    """No noise level of the calibration's map delivers the target; ``reason`` says why."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Match:
    """The result of :func:`match`.

    Attributes
    ----------
    internal_epsilon : float
        The epsilon at which the calibration's map is evaluated.
    delivered : float
        The certified epsilon at the target's delta of the noise at ``internal_epsilon``.
    target : float
    evaluations : int
        Evaluations of ``delivered`` the search made.
    gap : bool
        True when ``delivered`` jumps over the tolerance band at ``internal_epsilon`` (a
        discrete knob, or a certificate that switches method) and no continuous knob closes
        it: the match is the closest level from below, ``delivered < (1 - TOLERANCE) target``.
    knob : float
        The policy's :attr:`~dpbandits.policies.base.Policy.noise_knob` at the match (1: the
        map's own noise at ``internal_epsilon``).
    above : float or None
        With ``gap``: the certificate just above the jump (``inf``: no finite epsilon, e.g. a
        binomial protocol whose mass with infinite privacy loss passes delta); None otherwise,
        or when no level above the target was reached.
    """

    internal_epsilon: float
    delivered: float
    target: float
    evaluations: int
    gap: bool = False
    knob: float = 1.0
    above: float | None = None

    @property
    def relative_error(self) -> float:
        """``(target - delivered) / target``: in ``[0, TOLERANCE]`` unless ``gap``."""
        return (self.target - self.delivered) / self.target


def match(
    delivered: Callable[[float], float], target: float, tolerance: float = TOLERANCE
) -> Match:
    """The internal epsilon at which ``delivered`` equals ``target`` within ``tolerance``.

    Parameters
    ----------
    delivered : callable
        ``internal_epsilon -> certified epsilon`` (``inf`` where no finite epsilon is
        certified); non-decreasing.
    target : float
        The epsilon to deliver (> 0).
    tolerance : float
        Relative width of the band ``[(1 - tolerance) target, target]``.

    Returns
    -------
    Match

    Raises
    ------
    NotMatchable
        When even ``target / SPAN`` delivers more than ``target``.
    """
    if not (math.isfinite(target) and target > 0):
        raise ValueError(f"target epsilon must be finite and > 0, got {target!r}")
    lo_band, aim = (1.0 - tolerance) * target, (1.0 - tolerance / 2.0) * target
    count = 0
    # the bracket: below delivers <= target, above more (inf: not yet found), with their values
    below, v_below, above, v_above = 0.0, math.nan, math.inf, math.nan

    def next_point(x: float, v: float, prev: tuple[float, float] | None) -> float:
        """A secant step towards ``aim`` in log-log space (slope 1 before two points are
        known), kept strictly inside the bracket (its geometric mean when the step leaves it)."""
        slope = 1.0
        if prev is not None and 0 < prev[1] < math.inf and 0 < v < math.inf and prev[0] != x:
            slope = math.log(v / prev[1]) / math.log(x / prev[0])
            slope = min(max(slope, 0.1), 10.0)
        if 0 < v < math.inf:
            step = math.exp(math.log(aim / v) / slope)
        else:
            step = 1.0 / 16.0
        y = x * min(max(step, 1.0 / 16.0), 16.0)
        if not below < y < above:
            if below > 0 and above < math.inf:
                y = math.sqrt(below * above)
            elif below > 0:
                y = below * 16.0
            else:
                y = above / 16.0
        return y

    x, prev = target, None
    while count < MAX_EVALUATIONS:
        if not target / SPAN <= x <= target * SPAN:
            break
        v = float(delivered(x))
        count += 1
        if math.isnan(v):
            raise ValueError(f"the certified epsilon at internal epsilon {x:.4g} is NaN")
        if lo_band <= v <= target:
            return Match(x, v, target, count)
        if v <= target:
            below, v_below = x, v
        else:
            above, v_above = x, v
        if below > 0 and above < math.inf and above / below <= 1.0 + 1e-6:
            break
        prev, x = (x, v), next_point(x, v, prev)
    if below == 0.0:
        raise NotMatchable(
            f"no noise level of the calibration delivers epsilon {target:g}: at internal epsilon "
            f"{above:.3g} (noise about {target / above:.3g} times the label's) the certified "
            f"epsilon is still {v_above:.4g}"
        )
    above_value = None if math.isnan(v_above) else v_above
    return Match(below, v_below, target, count, gap=True, above=above_value)


#: The calibration name of a matched cell (config/experiments/<prefix>.yaml), and the
#: calibration whose map it evaluates at the internal epsilon: the one that drew the figures.
#: ``matched:<base>`` evaluates another calibration's map (the arena: ``matched:zcdp`` for op24's
#: algorithms).
MATCHED = "matched"
BASE = "experiment"


def is_matched(calibration: str) -> bool:
    """Whether a cell's calibration is a matched one (``matched`` or ``matched:<base>``)."""
    return calibration.partition(":")[0] == MATCHED


def matched_base(calibration: str) -> str:
    """The calibration whose map a matched calibration evaluates (:data:`BASE` by default)."""
    return calibration.partition(":")[2] or BASE


def matched_name(base: str) -> str:
    """The matched calibration that evaluates ``base``'s map (inverse of :func:`matched_base`)."""
    return MATCHED if base == BASE else f"{MATCHED}:{base}"


#: Searches already made, by :func:`_search_key`: in this process, and on disk (relative to the
#: working directory, beside the workflow's other parse caches) so that a workflow parse, and
#: every job's, does not repeat them. The key holds the code of the accounting and the policies:
#: an edit of either searches again.
_CACHE: dict[str, dict] = {}
DISK_CACHE = Path(".snakemake") / "matched-calibrations.json"


def _search_key(cell) -> str:
    from ..fingerprint import PACKAGE, fingerprint
    from .cell_releases import cell_accounting_key

    # the search itself, the releases and accountant it calls, and the policies' maps
    code = fingerprint(str(Path(__file__).resolve()), str(PACKAGE / "policies" / "__init__.py"))
    text = f"{code}|{TOLERANCE}|{SPAN}|{cell_accounting_key(cell)}"
    return hashlib.sha256(text.encode()).hexdigest()


def _disk() -> dict:
    from dpbandits.runtime.atomic_files import changed_json_cache

    return changed_json_cache(DISK_CACHE)


def _remember(key: str, entry: dict) -> None:
    """Add one search to the disk cache (best effort: a failed write loses the entry only)."""
    from dpbandits.runtime.atomic_files import merge_json_cache

    merge_json_cache(DISK_CACHE, {key: entry})


def matched_policy(cell, build: Callable[[float], object], search: bool = True):
    """The policy of a matched cell: ``build(internal_epsilon)`` (the base calibration's policy,
    :func:`matched_base`) at the internal epsilon
    whose certified epsilon (under the cell's instances, at its delta: the ``delivered_epsilon``
    of its row in ``privacy.csv``) matches the cell's epsilon.

    Parameters
    ----------
    cell : dpbandits.config.Cell
        A cell with a matched calibration (:func:`is_matched`).
    build : callable
        ``(epsilon, **options) -> Policy``: the cell's policy under its base calibration at
        another epsilon (``options``: its noise knob, where the search turns it).
    search : bool
        False: check only that the cell can be matched (its release is private and certified at
        the label) and return the policy at the label, whose shapes and sizes are the matched
        one's (what a workflow parse needs; the search runs in the jobs that use the noise).

    Returns
    -------
    Policy
        With ``match`` (a :class:`Match`; None for a non-private policy or without ``search``)
        and, after a search, the constant ``internal_epsilon``.

    Raises
    ------
    NotMatchable
        Naming the series and why no noise level delivers the cell's epsilon.

    Searches are cached by everything the accounting depends on (the cell without its place),
    in this process and in :data:`DISK_CACHE`.
    """
    from .cell_releases import cell_release

    plain = build(cell.epsilon)
    plain.match = None
    if not plain.private:
        return plain
    if not search:
        release = cell_release(cell, plain)[0]
        if not release.private or not release.certified:
            raise NotMatchable(
                f"{cell.series} ({cell.algorithm}) cannot be matched: {_why(release)}"
            )
        return plain
    key = _search_key(cell)
    if key not in _CACHE:
        _CACHE.update(_disk())
    if key not in _CACHE:
        try:
            entry = asdict(_search(cell, build))
        except NotMatchable as err:
            entry = {"reason": err.reason}
        finally:
            flush_part_cache()
        _CACHE[key] = entry
        _remember(key, entry)
    entry = _CACHE[key]
    if "reason" in entry:
        raise NotMatchable(f"{cell.series} ({cell.algorithm}) cannot be matched: {entry['reason']}")
    found = Match(**entry)
    policy = _at(build, found.internal_epsilon, found.knob, plain.noise_knob)
    policy.match = found
    policy.consts = {**policy.consts, "internal_epsilon": found.internal_epsilon}
    if found.knob != 1.0:
        policy.consts[policy.noise_knob] = found.knob
    return policy


def _at(build, epsilon: float, knob: float, name: str | None):
    """``build`` at ``epsilon`` with its noise knob ``name`` at ``knob`` (not passed when 1: the
    map's)."""
    return build(epsilon) if knob == 1.0 else build(epsilon, **{name: knob})


def _why(release) -> str:
    if not release.private:
        return f"{release.method or release.mechanism}: no finite epsilon at any noise level"
    return f"the accountant has no certificate for {release.mechanism}"


def _search(cell, build) -> Match:
    """:func:`_search_on` the internal epsilon; after a gap, where the policy has a
    :attr:`~dpbandits.policies.base.Policy.noise_knob`, :func:`_search_on` the knob at the
    gap's level from below: ``p_scale = target / v`` for ``v >= target``, so the certificate is
    non-decreasing in ``v`` (less binomial noise) and ``v = target`` is the level itself."""
    coarse = _search_on(cell, build)
    knob_name = type(build(coarse.internal_epsilon)).noise_knob
    if not coarse.gap or knob_name is None:
        return coarse
    x, target = coarse.internal_epsilon, float(cell.epsilon)

    def knob(v: float) -> float:
        return min(1.0, target / v)

    fine = _search_on(cell, lambda v: _at(build, x, knob(v), knob_name))
    return Match(
        x,
        fine.delivered,
        target,
        coarse.evaluations + fine.evaluations,
        fine.gap,
        knob(fine.internal_epsilon),
        fine.above,
    )


def _search_on(cell, build) -> Match:
    """:func:`match` on the certified epsilon of the cell's release, as a function of the one
    argument of ``build``. A release whose certificate
    is the largest of several (``extra["epsilon_parts"]``) is searched on the parts that decided
    it (a lower bound of the certificate, cheaper), then certified whole at the result; where
    another part decides there, it joins and the search goes on. The first deciding part is
    the one that decides the whole certificate at the target, so the result is a function of
    the cell and ``build`` alone (no searches made before it in the process)."""
    from .cell_releases import cell_release
    from .releases import delivered_epsilon

    target, delta = float(cell.epsilon), float(cell.delta)
    deciding: set[str] = set()

    def release_at(eps: float):
        release = cell_release(cell, build(eps))[0]
        if not release.private or not release.certified:
            raise NotMatchable(_why(release))
        return release

    def whole(eps: float) -> tuple[float, list[str]]:
        """The whole certificate at ``eps`` and, for a certificate of parts, the parts that
        exceed the target there, largest first (at least the one that decides it; the parts
        are cached by the accountant: a privacy row at the result, and the whole certificate,
        reuse them)."""
        release = release_at(eps)
        parts = release.extra.get("epsilon_parts")
        if not parts:
            return delivered_epsilon(release, delta)[0], []
        if "worst_parts" in release.extra:  # the certificate with the parts it certified
            value, values = release.extra["worst_parts"](delta)
        else:
            values = {label: f(delta) for label, f in parts.items()}
            value = max(values.values())
        ranked = sorted(values, key=lambda label: -values[label])
        return value, [x for x in ranked if values[x] > target] or ranked[:1]

    def deciding_parts(eps: float) -> float:
        parts = release_at(eps).extra["epsilon_parts"]
        return max(parts[label](delta) for label in deciding)

    value, worst = whole(target)
    if not worst:
        return match(lambda eps: whole(eps)[0], target)
    evaluations = 1
    deciding.update(worst)
    while True:
        found = match(deciding_parts, target)
        evaluations += found.evaluations
        value, worst = whole(found.internal_epsilon)
        evaluations += 1
        if value <= target:
            return replace(found, delivered=value, evaluations=evaluations)
        deciding.update(worst)
