"""pyproject.toml and environment.yml list the same dependencies with the same minimum versions."""

import re
import tomllib

import yaml

from .conftest import ROOT


def _parse(specs):
    out = {}
    for spec in specs:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*>=\s*([0-9][0-9.]*)", spec.strip())
        assert m, f"not a 'name>=version' requirement: {spec!r}"
        out[m.group(1).lower().replace("_", "-")] = m.group(2)
    return out


def test_environment_mirrors_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pip = _parse(project["dependencies"] + project["optional-dependencies"]["dev"])
    env = yaml.safe_load((ROOT / "environment.yml").read_text())["dependencies"]
    conda = _parse(
        [d for d in env if isinstance(d, str) and d not in ("pip",) and not d.startswith("python")]
    )
    assert conda == pip
    assert f">={project['requires-python'].lstrip('>=')}" in next(
        d for d in env if isinstance(d, str) and d.startswith("python")
    )
