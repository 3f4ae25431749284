"""The module list of ``make mutation`` (workflow/mutation/modules.toml) names modules and test
files that exist: a mutant of a module is only as good as the tests it runs."""

import tomllib

from ..conftest import ROOT

CONFIG = ROOT / "workflow/mutation/modules.toml"


def _missing(config: dict) -> list[str]:
    missing = []
    for module, tests in config["modules"].items():
        missing += [p for p in (module, *tests) if not (ROOT / p).is_file()]
        if len(set(tests)) != len(tests):
            missing.append(f"{module}: a test file listed twice")
    return missing


def test_every_module_and_test_file_of_the_mutation_list_exists():
    assert _missing(tomllib.loads(CONFIG.read_text())) == []


def test_a_renamed_test_file_is_caught():
    config = tomllib.loads(CONFIG.read_text())
    module = next(iter(config["modules"]))
    config["modules"][module] = ["tests/no_such_test.py", "tests/no_such_test.py"]
    assert _missing(config) == [
        "tests/no_such_test.py",
        "tests/no_such_test.py",
        f"{module}: a test file listed twice",
    ]
