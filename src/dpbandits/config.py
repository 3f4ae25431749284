"""Configuration: load and validate the YAML files, expand experiments into cells and figures.

Used by the Snakefile (to build the DAG) and by the simulation jobs, so both see the same
cells. Nothing here imports Snakemake.

* A **cell** is one simulation job: (experiment, panel, configuration, series), holding all
  trials; it knows its policy, its seeds and its output path.
* A **figure** is one rendered panel: a list of cells of one (panel, configuration) drawn as
  regret curves.
"""

from __future__ import annotations

import copy
import functools
import io
import itertools
import json
import math
import pickle
import re
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

import yaml

from .policies import POLICIES, Quirks, Setting, make_policy
from .policies.base import Policy
from .privacy.matching import BASE as MATCHED_BASE
from .privacy.matching import MATCHED, is_matched, matched_base, matched_policy
from .result_columns import PLACE_FIELDS


def results_root(scale: str) -> str:
    """Root of generated files: ``results`` at paper scale, ``results/<scale>`` otherwise.

    Separate roots keep a quick run from overwriting paper-scale results.
    """
    return "results" if scale == "paper" else f"results/{scale}"


#: libyaml's parser when PyYAML was built with it (10x faster on the claims registries; the same
#: safe constructor, so the same data), else the pure-Python one.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


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


class _StrictLoader(_SAFE_LOADER):
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

    from .cache_files import write_atomically

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


def _key(path) -> str:
    return ".".join(str(p) for p in path) or "<top level>"


class _Problem(NamedTuple):
    """One schema violation: where it sits in the data and its text (``key = value: problem``).

    ``path`` is the key path to point at in the file: the bad value's own key, an unknown key
    itself, or the mapping a required key is missing from (``missing`` then True).
    """

    path: tuple
    text: str
    missing: bool = False


def schema_errors(data: dict, schema: dict | str | Path) -> list[str]:
    """All schema violations of ``data``, one line each: ``key = value: problem``.

    Parameters
    ----------
    data : dict
    schema : dict or path to a YAML/JSON schema file

    Returns
    -------
    list of str
        Empty when ``data`` is valid. Sorted by key path; a value that fails an ``anyOf`` /
        ``oneOf`` gives the problems of the one alternative it was meant for (see
        :func:`_describe_alternatives`), and a string that reads as a number where a number is
        allowed ends with the YAML spelling to use (``write it as 1.0e+9``).
    """
    return [p.text for p in _schema_problems(data, schema)]


def _schema_problems(data, schema) -> list[_Problem]:
    """The :class:`_Problem` of each violation of ``data``, sorted by key path."""
    import jsonschema  # imported here: it costs ~1 s and simulation jobs never validate

    if not isinstance(schema, dict):
        schema = load_yaml(schema)
    validator = _finite_validator(jsonschema)(schema)
    out = []
    for err in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        out.extend(_describe(err))
    return out


def _finite_validator(jsonschema):
    """Draft 2020-12 in which ``number`` means a *finite* number: NaN and infinity are refused
    unless a schema says what infinity means (``{const: .inf}`` in an ``anyOf``); and
    ``integer`` an integer as written (``1.0e+12`` is a float, refused where an integer is
    required: horizons, batch sizes and counts go into integer arithmetic)."""
    base = jsonschema.Draft202012Validator
    is_number = base.TYPE_CHECKER.is_type

    def finite(checker, instance):
        return is_number(instance, "number") and not (
            isinstance(instance, float) and not math.isfinite(instance)
        )

    def integer(checker, instance):  # 1.0e+12 is a float: the code's int arithmetic needs ints
        return isinstance(instance, int) and not isinstance(instance, bool)

    checker = base.TYPE_CHECKER.redefine("number", finite).redefine("integer", integer)
    return jsonschema.validators.extend(base, type_checker=checker)


#: What a failed keyword asks of the value, after "must be".
_BOUNDS = {
    "minimum": ">= {}",
    "maximum": "<= {}",
    "exclusiveMinimum": "> {}",
    "exclusiveMaximum": "< {}",
    "pattern": "matching {}",
}

_NOT_FINITE = "must be a finite number (NaN and infinity are refused)"


def _types(value) -> list[str]:
    """The type names of a ``type`` keyword (one name or a list)."""
    return [value] if isinstance(value, str) else list(value)


def _describe(err) -> list[_Problem]:
    path = tuple(err.absolute_path)
    key = _key(path)
    if err.validator in ("anyOf", "oneOf") and err.context:
        return _describe_alternatives(err)
    if err.validator == "additionalProperties":
        allowed = sorted(err.schema.get("properties", {}))
        pattern = list(err.schema.get("patternProperties", {}))
        extra = [
            k
            for k in err.instance
            if k not in allowed and not any(re.search(p, str(k)) for p in pattern)
        ]
        where = "" if key == "<top level>" else f"{key}."
        what = (
            f"allowed: {', '.join(allowed)}"
            if allowed
            else f"names must match {' or '.join(pattern)}"
        )
        return [_Problem((*path, k), f"{where}{k}: unknown key; {what}") for k in extra] or [
            _Problem(path, f"{key}: {err.message}")
        ]
    if err.validator == "required":
        return [_Problem(path, f"{key}: {err.message}", missing=True)]
    if err.validator == "enum":
        allowed = ", ".join(map(str, err.validator_value))
        return [_Problem(path, f"{key} = {err.instance!r}: not allowed; allowed: {allowed}")]
    if err.validator == "type":
        if isinstance(err.instance, float) and not math.isfinite(err.instance):
            return [_Problem(path, f"{key} = {err.instance!r}: {_NOT_FINITE}")]
        types = _types(err.validator_value)
        need = f"of type {' or '.join(types)}{_number_hint(err.instance, types)}"
        return [_Problem(path, f"{key} = {err.instance!r}: must be {need}")]
    if err.validator in _BOUNDS:
        need = _BOUNDS[err.validator].format(err.validator_value)
        return [_Problem(path, f"{key} = {err.instance!r}: must be {need}")]
    return [_Problem(path, f"{key} = {err.instance!r}: {err.message}")]


def _describe_alternatives(err) -> list[_Problem]:
    """The problems of a value that fails every alternative of an ``anyOf`` / ``oneOf``.

    An alternative whose type (or constant, or enumeration) the value does not have at all is
    not the one the author meant: ``epsilon: -1`` against ``oneOf: [{type: number,
    exclusiveMinimum: 0}, {type: "null"}]`` is a number, so the one problem reported is
    ``must be > 0``, not also ``must be of type null``. Of the alternatives the value does
    match in type, the one whose errors reach deepest into the value, then the one with fewest
    errors, then the first is reported, with all its errors (jsonschema's ``best_match``
    reasons likewise, but may stop at the ``oneOf`` itself). A value of none of the
    alternatives' types gets one line naming them all: ``must be of type number or null``.
    """
    path = tuple(err.absolute_path)
    key = _key(path)
    alternatives: dict = {}  # alternative index -> its errors, in the schema's order
    for sub in err.context:
        alternatives.setdefault(sub.relative_schema_path[0], []).append(sub)

    def misfit(sub) -> bool:  # the value itself is not of this alternative's kind
        return not sub.relative_path and sub.validator in ("type", "const", "enum")

    fitting = [subs for subs in alternatives.values() if not any(map(misfit, subs))]
    if fitting:
        best = min(fitting, key=lambda subs: (-max(len(s.path) for s in subs), len(subs)))
        return [p for sub in best for p in _describe(sub)]
    if isinstance(err.instance, float) and not math.isfinite(err.instance):
        return [_Problem(path, f"{key} = {err.instance!r}: {_NOT_FINITE}")]
    types, others, infinity = [], [], False
    for subs in alternatives.values():
        sub = next(filter(misfit, subs))
        if sub.validator == "type":
            types += [t for t in _types(sub.validator_value) if t not in types]
        elif sub.validator == "const":
            others.append(repr(sub.validator_value))
            infinity |= sub.validator_value in (math.inf, -math.inf)
        else:
            others.append("one of " + ", ".join(map(str, sub.validator_value)))
    allowed = " or ".join([f"of type {' or '.join(types)}"] * bool(types) + others)
    hint = _number_hint(err.instance, types, infinity)
    return [_Problem(path, f"{key} = {err.instance!r}: must be {allowed}{hint}")]


#: A number as written in a string: sign, digits, fraction digits, exponent sign, exponent.
_NUMBER_TEXT = re.compile(r"([-+]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([-+]?)([0-9]+))?")


def _yaml_number(text: str):
    """What YAML (PyYAML, YAML 1.1) reads plain ``text`` as, if a number (not a bool), else None."""
    try:
        value = yaml.load(text, Loader=_SAFE_LOADER)
    except yaml.YAMLError:
        return None
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _number_hint(value, types, infinity: bool = False) -> str:
    """Advice for a string that reads as a number where ``types`` allow a number: ``""`` if
    ``value`` is no such string, else ``"; ..."`` ending with the spelling YAML reads as one.

    PyYAML follows YAML 1.1: a float needs a dot and a signed exponent, so ``1e9`` and
    ``1e-3`` are strings (``write it as 1.0e+9`` / ``1.0e-3``). A quoted number is a string
    as well (``write it as 0.5, without quotes``). For an integer key the advice is the integer
    (``1e3`` -> ``1000``), and ``.inf`` where ``infinity`` is allowed. A string that
    ``float()`` refuses, NaN, infinity elsewhere, or a non-whole number for an integer key gets
    no advice.
    """
    if not isinstance(value, str) or not {"number", "integer"} & set(types):
        return ""
    text = value.strip()
    try:
        number = float(text)
    except ValueError:
        return ""
    parts = _NUMBER_TEXT.fullmatch(text.replace("_", ""))
    if "number" not in types:  # an integer key
        if not (math.isfinite(number) and number.is_integer()):
            return ""
        spelled = str(int(number))
    elif math.isnan(number) or (math.isinf(number) and not infinity):
        return ""
    elif math.isinf(number):
        spelled = "-.inf" if number < 0 else ".inf"
    elif _yaml_number(text) is None and parts and parts[5] is not None:
        sign, whole, frac, exp_sign, exp = parts.groups()  # YAML 1.1 wants the dot and the sign
        spelled = f"{sign}{whole or '0'}.{frac or '0'}e{exp_sign or '+'}{exp}"
    else:
        spelled = text
    if _yaml_number(spelled) is None:
        return ""
    if _yaml_number(text) is not None:  # a number in quotes
        return f"; {value!r} is a string (in quotes): write it as {spelled}, without quotes"
    return f"; YAML reads {value} as a string, not a number: write it as {spelled}"


def yaml_line(path: str | Path, keys) -> int | None:
    """The line of key path ``keys`` in YAML file ``path``.

    The file is parsed again (nodes only, ~1 ms per 100 lines): call it for errors, not for
    valid data.

    Parameters
    ----------
    path : str or Path
        A YAML file.
    keys : sequence
        A key path: str mapping keys (matched by their text) and int list indices.

    Returns
    -------
    int or None
        The line (from 1) of the last key: of the mapping key, or of the list item for an
        index; a key merged in with ``<<`` is found in the merged mapping. None when the file
        cannot be read or parsed, or does not hold the key path (a value set elsewhere, e.g.
        by ``--config``).
    """
    try:
        node = yaml.compose(Path(path).read_text(), Loader=_SAFE_LOADER)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    line = None
    for k in keys:
        node, line = _child(node, k)
        if node is None:
            return None
    return line


def _child(node, key):
    """(child node, line of its key or item) of a composed YAML node, or (None, None)."""
    if isinstance(node, yaml.MappingNode):
        merged = []
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                merged += (
                    value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
                )
            elif isinstance(key_node, yaml.ScalarNode) and key_node.value == str(key):
                return value_node, key_node.start_mark.line + 1
        for source in merged:
            found = _child(source, key)
            if found[0] is not None:
                return found
    elif isinstance(node, yaml.SequenceNode) and isinstance(key, int):
        if 0 <= key < len(node.value):
            return node.value[key], node.value[key].start_mark.line + 1
    return None, None


def _refusal(source: str, text: str, line: int | None) -> str:
    """One line of a refusal: ``<source>: <key> = <value>: <problem>``, then ``(line <n>)``."""
    return f"{source}: {text}" + ("" if line is None else f" (line {line})")


def check_schema(data: dict, schema: dict | str | Path, source: str) -> None:
    """Validate ``data`` against ``schema``.

    A (data, schema) pair found valid is remembered (:data:`VALID_CACHE`), so parsing the
    workflow again with unchanged files skips the validation (~0.3 s of ``snakemake -n``).

    Parameters
    ----------
    data : dict
    schema : dict or path to a YAML/JSON schema file
    source : str
        Where ``data`` was read, for messages: a YAML file's path, or a description.

    Raises
    ------
    ConfigError
        One line per violation, sorted by key path: ``<source>: <key> = <value>: <problem>``
        (see :func:`schema_errors`), then, when ``source`` is a file that holds the key,
        ``(line <n>)`` (:func:`yaml_line`; the mapping's line, for a missing key).
    """
    is_file = Path(source).is_file()
    _validate(
        data,
        schema,
        lambda p: _refusal(source, p.text, yaml_line(source, p.path) if is_file else None),
    )


def _validate(data, schema, refusal) -> None:
    """Validate ``data`` against ``schema`` (a path or the loaded schema), through the cache of
    passed validations; raise :class:`ConfigError` with ``refusal(problem)`` per problem."""
    if not isinstance(schema, dict):
        schema = load_yaml(schema)
    key = _validation_key(data, schema)
    if key is not None and key in _valid_keys():
        return
    problems = _schema_problems(data, schema)
    if problems:
        raise ConfigError("\n".join(refusal(p) for p in problems))
    if key is not None:
        _remember_valid(key)


def _holds(data, keys) -> bool:
    """Whether nested mappings / lists ``data`` hold key path ``keys``."""
    for k in keys:
        if isinstance(data, dict) and k in data:
            data = data[k]
        elif isinstance(data, list) and isinstance(k, int) and 0 <= k < len(data):
            data = data[k]
        else:
            return False
    return True


def config_origin(layers, keys, missing: bool = False) -> str:
    """Which layer of a merged configuration set key path ``keys``.

    Parameters
    ----------
    layers : sequence of (str, dict)
        What was merged, lowest precedence first, each as (source, data): Snakemake's order is
        ``config/config.yaml``, each ``--configfile``, then ``("--config", overrides)``.
    keys : sequence
        A key path (str keys, int list indices).
    missing : bool
        True for a mapping a required key is missing from: the first layer holding that
        mapping is named (the file where the key belongs), not the last one.

    Returns
    -------
    str
        The source of the last layer holding ``keys`` (the first one if ``missing``); the
        first layer's source when none holds it (a value the workflow filled in).
    """
    holding = [source for source, data in layers if _holds(data, keys)]
    if not holding:
        return layers[0][0]
    return holding[0] if missing else holding[-1]


def config_refusal(layers, keys, text: str, missing: bool = False) -> str:
    """``text``, a problem of key path ``keys``, as one line of a refusal blamed on its layer.

    Parameters
    ----------
    layers, keys, missing
        As for :func:`config_origin`.
    text : str
        The problem, starting with the key path (``scale = 'huge': not allowed; ...``).

    Returns
    -------
    str
        ``<source>: <text>``, the source being :func:`config_origin`'s, then ``(line <n>)``
        when the source is a YAML file that holds the key path (:func:`yaml_line`).
    """
    source = config_origin(layers, keys, missing)
    line = yaml_line(source, keys) if Path(source).is_file() else None
    return _refusal(source, text, line)


def check_config(config: dict, schema: dict | str | Path, layers) -> None:
    """Validate a configuration merged from several layers, blaming each violation on its layer.

    Like :func:`check_schema`, with each line's source the layer that set the key
    (:func:`config_refusal`): ``config/config.yaml: scale = 'huge': not allowed; allowed:
    paper, quick (line 7)``, or ``--config: scale = 'huge': ...`` for an override (no line).

    Parameters
    ----------
    config : dict
        The merged configuration the workflow uses.
    schema : dict or path to a YAML/JSON schema file
    layers : sequence of (str, dict)
        See :func:`config_origin`; a source that is a YAML file gets line numbers.

    Raises
    ------
    ConfigError
        One line per violation, sorted by key path.
    """
    _validate(config, schema, lambda p: config_refusal(layers, p.path, p.text, p.missing))


#: Validations that passed, by the SHA-256 of what decides them: the pickled data and schema,
#: this module's source (the validator and its error rules) and the installed jsonschema (its
#: ``validators.py``: path, size, modification time). Only passes are kept: every error is
#: found again and reported in full. Deleting the file only costs the next parse ~0.3 s.
VALID_CACHE = Path(".snakemake") / "valid-configurations.json"


def _validation_key(data, schema) -> str | None:
    """The cache key of one validation; None if the data cannot be pickled (never cached)."""
    import hashlib
    import importlib.util
    import os

    try:
        blob = pickle.dumps((data, schema), protocol=5)
    except Exception:  # noqa: BLE001 - an unpicklable value: validate every time
        return None
    spec = importlib.util.find_spec("jsonschema")
    origin = Path(spec.origin).with_name("validators.py") if spec and spec.origin else None
    stat = os.stat(origin) if origin and origin.exists() else None
    h = hashlib.sha256(blob)
    h.update(_module_source())
    h.update(f"{origin}|{stat and stat.st_size}|{stat and stat.st_mtime_ns}".encode())
    return h.hexdigest()


@functools.cache
def _module_source() -> bytes:
    return Path(__file__).read_bytes()


@functools.cache
def _valid_keys() -> dict:
    """The remembered keys, oldest first (a dict as an ordered set)."""
    try:
        return dict.fromkeys(str(k) for k in json.loads(VALID_CACHE.read_text()))
    except (OSError, ValueError, TypeError):
        return {}


def _remember_valid(key: str) -> None:
    """Add ``key`` to the cache file atomically, keeping the :data:`CACHE_ENTRIES` newest
    (parallel parses may race; a lost key only costs one more validation)."""
    from .cache_files import write_atomically

    keys = _valid_keys()
    keys.pop(key, None)
    keys[key] = None
    for old in list(keys)[: max(0, len(keys) - CACHE_ENTRIES)]:
        del keys[old]
    write_atomically(VALID_CACHE, json.dumps(list(keys)).encode())


def _plain_copy(value):
    """A copy of a plain value (dicts, lists and tuples copied recursively, scalars as is)."""
    if isinstance(value, dict):
        return {k: _plain_copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_plain_copy(v) for v in value)
    return value


@dataclass(frozen=True)
class Cell:
    """One simulation job: all trials of one (panel, configuration, series).

    ``kind`` says which fields place the cell:

    - ``"figure"``: ``figure``, ``panel``, ``configuration`` and ``series`` (the sweep and
      calibration fields are empty);
    - ``"sweep"``: ``sweep`` (the sweep id of the experiment file), ``schedule`` (the series of
      the sweep: a schedule entry, or one gap of its gap grid) and ``point`` (``eps<e>_T<T>``,
      with ``_d<d>`` when the sweep varies d); ``figure``, ``panel``, ``configuration`` and
      ``series`` are empty;
    - ``"calibration"``: ``calibration_id`` (the calibration of the experiment file) and
      ``point`` (the tried option value, or ``reference``); ``figure`` to ``series`` name the
      figure cell it calibrates (or the reference cell it matches).
    """

    experiment: str
    figure: str
    panel: str
    configuration: str
    series: str
    algorithm: str
    calibration: str
    fidelity: str
    instances: str
    T: int
    trials: int
    K: int
    d: int
    epsilon: float | None
    delta: float
    B: int
    instance_seed: int
    reward_seed_offset: int
    checkpoints: int
    root_seed: int
    scale: str
    quirks: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)
    kind: str = "figure"
    first_trial: int = 0
    instance_options: dict = field(default_factory=dict)
    noise_key: str = "panel"
    sweep: str = ""
    schedule: str = ""
    point: str = ""
    calibration_id: str = ""

    @property
    def calibration_ids(self) -> list[str]:
        """Ids of the calibrations whose chosen value an option of this cell takes."""
        return [
            v["calibrated"]
            for v in self.options.values()
            if isinstance(v, dict) and "calibrated" in v
        ]

    def resolved_options(self, calibrated: dict[str, float] | None = None) -> dict:
        """Options with every ``{calibrated: id}`` replaced by the chosen value and
        ``lambda_min: population`` by the instance family's population value.

        Without ``calibrated`` a stand-in 1.0 is used (to validate the configuration before the
        calibration has run).
        """
        from .envs import population_lambda_min

        out = {}
        for key, value in self.options.items():
            if isinstance(value, dict) and "calibrated" in value:
                out[key] = 1.0 if calibrated is None else float(calibrated[value["calibrated"]])
            elif key == "lambda_min" and value == "population":
                out[key] = population_lambda_min(self.instances, self.d, self.K)
            else:
                out[key] = value
        return out

    @property
    def path(self) -> str:
        """Output parquet, relative to the project root."""
        return f"{results_root(self.scale)}/sim/{self.stem}.parquet"

    @property
    def stem(self) -> str:
        """Figure cells: ``<experiment>/<panel>/<configuration>/<series>``; sweep cells:
        ``<experiment>/<sweep>/<schedule>/<eps..._T...>``."""
        if self.kind == "sweep":
            return f"{self.experiment}/{self.sweep}/{self.schedule}/{self.point}"
        if self.kind == "calibration":
            where = f"{self.calibration_id}/{self.series}"
            return f"{self.experiment}/calibration/{where}/{self.point or 'base'}"
        return f"{self.experiment}/{self.panel}/{self.configuration}/{self.series}"

    def place(self) -> dict[str, str]:
        """The fields that place this cell, by kind (see the class docstring): the setting
        columns of its results file and its timing row."""
        return {name: getattr(self, name) for name in PLACE_FIELDS[self.kind]}

    @property
    def seed_panel(self) -> str:
        """The panel name in the key of the noise streams: the panel of a figure cell,
        ``sweep:<sweep>:<point>`` for a sweep cell, ``calibration:<id>:<id>:<point>`` for a
        calibration cell (the id twice: the key these cells had when the id and point were stored
        in the figure and panel fields, kept so that their noise is unchanged).

        With ``noise_key = "settings"`` (an experiment default) figure cells are keyed by their
        settings instead of their panel, so the same setting in two figures (e.g. epsilon = 10 in
        paper 004's Figure 2(a) and 2(b)) draws the same noise and gives the same numbers.
        """
        if self.kind == "sweep":
            return f"sweep:{self.sweep}:{self.point}"
        if self.kind == "calibration":
            return f"calibration:{self.calibration_id}:{self.calibration_id}:{self.point}"
        if self.noise_key == "settings":
            eps = "none" if self.epsilon is None else f"{self.epsilon:g}"
            opts = json.dumps(self.instance_options, sort_keys=True)
            where = f"{self.instances}:{opts}:eps{eps}:delta{self.delta:g}:d{self.d}:T{self.T}"
            return f"settings:{where}"
        return self.panel

    def as_dict(self) -> dict:
        """Plain, JSON-serialisable dict: equal to ``dataclasses.asdict(self)`` (the same keys
        in the same order, nested dicts and lists copied), without its generic recursion, which
        cost ~1 s of every workflow parse (5000 calls)."""
        return {name: _plain_copy(getattr(self, name)) for name in _CELL_FIELDS}

    def computation_key(self) -> str:
        """The cell's simulation, as canonical JSON: every field except the labels that place
        a figure cell (:data:`LABEL_FIELDS`), plus the panel name its noise streams are keyed
        by (:attr:`seed_panel`). Every number of a cell's results is a function of these
        (the instances, reward and noise streams, the policy and its calibrated options, the
        horizon, trials and checkpoints), so two cells with the same key give the same values
        (:meth:`Experiment.shared_sources`); the labels only name where the file goes."""
        d = self.as_dict()
        for name in LABEL_FIELDS:
            del d[name]
        d["seed_panel"] = self.seed_panel
        return json.dumps(d, sort_keys=True)

    def config_hash(self) -> str:
        """SHA-256 of the cell's canonical JSON: changes iff a setting of this cell changes."""
        from .io import settings_hash

        return settings_hash(self.as_dict())

    def memory_mb(self, policy: Policy | None = None) -> int:
        """Estimated peak memory (MiB) of simulating this cell (:mod:`dpbandits.sizes`)."""
        from .sizes import bytes_per_trial, job_memory_mb

        pol = self.policy(search=False) if policy is None else policy
        per_trial = bytes_per_trial(
            pol.scheme, self.T, self.K, self.d, pol.n_refresh, pol.n_batches, pol.engine
        )
        n_bases = getattr(pol, "n_bases", 0) if pol.engine == "combiner" else 0
        return job_memory_mb(per_trial, self.trials, self.T, self.checkpoints, n_bases, pol.engine)

    def policy(self, calibrated: dict[str, float] | None = None, search: bool = True) -> Policy:
        """The calibrated policy of this cell (``calibrated``: chosen values by calibration id).

        ``search=False``: a matched cell's policy at its label, after checking that it can be
        matched (:func:`dpbandits.privacy.matching.matched_policy`): its shapes and sizes, without
        the search for its noise (what validation and job sizes need)."""
        setting = Setting(
            T=self.T, d=self.d, epsilon=self.epsilon, delta=self.delta, B=self.B, K=self.K
        )
        quirks = Quirks.from_fidelity(self.fidelity, **self.quirks)
        options = self.resolved_options(calibrated)
        if is_matched(self.calibration):  # the base calibration's map at an internal epsilon
            base = matched_base(self.calibration)

            def build(epsilon: float) -> Policy:
                at = replace(setting, epsilon=epsilon)
                return make_policy(self.algorithm, at, base, quirks, **options)

            return matched_policy(self, build, search)
        return make_policy(self.algorithm, setting, self.calibration, quirks, **options)

    @classmethod
    def from_dict(cls, data: dict) -> Cell:
        """Inverse of :meth:`as_dict`."""
        return cls(**data)


#: Field names of :class:`Cell` in declaration order (its ``as_dict`` keys).
_CELL_FIELDS = tuple(f.name for f in fields(Cell))

#: Fields of a figure cell that only name it: where its file goes and how it is drawn. The
#: simulation reads none of them (its noise streams read the panel through
#: :attr:`Cell.seed_panel`, which :meth:`Cell.computation_key` keeps).
LABEL_FIELDS = ("figure", "panel", "configuration")


@dataclass(frozen=True)
class PanelSpec:
    """One panel of a figure under one configuration."""

    id: str
    letter: str
    epsilon: float | None
    d: int
    caption: str
    cells: tuple[Cell, ...]
    title: str = ""
    T: int = 0


@dataclass(frozen=True)
class FigureSpec:
    """One figure of one configuration, rendered by one notebook execution.

    The notebook draws the combined multi-panel figure ``<figure><suffix>`` and every panel
    ``<panel><suffix>``, for each metric (realized regret; plus pseudo-regret, suffix
    ``_pseudo``, for the primary configuration).
    """

    id: str
    experiment: str
    figure: str
    configuration: str
    suffix: str
    title: str
    caption: str
    series: tuple[str, ...]
    panels: tuple[PanelSpec, ...]
    metrics: tuple[str, ...]
    notebook: str = "notebooks/regret_curves.ipynb"
    plot: str = "cumulative"
    band: str = "se"
    #: The configuration's calibration (its non-private series may run under another: a
    #: matched configuration's run under the calibration it matches).
    calibration: str = ""

    @property
    def inputs(self) -> list[str]:
        """Parquet files the figure reads."""
        return [c.path for p in self.panels for c in p.cells]

    def names(self, metric: str) -> tuple[str, list[str]]:
        """Output names (without extension) of the combined figure and of each panel; a metric
        other than the figure's first gets the suffix ``_pseudo``."""
        suffix = "_pseudo" if metric != self.metrics[0] else self.suffix
        return f"{self.figure}{suffix}", [f"{p.id}{suffix}" for p in self.panels]

    def panel_images(self, metric: str) -> bool:
        """Whether single-panel files are written for ``metric``: the figure's first metric, when
        the panels are plots of their own (not points of one plot) and there are several."""
        return (
            metric == self.metrics[0]
            and self.plot in ("cumulative", "per_round")
            and len(self.panels) > 1
        )

    @property
    def image_names(self) -> list[str]:
        """Every figure name this notebook writes: per metric the combined figure, then the
        single panels (realized regret only; pseudo-regret is drawn as a combined figure)."""
        out = []
        for metric in self.metrics:
            combined, panels = self.names(metric)
            out.extend([combined, *(panels if self.panel_images(metric) else [])])
        return out


@dataclass(frozen=True)
class SweepSpec:
    """A horizon (and epsilon) sweep: one cell per (schedule, epsilon, T)."""

    id: str
    experiment: str
    title: str
    description: str
    T: tuple[int, ...]
    epsilon: tuple[float, ...]
    trials: int
    schedules: tuple[str, ...]
    cells: tuple[Cell, ...]
    #: Schedule entry of the experiment file -> its series: itself, or one series per gap of
    #: its ``gap_grid`` (largest gap first). One simulation job per entry.
    grids: dict = field(default_factory=dict)

    def cells_of(self, schedule: str) -> list[Cell]:
        """The cells of one schedule (all epsilon and T)."""
        return [c for c in self.cells if c.schedule == schedule]

    def cells_of_entry(self, entry: str) -> list[Cell]:
        """The cells of every series of one schedule entry (a gap grid's: every gap)."""
        return [c for s in self.grids[entry] for c in self.cells_of(s)]


def grid_members(schedule: str, series) -> list[str]:
    """The series of gap grid ``schedule`` among ``series`` names, largest gap first (the names
    :func:`grid_series` gives them)."""
    found = {
        int(m.group(1)): s
        for s in series
        if (m := re.fullmatch(rf"{re.escape(schedule)}_g(\d+)", s))
    }
    return [found[k] for k in sorted(found)]


def grid_series(schedule: str, grid) -> list[tuple[str, float]]:
    """The series of a schedule's gap grid: ``(<schedule>_g<k>, gap_scale)``, ``k = 1, 2, ...``
    from the largest gap scale to the smallest."""
    return [(f"{schedule}_g{k}", float(g)) for k, g in enumerate(sorted(grid, reverse=True), 1)]


def parse_power(text: str) -> Fraction:
    """``"3/5"`` -> ``Fraction(3, 5)``."""
    return Fraction(text)


def nearest_divisor(T: int, target: float) -> int:
    """The divisor of ``T`` closest to ``target`` (the smaller one on ties)."""
    small = [k for k in range(1, math.isqrt(T) + 1) if T % k == 0]
    divisors = {*small, *(T // k for k in small)}
    return min(divisors, key=lambda k: (abs(k - target), k))


def resolve_schedule(entry: dict, T: int) -> tuple[int, dict]:
    """Batch size and options of a sweep schedule at horizon ``T``.

    ``B: int`` as given; ``B: {power: p}`` the divisor of ``T`` nearest ``T^p``;
    ``M: {power: p}`` the number of batches, the divisor of ``T`` nearest ``T^p``, so
    ``B = T / M``; option ``M0: {power: p}`` is ``round(T^p)``; ``explore: {power: a, scale: c}``
    (explore-then-commit) the option ``explore = ceil(c T^a)`` (``c`` 1 unless given).

    Raises ``ValueError`` for an ``explore`` power outside ``(0, 1]``.
    """
    B = 1
    if isinstance(entry.get("B"), int):
        B = entry["B"]
    elif "B" in entry:
        B = nearest_divisor(T, T ** float(parse_power(entry["B"]["power"])))
    if "M" in entry:
        B = T // nearest_divisor(T, T ** float(parse_power(entry["M"]["power"])))
    options = dict(entry.get("options", {}))
    if isinstance(options.get("M0"), dict):
        options["M0"] = max(1, round(T ** float(parse_power(options["M0"]["power"]))))
    if "explore" in entry:
        from .policies.etc import explore_rounds

        power = parse_power(entry["explore"]["power"])
        if not 0 < power <= 1:
            raise ValueError(f"explore.power = {str(power)!r}: allowed a fraction in (0, 1]")
        options["explore"] = explore_rounds(T, float(power), entry["explore"].get("scale", 1.0))
    return B, options


@dataclass(frozen=True)
class CalibrationSpec:
    """A search over one option of one series.

    ``min_regret`` (e.g. OnlineUCB's ``c_beta``, the radius scale paper 000 leaves open;
    docs/papers/olucb.md, "Calibration"): the series' cell of ``configuration`` in ``panel`` is
    rerun for every grid value on the instances ``first_trial .. first_trial + trials - 1``
    (disjoint from the evaluation trials). The value with the smallest mean final pseudo-regret
    is chosen (ties: the larger value); if it is at an end of the grid, ``extend`` more values
    beyond that end are tried once.

    ``match`` (e.g. DPE-FixedU's ``U``, which paper 004, Sec. 7 chooses so that both algorithms
    have the same communication cost; docs/papers/dpdpe.md): the integer in ``search`` whose mean
    final ``metric`` is closest to the ``reference`` cell's, found by bisection (the metric
    increases with the option), then checked at the neighbours.
    """

    id: str
    experiment: str
    title: str
    series: str
    option: str
    grid: tuple[float, ...]
    step: float
    extend: int
    base: Cell
    objective: str = "min_regret"
    reference: Cell | None = None
    metric: str = "regret_pseudo"
    search: tuple[int, int] | None = None

    @property
    def path(self) -> str:
        """Output table (value, mean_final, se_final, chosen)."""
        return f"{results_root(self.base.scale)}/calibration/{self.experiment}/{self.id}.csv"

    def cell(self, value: float) -> Cell:
        """The base cell with the option set to ``value`` (an integer for ``match``)."""
        value = int(value) if self.objective == "match" else float(value)
        return type(self.base)(
            **{
                **self.base.as_dict(),
                "options": {**self.base.options, self.option: value},
                "point": f"{value:.6g}",
            }
        )


@dataclass
class Experiment:
    """An expanded experiment file."""

    name: str
    data: dict
    cells: list[Cell]
    figures: list[FigureSpec]
    sweeps: list[SweepSpec] = field(default_factory=list)
    calibrations: list[CalibrationSpec] = field(default_factory=list)
    #: Cells of ``privacy_checks``: accounted by the privacy audit, never simulated.
    privacy_cells: tuple[Cell, ...] = ()
    _shared: dict | None = field(default=None, repr=False, compare=False)

    def figure(self, fig_id: str) -> FigureSpec:
        """Figure by id."""
        for f in self.figures:
            if f.id == fig_id:
                return f
        raise KeyError(fig_id)

    def groups(self) -> dict[tuple[str, str], list[Cell]]:
        """Cells grouped by (panel, configuration) (the benchmark's unit of work)."""
        out: dict[tuple[str, str], list[Cell]] = {}
        for cell in self.cells:
            out.setdefault((cell.panel, cell.configuration), []).append(cell)
        return out

    def jobs(self) -> dict[tuple[str, str], list[Cell]]:
        """Cells grouped into simulation jobs: by (panel, configuration), or by (figure,
        configuration) when the experiment file says ``simulation_jobs: figure``.

        A panel job reruns only the panel whose setting changed; a figure job saves a process
        start (~1.5 s of imports and numba's start-up) per panel, which is most of a cheap
        panel's time (paper 004's Figure 2 had 40 panel jobs of 1.7-3 s). The cells of a job
        are simulated one after the other, each from its own seeds, so the grouping changes no
        number.
        """
        if self.data.get("simulation_jobs", "panel") == "panel":
            return self.groups()
        out: dict[tuple[str, str], list[Cell]] = {}
        for cell in self.cells:
            out.setdefault((cell.figure, cell.configuration), []).append(cell)
        return out

    def shared_sources(self) -> dict[str, tuple[Cell, tuple[str, str]]]:
        """Cells whose simulation an earlier job already runs: ``{stem: (source, job)}``, with
        ``job`` the source's key in :meth:`jobs`.

        Two figure cells with the same :meth:`Cell.computation_key` give the same values (the
        seeds leave the configuration out on purpose, so that configurations are paired;
        ``noise_key: settings`` does the same across panels). Such repeats are common: a
        configuration that changes one series (paper 003's R2 changes only LinUCB-SDP-Vec of
        two panels) repeats every other series of the primary one. The job of a repeat copies
        the source's results file and relabels it (:func:`dpbandits.pipeline.copy_cell`)
        instead of simulating again; the values are the same as simulated, only the time is
        saved.

        The source is the cell with that key in the earliest job (in the order of
        :meth:`jobs`), so a job only takes files from earlier jobs and the dependencies have no
        cycle; repeats inside one job are simulated each.
        """
        if self._shared is not None:
            return self._shared
        jobs = list(self.jobs().items())
        first: dict[str, tuple[int, Cell]] = {}
        for index, (_, cells) in enumerate(jobs):
            for cell in cells:
                if cell.kind == "figure":
                    first.setdefault(cell.computation_key(), (index, cell))
        out = {}
        for index, (_, cells) in enumerate(jobs):
            for cell in cells:
                if cell.kind != "figure":
                    continue
                where, source = first[cell.computation_key()]
                if where < index:
                    out[cell.stem] = (source, jobs[where][0])
        self._shared = out
        return out

    @property
    def series(self) -> tuple[str, ...]:
        """Every series label declared by the experiment."""
        return tuple(self.data["series"])

    def configuration_series(self, configuration: str) -> tuple[str, ...]:
        """Series drawn by one configuration (the same in every panel)."""
        return tuple(
            dict.fromkeys(c.series for c in self.cells if c.configuration == configuration)
        )

    def calibration(self, cid: str) -> CalibrationSpec:
        """Calibration by id."""
        for cal in self.calibrations:
            if cal.id == cid:
                return cal
        raise KeyError(cid)


def _merge_series(base: dict, override: dict, where: str) -> dict:
    out = copy.deepcopy(base)
    for label, entry in (override or {}).items():
        if label not in out:
            raise ConfigError(f"{where}.{label}: unknown series; allowed: {', '.join(out)}")
        merged = dict(out[label])
        for key in ("algorithm", "instances"):
            if key in entry:
                merged[key] = entry[key]
        merged["options"] = {**merged.get("options", {}), **entry.get("options", {})}
        out[label] = merged
    return out


def _panel_label(letter: str, settings: dict) -> str:
    """``(a) epsilon = 1, d = 5`` (+ the panel's own T or instance family, if it sets one)."""
    parts = [] if settings["epsilon"] is None else [f"epsilon = {settings['epsilon']:g}"]
    parts.append(f"d = {settings['d']}")
    if "T" in settings:
        parts.append(f"T = {settings['T']:g}")
    if "instances" in settings:
        parts.append(str(settings["instances"]))
    return f"({letter}) " + ", ".join(parts)


def _curves_sentence(fig: dict, n_trials: int) -> str:
    """What the lines and the band of a figure are (its ``plot`` and ``band``)."""
    what = {
        "cumulative": "Curves: mean cumulative regret",
        "per_round": "Curves: mean per-round regret R(t)/t",
        "final_vs_epsilon": "Points: mean final regret R(T), against epsilon,",
        "final_vs_T": "Points: mean final regret R(T), against the horizon T,",
    }[fig.get("plot", "cumulative")]
    if fig.get("band", "se") == "std":
        band = "+/- 1 standard deviation over the runs (ddof = 0)"
    else:
        band = (
            "+/- 1 standard error of the mean (standard deviation over instances with ddof = 0, "
            f"divided by sqrt({n_trials}))"
        )
    return f"{what} over {n_trials} runs; shaded band: {band}."


def _caption(fig: dict, conf_name: str, conf: dict, n_trials: int, scale: str, T: int) -> str:
    parts = [
        f"[Scale {scale}: T = {T} and {n_trials} trials; the settings stated below are the "
        "paper's.]"
        if scale != "paper"
        else "",
        fig["caption"].strip(),
        f"Configuration {conf_name}: {conf['title']} (calibration = {conf['calibration']}, "
        f"fidelity = {conf['fidelity']}, instances = {conf['instances']}).",
        _curves_sentence(fig, n_trials),
    ]
    if conf.get("description"):
        parts.append(conf["description"].strip())
    return " ".join(p for p in parts if p)


def _check_communication(comm: dict, source: str) -> None:
    """What the schema cannot say about the analytic communication audit (paper 004, Theorems 5.1
    and 5.5; docs/papers/dpdpe.md)."""
    where = f"{source}: communication"
    if "alphas" not in comm:  # counts per user (paper 003): the schema says all there is
        return
    for text in comm["alphas"]:
        if not 0 < Fraction(text) < 1:
            raise ConfigError(f"{where}.alphas: {text!r} is not in (0, 1)")
    lo, hi = comm["log2_T"]
    if hi - lo < 4:  # the exponent is fitted over T_max/10 ... T_max: 2^(hi-3) ... 2^hi
        raise ConfigError(
            f"{where}.log2_T = {[lo, hi]}: the last m must exceed the first by at least 4 "
            "(a decade of horizons)"
        )


def expand_experiment(data: dict, config: dict, source: str = "experiment") -> Experiment:
    """Expand one validated experiment file into cells and figures.

    Parameters
    ----------
    data : dict
        The experiment file (already schema-valid).
    config : dict
        The global configuration (already schema-valid).
    source : str
        File name used in error messages.

    Raises
    ------
    ConfigError
        When a reference does not resolve or a cell's policy cannot be calibrated.
    """
    name = data["experiment"]
    panels, drawn_by = _check_references(data, source)
    cells, figures = [], []
    for conf_name, conf in data["configurations"].items():
        series = _configuration_series(data, conf_name, conf, panels, source)
        for fig_name in data["figures"]:
            if conf_name in drawn_by[fig_name]:
                spec = _expand_figure(data, config, source, conf_name, series, fig_name, drawn_by)
                figures.append(spec)
                cells.extend(c for panel in spec.panels for c in panel.cells)
    calibrations = [
        _expand_calibration(name, cid, spec, data, cells, config, source)
        for cid, spec in data.get("calibrations", {}).items()
    ]
    declared = tuple(data.get("calibrations", {}))
    for sid, sw in data.get("sweeps", {}).items():
        if "view" in sw:
            raise ConfigError(
                f"{source}: sweeps.{sid}.view: {sw['view']!r}: a view is a privacy check's "
                "(privacy_checks.<id>.view); a sweep is simulated"
            )
    for sid, sw in data.get("privacy_checks", {}).items():
        for sched, entry in sw["schedules"].items() if sw.get("view") == "local" else ():
            if getattr(POLICIES[entry["algorithm"]], "stated_local_level", None) is None:
                allowed = sorted(
                    a for a, c in POLICIES.items() if getattr(c, "stated_local_level", None)
                )
                raise ConfigError(
                    f"{source}: privacy_checks.{sid}.schedules.{sched}.algorithm: "
                    f"{entry['algorithm']!r} has no stated local level; allowed with view "
                    f"local: {', '.join(allowed)}"
                )
    sweeps = [
        _expand_sweep(name, sid, sw, config, source, declared)
        for sid, sw in data.get("sweeps", {}).items()
    ]
    # settings the privacy accountant audits without simulation: expanded as sweeps, never run
    checks = [
        _expand_sweep(name, sid, sw, config, source, declared)
        for sid, sw in data.get("privacy_checks", {}).items()
    ]
    privacy_cells = tuple(c for sw in checks for c in sw.cells)
    return Experiment(name, data, cells, figures, sweeps, calibrations, privacy_cells)


def _check_references(data: dict, source: str) -> tuple[dict, dict]:
    """Check the experiment's cross-references (primary, figures' configurations, every
    configuration drawn) and return its panels (id -> (figure, letter, figure dict, settings))
    and, per figure, the configurations that draw it."""
    confs = data["configurations"]
    if data["primary"] not in confs:
        raise ConfigError(
            f"{source}: primary = {data['primary']!r}: not a configuration; "
            f"allowed: {', '.join(confs)}"
        )
    if "communication" in data:
        _check_communication(data["communication"], source)
    panels = {}
    for fig_name, fig in data["figures"].items():
        for letter, settings in fig["panels"].items():
            panels[f"{fig_name}{letter}"] = (fig_name, letter, fig, settings)
    drawn_by = {}
    for fig_name, fig in data["figures"].items():
        listed = fig.get("configurations", list(confs))
        unknown = [c for c in listed if c not in confs]
        if unknown:
            raise ConfigError(
                f"{source}: figures.{fig_name}.configurations: unknown {unknown}; "
                f"allowed: {', '.join(confs)}"
            )
        drawn_by[fig_name] = listed
    for conf_name in confs:
        if not any(conf_name in listed for listed in drawn_by.values()):
            raise ConfigError(
                f"{source}: configurations.{conf_name}: no figure draws it "
                "(see figures.*.configurations)"
            )
    return panels, drawn_by


def _configuration_series(data, conf_name, conf, panels, source) -> dict:
    """The series a configuration shows (the experiment's, merged with its own overrides)."""
    where = f"{source}: configurations.{conf_name}"
    series = _merge_series(data["series"], conf.get("series", {}), f"{where}.series")
    shown = conf.get("show") or [k for k, v in series.items() if not v.get("extra")]
    unknown = [s for s in shown if s not in series]
    if unknown:
        allowed = ", ".join(series)
        raise ConfigError(f"{where}.show: unknown series {unknown}; allowed: {allowed}")
    for pid in conf.get("panels", {}):
        if pid not in panels:
            raise ConfigError(f"{where}.panels.{pid}: unknown panel; allowed: {', '.join(panels)}")
    return {k: series[k] for k in shown}


def _expand_figure(data, config, source, conf_name, series, fig_name, drawn_by) -> FigureSpec:
    """One figure under one configuration: its panels' cells and its spec."""
    conf, fig = data["configurations"][conf_name], data["figures"][fig_name]
    # a figure keeps its own name under the primary configuration or when it is the only
    # configuration drawing it
    own = conf_name == data["primary"] or len(drawn_by[fig_name]) == 1
    suffix = "" if own else f"_{conf_name}"
    fig_series = fig.get("series")
    if fig_series is not None:
        unknown = [s for s in fig_series if s not in data["series"]]
        if unknown:
            raise ConfigError(
                f"{source}: figures.{fig_name}.series: unknown {unknown}; "
                f"allowed: {', '.join(data['series'])}"
            )
    drawn = [s for s in (fig_series or series) if s in series]
    if not drawn:
        raise ConfigError(
            f"{source}: figures.{fig_name}: configuration {conf_name} draws none of its series"
        )
    panel_specs = [
        _expand_panel(data, config, source, conf_name, {k: series[k] for k in drawn}, fig_name,
                      letter, settings)
        for letter, settings in fig["panels"].items()
    ]  # fmt: skip
    pcells = panel_specs[-1].cells
    n_trials = panel_specs[0].cells[0].trials
    if all(POLICIES[c.algorithm].engine == "phased" for c in pcells):
        metrics = ("regret_pseudo",)  # phase-level runs have no realized rewards
    elif own:
        metrics = ("regret_realized", "regret_pseudo")
    else:
        metrics = ("regret_realized",)
    return FigureSpec(
        id=f"{fig_name}{suffix}",
        experiment=data["experiment"],
        figure=fig_name,
        configuration=conf_name,
        suffix=suffix,
        title=(
            fig["title"] if len(drawn_by[fig_name]) == 1 else f"{fig['title']} [{conf['title']}]"
        ),
        caption=_caption(
            fig, conf_name, conf, n_trials, config["scale"], panel_specs[0].cells[0].T
        ),
        series=tuple(drawn),
        panels=tuple(panel_specs),
        metrics=metrics,
        plot=fig.get("plot", "cumulative"),
        band=fig.get("band", "se"),
        calibration=conf["calibration"],
    )


def _expand_panel(data, config, source, conf_name, series, fig_name, letter, settings):
    """One panel of a figure under one configuration: a checked cell per series, and the
    panel's spec (its caption notes the series outside their theorem's conditions)."""
    conf = data["configurations"][conf_name]
    where = f"{source}: configurations.{conf_name}"
    pid = f"{fig_name}{letter}"
    scale = config["scale"]
    scale_over = config["scales"].get(scale, {}) if scale != "paper" else {}
    conf_over = {k: conf[k] for k in ("T",) if k in conf}
    panel_over = conf.get("panels", {}).get(pid, {})
    panel_series = _merge_series(series, panel_over, f"{where}.panels.{pid}")
    merged = {**data["defaults"], **conf_over, **settings, **scale_over}
    pcells, notes = [], []
    for label, entry in panel_series.items():
        cell = Cell(
            experiment=data["experiment"],
            figure=fig_name,
            panel=pid,
            configuration=conf_name,
            series=label,
            algorithm=entry["algorithm"],
            calibration=_cell_calibration(conf["calibration"], entry["algorithm"]),
            fidelity=conf["fidelity"],
            instances=settings.get("instances", entry.get("instances", conf["instances"])),
            T=merged["T"],
            trials=merged["trials"],
            K=merged["K"],
            d=merged["d"],
            epsilon=None if merged["epsilon"] is None else float(merged["epsilon"]),
            delta=float(merged["delta"]),
            B=merged["B"],
            instance_seed=merged["instance_seed"],
            reward_seed_offset=merged["reward_seed_offset"],
            checkpoints=merged.get("checkpoints", config["checkpoints"]),
            root_seed=config["root_seed"],
            scale=scale,
            quirks=dict(conf.get("quirks", {})),
            options=dict(entry.get("options", {})),
            instance_options=dict(merged.get("instance_options", {})),
            noise_key=merged.get("noise_key", "panel"),
        )
        notes += _check_figure_cell(cell, data, config, where, pid)
        overrides = panel_over.get(label, {}).get("options")
        if overrides:
            notes.append(f"{label}: options {overrides} in this panel.")
        pcells.append(cell)
    label = _panel_label(letter, settings)
    return PanelSpec(
        id=pid,
        letter=letter,
        epsilon=None if settings["epsilon"] is None else float(settings["epsilon"]),
        d=int(settings["d"]),
        caption=" ".join([label + "."] + notes),
        cells=tuple(pcells),
        title=label,
        T=int(pcells[0].T),
    )


def _cell_calibration(calibration: str, algorithm: str) -> str:
    """A configuration's calibration for one series: a non-private series of a matched
    configuration has no noise to match and runs under the calibration the matched one evaluates
    (its cell is then the same simulation as in the published configuration)."""
    cls = POLICIES.get(algorithm)
    if calibration == MATCHED and cls is not None and not cls.private:
        return MATCHED_BASE
    return calibration


def _check_figure_cell(cell, data, config, where: str, pid: str) -> list[str]:
    """Refuse a cell whose calibration is undeclared, whose policy cannot be built or whose job
    is too large (``where``: the configuration, for messages); return the caption note when the
    cell is outside its theorem's conditions."""
    missing = set(cell.calibration_ids) - set(data.get("calibrations", {}))
    if missing:
        declared = ", ".join(data.get("calibrations", {}))
        raise ConfigError(
            f"{where}, series {cell.series}: calibration {sorted(missing)} is not declared "
            f"under calibrations; declared: {declared}"
        )
    where = f"{where} (panel {pid}), series {cell.series}"
    check_shape(cell, config.get("max_job_mb", MAX_JOB_MB), where)
    try:
        policy = cell.policy(search=False)
    except (ValueError, ArithmeticError) as exc:  # ArithmeticError: extreme epsilon or delta
        raise ConfigError(
            f"{where} (algorithm {cell.algorithm!r}, epsilon {cell.epsilon}, delta {cell.delta}): "
            + _calibration_refusal(exc)
        ) from None
    check_cell(cell, policy, config.get("max_job_mb", MAX_JOB_MB), where)
    failed = [txt for txt, ok in policy.conditions() if not ok]
    if failed:
        return [f"{cell.series} is outside its theorem's conditions ({'; '.join(failed)})."]
    return []


def _sweep_runs(sid: str, sw: dict, horizons, scale: str, source: str) -> tuple[dict, list]:
    """A sweep's schedules as runs: per schedule its series (one per gap of a ``gap_grid``: the
    worst case over instances, the grid shrunk at a short scale so its widest gap is at most 1),
    and the list of (series, schedule entry) to simulate."""
    grids, runs = {}, []
    for sched, entry in sw["schedules"].items():
        if "gap_grid" in entry:  # one series per gap scale (worst case over instances)
            if sw["instances"] != "two_action":
                raise ConfigError(
                    f"{source}: sweeps.{sid}.schedules.{sched}.gap_grid: needs instances "
                    f"two_action (gap_scale is its option), got {sw['instances']!r}"
                )
            power = float(
                {**sw.get("instance_options", {}), **entry.get("instance_options", {})}.get(
                    "gap_power", 0.0
                )
            )
            members = grid_series(sched, entry["gap_grid"])
            # gap_scale * T^-power <= 1 at the shortest horizon (a limit beyond any float: none)
            decades = power * math.log10(min(horizons))
            limit = min(horizons) ** power if decades < 300 else math.inf
            if members[0][1] > limit:
                if scale == "paper":
                    raise ConfigError(
                        f"{source}: sweeps.{sid}.schedules.{sched}.gap_grid: gap scale "
                        f"{members[0][1]:g} gives a gap above 1 at T = {min(horizons)} "
                        f"(gap_scale * T^-{power:g}); allowed: at most {limit:.4g}"
                    )
                # other scales (short horizons): the grid shrunk so its widest gap is 1
                shrink = limit / members[0][1]
                members = [(series, gap * shrink) for series, gap in members]
            grids[sched] = tuple(series for series, _ in members)
            for series, gap in members:
                inst = {**entry.get("instance_options", {}), "gap_scale": gap}
                runs.append((series, {**entry, "instance_options": inst}))
        else:
            grids[sched] = (sched,)
            runs.append((sched, entry))
    return grids, runs


def _check_sweep_cell(cell, declared, config: dict, where: str) -> None:
    """Refuse a sweep cell whose calibration is undeclared, whose policy cannot be built or whose
    job is too large."""
    missing = set(cell.calibration_ids) - set(declared)
    if missing:
        raise ConfigError(
            f"{where}: calibration {sorted(missing)} is not declared under calibrations; "
            f"declared: {', '.join(declared)}"
        )
    at = f"{where} (epsilon {cell.epsilon}, T {cell.T})"
    check_shape(cell, config.get("max_job_mb", MAX_JOB_MB), at)
    try:
        policy = cell.policy(search=False)
    except (ValueError, ArithmeticError) as exc:  # ArithmeticError: extreme epsilon or delta
        raise ConfigError(f"{at} (delta {cell.delta}): " + _calibration_refusal(exc)) from None
    check_cell(cell, policy, config.get("max_job_mb", MAX_JOB_MB), at)


def _expand_sweep(
    name: str, sid: str, sw: dict, config: dict, source: str, declared=()
) -> SweepSpec:
    """One sweep of an experiment: a checked cell per (series, epsilon, d, T) of its schedules at
    the configured scale (``declared``: the experiment's calibration ids)."""
    scale = config["scale"]
    horizons, trials = sw["T"], sw["trials"]
    if scale != "paper":
        over = config["scales"][scale]
        horizons, trials = over["sweep_T"], over["sweep_trials"]
        if len(sw["T"]) == 1:
            horizons = [max(horizons)]
    dims = sw["d"] if isinstance(sw["d"], list) else [sw["d"]]
    grids, runs = _sweep_runs(sid, sw, horizons, scale, source)
    cells = []
    for sched, entry in runs:
        private = POLICIES[entry["algorithm"]].private
        for eps, d, T in itertools.product(sw["epsilon"] if private else [None], dims, horizons):
            try:
                B, options = resolve_schedule(entry, T)
            except ValueError as exc:
                raise ConfigError(f"{source}: sweeps.{sid}.schedules.{sched}: {exc}") from None
            point = "" if eps is None else f"eps{eps:g}_"
            point += f"d{d}_T{T}" if isinstance(sw["d"], list) else f"T{T}"
            cell = Cell(
                experiment=name,
                figure="",
                panel="",
                configuration="",
                series="",
                algorithm=entry["algorithm"],
                calibration=sw["calibration"],
                fidelity=sw["fidelity"],
                instances=sw["instances"],
                T=T,
                trials=trials,
                K=sw["K"],
                d=d,
                epsilon=None if eps is None else float(eps),
                delta=float(sw["delta"]),
                B=B,
                instance_seed=sw["instance_seed"],
                reward_seed_offset=sw["reward_seed_offset"],
                checkpoints=config["checkpoints"],
                root_seed=config["root_seed"],
                scale=scale,
                quirks=dict(sw.get("quirks", {})),
                options=options,
                kind="sweep",
                sweep=sid,
                schedule=sched,
                point=point,
                first_trial=sw.get("first_trial", 0),
                instance_options={
                    **sw.get("instance_options", {}),
                    **entry.get("instance_options", {}),
                },
            )
            _check_sweep_cell(cell, declared, config, f"{source}: sweeps.{sid}.schedules.{sched}")
            cells.append(cell)
    return SweepSpec(
        id=sid,
        experiment=name,
        title=sw["title"],
        description=sw.get("description", "").strip(),
        T=tuple(horizons),
        epsilon=tuple(float(e) for e in sw["epsilon"]),
        trials=trials,
        schedules=tuple(series for series, _ in runs),
        cells=tuple(cells),
        grids=grids,
    )


#: Most points of a calibration grid after the first (each point is a simulated cell of one
#: job: the shipped grids have 4-13; a thousand is hours of simulation in one job).
MAX_GRID_POINTS = 1000

#: Default of the config key ``max_job_mb``: the largest memory one simulation job may need.
MAX_JOB_MB = 16384
#: Memory estimates of the cells checked so far, by config hash (:func:`job_mem_mb`).
_MEMORY_MB: dict[str, int] = {}


def job_mem_mb(cells) -> int:
    """``mem_mb`` a job declares for simulating ``cells`` one after the other
    (:func:`dpbandits.sizes.declared_mb` of the largest estimate)."""
    from .sizes import declared_mb

    need = 0
    for c in cells:
        key = c.config_hash()
        if key not in _MEMORY_MB:
            _MEMORY_MB[key] = c.memory_mb()
        need = max(need, _MEMORY_MB[key])
    return declared_mb(need)


@functools.lru_cache(maxsize=256)
def _probe_instances(family: str, K: int, d: int, seed: int, T: int, options: str) -> None:
    """Build one instance of the family, so that an impossible shape (e.g. ``d > K``) or option
    is refused while the workflow parses instead of inside a job. A probe that passed is
    remembered with the passed validations (:data:`VALID_CACHE`), keyed by its arguments and by
    the code that builds instances (its import closure): drawing a large instance is a good
    part of a parse; a failing probe runs again every time, so its error is always reported."""
    import hashlib

    from .envs import linear
    from .fingerprint import fingerprint

    args = f"probe|{family}|{K}|{d}|{seed}|{T}|{options}|{fingerprint(linear.__file__)}"
    key = hashlib.sha256(args.encode()).hexdigest()
    if key in _valid_keys():
        return
    linear.make_instances(family, 1, K, d, seed, T=T, **json.loads(options))
    _remember_valid(key)


def check_shape(cell: Cell, max_job_mb: int, where: str) -> None:
    """Refuse a cell whose arms alone would not fit a job, before anything is allocated.

    Building a cell's policy or probing its instances allocates the ``K x d`` arm array (and,
    for some calibrations, a population of instances), so this comes first: the least memory
    any engine needs, :func:`dpbandits.sizes.instance_megabytes`, against ``max_job_mb``.
    """
    from .sizes import instance_megabytes

    need = instance_megabytes(cell.K, cell.d)
    if need > max_job_mb:
        raise ConfigError(
            f"{where}: K = {cell.K}, d = {cell.d}: the arms alone (K x d float64) need about "
            f"{need:,.0f} MiB, above max_job_mb = {max_job_mb} MiB; allowed: K x d x 8 bytes "
            "within max_job_mb (config/config.yaml)"
        )


def check_cell(cell: Cell, policy: Policy, max_job_mb: int, where: str) -> None:
    """Refuse a cell whose job would need more memory than ``max_job_mb`` (the estimate of
    :mod:`dpbandits.sizes` is in the message) or whose instances cannot be built; the estimate
    comes first, so that nothing the size forbids is allocated."""
    need = _MEMORY_MB[cell.config_hash()] = cell.memory_mb(policy)
    if need > max_job_mb:
        raise ConfigError(
            f"{where}: T = {cell.T}, trials = {cell.trials}, K = {cell.K}, d = {cell.d}, "
            f"checkpoints = {cell.checkpoints}: the job would need about {need} MiB "
            f"(dpbandits.sizes), above max_job_mb = {max_job_mb} MiB; reduce T, trials or "
            "checkpoints, or raise max_job_mb in config/config.yaml if the machine has the memory"
        )
    try:
        _probe_instances(
            cell.instances,
            cell.K,
            cell.d,
            cell.instance_seed,
            cell.T,
            json.dumps(cell.instance_options, sort_keys=True),
        )
    except ValueError as exc:
        raise ConfigError(
            f"{where}: instances {cell.instances!r} with K = {cell.K}, d = {cell.d}: {exc}"
        ) from None


def load_experiment(path: str | Path, config: dict, schema: str | Path) -> Experiment:
    """Load, validate and expand one experiment file (see :func:`expand_experiment`)."""
    data = load_yaml(path)
    check_schema(data, schema, str(path))
    if data["experiment"] != Path(path).stem:
        raise ConfigError(
            f"{path}: experiment = {data['experiment']!r}: must equal the file name "
            f"({Path(path).stem!r})"
        )
    experiment = expand_experiment(data, config, str(path))
    check_seed_ranges(experiment, str(path))
    return experiment


#: Largest seed of a legacy ``numpy.random.RandomState`` (the authors' script's instance and
#: reward streams): seeds are unsigned 32-bit integers.
MAX_LEGACY_SEED = 2**32 - 1


def check_seed_ranges(experiment: Experiment, source: str) -> None:
    """Refuse a cell whose legacy seeds leave ``[0, 2**32 - 1]``: trial ``i`` of a cell draws its
    rewards from ``RandomState(reward_seed_offset + first_trial + i)`` and its instances from
    ``RandomState(instance_seed)`` (:mod:`dpbandits.pipeline`), so the largest seed is
    ``reward_seed_offset + first_trial + trials - 1``. The message names the file, the figure or
    sweep, the three keys' values and the limit."""
    cells = list(experiment.cells)
    for sweep in experiment.sweeps:
        cells += sweep.cells
    for cal in experiment.calibrations:
        cells += [cal.base] + ([cal.reference] if cal.reference is not None else [])
    for cell in cells:
        where = cell.figure or cell.experiment
        last = cell.reward_seed_offset + cell.first_trial + cell.trials - 1
        if last > MAX_LEGACY_SEED:
            raise ConfigError(
                f"{source}: {where}: reward_seed_offset ({cell.reward_seed_offset}) + first_trial "
                f"({cell.first_trial}) + trials ({cell.trials}) - 1 = {last} is above "
                f"{MAX_LEGACY_SEED}, the largest seed of the reward streams; allowed: a sum of at "
                f"most {MAX_LEGACY_SEED}"
            )
        if cell.instance_seed > MAX_LEGACY_SEED:
            raise ConfigError(
                f"{source}: {where}: instance_seed = {cell.instance_seed} is above "
                f"{MAX_LEGACY_SEED}, the largest seed of the instance stream; allowed: 0 to "
                f"{MAX_LEGACY_SEED}"
            )


def _calibration_refusal(exc: Exception) -> str:
    """The end of a refusal of a cell whose policy cannot be calibrated: the error's text and,
    unless it says it, what is allowed (an extreme epsilon or delta overflows or divides by 0)."""
    text = str(exc) or type(exc).__name__
    if isinstance(exc, ArithmeticError):
        text = f"the noise calibration fails ({type(exc).__name__}: {text})"
    if "allowed" not in text:
        text += "; allowed: values whose noise calibration is finite"
    return text


def _cells_of(cells: list[Cell], conf: str, panel: str, series: str, where: str) -> list[Cell]:
    """The cells of one (configuration, panel, series); a ConfigError if there are none."""
    out = [c for c in cells if (c.configuration, c.panel, c.series) == (conf, panel, series)]
    if not out:
        raise ConfigError(
            f"{where}: no cell of series {series!r} in panel {panel!r} of configuration {conf!r}"
        )
    return out


def _expand_calibration(
    name: str, cid: str, spec: dict, data: dict, cells: list[Cell], config: dict, source: str
) -> CalibrationSpec:
    where = f"{source}: calibrations.{cid}"
    conf = spec.get("configuration", data["primary"])
    base = _cells_of(cells, conf, spec["panel"], spec["series"], where)
    objective = spec.get("objective", "min_regret")
    grid, step, search, reference = (), 1.0, None, None
    if objective == "min_regret":
        g = spec["grid"]
        if g["to"] >= g["from"]:
            raise ConfigError(f"{where}.grid: to = {g['to']} must be below from = {g['from']}")
        decades = math.log10(g["from"]) - math.log10(g["to"])  # finite: both are finite, > 0
        n = round(decades * g["per_decade"])
        if n > MAX_GRID_POINTS:
            raise ConfigError(
                f"{where}.grid: from = {g['from']}, to = {g['to']}, per_decade = "
                f"{g['per_decade']}: {n + 1} grid points, each a simulated cell of the "
                f"calibration job; allowed: at most {MAX_GRID_POINTS + 1}"
            )
        step = 10 ** (-1.0 / g["per_decade"])
        grid = tuple(g["from"] * step**j for j in range(n + 1))
    else:
        lo, hi = spec["search"]["from"], spec["search"]["to"]
        if hi <= lo:
            raise ConfigError(f"{where}.search: to = {hi} must be above from = {lo}")
        search = (lo, hi)
        reference = _cells_of(cells, conf, spec["panel"], spec["reference"], f"{where}.reference")[
            0
        ]
    trials = spec["trials"]
    if config["scale"] != "paper":
        trials = min(trials, config["scales"][config["scale"]]["trials"])
    options = {k: v for k, v in base[0].options.items()}
    options.pop(spec["option"], None)
    cell = type(base[0])(
        **{
            **base[0].as_dict(),
            "kind": "calibration",
            "calibration_id": cid,
            "first_trial": spec["first_trial"],
            "trials": trials,
            "options": options,
        }
    )
    if reference is not None:
        reference = type(reference)(
            **{
                **reference.as_dict(),
                "kind": "calibration",
                "calibration_id": cid,
                "point": "reference",
                "first_trial": spec["first_trial"],
                "trials": trials,
            }
        )
    return CalibrationSpec(
        id=cid,
        experiment=name,
        title=spec["title"],
        series=spec["series"],
        option=spec["option"],
        grid=grid,
        step=step,
        extend=spec.get("extend", 0),
        base=cell,
        objective=objective,
        reference=reference,
        metric=spec.get("metric", "regret_pseudo"),
        search=search,
    )
