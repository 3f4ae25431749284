"""A refusal of bad configuration reads well: it starts with the file (or ``--config``) and the
key path, then gives the bad value and what is allowed, with the line of the key in the file.

No schema noise from alternatives (``epsilon: -1`` against ``oneOf: [number > 0, null]`` is
``must be > 0``, not also ``must be of type null``), a hint for a number YAML 1.1 reads as a
string (``1e9``), and through ``snakemake -n`` only the message: no ``WorkflowError in file
.../common.smk`` header, no traceback (marker ``pipeline``: the dry runs take ~5 s each).
"""

import re
import shutil
from pathlib import Path

import pytest

from dpbandits.config import (
    ConfigError,
    check_config,
    config_origin,
    load_experiment,
    load_yaml,
    yaml_line,
)

from ..conftest import ROOT, SCHEMAS
from .test_pipeline import project, snakemake  # noqa: F401 - `project` is a fixture

EXPERIMENT = "config/experiments/cz22.yaml"
NOISE = (
    "must be of type null",
    "Traceback",
    "WorkflowError",
    "common.smk",
    "invalid configuration",
)


def _edit(text: str, pattern: str, replace: str) -> tuple[str, int]:
    """``text`` with the first line matching ``pattern`` rewritten (``replace`` may add lines);
    and the number of the last line it became."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if re.search(pattern, line):
            lines[i] = re.sub(pattern, replace, line)
            return "".join(lines), i + 1 + lines[i].count("\n") - line.count("\n")
    raise AssertionError(f"no line of {EXPERIMENT} matches {pattern!r}")


#: (case, line pattern, replacement, key path, what the message must also contain: the bad value
#: and what is allowed)
CASES = [
    ("unknown key", r"^(  trials: \d+)$", r"\1\n  trails: 50", "defaults.trails",
     ["unknown key", "allowed: B, K, T,", "trials"]),
    ("negative epsilon", r"^(\s+b: \{epsilon: )1\.0(, d: 5\})", r"\g<1>-1\2",
     "figures.cz22_fig1.panels.b.epsilon", ["= -1:", "must be > 0"]),
    ("number YAML reads as a string", r"^(\s+b: \{epsilon: )1\.0(, d: 5\})", r"\g<1>1e9\2",
     "figures.cz22_fig1.panels.b.epsilon",
     ["= '1e9':", "must be of type number or null", "write it as 1.0e+9"]),
    ("string for a number", r"^(  delta: )0\.1$", r"\1small", "defaults.delta",
     ["= 'small':", "must be of type number"]),
]  # fmt: skip


def _bad_copy(root: Path, pattern: str, replace: str) -> int:
    """Rewrite one line of ``root``'s experiment file; return the line the bad key ends up on."""
    path = root / EXPERIMENT
    text, line = _edit(path.read_text(), pattern, replace)
    path.write_text(text)
    return line


def _check(message: str, key_path: str, expected: list[str], line: int | None) -> None:
    first = message.splitlines()[0]
    assert first.startswith(f"{EXPERIMENT}: {key_path}"), message
    assert not [s for s in expected if s not in first], message
    if line is not None:
        assert first.endswith(f"(line {line})"), message
    # one line for the key, and no line of schema noise anywhere
    assert sum(key_path in m for m in message.splitlines()) == 1, message
    assert not [n for n in NOISE if n in message], message


@pytest.mark.parametrize("case,pattern,replace,key_path,expected", CASES, ids=[c[0] for c in CASES])
def test_an_experiment_file_is_refused_with_file_key_value_and_line(
    case, pattern, replace, key_path, expected, tmp_path, monkeypatch
):
    shutil.copytree(ROOT / "config", tmp_path / "config")
    line = _bad_copy(tmp_path, pattern, replace)
    monkeypatch.chdir(tmp_path)  # the path as the workflow passes it, relative
    with pytest.raises(ConfigError) as err:
        config = load_yaml("config/config.yaml")
        load_experiment(EXPERIMENT, config, SCHEMAS / "experiment.schema.yaml")
    _check(str(err.value), key_path, expected, line)


def test_config_errors_name_the_layer_that_set_the_key(tmp_path, monkeypatch):
    """config/config.yaml, a --configfile and --config: each refusal names its own source, with
    the line in a file (the mapping's, for a missing key)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config").mkdir()
    text = (ROOT / "config/config.yaml").read_text()
    text, seed_line = _edit(text, r"^root_seed: .*$", "root_seed: -1")
    (tmp_path / "config/config.yaml").write_text(text)
    (tmp_path / "extra.yaml").write_text("audit:\n  tolerance: 1e-3\n")
    overrides = {"scale": "bogus"}
    layers = [
        ("config/config.yaml", load_yaml("config/config.yaml")),
        ("extra.yaml", load_yaml("extra.yaml")),
        ("--config", overrides),
    ]
    config = load_yaml("config/config.yaml")
    config["audit"]["tolerance"] = "1e-3"
    config.update(overrides)
    with pytest.raises(ConfigError) as err:
        check_config(config, SCHEMAS / "config.schema.yaml", layers)
    lines = str(err.value).splitlines()
    assert lines == [
        "extra.yaml: audit.tolerance = '1e-3': must be of type number; YAML reads 1e-3 as a "
        "string, not a number: write it as 1.0e-3 (line 2)",
        f"config/config.yaml: root_seed = -1: must be >= 0 (line {seed_line})",
        "--config: scale = 'bogus': not allowed; allowed: paper, quick",
    ]
    # a missing key is blamed on the first file holding its mapping, at the mapping's line
    assert config_origin(layers, ["audit"], missing=True) == "config/config.yaml"
    assert config_origin(layers, ["audit"]) == "extra.yaml"
    assert config_origin(layers, ["experiments"]) == "config/config.yaml"  # filled in


def test_the_line_of_a_key_path(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text("base: &b {T: 1, d: 2}\nfig:\n  <<: *b\n  T: 3\nlist:\n  - x: 1\n  - x: 2\n")
    assert yaml_line(path, ["fig", "T"]) == 4
    assert yaml_line(path, ["fig", "d"]) == 1  # merged in from `base`
    assert yaml_line(path, ["list", 1, "x"]) == 7
    assert yaml_line(path, ["list", 5]) is None and yaml_line(path, ["nowhere"]) is None
    assert yaml_line(tmp_path / "missing.yaml", ["fig"]) is None


@pytest.mark.parametrize(
    "args,edit,expected",
    [
        ((), CASES[2][1:3],
         f"{EXPERIMENT}: figures.cz22_fig1.panels.b.epsilon = '1e9': must be of type number or "
         "null; YAML reads 1e9 as a string, not a number: write it as 1.0e+9 (line "),
        (("--config", "scale=bogus"), None,
         "--config: scale = 'bogus': not allowed; allowed: paper, quick\n"),
    ],
    ids=["experiment file", "--config override"],
)  # fmt: skip
@pytest.mark.pipeline
def test_snakemake_prints_only_the_message(project, tmp_path, args, edit, expected):  # noqa: F811
    bad = tmp_path / "bad"
    shutil.copytree(project, bad)
    if edit:
        line = _bad_copy(bad, *edit)
        expected += f"{line})\n"
    proc = snakemake(bad, "-n", "--cores", "1", *args, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.startswith(expected), proc.stderr  # the message, first thing on stderr
    assert not [n for n in NOISE if n in proc.stdout + proc.stderr], proc.stdout + proc.stderr
    assert not (bad / "results").exists()
