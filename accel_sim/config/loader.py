"""Load an accelerator config: YAML with ``extends:`` presets, or a SCALE-Sim ``.cfg``."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from accel_sim.arch.spec import ArchSpec
from accel_sim.config.scalesim_cfg import read_scalesim_cfg
from accel_sim.config.schema import build
from accel_sim.config.yaml_io import deep_merge, read_yaml, set_dotted
from accel_sim.errors import InputError

REPO_ROOT = Path(__file__).resolve().parents[2]
ARCH_DIR = REPO_ROOT / "arch_configs"
MAX_EXTENDS_DEPTH = 16


def resolve_path(name: str | Path, folder: Path, suffixes: tuple[str, ...]) -> Path:
    """A path as given, else a file of that name (with or without suffix) in ``folder``."""
    path = Path(name)
    if path.exists():
        return path
    for candidate in [folder / path] + [folder / f"{path}{s}" for s in suffixes]:
        if candidate.is_file():
            return candidate
    return path  # the loader reports it as missing, naming what the user wrote


def _raw_arch(path: Path, seen: tuple[Path, ...] = ()) -> dict:
    if path.suffix == ".cfg":
        return read_scalesim_cfg(path)
    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise InputError.single(str(path), "", "expected a mapping of config fields at the top level")
    parent = raw.pop("extends", None)
    if parent is None:
        return raw
    if not isinstance(parent, str):
        raise InputError.single(str(path), "extends", "expected the name or path of another config")
    parent_path = resolve_path(parent, path.parent, (".yaml", ".yml"))
    if not parent_path.is_file():
        parent_path = resolve_path(parent, ARCH_DIR, (".yaml", ".yml"))
    if parent_path.resolve() in seen or len(seen) > MAX_EXTENDS_DEPTH:
        raise InputError.single(str(path), "extends", f"circular extends through {parent}")
    if not parent_path.is_file():
        raise InputError.single(str(path), "extends", f"no config named {parent!r} next to it or in arch_configs/")
    return deep_merge(_raw_arch(parent_path, seen + (path.resolve(),)), raw)


def load_arch_raw(arch: str | Path) -> tuple[Path, dict]:
    """The merged (extends resolved) but unvalidated mapping, and the file it came from."""
    path = resolve_path(arch, ARCH_DIR, (".yaml", ".yml", ".cfg"))
    return path, _raw_arch(path)


def load_arch(arch: str | Path, overrides: Mapping[str, Any] | None = None) -> ArchSpec:
    """Load, merge and validate an accelerator config.

    ``arch`` is a path, or the name of a file in ``arch_configs/``. ``overrides`` maps
    dotted field paths to values (``{"systolic.rows": 64}``) applied before validation.
    """
    path, raw = load_arch_raw(arch)
    for dotted, value in (overrides or {}).items():
        raw = set_dotted(raw, dotted, value)
    return build(ArchSpec, raw, str(path))
