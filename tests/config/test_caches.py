"""The workflow parse's two caches: parsed YAML files (dpbandits.config.yamlfile) and passed
validations (dpbandits.config.validation).

Both must be invisible: the same data as without them, every error found again, a change of
the file or schema never served from the cache.
"""

from __future__ import annotations

import pytest

from dpbandits import config
from dpbandits.config import ConfigError, check_schema, load_yaml, validation, yamlfile

SCHEMA = {
    "type": "object",
    "properties": {"trials": {"type": "integer", "minimum": 1}},
    "additionalProperties": False,
}


@pytest.fixture(autouse=True)
def fresh_caches(tmp_path, monkeypatch):
    """Each test starts with empty caches in its own working directory."""
    monkeypatch.chdir(tmp_path)
    validation.valid_keys.cache_clear()
    yield
    validation.valid_keys.cache_clear()


def test_cached_yaml_is_the_same_data_and_a_fresh_copy(tmp_path, monkeypatch):
    f = tmp_path / "a.yaml"
    f.write_text(
        "a: &x [1, 2.5, .inf]\nb: *x\n"
        "c: {d: null, e: 2026-11-25, f: 2026-11-25T10:00:00+01:00, i: !!binary aGk=}\n"
        "g: !!set {h}\n"
    )
    first = load_yaml(f)
    assert list((tmp_path / config.YAML_CACHE).glob("*.pickle"))  # stored
    with monkeypatch.context() as m:  # every type the safe loader makes comes back from the cache
        m.setattr(yamlfile.yaml, "load", lambda *a, **k: pytest.fail("parsed again"))
        second = load_yaml(f)
    assert second == first and second is not first
    second["a"].append(3)  # the anchor's sharing is kept, the cache is not changed
    assert second["b"] == [1, 2.5, float("inf"), 3]
    assert load_yaml(f) == first


def test_a_changed_file_is_parsed_again(tmp_path):
    f = tmp_path / "a.yaml"
    f.write_text("trials: 5\n")
    assert load_yaml(f) == {"trials": 5}
    f.write_text("trials: 6\n")
    assert load_yaml(f) == {"trials": 6}


def test_yaml_errors_are_found_again_after_a_cached_good_version(tmp_path):
    f = tmp_path / "a.yaml"
    f.write_text("a: 1\nb: 2\n")
    load_yaml(f)
    f.write_text("a: 1\na: 2\n")
    for _ in range(2):  # nothing of a failed parse is cached
        with pytest.raises(ConfigError, match="appears twice"):
            load_yaml(f)


def test_a_passed_validation_is_remembered_and_a_failing_one_is_not(tmp_path):
    check_schema({"trials": 5}, SCHEMA, "x.yaml")
    assert (tmp_path / config.VALID_CACHE).exists()
    key = validation._validation_key({"trials": 5}, SCHEMA)
    assert key in validation.valid_keys()
    for _ in range(2):
        with pytest.raises(ConfigError, match="trials = 0: must be >= 1"):
            check_schema({"trials": 0}, SCHEMA, "x.yaml")
    assert validation._validation_key({"trials": 0}, SCHEMA) not in validation.valid_keys()


@pytest.mark.parametrize(
    "data, schema",
    [
        ({"trials": 5.5}, SCHEMA),
        ({"trials": 5}, {**SCHEMA, "properties": {"trials": {"type": "string"}}}),
        ({"trials": (5,)}, SCHEMA),
    ],
)
def test_no_other_data_or_schema_is_served_from_the_cache(data, schema):
    check_schema({"trials": 5}, SCHEMA, "x.yaml")  # cached as valid
    assert validation._validation_key(data, schema) != validation._validation_key(
        {"trials": 5}, SCHEMA
    )
    with pytest.raises(ConfigError):
        check_schema(data, schema, "x.yaml")


def test_an_unwritable_cache_only_costs_time(tmp_path):
    (tmp_path / ".snakemake").write_text("not a folder")  # neither cache can be written
    f = tmp_path / "a.yaml"
    f.write_text("trials: 5\n")
    assert load_yaml(f) == {"trials": 5}
    check_schema({"trials": 5}, SCHEMA, "x.yaml")
    with pytest.raises(ConfigError):
        check_schema({"trials": 0}, SCHEMA, "x.yaml")


def test_a_damaged_cache_entry_is_parsed_again(tmp_path):
    f = tmp_path / "a.yaml"
    f.write_text("trials: 5\n")
    load_yaml(f)
    (entry,) = (tmp_path / config.YAML_CACHE).glob("*.pickle")
    for junk in (b"", b"\x80\x05garbage", b"cos\nsystem\n."):  # truncated, corrupt, foreign
        entry.write_bytes(junk)
        assert load_yaml(f) == {"trials": 5}


def test_each_cache_keeps_only_its_newest_entries(tmp_path, monkeypatch):
    monkeypatch.setattr(yamlfile, "CACHE_ENTRIES", 3)
    for n in range(6):
        f = tmp_path / f"f{n}.yaml"
        f.write_text(f"trials: {n + 1}\n")
        load_yaml(f)
        check_schema({"trials": n + 1}, SCHEMA, "x.yaml")
    assert len(list((tmp_path / config.YAML_CACHE).glob("*.pickle"))) == 3
    kept = list(validation.valid_keys())
    assert kept == [validation._validation_key({"trials": n}, SCHEMA) for n in (4, 5, 6)]
    validation.valid_keys.cache_clear()
    assert list(validation.valid_keys()) == kept  # the file holds the same, oldest first


def test_cache_writes_replace_whole_files_or_leave_nothing(tmp_path):
    from dpbandits.runtime.atomic_files import write_atomically

    target = tmp_path / "sub" / "cache.json"
    assert write_atomically(target, b"[1]") and target.read_bytes() == b"[1]"
    assert write_atomically(target, b"[1, 2]") and target.read_bytes() == b"[1, 2]"
    assert [p.name for p in target.parent.iterdir()] == ["cache.json"]  # no temporary left
    blocked = tmp_path / "file"
    blocked.write_text("x")
    assert not write_atomically(blocked / "cache.json", b"[]")  # its folder cannot exist


def test_a_json_cache_is_parsed_once_per_change(tmp_path, monkeypatch):
    """A cache that a job consults on every miss (the shuffle parts' certificates, the matched
    searches) is parsed again only after a write, by this process or another."""
    import json

    from dpbandits.runtime import atomic_files

    target = tmp_path / "parts.json"
    assert atomic_files.changed_json_cache(target) == {}  # missing
    assert atomic_files.merge_json_cache(target, {"a": 1.0})
    parsed = []
    real = json.loads
    monkeypatch.setattr(json, "loads", lambda text: parsed.append(1) or real(text))
    assert atomic_files.changed_json_cache(target) == {"a": 1.0}
    assert atomic_files.changed_json_cache(target) == {}  # unchanged: not parsed again
    assert len(parsed) == 1
    assert atomic_files.merge_json_cache(target, {"b": 2.0})  # a write (parsed to merge)
    assert atomic_files.changed_json_cache(target) == {"a": 1.0, "b": 2.0}
    assert atomic_files.changed_json_cache(target) == {} and len(parsed) == 3
    target.write_text("{damaged")
    assert atomic_files.changed_json_cache(target) == {}
