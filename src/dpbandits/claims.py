"""The claims registry: one YAML file per paper (``config/claims/<prefix>.yaml``)."""

from __future__ import annotations

from pathlib import Path

from .config import ConfigError, check_schema, load_yaml


def load_claims(path: str | Path, schema: str | Path) -> list[dict]:
    """Load and validate one paper's claims.

    Checks the schema, then that ids are unique, start with the file's prefix and that every
    entry's ``paper`` matches the file's.

    Returns
    -------
    list of dict
        The claim entries, in file order.
    """
    data = load_yaml(path)
    check_schema(data, schema, str(path))
    prefix, paper = data["prefix"], data["paper"]
    seen = set()
    problems = []
    for i, claim in enumerate(data["claims"]):
        cid = claim["id"]
        if cid in seen:
            problems.append(f"claims.{i}.id = {cid!r}: duplicate id")
        seen.add(cid)
        if not cid.startswith(prefix + "."):
            problems.append(f"claims.{i}.id = {cid!r}: must start with the prefix {prefix!r}.")
        if claim["paper"] != paper:
            problems.append(
                f"claims.{i}.paper = {claim['paper']!r}: must be {paper!r} (the file's paper)"
            )
        audit = claim["audit"]
        if audit.get("check") == "summary":
            for ref in audit["of"]:
                if ref not in {c["id"] for c in data["claims"]}:
                    problems.append(f"claims.{i}.audit.of: {ref!r} is not a claim id of this file")
    if problems:
        raise ConfigError(f"{path}: invalid claims\n  " + "\n  ".join(problems))
    return data["claims"]
