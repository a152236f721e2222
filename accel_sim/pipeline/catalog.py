"""The models accel_sim simulates, listed once; the arch spec and the family registry are built from the list.

Each model declares its config section and its hooks in its own folder
(``accel_sim/models/<name>/family.py``: ``FAMILY = Family(..., section=Section(...))``). Adding a
model is that folder and its name in :data:`MODEL_NAMES` (``docs/adding_a_model.md``).
"""
from __future__ import annotations

import dataclasses
import importlib
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from accel_sim.foundations.arch import FAMILY_DOC, ArchBase
from accel_sim.foundations.config.loader import ARCH_DIR, find_file, load_config
from accel_sim.foundations.config.schema import spec_field
from accel_sim.foundations.contract import Family
from accel_sim.foundations.errors import IgnoredInputWarning, InputError, Problem

# The models, in the order of their sections in a resolved config. One name per model: its folder
# under accel_sim/models/, whose family.py defines FAMILY.
MODEL_NAMES = ("systolic", "eie", "scnn", "pe_array", "tensor_core", "cnvlutin", "dlu", "simt", "vector_unit", "lowbit", "eyeriss", "bitserial", "eyeriss_v2")


def import_models(names: Iterable[str], package: str = "accel_sim.models") -> tuple[Family, ...]:
    """Each named model's ``FAMILY`` (explicit names, in order: nothing is discovered)."""
    return tuple(importlib.import_module(f"{package}.{name}.family").FAMILY for name in names)


def arch_spec_class(models: Iterable[Family]) -> type:
    """``ArchSpec``: :class:`ArchBase` plus one field per model's section, and ``family`` limited to
    the models that can be one (attached units, such as the vector unit, are in every config)."""
    models = tuple(models)
    families = tuple(m.name for m in models if not m.section.attached)
    fields: list[tuple[str, Any, Any]] = [("family", str, spec_field(FAMILY_DOC, choices=families))]
    for model in models:
        section = model.section
        if section.attached:
            fields.append((model.name, section.spec, spec_field(section.doc, default_factory=section.spec)))
        else:
            fields.append((model.name, section.spec | None, spec_field(section.doc, None)))
    cls = dataclasses.make_dataclass("ArchSpec", fields, bases=(ArchBase,), frozen=True)
    cls.__module__ = __name__   # instances pickle by this module's name (sweep and study workers)
    cls.__doc__ = "An accelerator config: the parts every family shares and one section per listed model."
    return cls


MODELS: tuple[Family, ...] = import_models(MODEL_NAMES)
FAMILIES: dict[str, Family] = {model.name: model for model in MODELS if not model.section.attached}
ArchSpec = arch_spec_class(MODELS)


def family_of(arch: ArchBase) -> Family:
    """The family that simulates ``arch`` (its ``family:`` field)."""
    try:
        return FAMILIES[arch.family]
    except KeyError:
        raise ValueError(f"arch {arch.name!r}: no model for family {arch.family!r}; "
                         f"known: {', '.join(FAMILIES)}") from None


def load_arch(arch: str | Path, overrides: Mapping[str, Any] | None = None) -> ArchSpec:
    """Load, merge and validate an accelerator config.

    ``arch`` is a path, or the name of a file in ``arch_configs/``. ``overrides`` maps
    dotted field paths to values (``{"systolic.rows": 64}``) applied before validation.
    """
    spec = load_config(ArchSpec, arch, overrides)
    _report_unused_sections(spec, arch, overrides or {})
    return spec


def unused_sections(spec: Any) -> list[str]:
    """The family sections ``spec`` carries that its family does not read."""
    family = family_of(spec)
    used = {family.name, *family.reads_sections}
    return [name for name in FAMILIES if name not in used and getattr(spec, name) is not None]


def unused_path_message(spec: Any, path: str) -> str | None:
    """Why setting dotted ``path`` changes nothing on ``spec`` (another family's section), or None."""
    section = path.split(".")[0]
    if section not in unused_sections(spec):
        return None
    return (f"the {section} section is not used: {spec.name} runs the {spec.family} family "
            f"(set family={section} to run that one)")


def _report_unused_sections(spec: Any, arch: str | Path, overrides: Mapping[str, Any]) -> None:
    """A ``--set`` into another family's section is an error (it would change nothing); such a section
    in the file is a warning (a config may keep one while ``family:`` is switched)."""
    unused = unused_sections(spec)
    if not unused:
        return
    problems = [Problem("--set", key, message) for key in overrides
                if (message := unused_path_message(spec, key)) is not None]
    if problems:
        raise InputError(problems)
    where = find_file(arch, ARCH_DIR, (".yaml", ".yml", ".cfg")) or arch
    warnings.warn(f"{where}: config section{'s' if len(unused) > 1 else ''} {', '.join(unused)} "
                  f"{'are' if len(unused) > 1 else 'is'} not used: {spec.name} runs the {spec.family} family "
                  "(remove the section, or use --allow-ignored)", IgnoredInputWarning, stacklevel=3)
