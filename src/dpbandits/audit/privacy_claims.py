"""Privacy claims against the privacy audit: one status per claim of ``kind: privacy``.

Every privacy claim of the registries (``config/claims/<prefix>.yaml``) names, in
``audit.privacy_audit``, the rows of the privacy audit that test it: rows of
``results/<scale>/audit/privacy.csv`` (the delivered epsilon of every privatised series, see
:mod:`dpbandits.audit.privacy`) and of ``privacy_empirical.csv`` (the empirical auditor's lower
bounds, see :mod:`dpbandits.privacy.cases`). A selector is a mapping from column names to a value
or a list of values (a row matches when every named column equals the value, or one of the
listed values; ``nominal_epsilon`` is compared up to ``1e-9`` relative):

* delivered rows: ``experiment`` (required) and any of ``figure``, ``configuration``, ``series``,
  ``algorithm``, ``calibration``, ``mechanism``, ``nominal_epsilon``;
* empirical rows: ``case`` (required), optionally ``represents`` and ``nominal_epsilon``.

An empty list says that no row of either file tests the claim (``audit.none`` says why).
``audit.untested_part`` names the part of a statement the selected rows do not test (the
reason ends with it).

Statuses:

``supported``
    At least one delivered row is selected, every selected delivered row is ``DELIVERED`` (a
    certificate within the label), and no selected empirical lower bound is significantly above
    its nominal epsilon or above the epsilon accounting certifies for the audited pair.
``contradicted``
    Only by a demonstrated violation: a selected delivered row is ``VIOLATED`` (its lower bound
    exceeds the label) or ``NOT-PRIVATE`` (no finite epsilon), or a selected empirical lower
    bound is significantly above its nominal epsilon (the auditor's ``caught``: the lower bound
    holds with probability ``1 - alpha``).
``inconclusive``
    Anything in between: a ``NOT-CERTIFIED`` row (the upper bound exceeds the label, no lower
    bound does), or only empirical rows (a lower bound can refute a claim, never certify it).
Delivered rows outside the conditions of their calibration's statement (``outside_conditions``:
e.g. a theorem's epsilon range) are set aside before the statuses are decided, and the reason
says how many; a claim whose rows all lie outside is ``inconclusive``.

``not audited``
    The claim has no selector. A selector that matches no row is a registry bug and raises.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

COLUMNS = ["claim_id", "status", "delivered_summary", "empirical_summary", "reason"]
STATUSES = ("supported", "contradicted", "inconclusive", "not audited")
#: Columns of ``privacy.csv`` a selector may name (``experiment`` is required).
DELIVERED_KEYS = (
    "experiment",
    "figure",
    "configuration",
    "series",
    "algorithm",
    "calibration",
    "mechanism",
    "nominal_epsilon",
)
#: Columns of ``privacy_empirical.csv`` a selector may name (``case`` is required).
EMPIRICAL_KEYS = ("case", "represents", "nominal_epsilon")
#: Verdicts of :func:`dpbandits.audit.privacy.verdict`: a certificate within the label, a
#: demonstrated violation, and neither.
CERTIFIED_OK = "DELIVERED"
DEMONSTRATED_BAD = ("VIOLATED", "NOT-PRIVATE")
UNDECIDED = ("NOT-CERTIFIED",)


def _fmt(x: float) -> str:
    return "infinite" if math.isinf(x) else f"{x:.3g}"


def _matches(selector: Mapping, table: pd.DataFrame) -> pd.Series:
    mask = pd.Series(True, index=table.index)
    for key, want in selector.items():
        values = list(want) if isinstance(want, list | tuple) else [want]
        col = table[key]
        if key == "nominal_epsilon":
            got = col.to_numpy(dtype=float)
            hit = np.zeros(len(table), dtype=bool)
            for v in values:
                hit |= np.isclose(got, float(v), rtol=1e-9, atol=0.0)
            mask &= hit
        else:
            mask &= col.astype(str).isin([str(v) for v in values])
    return mask


def select_rows(
    claim_id: str, selectors: Iterable[Mapping], delivered: pd.DataFrame, empirical: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows of ``privacy.csv`` and ``privacy_empirical.csv`` a claim's selectors name.

    Parameters
    ----------
    claim_id : str
        For the error messages.
    selectors : iterable of mapping
        The claim's ``audit.privacy_audit``.
    delivered, empirical : pandas.DataFrame
        ``privacy.csv`` and ``privacy_empirical.csv`` (or the rows the audit enumerates).

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        The selected delivered and empirical rows, each row once, in table order.

    Raises
    ------
    ValueError
        A selector names an unknown column, lacks its required key, matches no row, or selects
        a negative control (a deliberately under-noised variant: evidence about the auditor,
        never about a claim).
    """
    d_mask = pd.Series(False, index=delivered.index)
    e_mask = pd.Series(False, index=empirical.index)
    for selector in selectors:
        sel = dict(selector)
        empirical_side = "case" in sel
        keys, table = (EMPIRICAL_KEYS, empirical) if empirical_side else (DELIVERED_KEYS, delivered)
        name = "privacy_empirical.csv" if empirical_side else "privacy.csv"
        unknown = sorted(set(sel) - set(keys))
        if unknown or not (empirical_side or "experiment" in sel):
            raise ValueError(
                f"{claim_id}: privacy_audit selector {sel!r}: a selector of {name} takes "
                f"{', '.join(keys)} ({keys[0]} required); unknown: {', '.join(unknown) or '-'}"
            )
        missing = sorted(set(sel) - set(table.columns))
        if missing:
            raise ValueError(
                f"{claim_id}: privacy_audit selector {sel!r}: {name} has no column "
                f"{', '.join(missing)}"
            )
        hit = _matches(sel, table)
        if not hit.any():
            raise ValueError(
                f"{claim_id}: privacy_audit selector {sel!r} matches no row of {name} "
                "(a registry bug: fix the selector or the claim)"
            )
        if empirical_side:
            if "control" in table.columns and table.loc[hit, "control"].astype(bool).any():
                raise ValueError(
                    f"{claim_id}: privacy_audit selector {sel!r} selects a negative control of "
                    f"{name}; controls test the auditor, not a claim"
                )
            e_mask |= hit
        else:
            d_mask |= hit
    return delivered[d_mask], empirical[e_mask]


def check_selectors(
    claims: Iterable[Mapping],
    identities: pd.DataFrame,
    path: str,
    registered: Iterable[str],
    cases=None,
) -> None:
    """Refuse, while the workflow parses, a privacy claim whose selector would match no row.

    The rule is :func:`select_rows`'s (every named column equal to the value or one of the
    listed values, ``nominal_epsilon`` up to ``1e-9`` relative; no negative control), on plain
    values, so that a registry of a hundred selectors is checked in milliseconds.

    Parameters
    ----------
    claims : iterable of mapping
        A registry's claims (only ``kind: privacy`` ones are read).
    identities : pandas.DataFrame
        The identities of the rows ``privacy.csv`` will hold
        (:func:`dpbandits.audit.privacy.delivered_table` with ``account=False``).
    path : str
        The registry file, for the message.
    registered : iterable of str
        Every registered paper: a selector of a paper this build does not make is left to the
        privacy job (its rows are not enumerated here); one of an unknown paper is refused.
    cases : callable, optional
        Returns the empirical auditor's cases (default
        :func:`dpbandits.privacy.cases.all_cases`), called only when a selector names a ``case``.

    Raises
    ------
    ConfigError
        Naming the file, the key path, the selector and what the rows offer.
    """
    from ..config import ConfigError

    delivered = identities.to_dict("records")
    built = {r["experiment"] for r in delivered}
    registered = set(registered)
    empirical = None
    problems = []
    for i, claim in enumerate(claims):
        if claim.get("kind") != "privacy":
            continue
        for j, selector in enumerate(claim.get("audit", {}).get("privacy_audit") or []):
            sel = dict(selector)
            where = f"claims.{i}.audit.privacy_audit.{j} = {sel!r}"
            if "case" in sel:
                if empirical is None:
                    empirical = [
                        {"case": c.name, "represents": c.represents,
                         "nominal_epsilon": c.nominal, "control": c.control}
                        for c in (cases or _all_cases)()
                    ]  # fmt: skip
                rows, name = empirical, "the empirical auditor's cases"
            else:
                wanted = set(_values(sel["experiment"]))
                unknown = sorted(wanted - registered)
                if unknown:
                    problems.append(
                        f"{where}: experiment {', '.join(unknown)} is not a registered paper; "
                        f"allowed: {', '.join(sorted(registered))}"
                    )
                    continue
                if not wanted <= built:
                    continue  # a paper this build does not make: the privacy job decides
                rows, name = delivered, "the privacy audit's rows"
            hit = [r for r in rows if _row_matches(sel, r)]
            if not hit:
                problems.append(f"{where}: matches none of {name}; {_offer(sel, rows)}")
            elif any(r.get("control") for r in hit):
                problems.append(
                    f"{where}: selects a negative control; controls test the auditor, not a claim"
                )
    if problems:
        raise ConfigError(
            f"{path}: privacy claims select rows the privacy audit does not have\n  "
            + "\n  ".join(problems)
        )


def _values(want) -> list:
    return list(want) if isinstance(want, list | tuple) else [want]


def _row_matches(sel: Mapping, row: Mapping) -> bool:
    """:func:`_matches` for one row of plain values."""
    for key, want in sel.items():
        got = row.get(key)
        if key == "nominal_epsilon":
            if not any(math.isclose(float(got), float(v), rel_tol=1e-9) for v in _values(want)):
                return False
        elif str(got) not in {str(v) for v in _values(want)}:
            return False
    return True


@functools.cache
def _all_cases() -> tuple:
    """The empirical auditor's cases, built once per process (their accounting stays lazy)."""
    from ..privacy.cases import all_cases

    return tuple(all_cases())


def _offer(sel: Mapping, rows: list[dict]) -> str:
    """What the rows offer for the first key of ``sel`` that matches nothing on its own (the
    keys before it held): e.g. the series of the selected experiment."""
    keys = list(sel)
    for k, key in enumerate(keys):
        held = {q: sel[q] for q in keys[:k]}
        scope = [r for r in rows if _row_matches(held, r)]
        if not any(_row_matches({key: sel[key]}, r) for r in scope):
            values = sorted({str(r.get(key)) for r in scope})
            shown = ", ".join(values[:12])
            more = f", ... ({len(values)} values)" if len(values) > 12 else ""
            where = f" where {held}" if held else ""
            return f"{key} allowed{where}: {shown}{more}"
    return "no row matches all keys at once"


def _where(row) -> str:
    parts = [row.get("experiment"), row.get("figure"), row.get("configuration"), row.get("series")]
    text = " ".join(str(p) for p in parts if isinstance(p, str) and p)
    calib = row.get("calibration")
    return f"{text} ({calib})" if isinstance(calib, str) and calib else text


def _worst(rows: pd.DataFrame) -> pd.Series:
    """The row furthest above its nominal epsilon (``NOT-PRIVATE`` first)."""
    ratio = rows["delivered_epsilon"].astype(float) / rows["nominal_epsilon"].astype(float)
    return rows.loc[ratio.fillna(-np.inf).idxmax()]


def _lower(row) -> float:
    """The row's lower bound (NaN when the table has none)."""
    v = row.get("lower_epsilon", math.nan)
    return math.nan if v is None or pd.isna(v) else float(v)


def _delivered_summary(rows: pd.DataFrame) -> str:
    if rows.empty:
        return ""
    counts = rows["verdict"].value_counts()
    head = ", ".join(f"{n} {v}" for v, n in counts.items())
    w = _worst(rows)
    return (
        f"{head} of {len(rows)} rows; largest delivered/nominal "
        f"{_fmt(w['delivered_epsilon'])}/{_fmt(w['nominal_epsilon'])}"
    )


def _caught(rows: pd.DataFrame) -> pd.Series:
    if "caught" in rows.columns:
        return rows["caught"].astype(bool)
    return rows["epsilon_lower_bound"].astype(float) > rows["nominal_epsilon"].astype(float)


def _consistent(rows: pd.DataFrame) -> pd.Series:
    """The auditor's own check: lower bound at most the pair's certified epsilon."""
    if "lb_le_delivered" in rows.columns:
        return rows["lb_le_delivered"].astype(bool)
    return rows["epsilon_lower_bound"].astype(float) <= rows["delivered_epsilon"].astype(float)


def _empirical_summary(rows: pd.DataFrame) -> str:
    out = []
    for r, caught in zip(rows.to_dict("records"), _caught(rows), strict=True):
        text = (
            f"{r['case']}: lower bound {_fmt(r['epsilon_lower_bound'])} "
            f"at nominal {_fmt(r['nominal_epsilon'])}"
        )
        if caught:
            alpha = r.get("alpha")
            text += (
                f" (above nominal, valid with probability {1 - alpha:.3g})"
                if isinstance(alpha, float) and not math.isnan(alpha)
                else " (above nominal)"
            )
        out.append(text)
    return "; ".join(out)


def _sentence(parts: list[str]) -> str:
    text = "; ".join(p for p in parts if p)
    return text[:1].upper() + text[1:] + "."


def _status(d: pd.DataFrame, e: pd.DataFrame) -> tuple[str, str]:
    """(status, reason) from the selected rows; delivered rows outside the conditions their
    calibration's statement sets (``outside_conditions``) are set aside: the statement claims
    nothing there, so they neither support nor contradict it."""
    if "outside_conditions" in d.columns:
        out = d["outside_conditions"].fillna("").astype(str) != ""
        aside, d = d[out], d[~out]
        if len(aside):
            first = f"{aside['outside_conditions'].iloc[0]}, in {_where(aside.iloc[0])}"
            if d.empty and e.empty:
                return "inconclusive", _sentence([
                    f"every selected row ({len(aside)}) lies outside the conditions of its "
                    f"calibration's statement ({first}): the statement claims nothing there"
                ])  # fmt: skip
            status, reason = _status(d, e)
            return status, reason[:-1] + (
                f"; {len(aside)} selected row{'s' if len(aside) > 1 else ''} outside the "
                f"conditions of the calibration's statement set aside ({first})."
            )
    verdicts = d["verdict"].astype(str)
    unknown = sorted(set(verdicts) - {CERTIFIED_OK, *DEMONSTRATED_BAD, *UNDECIDED})
    if unknown:
        raise ValueError(f"unknown verdicts in privacy.csv: {', '.join(unknown)}")
    bad = d[verdicts.isin(DEMONSTRATED_BAD)]
    caught = e[_caught(e)]
    if len(bad) or len(caught):
        parts = []
        if len(bad):
            w = _worst(bad)
            if w["verdict"] == "NOT-PRIVATE":
                text = (
                    f"no finite delivered epsilon at nominal {_fmt(w['nominal_epsilon'])} "
                    f"(NOT-PRIVATE) in {_where(w)}"
                )
            else:
                text = (
                    f"lower bound {_fmt(_lower(w))} on epsilon above nominal "
                    f"{_fmt(w['nominal_epsilon'])} (VIOLATED; certified upper bound "
                    f"{_fmt(w['delivered_epsilon'])}) in {_where(w)}"
                )
            if len(d) > 1:
                low = float(bad["nominal_epsilon"].astype(float).min())
                text += f" ({len(bad)} of {len(d)} selected rows fail their nominal epsilon"
                if low < float(w["nominal_epsilon"]):
                    text += f"; the smallest nominal epsilon that fails: {_fmt(low)}"
                text += ")"
            method = w.get("method")
            if isinstance(method, str) and method:
                text += f"; the row's accounting: {method}"
            parts.append(text)
        if len(caught):
            lb = caught["epsilon_lower_bound"].astype(float)
            c = caught.loc[(lb / caught["nominal_epsilon"].astype(float)).idxmax()]
            parts.append(
                f"the empirical lower bound {_fmt(c['epsilon_lower_bound'])} exceeds the nominal "
                f"{_fmt(c['nominal_epsilon'])} in case '{c['case']}'"
            )
        return "contradicted", _sentence(parts)

    parts = []
    ok = d[verdicts == CERTIFIED_OK]
    open_rows = d[verdicts.isin(UNDECIDED)]
    doubtful = e[~_consistent(e)]
    if len(open_rows):
        w = _worst(open_rows)
        lead = (
            f"{len(ok)} selected rows are DELIVERED but {len(open_rows)} NOT-CERTIFIED"
            if len(ok)
            else f"{len(open_rows)} NOT-CERTIFIED row" + ("s" if len(open_rows) > 1 else "")
        )
        low = _lower(w)
        what = (
            f"the certified upper bound {_fmt(w['delivered_epsilon'])} exceeds the nominal "
            f"{_fmt(w['nominal_epsilon'])}"
        )
        parts.append(
            f"{lead}: {what} in {_where(w)} while "
            + (
                "no lower bound is known"
                if math.isnan(low)
                else f"the lower bound {_fmt(low)} does not exceed the nominal"
            )
            + " (the true epsilon may lie on either side)"
        )
    if len(doubtful):
        c = doubtful.iloc[0]
        parts.append(
            f"the empirical lower bound {_fmt(c['epsilon_lower_bound'])} in case '{c['case']}' "
            f"exceeds the {_fmt(c['delivered_epsilon'])} accounting certifies for its pair"
        )
    if d.empty:
        c = e.loc[e["epsilon_lower_bound"].astype(float).idxmax()]
        parts.append(
            f"no delivered-epsilon row, and the empirical lower bound "
            f"{_fmt(c['epsilon_lower_bound'])} at nominal {_fmt(c['nominal_epsilon'])} "
            f"in case '{c['case']}' can refute the claim but never certify it"
        )
    if parts:
        return "inconclusive", _sentence(parts)

    w = _worst(ok)
    head = "the one selected row is" if len(ok) == 1 else f"all {len(ok)} selected rows are"
    text = (
        f"{head} DELIVERED ({'' if len(ok) == 1 else 'largest '}delivered epsilon "
        f"{_fmt(w['delivered_epsilon'])} at nominal {_fmt(w['nominal_epsilon'])} in {_where(w)})"
    )
    if len(e):
        c = e.loc[e["epsilon_lower_bound"].astype(float).idxmax()]
        text += (
            f" and no empirical lower bound exceeds its nominal epsilon (largest "
            f"{_fmt(c['epsilon_lower_bound'])} at nominal {_fmt(c['nominal_epsilon'])})"
        )
    return "supported", _sentence([text])


def _claim_row(claim: Mapping, delivered: pd.DataFrame, empirical: pd.DataFrame) -> dict:
    """The row of :func:`privacy_claim_status` for one privacy claim."""
    cid = claim["id"]
    audit = claim.get("audit", {})
    selectors = audit.get("privacy_audit")
    if not selectors:
        why = audit.get("none") or claim.get("notes") or ""
        reason = (
            "The claim has no privacy_audit field."
            if selectors is None
            else "No row of the privacy audit tests this claim"
            + (f": {why.strip().rstrip('.')}." if why.strip() else ".")
        )
        return {
            "claim_id": cid,
            "status": "not audited",
            "delivered_summary": "",
            "empirical_summary": "",
            "reason": reason,
        }
    d, e = select_rows(cid, selectors, delivered, empirical)
    status, reason = _status(d, e)
    untested = str(audit.get("untested_part") or "").strip().rstrip(".")
    if untested:  # the statement's part no selected row tests
        reason = f"{reason} Not tested: {untested}."
    return {
        "claim_id": cid,
        "status": status,
        "delivered_summary": _delivered_summary(d),
        "empirical_summary": _empirical_summary(e),
        "reason": reason,
    }


def privacy_claim_status(
    claims: Iterable[Mapping], delivered: pd.DataFrame, empirical: pd.DataFrame
) -> pd.DataFrame:
    """The privacy audit's finding for every privacy claim.

    Parameters
    ----------
    claims : iterable of mapping
        Registry entries: :func:`dpbandits.claims.load_claims` (cz22, dpdpe, olucb) or the
        ``claims`` of :func:`dpbandits.bound_claims.load_bound_registry` (plasso); entries whose
        ``kind`` is not ``privacy`` are skipped. The rows that test a claim are named by the
        selectors of its ``audit.privacy_audit`` (see the module docstring).
    delivered : pandas.DataFrame
        ``results/<scale>/audit/privacy.csv`` (columns of
        :data:`dpbandits.audit.privacy.COLUMNS`; at least the selected keys,
        ``nominal_epsilon``, ``delivered_epsilon`` and ``verdict``).
    empirical : pandas.DataFrame
        ``results/<scale>/audit/privacy_empirical.csv`` (at least ``case``, ``control``,
        ``nominal_epsilon``, ``delivered_epsilon``, ``epsilon_lower_bound``; the significance
        columns ``caught`` and ``lb_le_delivered`` are recomputed from the bounds when absent).

    Returns
    -------
    pandas.DataFrame
        One row per privacy claim, in input order, with columns ``claim_id``, ``status`` (one of
        :data:`STATUSES`), ``delivered_summary`` and ``empirical_summary`` (the selected rows'
        verdicts and bounds, empty when none) and ``reason`` (one sentence with the numbers).

    Raises
    ------
    ValueError
        A selector that matches no row, names an unknown column or selects a negative control
        (the message names the claim and the selector), or an unknown verdict.

    Examples
    --------
    >>> delivered = pd.DataFrame({"experiment": ["dpdpe"], "figure": ["dpdpe_fig2b"],
    ...     "configuration": ["faithful"], "series": ["CDP-DPE"], "algorithm": ["cdp_dpe"],
    ...     "calibration": ["experiment/script"], "nominal_epsilon": [10.0],
    ...     "delivered_epsilon": [18.356], "lower_epsilon": [18.356], "verdict": ["VIOLATED"]})
    >>> empirical = pd.DataFrame(columns=["case", "control", "nominal_epsilon",
    ...     "delivered_epsilon", "epsilon_lower_bound", "caught", "lb_le_delivered"])
    >>> claim = {"id": "dpdpe.thm4.2", "kind": "privacy",
    ...     "audit": {"none": "...", "privacy_audit": [
    ...         {"experiment": "dpdpe", "algorithm": "cdp_dpe"}]}}
    >>> out = privacy_claim_status([claim], delivered, empirical)
    >>> out.loc[0, "status"]
    'contradicted'
    >>> out.loc[0, "reason"]
    'Lower bound 18.4 on epsilon above nominal 10 (VIOLATED; certified upper bound 18.4) in dpdpe dpdpe_fig2b faithful CDP-DPE (experiment/script).'
    """  # noqa: E501
    rows = [_claim_row(c, delivered, empirical) for c in claims if c.get("kind") == "privacy"]
    return pd.DataFrame(rows, columns=COLUMNS)


__all__ = [
    "COLUMNS",
    "DELIVERED_KEYS",
    "EMPIRICAL_KEYS",
    "STATUSES",
    "privacy_claim_status",
    "check_selectors",
    "select_rows",
]
