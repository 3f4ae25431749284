"""Reading the YAML files: a strict loader (duplicate keys, YAML 1.1 numbers and merge keys
refused, the expanded size bounded), the parse cache, refusals that name the file and line, and
``--config`` values read as YAML.
"""

from __future__ import annotations

import functools
import io
import pickle
from pathlib import Path

import yaml

#: libyaml's parser when PyYAML was built with it (10x faster on the claims registries; the same
#: safe constructor, so the same data), else the pure-Python one.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _DuplicateKey(Exception):
    pass


#: Most values (mappings, lists and scalars, each alias counted as the whole value it repeats)
#: a file may expand to: the largest experiment file holds a few thousand; nested aliases can
#: make a small file expand exponentially (a "billion laughs"), which validation would walk.
MAX_EXPANDED_VALUES = 1_000_000

_MERGE = "tag:yaml.org,2002:merge"


def _merged_keys(loader, value_node) -> list:
    """The (key, line) pairs a ``<<`` value brings in: one mapping or a list of mappings."""
    sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
    out = []
    for src in sources:
        if isinstance(src, yaml.MappingNode):
            for k, _ in src.value:
                if k.tag != _MERGE:
                    out.append((loader.construct_object(k, deep=True), k.start_mark.line + 1))
    return out


class _StrictLoader(SAFE_LOADER):
    """Safe YAML loader that refuses what would silently drop or overwrite a value, or be read
    as something else than written: a key repeated in one mapping (PyYAML keeps the last); a key
    two merges (``<<``) both bring in (YAML keeps one of them; a key written in the mapping itself
    still overrides a merged one, as intended); and a key that is not a string (``yes``, ``on``,
    ``1.5`` unquoted: YAML reads a boolean or a number)."""

    def construct_mapping(self, node, deep=False):
        seen = {}
        merged = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:  # `<<`: merged keys may be overridden by explicit ones
                for key, line in _merged_keys(self, value_node):
                    if key in merged and merged[key] != line:
                        raise _DuplicateKey(
                            f"key {key!r} is brought in by two merges (`<<`, lines {merged[key]} "
                            f"and {line}) into the mapping at line {node.start_mark.line + 1}: "
                            "YAML silently keeps one; write the key once in that mapping"
                        )
                    merged.setdefault(key, line)
                continue
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                raise _DuplicateKey(
                    f"key {key_node.value!r} (line {key_node.start_mark.line + 1}) is read by "
                    f"YAML as a {type(key).__name__}, not a name; quote it "
                    f"('{key_node.value}':) if it is meant as a key"
                )
            try:
                first = seen.get(key)
            except TypeError:  # unhashable key: the base class reports it
                continue
            if first is not None:
                raise _DuplicateKey(
                    f"key {key!r} appears twice in one mapping (lines {first} and "
                    f"{key_node.start_mark.line + 1}); keep one"
                )
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node):
        _refuse_yaml11_number(node, "integer")
        return super().construct_yaml_int(node)

    def construct_yaml_float(self, node):
        _refuse_yaml11_number(node, "number")
        return super().construct_yaml_float(node)


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _StrictLoader.construct_yaml_int)

_StrictLoader.add_constructor("tag:yaml.org,2002:float", _StrictLoader.construct_yaml_float)


def _refuse_yaml11_number(node, kind: str) -> None:
    """Refuse the YAML 1.1 number forms whose value is not what the digits say: a leading zero
    (``010`` is the octal 8) and base 60 (``1:20`` is 80)."""
    text = node.value.replace("_", "").lstrip("+-")
    octal = kind == "integer" and len(text) > 1 and text[0] == "0" and text[1] not in "xXbB."
    if octal or ":" in text:
        form = "an octal" if octal else "a base-60"
        value = (-1 if node.value.startswith("-") else 1) * int(text, 8) if octal else None
        shown = f" ({value})" if value is not None else ""
        raise _DuplicateKey(
            f"{node.value!r} (line {node.start_mark.line + 1}) is read by YAML 1.1 as {form} "
            f"{kind}{shown}, not the decimal it looks like; write the number without a leading "
            "zero or colon, or quote it if it is text"
        )


class ConfigError(ValueError):
    """Invalid configuration; the message names the file, the key, the value and what is allowed."""


def load_yaml(path: str | Path) -> dict:
    """Read one YAML file (an empty file is an empty dict).

    Raises :class:`ConfigError` naming the file and line for a missing file, a syntax error or
    a key repeated in one mapping.
    """
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
        data = _parse_cached(raw)
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found") from None
    except _DuplicateKey as err:
        raise ConfigError(f"{path}: {err}") from None
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise ConfigError(
            f"{path}: not UTF-8 text (byte 0x{raw[err.start]:02x} on line {line}); save the file "
            "as UTF-8"
        ) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise ConfigError(f"{path}: not valid YAML{where}: {problem}") from None
    size = _expanded_size(data)
    if size > MAX_EXPANDED_VALUES:
        raise ConfigError(
            f"{path}: expands to more than {MAX_EXPANDED_VALUES:,} values through its aliases "
            f"(*name); at most {MAX_EXPANDED_VALUES:,} are allowed"
        )
    return {} if data is None else data


def exit_if_unreadable(path: str | Path) -> None:
    """Print the refusal of :func:`load_yaml` and exit with status 1 when ``path`` exists but
    does not load (syntax error with its line, a byte that is not UTF-8, a repeated key): the
    workflow calls it before Snakemake's own ``configfile:``, whose message names no line."""
    import sys

    if Path(path).exists():
        try:
            load_yaml(path)
        except ConfigError as exc:
            print(exc, file=sys.stderr, flush=True)
            sys.exit(1)


def _expanded_size(data) -> int:
    """Number of values ``data`` holds with every shared (aliased) value counted each time it
    appears: what a walk over it visits. Linear in the distinct values (memoised)."""
    memo: dict[int, int] = {}

    def size(x) -> int:
        if not isinstance(x, dict | list):
            return 1
        if id(x) not in memo:
            memo[id(x)] = 0  # a recursive alias (impossible from the safe loader) counts once
            items = x.values() if isinstance(x, dict) else x
            total = 1
            for v in items:
                total += size(v)
                if total > MAX_EXPANDED_VALUES:
                    break
            memo[id(x)] = total
        return memo[id(x)]

    return size(data)


#: Parsed YAML files, by the SHA-256 of their bytes, this module's source and PyYAML's version
#: (one pickle each): a workflow parse reads ~25 files, ~0.2 s of parsing when none changed.
#: Only files that parsed are kept, so every error is found again. Deleting the folder is safe.
YAML_CACHE = Path(".snakemake") / "parsed-yaml"

#: Entries each parse cache keeps, the least recently used dropped first (a workflow parse uses
#: ~30; test runs add others with every run).
CACHE_ENTRIES = 512


class _SafeUnpickler(pickle.Unpickler):
    """Reads back only what the safe YAML loader makes: plain values, sets, bytes and the
    ``datetime`` types; any other global (a damaged or planted file) refuses the entry."""

    def find_class(self, module, name):
        if module == "datetime" and name in ("date", "datetime", "time", "timedelta", "timezone"):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not YAML data")


def _parse_cached(raw: bytes):
    """``yaml.load(raw)`` with the strict loader, through :data:`YAML_CACHE`."""
    import hashlib
    import os

    from dpbandits.runtime.atomic_files import write_atomically

    h = hashlib.sha256(raw)
    h.update(_module_source())
    h.update(yaml.__version__.encode())
    cached = YAML_CACHE / f"{h.hexdigest()}.pickle"
    try:
        data = _SafeUnpickler(io.BytesIO(cached.read_bytes())).load()
        os.utime(cached)  # recently used
        return data
    except Exception:  # noqa: BLE001 - missing, damaged or foreign: parse the file again
        pass
    data = yaml.load(raw.decode(), Loader=_StrictLoader)
    if write_atomically(cached, pickle.dumps(data, protocol=5)):
        try:
            entries = list(YAML_CACHE.glob("*.pickle"))
            if len(entries) > CACHE_ENTRIES:
                by_use = sorted(entries, key=lambda e: e.stat().st_mtime_ns)
                for old in by_use[: len(entries) - CACHE_ENTRIES]:
                    old.unlink(missing_ok=True)
        except OSError:  # another parse pruned first
            pass
    return data


def typed_overrides(config: dict, overrides: dict) -> None:
    """Give nested ``--config`` values their YAML types, in place.

    Snakemake parses a top-level ``--config key=value`` as int, float or bool, but a nested
    value (``--config 'audit={tolerance: 0.1}'``) with YAML's BaseLoader, so every leaf inside
    is a string and the schema would refuse ``'0.1'``. Each string leaf of a nested override is
    read as YAML (``0.1`` -> 0.1, ``true`` -> True, ``abc`` stays ``'abc'``) and written back to
    the same place in ``config``. A top-level ``true`` / ``false`` (any case) becomes a bool.
    """

    def typed(value):
        if isinstance(value, dict):
            return {k: typed(v) for k, v in value.items()}
        if isinstance(value, list):
            return [typed(v) for v in value]
        if isinstance(value, str):
            try:
                return yaml.load(value, Loader=_StrictLoader)
            except (yaml.YAMLError, _DuplicateKey):
                return value
        return value

    def assign(target, override):
        for k, v in override.items():
            if isinstance(v, dict) and isinstance(target.get(k), dict):
                assign(target[k], v)
            else:
                target[k] = typed(v)

    assign(config, {k: v for k, v in overrides.items() if isinstance(v, dict | list)})
    # a top-level `--config arena=false` arrives as the string 'false' (Snakemake reads only
    # `False`/`True` as booleans); no string-valued key of the configuration takes these words
    for k, v in overrides.items():
        if isinstance(v, str) and v.lower() in ("true", "false"):
            config[k] = v.lower() == "true"


@functools.cache
def _module_source() -> bytes:
    return Path(__file__).read_bytes()
