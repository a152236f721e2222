"""A small typed schema for config and workload files.

Spec classes are frozen dataclasses whose fields are declared with :func:`spec_field`:
type, unit kind, default, allowed range or choices, what hardware the field stands for
and where its default comes from. :func:`build` turns a parsed YAML mapping into a spec
object, collecting every problem (unknown keys, wrong types, bad units, out-of-range
values) with its dotted path before raising one :class:`~accel_sim.foundations.errors.InputError`.
The config reference in the docs is generated from the same metadata.
"""
from __future__ import annotations

import dataclasses
import difflib
import functools
import types
import typing
from collections.abc import Callable
from dataclasses import MISSING, dataclass
from typing import Any

from accel_sim.foundations import units
from accel_sim.foundations.errors import InputError, Problem

REQUIRED = MISSING


@dataclass(frozen=True)
class FieldInfo:
    doc: str
    unit: str | None = None          # a kind from accel_sim.foundations.units.KINDS, or "bandwidth"
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    choices: tuple[Any, ...] | None = None
    source: str = ""


def spec_field(doc: str, default: Any = REQUIRED, *, unit: str | None = None,
               minimum: float | None = None, maximum: float | None = None,
               positive: bool = False, choices: tuple[Any, ...] | None = None,
               source: str = "", default_factory: Callable[[], Any] | None = None) -> Any:
    """Declare one field of a spec dataclass with the metadata the validator and docs use."""
    info = FieldInfo(doc=doc, unit=unit, minimum=0 if positive else minimum, maximum=maximum,
                     exclusive_minimum=positive, choices=choices, source=source)
    kwargs: dict[str, Any] = {"metadata": {"spec": info}}
    if default_factory is not None:
        kwargs["default_factory"] = default_factory
    elif default is not REQUIRED:
        kwargs["default"] = default
    return dataclasses.field(**kwargs)


def field_info(f: dataclasses.Field) -> FieldInfo:
    return f.metadata.get("spec", FieldInfo(doc=""))


def choices_of(spec: object, name: str) -> tuple[Any, ...] | None:
    """The values field ``name`` of a spec dataclass (or an instance of one) accepts, as declared
    (None: no fixed list)."""
    return field_info(next(f for f in dataclasses.fields(spec) if f.name == name)).choices


class _Collector:
    def __init__(self, file: str):
        self.file = file
        self.problems: list[Problem] = []

    def add(self, path: str, message: str) -> None:
        self.problems.append(Problem(self.file, path, message))


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _convert(tp: Any, value: Any, info: FieldInfo, path: str, out: _Collector) -> Any:
    """Convert one value to ``tp``; on failure record a problem and return MISSING."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if value is None:
            return None
        return _convert(args[0], value, info, path, out)
    if origin is dict:
        key_tp, val_tp = typing.get_args(tp)
        if not isinstance(value, dict):
            out.add(path, f"expected a mapping, got {type(value).__name__}")
            return MISSING
        result = {}
        for k, v in value.items():
            converted = _convert(val_tp, v, info, _join(path, str(k)), out)
            if converted is not MISSING:
                result[str(k)] = converted
        return types.MappingProxyType(result)
    if origin in (tuple, list):
        item_tp = typing.get_args(tp)[0]
        if not isinstance(value, (list, tuple)):
            out.add(path, f"expected a list, got {type(value).__name__}")
            return MISSING
        items = [_convert(item_tp, v, info, f"{path}[{i}]", out) for i, v in enumerate(value)]
        return MISSING if any(i is MISSING for i in items) else tuple(items)
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            out.add(path, f"expected a mapping, got {type(value).__name__}")
            return MISSING
        return _build(tp, value, path, out)
    return _scalar(tp, value, info, path, out)


def _scalar(tp: Any, value: Any, info: FieldInfo, path: str, out: _Collector) -> Any:
    if info.unit is not None and tp in (int, float):
        try:
            if info.unit == "bandwidth":
                value = units.parse_bandwidth(value)
            else:
                value = units.parse(value, info.unit)
        except units.UnitError as err:
            out.add(path, str(err))
            return MISSING
        if tp is int:
            if value != int(value):
                out.add(path, f"expected a whole number of {units.KINDS[info.unit][0]}, got {value:g}")
                return MISSING
            value = int(value)
    elif tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            out.add(path, f"expected a number, got {value!r}")
            return MISSING
        value = float(value)
    elif tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            out.add(path, f"expected an integer, got {value!r}")
            return MISSING
    elif tp is bool:
        if not isinstance(value, bool):
            out.add(path, f"expected true or false, got {value!r}")
            return MISSING
    elif tp is str:
        if not isinstance(value, str):
            out.add(path, f"expected a string, got {value!r}")
            return MISSING
    if info.choices is not None and value not in info.choices:
        out.add(path, f"expected one of {', '.join(map(str, info.choices))}; got {value!r}")
        return MISSING
    if info.minimum is not None and isinstance(value, (int, float)):
        if value < info.minimum or (info.exclusive_minimum and value == info.minimum):
            relation = "> " if info.exclusive_minimum else ">= "
            out.add(path, f"expected a value {relation}{info.minimum:g}, got {value:g}")
            return MISSING
    if info.maximum is not None and isinstance(value, (int, float)) and value > info.maximum:
        out.add(path, f"expected a value <= {info.maximum:g}, got {value:g}")
        return MISSING
    return value


@functools.lru_cache(maxsize=None)
def _type_hints(cls: type) -> dict[str, Any]:
    """The spec class's resolved annotations (resolving them is most of a config's validation time)."""
    return typing.get_type_hints(cls)


def _build(cls: type, raw: dict, path: str, out: _Collector) -> Any:
    hints = _type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    for key in raw:
        if key not in fields:
            near = difflib.get_close_matches(str(key), list(fields), n=1)
            hint = f"; did you mean '{near[0]}'?" if near else f"; known fields: {', '.join(fields)}"
            out.add(_join(path, str(key)), f"unknown field{hint}")
    kwargs = {}
    failed = False
    for name, f in fields.items():
        if name in raw:
            value = _convert(hints[name], raw[name], field_info(f), _join(path, name), out)
            if value is MISSING:
                failed = True
            else:
                kwargs[name] = value
        elif f.default is MISSING and f.default_factory is MISSING:
            out.add(_join(path, name), f"required field is missing ({field_info(f).doc})")
            failed = True
    if failed:
        return MISSING
    try:
        obj = cls(**kwargs)
    except InputError:
        raise
    except ValueError as err:  # cross-field checks in __post_init__
        out.add(path or "(top level)", str(err))
        return MISSING
    return obj


def build(cls: type, raw: Any, file: str, path: str = "") -> Any:
    """Validate ``raw`` (parsed YAML) against spec class ``cls``; raise all problems at once."""
    out = _Collector(str(file))
    if not isinstance(raw, dict):
        out.add(path, f"expected a mapping at the top level, got {type(raw).__name__}")
        raise InputError(out.problems)
    obj = _build(cls, raw, path, out)
    if out.problems:
        raise InputError(out.problems)
    return obj


def iter_fields(cls: type, prefix: str = ""):
    """Yield ``(dotted_path, python_type, Field, FieldInfo)`` for every field, recursively."""
    hints = _type_hints(cls)
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        tp = hints[f.name]
        path = _join(prefix, f.name)
        yield path, tp, f, field_info(f)
        inner = [a for a in typing.get_args(tp) if a is not type(None)] or [tp]
        for candidate in inner:
            if dataclasses.is_dataclass(candidate):
                yield from iter_fields(candidate, path)
            elif typing.get_origin(candidate) is dict and dataclasses.is_dataclass(typing.get_args(candidate)[1]):
                yield from iter_fields(typing.get_args(candidate)[1], path + ".<name>")

def spec_to_dict(spec) -> dict:
    """A frozen spec as plain data (base units), for config.resolved.yaml and hashing."""
    def plain(value):
        if dataclasses.is_dataclass(value):
            return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
        if isinstance(value, (tuple, list)):
            return [plain(v) for v in value]
        if hasattr(value, "items"):
            return {k: plain(v) for k, v in value.items()}
        return value
    return plain(spec)
