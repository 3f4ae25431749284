"""Two steps of dp-accounting's privacy loss distributions, done with arrays.

dp-accounting (``dp_accounting.pld``) runs two steps as Python loops over outcomes or loss
buckets; for the shuffle protocols' count distributions, composed over their coordinates, they
were most of the privacy audit's time (docs/performance.md). This module does them with arrays
or a compiled loop and gives the same numbers:

* :func:`rounded_loss_pmf`: the rounded privacy-loss pmf of a pair of discrete distributions
  (``from_two_probability_mass_functions``' helper); the result goes to the library's own
  ``PrivacyLossDistribution.create_from_rounded_probability``. Every mass is the same ``exp`` of
  the same log (compiled calls of the C library's ``exp`` and ``log``, which Python's ``math``
  calls too; NumPy's SIMD versions may differ in the last bit on some CPUs), every sum adds the
  same terms in the same order (the library's dict insertion order: outcomes in the order of
  the lower distribution, privacy-loss values and their rounded buckets in order of first
  appearance, each sum accumulated in that order by a compiled loop), and the buckets come out
  in the same order. A pair whose composition will need a dense pmf gets it at once
  (:func:`from_rounded_arrays`): the array the dict would have been placed into.
* :func:`epsilon_for_delta`: ``PrivacyLossDistribution.get_epsilon_for_delta``, whose dense
  case walks every bucket from the largest loss down in Python; here the same walk, compiled,
  with the same running sums and the same loss values (the library steps them by repeated
  addition, as ``itertools.count`` does).

* :func:`from_rounded` and :func:`self_compose`: ``create_from_rounded_probability`` (not
  symmetric) and ``self_compose``, whose dense pmfs are built from a dict by a Python loop and
  whose truncation bounds (Chernoff bounds at 40 orders, ``common.compute_self_convolve_bounds``)
  take a ``scipy.special.logsumexp`` over every bucket per order: here the dense pmf is placed
  with arrays (the same values) and the log moment generating functions are one compiled pass
  per order over the positive masses. Those are summed in another order than NumPy's pairwise
  sum, so a log moment generating function may differ in its last bits; the bounds are the
  integers ``ceil``/``floor`` of ``(count log_mgf + log(2 / tail)) / order``, which such a
  difference moves only where that value is within about 1e-12 of an integer. The tests find
  the same bounds as the library's on many pmfs; the composition itself is the library's
  arithmetic (the same FFT calls on the same arrays).

* :func:`compose`: ``PrivacyLossDistribution.compose``, whose tail truncation finds the
  prefix and suffix of negligible mass by a Python loop over the buckets (most of a composed
  shuffle certificate's time): here a cumulative sum, which adds the same terms in the same
  order; a sparse pmf becomes dense with :func:`_dense_pmf`. The convolution is the library's
  (``scipy.signal.fftconvolve`` of the same arrays).

The tests compare all of them with the library's functions on many pairs, exactly; a
dp-accounting release that changes these internals fails them.
"""

from __future__ import annotations

import collections
import math
from collections.abc import Mapping

import numpy as np
from numba import njit


@njit(cache=True)
def _libm(x, exp):
    """``math.exp`` (``exp`` true) or ``math.log`` of every entry, compiled (the C library's
    functions, which Python's ``math`` calls too)."""
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = math.exp(x[i]) if exp else math.log(x[i])
    return out


def log_support(m) -> tuple[np.ndarray, np.ndarray]:
    """Outcomes with positive mass and the log of their mass, in iteration order (a dict's
    order, the array's index order, or the order of an ``(outcomes, probabilities)`` pair of
    arrays): the arrays of the dicts ``{k: math.log(v) for k, v in items if v > 0}`` that
    dp-accounting's constructor takes."""
    if isinstance(m, tuple):
        keys, vals = np.asarray(m[0], dtype=np.int64), np.asarray(m[1], dtype=float)
    elif isinstance(m, Mapping):
        keys = np.fromiter(m.keys(), dtype=np.int64, count=len(m))
        vals = np.fromiter(m.values(), dtype=float, count=len(m))
    else:
        vals = np.asarray(m, float)
        keys = np.arange(vals.shape[0], dtype=np.int64)
    keep = vals > 0
    return keys[keep], _libm(vals[keep], False)


@njit(cache=True)
def _first_appearance(values):
    """Group id of every element of ``values`` (groups numbered by first appearance; elements
    equal as numbers share one, so ``-0.0`` joins ``0.0``) and each group's first element's
    index: what :func:`numpy.unique` with a stable sort finds, compiled."""
    n = values.shape[0]
    rising = falling = True
    for i in range(1, n):
        if values[i] != values[i]:  # NaN: no order
            rising = falling = False
            break
        if values[i] < values[i - 1]:
            rising = False
        elif values[i] > values[i - 1]:
            falling = False
    if rising or falling:  # monotone (a shifted binomial's losses): equal values are runs
        gid = np.empty(n, dtype=np.int64)
        head = np.empty(n, dtype=np.int64)
        groups = 0
        for i in range(n):
            if i == 0 or values[i] != values[i - 1]:
                head[groups] = i
                groups += 1
            gid[i] = groups - 1
        return gid, head[:groups]
    order = np.argsort(values, kind="mergesort")
    first = np.empty(n, dtype=np.int64)  # per element: the first index of its value
    start = 0
    for j in range(n):
        if j > 0 and values[order[j]] != values[order[j - 1]]:
            start = j
        first[order[j]] = order[start]
    gid = np.empty(n, dtype=np.int64)
    head = np.empty(n, dtype=np.int64)
    groups = 0
    for i in range(n):
        if first[i] == i:
            gid[i] = groups
            head[groups] = i
            groups += 1
        else:
            gid[i] = gid[first[i]]
    return gid, head[:groups]


@njit(cache=True)
def _increasing(keys):
    """Whether ``keys`` is strictly increasing."""
    for i in range(1, keys.shape[0]):
        if not keys[i] > keys[i - 1]:
            return False
    return True


@njit(cache=True)
def _rounded_arrays(keys_lo, log_lo, keys_up, log_up, interval, pessimistic):
    """The arrays of :func:`rounded_loss_pmf`, compiled: ``(has_only_up, infinity_mass,
    has_only_lo, bucket_keys, bucket_masses)``, the buckets in order of first appearance."""
    n_up, n_lo = keys_up.shape[0], keys_lo.shape[0]
    if _increasing(keys_up):  # count arrays are: no sort needed
        order = np.arange(n_up)
        sorted_up = keys_up
    else:
        order = np.argsort(keys_up, kind="mergesort")
        sorted_up = keys_up[order]
    # outcomes of `upper` only (infinite loss), summed in `upper`'s order
    sorted_lo = keys_lo if _increasing(keys_lo) else np.sort(keys_lo)
    infinity_mass = 0.0
    has_only_up = False
    for i in range(n_up):
        pos = np.searchsorted(sorted_lo, keys_up[i])
        if pos < n_lo and sorted_lo[pos] == keys_up[i]:
            continue
        mass = math.exp(log_up[i])
        infinity_mass = mass if not has_only_up else infinity_mass + mass
        has_only_up = True
    # outcomes of both, in `lower`'s order
    loss = np.empty(n_lo)
    mass = np.empty(n_lo)
    m = 0
    for i in range(n_lo):
        if n_up == 0:
            break
        pos = min(np.searchsorted(sorted_up, keys_lo[i]), n_up - 1)
        if sorted_up[pos] == keys_lo[i]:
            j = order[pos]
            loss[m] = log_up[j] - log_lo[i]
            mass[m] = math.exp(log_up[j])
            m += 1
    has_only_lo = m < n_lo
    loss, mass = loss[:m], mass[:m]
    gid, head = _first_appearance(loss)
    pmf = np.zeros(head.shape[0])
    for i in range(m):
        pmf[gid[i]] += mass[i]
    bucket = np.empty(head.shape[0], dtype=np.int64)
    for g in range(head.shape[0]):
        x = loss[head[g]] / interval
        bucket[g] = np.int64(np.ceil(x) if pessimistic else np.floor(x))
    bid, bhead = _first_appearance(bucket)
    sums = np.zeros(bhead.shape[0])
    for g in range(head.shape[0]):
        sums[bid[g]] += pmf[g]
    return has_only_up, infinity_mass, has_only_lo, bucket[bhead], sums


def rounded_loss_arrays(
    lower: tuple[np.ndarray, np.ndarray],
    upper: tuple[np.ndarray, np.ndarray],
    interval: float,
    pessimistic: bool = True,
) -> tuple[float, np.ndarray, np.ndarray]:
    """:func:`rounded_loss_pmf` as arrays: ``(infinity_mass, buckets, masses)``, the buckets in
    the order the dict's keys would have."""
    keys_lo, log_lo = lower
    keys_up, log_up = upper
    only_up, mass, only_lo, keys, sums = _rounded_arrays(
        keys_lo, log_lo, keys_up, log_up, float(interval), bool(pessimistic)
    )
    # the library sums exp(log) over `upper`'s own outcomes from the integer 0, and adds
    # exp(-inf) = 0.0 for each outcome of `lower` only
    infinity_mass = mass if only_up else (0.0 if only_lo else 0)
    return infinity_mass, keys, sums


def _as_dict(keys: np.ndarray, sums: np.ndarray) -> collections.defaultdict:
    """The library's rounded pmf: a ``defaultdict`` of ``{bucket: mass}`` in the arrays' order."""
    rounded = collections.defaultdict(lambda: 0)
    rounded.update(zip(keys.tolist(), sums.tolist(), strict=True))
    return rounded


def rounded_loss_pmf(
    lower: tuple[np.ndarray, np.ndarray],
    upper: tuple[np.ndarray, np.ndarray],
    interval: float,
    pessimistic: bool = True,
) -> tuple[float, collections.defaultdict]:
    """``(infinity_mass, rounded_pmf)`` of the privacy loss ``log(upper/lower)`` under ``upper``,
    pessimistic (values rounded up to multiples of ``interval``; ``pessimistic=False``: down, so
    that the epsilon computed from it is a lower bound of the pair's), no truncation: the helper
    ``_create_rounded_probability_mass_function`` of dp-accounting's
    ``from_two_probability_mass_functions`` with ``pessimistic_estimate=pessimistic`` and
    ``log_mass_truncation_bound=-inf``, on :func:`log_support` arrays (compiled:
    :func:`rounded_loss_arrays`)."""
    infinity_mass, keys, sums = rounded_loss_arrays(lower, upper, interval, pessimistic)
    return infinity_mass, _as_dict(keys, sums)


@njit(cache=True)
def _dense_epsilon(infinity_mass, upper_loss, neg_step, reversed_probs, delta):
    """dp-accounting's ``_get_epsilon_for_delta`` on a dense pmf (losses ``upper_loss``,
    ``upper_loss + neg_step``, ... by repeated addition), compiled."""
    if infinity_mass > delta:
        return math.inf
    mass_upper = infinity_mass
    mass_lower = 0.0
    loss = upper_loss
    for i in range(reversed_probs.shape[0]):
        prob = reversed_probs[i]
        if (
            mass_upper > delta
            and mass_lower > 0
            and math.log((mass_upper - delta) / mass_lower) >= loss
        ):
            break
        mass_upper += prob
        mass_lower += math.exp(-loss) * prob
        if mass_upper >= delta and mass_lower == 0:
            return max(0.0, loss)
        loss = loss + neg_step
    if mass_upper <= mass_lower + delta:
        return 0.0
    return math.log((mass_upper - delta) / mass_lower)


def _pmf_epsilon(pmf, delta: float) -> float:
    """Epsilon at ``delta`` of one direction's pmf: compiled for a dense pmf, the library's
    method otherwise (sparse pmfs hold at most 1000 buckets)."""
    from dp_accounting.pld import pld_pmf

    if type(pmf) is not pld_pmf.DensePLDPmf:
        return float(pmf.get_epsilon_for_delta(delta))
    probs = np.ascontiguousarray(np.flip(pmf._probs), dtype=float)
    upper_loss = (pmf._lower_loss + len(pmf._probs) - 1) * pmf._discretization
    return float(
        _dense_epsilon(
            float(pmf._infinity_mass), upper_loss, -pmf._discretization, probs, float(delta)
        )
    )


def epsilon_for_delta(dist, delta: float) -> float:
    """``dist.get_epsilon_for_delta(delta)`` for a dp-accounting ``PrivacyLossDistribution``
    (the larger epsilon of the two directions unless it is symmetric), as a float."""
    eps = _pmf_epsilon(dist._pmf_remove, delta)
    if dist._symmetric:
        return eps
    return max(eps, _pmf_epsilon(dist._pmf_add, delta))


def _create_pmf(loss_probs: Mapping[int, float], interval: float, infinity_mass, pessimistic):
    """dp-accounting's ``pld_pmf.create_pmf``: sparse up to its size limit, else dense, the dense
    array placed from the dict's keys and values (``common.dictionary_to_list``'s values)."""
    from dp_accounting.pld import pld_pmf

    if len(loss_probs) <= pld_pmf._MAX_PMF_SPARSE_SIZE:
        return pld_pmf.SparsePLDPmf(loss_probs, interval, infinity_mass, pessimistic)
    return _dense_pmf(loss_probs, interval, infinity_mass, pessimistic)


def _dense_pmf(loss_probs: Mapping[int, float], interval: float, infinity_mass, pessimistic):
    """``SparsePLDPmf(loss_probs, ...).to_dense_pmf()``, the array placed from the dict's keys
    and values (``common.dictionary_to_list``'s values)."""
    keys = np.fromiter(loss_probs.keys(), dtype=np.int64, count=len(loss_probs))
    vals = np.fromiter(loss_probs.values(), dtype=float, count=len(loss_probs))
    return _dense_from(keys, vals, interval, infinity_mass, pessimistic)


def _dense_from(keys: np.ndarray, vals: np.ndarray, interval: float, infinity_mass, pessimistic):
    """:func:`_dense_pmf` of the dict with keys ``keys`` and values ``vals``."""
    from dp_accounting.pld import pld_pmf

    lower = int(keys.min())
    probs = np.zeros(int(keys.max()) - lower + 1)
    probs[keys - lower] = vals
    return pld_pmf.DensePLDPmf(interval, lower, probs, infinity_mass, pessimistic)


def _create_pmf_from(rounded: tuple, interval: float, pessimistic: bool, count: int):
    """:func:`_create_pmf` of :func:`rounded_loss_arrays`' ``(infinity_mass, buckets, masses)``
    (the dict built only for a sparse pmf), or, where :func:`_self_compose_pmf` would turn that
    sparse pmf dense to compose it ``count`` times, the dense pmf it would build."""
    from dp_accounting.pld import pld_pmf

    infinity_mass, keys, sums = rounded
    size, limit = keys.shape[0], pld_pmf._MAX_PMF_SPARSE_SIZE
    if size <= limit and (count == 1 or size**count <= limit):
        return pld_pmf.SparsePLDPmf(_as_dict(keys, sums), interval, infinity_mass, pessimistic)
    return _dense_from(keys, sums, interval, infinity_mass, pessimistic)


def from_rounded_arrays(
    remove: tuple, add: tuple, interval: float, pessimistic: bool, count: int = 1
):
    """:func:`from_rounded` of two :func:`rounded_loss_arrays` results, ``remove`` and ``add``;
    ``count > 1``: the distribution is to be composed ``count`` times (:func:`self_compose`),
    and a pmf that composition would make dense is built dense (the same numbers)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    return pld.PrivacyLossDistribution(
        _create_pmf_from(remove, interval, pessimistic, count),
        _create_pmf_from(add, interval, pessimistic, count),
    )


def _to_dense(pmf):
    """``pmf.to_dense_pmf()``: a sparse pmf placed with :func:`_dense_pmf`, a dense one itself."""
    from dp_accounting.pld import pld_pmf

    if type(pmf) is pld_pmf.SparsePLDPmf:
        return _dense_pmf(
            pmf._loss_probs, pmf._discretization, pmf._infinity_mass, pmf._pessimistic_estimate
        )
    return pmf.to_dense_pmf()


def from_rounded(remove, infinity_remove, add, infinity_add, interval: float, pessimistic: bool):
    """``PrivacyLossDistribution.create_from_rounded_probability(remove, infinity_remove,
    interval, pessimistic, add, infinity_add, symmetric=False)``: the privacy loss distribution
    of the rounded loss pmfs ``remove`` and ``add`` (``{bucket: mass}``)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    return pld.PrivacyLossDistribution(
        _create_pmf(remove, interval, infinity_remove, pessimistic),
        _create_pmf(add, interval, infinity_add, pessimistic),
    )


@njit(cache=True)
def _log_mgfs(probs, orders):
    """``logsumexp(arange(n) * order, b=probs)`` per order (``scipy.special.logsumexp``'s
    algorithm: the largest exponent's mass ``m`` apart, ``log1p(s / m) + log(m) + a_max``, over
    the positive masses; where that is not finite, ``log(sum(probs exp(arange(n) order)))``, as
    scipy falls back to). The largest exponent ``i order`` of a positive mass is at the last
    such ``i`` for ``order > 0`` and at the first for ``order < 0`` (``i order`` is strictly
    monotone in ``i``: neighbours differ by ``|order|``, far above a rounding)."""
    n = probs.shape[0]
    out = np.empty(orders.shape[0])
    nonzero = np.empty(n, dtype=np.int64)
    count = 0
    for i in range(n):
        if probs[i] != 0.0:
            nonzero[count] = i
            count += 1
    for o in range(orders.shape[0]):
        order = orders[o]
        if count == 0 or order == 0.0:  # no mass; or every exponent 0, the first is largest
            i_max = nonzero[0] if count else -1
        else:
            i_max = nonzero[count - 1] if order > 0 else nonzero[0]
        if i_max < 0:
            out[o] = -math.inf
            continue
        a_max = i_max * order
        m = probs[i_max]
        s = 0.0
        for c in range(count):
            i = nonzero[c]
            if i != i_max:
                s += probs[i] * math.exp(i * order - a_max)
        if s != 0.0:
            s = s / m
        out[o] = math.log1p(s) + math.log(m) + a_max
        if not math.isfinite(out[o]):  # e.g. a subnormal m: the plain log of the sum
            total = 0.0
            for i in range(n):
                total += probs[i] * math.exp(i * order)
            out[o] = math.log(total)
    return out


def self_convolve_bounds(probs: np.ndarray, count: int, tail_mass_truncation: float):
    """dp-accounting's ``common.compute_self_convolve_bounds(probs, count,
    tail_mass_truncation)`` with its default orders: the range of the ``count``-fold convolution
    of ``probs`` outside which at most ``tail_mass_truncation`` lies (Chernoff bounds)."""
    n = len(probs)
    upper, lower = (n - 1) * count, 0
    if tail_mass_truncation == 0:
        return lower, upper
    orders = np.concatenate((np.arange(-20, 0), np.arange(1, 21))) / n
    log_mgfs = _log_mgfs(np.ascontiguousarray(probs, dtype=float), orders)
    lower, upper = _chernoff_range(
        orders, log_mgfs, float(count), math.log(2 / tail_mass_truncation), upper
    )
    return int(lower), int(upper)


@njit(cache=True)
def _chernoff_range(orders, log_mgfs, count, log_two_over_tail, upper):
    """The loop of ``compute_self_convolve_bounds`` over the orders, compiled: the smallest
    ``ceil`` of the positive orders' bounds ``(count log_mgf + log(2 / tail)) / order`` (at
    most ``upper``) and the largest ``floor`` of the negative orders' (at least 0); bounds that
    are not finite are skipped."""
    lo, hi = 0.0, float(upper)
    for o in range(orders.shape[0]):
        order = orders[o]
        bound = (count * log_mgfs[o] + log_two_over_tail) / order
        if not math.isfinite(bound):
            continue
        if order > 0:
            hi = min(hi, np.ceil(bound))
        else:
            lo = max(lo, np.floor(bound))
    return lo, hi


def _self_compose_pmf(pmf, count: int, tail_mass_truncation: float):
    """``pmf.self_compose(count, tail_mass_truncation)`` of one direction: the library's own for
    a sparse pmf that stays sparse, else the dense case (``common.self_convolve``) with
    :func:`self_convolve_bounds`."""
    from dp_accounting.pld import pld_pmf
    from scipy import fft

    if type(pmf) is pld_pmf.SparsePLDPmf:
        if count == 1 or pmf.size**count <= pld_pmf._MAX_PMF_SPARSE_SIZE:
            return pmf.self_compose(count, tail_mass_truncation)
        pmf = _to_dense(pmf)
    elif type(pmf) is not pld_pmf.DensePLDPmf:
        return pmf.self_compose(count, tail_mass_truncation)
    probs = pmf._probs
    lower, upper = self_convolve_bounds(probs, count, tail_mass_truncation)
    length = upper - lower + 1
    fast = fft.next_fast_len(max(length, len(probs)))
    convolved = np.real(fft.ifft(fft.fft(probs, fast) ** count))
    out = np.array(np.roll(convolved, -lower)[:length])
    infinity = tail_mass_truncation - math.expm1(count * math.log1p(-pmf._infinity_mass))
    return pld_pmf.DensePLDPmf(
        pmf._discretization, pmf._lower_loss * count + lower, out, infinity,
        pmf._pessimistic_estimate,
    )  # fmt: skip


def self_compose(dist, count: int, tail_mass_truncation: float = 1e-15):
    """``dist.self_compose(count)`` of a dp-accounting ``PrivacyLossDistribution`` (``count``
    >= 1; the library's default truncation of ``1e-15``, added to the infinite loss)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    if count < 1:
        raise ValueError(f"count should be >= 1, count={count}")
    remove = _self_compose_pmf(dist._pmf_remove, count, tail_mass_truncation)
    if dist._symmetric:
        return pld.PrivacyLossDistribution(remove)
    return pld.PrivacyLossDistribution(
        remove, _self_compose_pmf(dist._pmf_add, count, tail_mass_truncation)
    )


def _prefix_within(probs: np.ndarray, threshold: float) -> int:
    """dp-accounting's ``_find_prefix_to_truncate``: the index of the first bucket at which the
    running sum of ``probs`` (left to right) exceeds ``threshold``, or ``len(probs)``. A
    cumulative sum adds the same terms in the same order as the library's loop."""
    over = np.cumsum(probs) > threshold
    first = int(np.argmax(over)) if over.size else 0
    return first if over.size and over[first] else len(probs)


def _truncate_tails(probs: np.ndarray, tail_mass_truncation: float, pessimistic: bool):
    """dp-accounting's ``pld_pmf._truncate_tails`` with :func:`_prefix_within`: the offset of
    the kept buckets, the kept buckets (a truncated tail's mass added to the first, pessimistic,
    or last kept bucket) and the mass that goes to infinite loss."""
    if tail_mass_truncation == 0:
        return 0, probs, 0
    left = _prefix_within(probs, tail_mass_truncation / 2)
    right = max(len(probs) - _prefix_within(np.flip(probs), tail_mass_truncation / 2), left + 1)
    left_mass, right_mass = np.sum(probs[:left]), np.sum(probs[right:])
    kept = probs[left:right]
    if pessimistic:
        kept[0] += left_mass  # (an empty pmf fails here, with the library's IndexError)
        return left, kept, right_mass
    kept[-1] += right_mass
    return left, kept, 0


def _compose_pmfs(pmf1, pmf2, tail_mass_truncation: float):
    """``pld_pmf.compose_pmfs(pmf1, pmf2, tail_mass_truncation)``: the library's own for two
    sparse pmfs that stay sparse, else the dense composition with :func:`_truncate_tails`."""
    from dp_accounting.pld import pld_pmf
    from scipy import signal

    sparse = pld_pmf.SparsePLDPmf
    if type(pmf1) is sparse and type(pmf2) is sparse:
        if pmf1.size * pmf2.size <= pld_pmf._MAX_PMF_SPARSE_SIZE:
            return pmf1.compose(pmf2, tail_mass_truncation)
    one, two = _to_dense(pmf1), _to_dense(pmf2)
    one.validate_composable(two)
    probs = signal.fftconvolve(one._probs, two._probs)
    infinity = one._infinity_mass + two._infinity_mass - one._infinity_mass * two._infinity_mass
    offset, probs, right_tail = _truncate_tails(
        probs, tail_mass_truncation, one._pessimistic_estimate
    )
    return pld_pmf.DensePLDPmf(
        one._discretization, one._lower_loss + two._lower_loss + offset, probs,
        infinity + right_tail, one._pessimistic_estimate,
    )  # fmt: skip


def compose(dist, other, tail_mass_truncation: float = 1e-15):
    """``dist.compose(other, tail_mass_truncation)`` of two dp-accounting
    ``PrivacyLossDistribution`` objects with the same discretization and estimate type (the
    library's default truncation of ``1e-15``)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    remove = _compose_pmfs(dist._pmf_remove, other._pmf_remove, tail_mass_truncation)
    if dist._symmetric and other._symmetric:
        return pld.PrivacyLossDistribution(remove)
    add = _compose_pmfs(dist._pmf_add, other._pmf_add, tail_mass_truncation)
    return pld.PrivacyLossDistribution(remove, add)
