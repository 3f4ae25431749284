"""Cell settings as Snakemake rule parameters, one parameter per setting.

Snakemake reruns a job whose parameters changed and prints, as the reason, the parameter
values that are new and those that are gone. A job's cells passed as one parameter make that
reason two dumps of every setting of every cell; passed one setting per parameter
(``"<cell>: <key> = <JSON value>"``), the reason names exactly the settings that changed, e.g.
``cz22_fig1b_r1_LinUCB-LDP: epsilon = 2.0``. :func:`unflatten` gives the job its cells back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

_SEP = " = "


def flatten(prefix: str, items: Iterable[Mapping | None], labels: Iterable[str]) -> dict:
    """Parameters ``{<prefix><i>__<key>: "<label>: <key> = <JSON>"}`` of every item's settings.

    Parameters
    ----------
    prefix : str
        Name of the parameter family (an identifier, e.g. ``cell``).
    items : iterable of mapping or None
        One mapping of settings per item (JSON-serialisable values); None is kept as one
        parameter ``<prefix><i>__`` reading ``"<label>: none"``.
    labels : iterable of str
        One label per item, shown in the reason (e.g. the cell's stem); without ``": "``
        (``ValueError``), which ends the label in every value.
    """
    out = {}
    for i, (item, label) in enumerate(zip(items, labels, strict=True)):
        if ": " in label:
            raise ValueError(f"a settings label cannot contain ': ': {label!r}")
        if item is None:
            out[f"{prefix}{i}__"] = f"{label}: none"
            continue
        for key in sorted(item):
            value = json.dumps(item[key], sort_keys=True, allow_nan=True)
            out[f"{prefix}{i}__{key}"] = f"{label}: {key}{_SEP}{value}"
    return out


def unflatten(params: Iterable[tuple[str, str]], prefix: str) -> list[dict | None]:
    """The items :func:`flatten` made, from the job's ``(name, value)`` parameters, in order."""
    found: dict[int, dict | None] = {}
    head = len(prefix)
    for name, value in params:
        if not name.startswith(prefix) or "__" not in name:
            continue
        index, key = name[head:].split("__", 1)
        if not index.isdigit():
            continue
        if not key:
            found[int(index)] = None
            continue
        text = value.split(": ", 1)[1][len(key) + len(_SEP) :]
        found.setdefault(int(index), {})[key] = json.loads(text)
    return [found[i] for i in sorted(found)]


__all__ = ["flatten", "unflatten"]
