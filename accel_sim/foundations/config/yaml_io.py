"""Reading YAML at the boundary: safe loading only, errors name the file and the line.

Every YAML the user gives (arch configs, workloads, sweep files, energy tables, ``--set``
values) goes through :func:`parse_yaml`. It refuses a key given twice in one mapping:
plain ``yaml.safe_load`` keeps the last value silently, so ``systolic:`` written twice
would run with half a config.
"""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from accel_sim.foundations.errors import InputError


class DuplicateKeyError(yaml.MarkedYAMLError):
    """A mapping key given twice (the mark is the second one)."""


# libyaml's parser where PyYAML was built with it (the wheels on the package index are): it parses
# about five times faster than the pure-Python one and gives the same documents and marks; the
# construction (and the duplicate-key check below) stays in Python either way.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_SAFE_LOADER):
    """A safe loader that refuses duplicate mapping keys (merge keys ``<<`` excepted)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        first_line: dict[Any, int] = {}
        for key_node, _value in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                seen = first_line.get(key)
            except TypeError:  # an unhashable key: the base class reports it
                continue
            if seen is not None:
                raise DuplicateKeyError(None, None, f"key {key!r} given twice (first on line {seen + 1}); "
                                        "the second would silently replace the first", key_node.start_mark)
            first_line[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


_PARSED: dict[tuple[str, str], Any] = {}   # (source, text) -> document: a study loads the same configs hundreds of times
_PARSED_MAX = 256


def parse_yaml(text: str, source: str) -> Any:
    """The YAML document in ``text``; errors name ``source`` and the line. A text parsed before is
    not parsed again: the caller gets a deep copy of the stored document (callers edit theirs)."""
    key = (source, text)
    if key not in _PARSED:
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        _PARSED[key] = _parse(text, source)
    return copy.deepcopy(_PARSED[key])


def _parse(text: str, source: str) -> Any:
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        what = err.problem if isinstance(err, DuplicateKeyError) else f"malformed YAML: {err.problem}"
        raise InputError.single(source, where, what) from None
    except yaml.YAMLError as err:
        raise InputError.single(source, "", f"malformed YAML: {err}") from None


def read_yaml(path: Path) -> Any:
    if not path.is_file():
        raise InputError.single(str(path), "", "file not found")
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError) as err:
        raise InputError.single(str(path), "", f"unreadable YAML: {err}") from None
    return parse_yaml(text, str(path))


# libyaml's emitter where PyYAML has it: the same text as the pure-Python one (a test dumps every
# shipped config and workload both ways), an order of magnitude faster (a Llama step's resolved config
# took half a second to write with the Python emitter).
_SAFE_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def dump_yaml(data: Any, **options: Any) -> str:
    """``data`` as YAML text (``yaml.safe_dump``'s options), keys in their given order unless
    ``sort_keys=True``."""
    options.setdefault("sort_keys", False)
    return yaml.dump(data, Dumper=_SAFE_DUMPER, **options)


def deep_merge(base: dict, override: dict) -> dict:
    """``override`` on top of ``base``; nested mappings merge, everything else replaces."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def set_dotted(raw: dict, dotted: str, value: Any) -> dict:
    """Return a copy of ``raw`` with ``a.b.c`` set to ``value`` (intermediate mappings created)."""
    head, _, rest = dotted.partition(".")
    out = dict(raw)
    if rest:
        inner = out.get(head)
        out[head] = set_dotted(inner if isinstance(inner, dict) else {}, rest, value)
    else:
        out[head] = value
    return out
