"""Reading YAML files at the boundary: safe_load only, errors name the file and the line."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from accel_sim.errors import InputError


def read_yaml(path: Path) -> Any:
    if not path.is_file():
        raise InputError.single(str(path), "", "file not found")
    try:
        with path.open(encoding="utf-8") as fh:
            return yaml.safe_load(fh)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise InputError.single(str(path), where, f"malformed YAML: {err.problem}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as err:
        raise InputError.single(str(path), "", f"malformed YAML: {err}") from None


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
