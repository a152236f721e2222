"""The config and workload reference, generated from the schema itself.

``python -m tools.config_reference > docs/config_reference.md`` rewrites the
reference; a test fails when the file is stale or a field has no description.
"""
from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import MISSING

from accel_sim.foundations.config.schema import FieldInfo, iter_fields
from accel_sim.foundations.units import KINDS


def _type_text(tp) -> str:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return f"{_type_text(args[0])} (optional)"
    if origin in (tuple, list):
        return f"list of {_type_text(typing.get_args(tp)[0])}"
    if origin is dict:
        return f"mapping of {_type_text(typing.get_args(tp)[1])}"
    if dataclasses.is_dataclass(tp):
        return "section"
    return getattr(tp, "__name__", str(tp))


def _default_text(f: dataclasses.Field) -> str:
    if f.default is not MISSING:
        return "—" if f.default is None else f"`{f.default}`"
    if f.default_factory is not MISSING:
        value = f.default_factory()
        return "(section defaults)" if dataclasses.is_dataclass(value) else f"`{value}`"
    return "**required**"


def _allowed_text(info: FieldInfo) -> str:
    if info.choices:
        return ", ".join(f"`{c}`" for c in info.choices)
    parts = []
    if info.minimum is not None:
        parts.append(f"{'>' if info.exclusive_minimum else '>='} {info.minimum:g}")
    if info.maximum is not None:
        parts.append(f"<= {info.maximum:g}")
    return ", ".join(parts)


def _unit_text(info: FieldInfo) -> str:
    if info.unit is None:
        return ""
    if info.unit == "bandwidth":
        return "B/cycle (e.g. `16 B/cycle`)"
    return KINDS[info.unit][0]


def table(cls: type, prefix: str = "") -> str:
    lines = ["| field | type | unit | default | allowed | meaning | source of default |",
             "|---|---|---|---|---|---|---|"]
    for path, tp, f, info in iter_fields(cls, prefix):
        cells = [f"`{path}`", _type_text(tp), _unit_text(info), _default_text(f), _allowed_text(info),
                 info.doc.replace("|", "\\|"), info.source.replace("|", "\\|")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def documented_specs() -> list[tuple[str, str, type]]:
    """(title, intro, spec class) of every file format users write."""
    from accel_sim.pipeline.catalog import ArchSpec
    from accel_sim.foundations.energy.table import EnergyTableSpec
    from accel_sim.foundations.workload.spec import LayerEntry, WorkloadSpec
    specs = [
        ("Accelerator configs (`arch_configs/*.yaml`)",
         "Top-level fields, then each section. Any file may start with `extends: NAME` to inherit "
         "another config and override fields. Quantities take units (`64 KiB`, `800 MHz`, `16 B/cycle`); "
         "a bare number is in the unit shown.", ArchSpec),
        ("Workload files (`workloads/*.yaml`)", "A network: a name and its layers in order.", WorkloadSpec),
        ("Workload layer entries (`layers:` items)",
         "Which fields a layer takes depends on its `type`; the others must be left out.", LayerEntry),
        ("Energy tables (`accel_sim/foundations/energy/tables/*.yaml`)",
         "Energy per action; YAML files write `class:` for `component_class`.", EnergyTableSpec),
    ]
    from accel_sim.pipeline.sweep.spec import SweepFileSpec
    specs.append(("Sweep files (`sweeps/*.yaml`)", "A design-space sweep over dotted config paths.", SweepFileSpec))
    from accel_sim.systems.cluster.spec import ClusterSpec
    specs.append(("Training-cluster configs (`cluster_configs/*.yaml`)",
                  "A data-parallel training cluster (`accel-sim cluster`); rates take `GB/s` or `Gb/s` (decimal), "
                  "powers `W` or `kW`.", ClusterSpec))
    return specs


def render() -> str:
    parts = ["# Config and workload reference", "",
             "Generated from the schema by `python -m tools.config_reference`; do not edit by hand.", ""]
    for title, intro, cls in documented_specs():
        parts += [f"## {title}", "", intro, "", table(cls), ""]
    return "\n".join(parts)


if __name__ == "__main__":
    print(render(), end="")
