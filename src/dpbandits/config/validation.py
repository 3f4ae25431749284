"""Validation against the JSON schemas: every problem of a file or of the merged configuration
named by its key path, its value and what is allowed, with the file and line where it was set;
passed validations remembered by what decides them.
"""

from __future__ import annotations

import functools
import json
import math
import pickle
import re
from pathlib import Path
from typing import NamedTuple

import yaml

from . import yamlfile
from .yamlfile import SAFE_LOADER, ConfigError, load_yaml


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
        value = yaml.load(text, Loader=SAFE_LOADER)
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
        node = yaml.compose(Path(path).read_text(), Loader=SAFE_LOADER)
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
    if key is not None and key in valid_keys():
        return
    problems = _schema_problems(data, schema)
    if problems:
        raise ConfigError("\n".join(refusal(p) for p in problems))
    if key is not None:
        remember_valid(key)


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
def valid_keys() -> dict:
    """The remembered keys, oldest first (a dict as an ordered set)."""
    try:
        return dict.fromkeys(str(k) for k in json.loads(VALID_CACHE.read_text()))
    except (OSError, ValueError, TypeError):
        return {}


def remember_valid(key: str) -> None:
    """Add ``key`` to the cache file atomically, keeping the :data:`yamlfile.CACHE_ENTRIES` newest
    (parallel parses may race; a lost key only costs one more validation)."""
    from dpbandits.runtime.atomic_files import write_atomically

    keys = valid_keys()
    keys.pop(key, None)
    keys[key] = None
    for old in list(keys)[: max(0, len(keys) - yamlfile.CACHE_ENTRIES)]:
        del keys[old]
    write_atomically(VALID_CACHE, json.dumps(list(keys)).encode())
