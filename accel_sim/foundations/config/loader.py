"""Load an accelerator config: YAML with ``extends:`` presets, or a SCALE-Sim ``.cfg``."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from accel_sim.foundations.config.scalesim_cfg import read_scalesim_cfg
from accel_sim.foundations.config.schema import build
from accel_sim.foundations.config.yaml_io import deep_merge, read_yaml, set_dotted
from accel_sim.foundations.errors import InputError, Problem

REPO_ROOT = Path(__file__).resolve().parents[3]  # the clone: arch_configs/, workloads/, sweeps/, tutorials/
ARCH_DIR = REPO_ROOT / "arch_configs"
MAX_EXTENDS_DEPTH = 16


def find_file(name: str | Path, folder: Path, suffixes: tuple[str, ...]) -> Path | None:
    """A path as given, else a file of that name (with or without suffix) in ``folder``; None if neither."""
    path = Path(name)
    if path.is_file():
        return path
    for candidate in [folder / path] + [folder / f"{path}{s}" for s in suffixes]:
        if candidate.is_file():
            return candidate
    return None


def resolve_path(name: str | Path, folder: Path, suffixes: tuple[str, ...]) -> Path:
    """:func:`find_file`, or an error naming what the user wrote, where it was looked for and what is there."""
    path = find_file(name, folder, suffixes)
    if path is not None:
        return path
    known = sorted(p.stem for p in folder.glob("*") if p.suffix in suffixes) if folder.is_dir() else []
    shown = ", ".join(known[:40]) + (", ..." if len(known) > 40 else "")
    raise InputError.single(str(name), "", f"file not found, neither as a path nor as a name in {folder}"
                            + (f" (names there: {shown})" if known else ""))


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
    parent_path = find_file(parent, path.parent, (".yaml", ".yml")) or find_file(parent, ARCH_DIR, (".yaml", ".yml"))
    if parent_path is None:
        raise InputError.single(str(path), "extends", f"no config named {parent!r} next to it or in arch_configs/")
    if parent_path.resolve() in seen or len(seen) > MAX_EXTENDS_DEPTH:
        raise InputError.single(str(path), "extends", f"circular extends through {parent}")
    return deep_merge(_raw_arch(parent_path, seen + (path.resolve(),)), raw)


def load_arch_raw(arch: str | Path) -> tuple[Path, dict]:
    """The merged (extends resolved) but unvalidated mapping, and the file it came from."""
    path = resolve_path(arch, ARCH_DIR, (".yaml", ".yml", ".cfg"))
    return path, _raw_arch(path)


def load_config(cls: type, arch: str | Path, overrides: Mapping[str, Any] | None = None) -> Any:
    """Load, merge and validate an accelerator config as ``cls`` (the catalog's ``ArchSpec``:
    :func:`accel_sim.pipeline.catalog.load_arch`).

    ``arch`` is a path, or the name of a file in ``arch_configs/``. ``overrides`` maps
    dotted field paths to values (``{"systolic.rows": 64}``) applied before validation.
    """
    path, raw = load_arch_raw(arch)
    overrides = dict(overrides or {})
    for dotted, value in overrides.items():
        raw = set_dotted(raw, dotted, value)
    try:
        return build(cls, raw, str(path))
    except InputError as error:  # a field the user set on the command line is reported as theirs
        raise InputError([Problem(f"--set (on {problem.file})", problem.path, problem.message)
                          if problem.path in overrides else problem for problem in error.problems]) from None
