"""pyproject.toml and environment.yml list the same dependencies with the same minimum versions."""

import re
import tomllib

import pytest
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


def test_environment_pip_section_is_a_valid_requirements_file(tmp_path):
    # conda writes the `pip:` entries to a requirements file and runs `pip install -r` on it;
    # an option pip does not accept there (e.g. `--no-deps`) makes `conda env create` fail
    from pip._internal.network.session import PipSession
    from pip._internal.req.req_file import parse_requirements

    env = yaml.safe_load((ROOT / "environment.yml").read_text())["dependencies"]
    pip_entries = next(d["pip"] for d in env if isinstance(d, dict))
    req = tmp_path / "requirements.txt"
    req.write_text("\n".join(pip_entries) + "\n")
    parsed = list(parse_requirements(str(req), session=PipSession()))
    assert [(r.requirement, r.is_editable) for r in parsed] == [(".", True)]
    bad = tmp_path / "bad.txt"
    bad.write_text("--no-deps -e .\n")  # the old entry: refused, as conda's pip refused it
    from pip._internal.exceptions import RequirementsFileParseError

    with pytest.raises(RequirementsFileParseError, match="no such option: --no-deps"):
        list(parse_requirements(str(bad), session=PipSession()))


def test_the_lock_pins_every_dependency_within_its_minimum_with_hashes():
    # requirements.lock (make lock): exact versions and hashes of every package, installed by
    # `make install` with pip --require-hashes
    from packaging.version import Version

    text = (ROOT / "requirements.lock").read_text()
    pins = dict(re.findall(r"^([A-Za-z0-9_.-]+)==([^\s\\]+)", text, re.M))
    pins = {k.lower().replace("_", "-"): v for k, v in pins.items()}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = _parse(project["dependencies"] + project["optional-dependencies"]["dev"])
    for name, minimum in wanted.items():
        assert name in pins, f"{name} is not in requirements.lock"
        assert Version(pins[name]) >= Version(minimum), (name, pins[name], minimum)
    blocks = re.split(r"\n(?=[A-Za-z0-9_.-]+==)", text.split("\n", 2)[2])
    assert all("--hash=sha256:" in b for b in blocks if "==" in b)
    assert len(blocks) == len(pins) >= 100
