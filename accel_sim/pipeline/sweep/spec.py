"""Sweep files: schema, validation and resolution into a :class:`Sweep` of concrete points.

A sweep file names a base accelerator config and a workload, and the axes to vary by
dotted config path::

    name: systolic_small
    arch: scalesim_32x32_ws          # a name in arch_configs/ or a path (sweep file's folder first)
    workload: tiny_conv              # a name in workloads/ or a path (sweep file's folder first)
    overrides: {dram.bandwidth_mode: user}   # set on every point, before the axes
    mode: grid                       # grid (default) | zip | random (with samples, seed)
    axes:
      systolic.dataflow: [os, ws]
      array:                         # a linked axis: each value sets several paths together
        - {systolic.rows: 8, systolic.cols: 8}
        - {systolic.rows: 16, systolic.cols: 16}
    metrics: [edp, throughput_macs_per_cycle]

or, instead of ``axes``/``mode``, ``points:`` with a list of override mappings.

Validation happens once, here, with the same schema machinery as arch configs: structural
problems first (unknown keys, wrong types), then every semantic problem together (unknown
axis path with the nearest valid one, empty axis, zip lengths, duplicate values, bad
values found by validating every resolved point), each naming the sweep file and the
dotted path inside it.
"""
from __future__ import annotations

import dataclasses
import difflib
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from accel_sim.foundations.version import __version__
from accel_sim.pipeline.catalog import ArchSpec, unused_path_message
from accel_sim.foundations.config.loader import load_arch_raw
from accel_sim.foundations.config.schema import build, iter_fields, spec_field
from accel_sim.foundations.config.yaml_io import read_yaml, set_dotted
from accel_sim.foundations.errors import InputError, Problem
from accel_sim.pipeline.sweep.expand import Axis, AxisValue, SweepPoint, explicit, expand, grid_size
from accel_sim.pipeline.sweep.keys import point_key, workload_hash
from accel_sim.pipeline.sweep.metrics import DEFAULT_METRICS, METRICS
from accel_sim.pipeline.sweep.progress import Progress
from accel_sim.foundations.workload.layer import Network
from accel_sim.foundations.workload.loader import load_workload

MODES = ("grid", "zip", "random")
# Most points a sweep runs unless the caller raises it (``--max-points``): counted from the axes before any
# point is built. 10,000 points of a small workload (sweeps/systolic_small.yaml: about 0.05 s a point on
# one core, measured) is minutes; of a ResNet-18-sized one (about 0.5 s) an hour and a half on one core,
# and a store of about 10,000 rows; a larger sweep is more likely a typo in an axis than a plan.
DEFAULT_MAX_POINTS = 10_000
VALIDATION_QUIET_S = 0.2  # validation shows progress once it has lasted this long (first line within a second)
EVALUATORS = ("simulate", "training_step")   # what a point computes (accel_sim.systems.sweep.POINT_FUNCTIONS)


@dataclass(frozen=True)
class SweepFileSpec:
    """The schema of a sweep file (structure only; :func:`resolve_sweep` checks the meaning)."""

    name: str = spec_field("Short name of the sweep, used in reports and the result store.")
    arch: str = spec_field("Base accelerator config: a name in arch_configs/ or a path "
                           "(relative paths are tried in the sweep file's folder first).")
    workload: str = spec_field("Workload: a name in workloads/ or a path "
                               "(relative paths are tried in the sweep file's folder first).")
    description: str = spec_field("Free text: what the sweep explores.", "")
    overrides: dict[str, Any] | None = spec_field(
        "Dotted arch paths set on every point before the axes, e.g. {dram.bandwidth_mode: user}.", None)
    mode: str | None = spec_field("How axes combine: grid (every combination), zip (i-th values together) "
                                  "or random (samples distinct grid points). Default grid.", None, choices=MODES)
    axes: dict[str, tuple[Any, ...]] | None = spec_field(
        "Dotted arch path -> list of values; or a name -> list of mappings of paths (a linked axis).", None)
    samples: int | None = spec_field("random mode: number of distinct grid points to draw.", None, positive=True)
    seed: int | None = spec_field("random mode: seed of the draw (default 0).", None)
    points: tuple[dict[str, Any], ...] | None = spec_field(
        "Instead of axes: an explicit list of points, each a mapping of dotted arch paths to values.", None)
    metrics: tuple[str, ...] = spec_field("Derived metrics to add to the results.", DEFAULT_METRICS,
                                          choices=tuple(METRICS))
    evaluate: str = spec_field("What each point computes: simulate (the network's summary) or training_step "
                               "(one training step: every layer's forward, input-error and weight-gradient "
                               "GEMMs, accel_sim.systems.training).", "simulate", choices=EVALUATORS)


@dataclass(frozen=True)
class ResolvedPoint:
    """One design point, validated: its arch spec, the raw mapping it came from, its store key."""

    index: int
    labels: tuple[tuple[str, Any], ...]   # (axis name, label as written)
    overrides: tuple[tuple[str, Any], ...]
    values: tuple[tuple[str, Any], ...]   # (varied path, resolved value in base units)
    raw_arch: dict                        # merged arch mapping with every override applied (do not mutate)
    arch: ArchSpec
    key: str


@dataclass(frozen=True)
class Sweep:
    """A validated sweep: base arch, workload, axes and every resolved point, in point order."""

    name: str
    description: str
    source: str                       # the sweep file, or what the caller named a mapping
    arch_file: Path
    network: Network
    workload_digest: str
    code_version: str
    axes: tuple[str, ...]             # axis names, in order (dotted paths, or names of linked axes)
    linked_axes: tuple[tuple[str, tuple[str, ...]], ...]  # (name, labels in axis order): label columns
    varied_paths: tuple[str, ...]     # every arch path a point sets
    metrics: tuple[str, ...]
    points: tuple[ResolvedPoint, ...]
    evaluate: str = "simulate"        # one of EVALUATORS

    def unique_keys(self) -> tuple[str, ...]:
        """Store keys in point order, each once (two points may resolve to the same config)."""
        return tuple(dict.fromkeys(p.key for p in self.points))


# --- arch paths ---------------------------------------------------------------------------

def arch_leaf_paths() -> tuple[str, ...]:
    """Every dotted path of a settable scalar field of :class:`ArchSpec` (``<name>`` = any key)."""
    leaves = []
    for path, tp, _field, _info in iter_fields(ArchSpec):
        inner = [a for a in typing.get_args(tp) if a is not type(None)] or [tp]
        nested = any(dataclasses.is_dataclass(c) or (typing.get_origin(c) is dict and
                                                     dataclasses.is_dataclass(typing.get_args(c)[1]))
                     for c in inner)
        if not nested:
            leaves.append(path)
    return tuple(leaves)


def _matches(path: str, pattern: str) -> bool:
    regex = "\\.".join("[^.]+" if part == "<name>" else re.escape(part) for part in pattern.split("."))
    return re.fullmatch(regex, path) is not None


def is_arch_path(path: str, leaves: tuple[str, ...]) -> bool:
    return any(_matches(path, leaf) for leaf in leaves)


def nearest_path(path: str, leaves: tuple[str, ...]) -> str:
    """The valid path most like ``path``: by the whole path, or by its last part (``rows``)."""
    last = path.rsplit(".", 1)[-1]

    def score(leaf: str) -> float:
        whole = difflib.SequenceMatcher(None, path, leaf).ratio()
        tail = difflib.SequenceMatcher(None, last, leaf.rsplit(".", 1)[-1]).ratio()
        return max(whole, 0.95 * tail)
    return max(leaves, key=score)


def _unknown(location: str, path: str, leaves: tuple[str, ...], file: str) -> Problem:
    return Problem(file, location, f"unknown arch field '{path}'; nearest valid path: '{nearest_path(path, leaves)}'")


# --- semantic checks ----------------------------------------------------------------------

def _check_paths(mapping: Mapping[str, Any], location: str, leaves: tuple[str, ...], file: str) -> list[Problem]:
    return [_unknown(f"{location}.{path}", path, leaves, file) for path in mapping if not is_arch_path(path, leaves)]


def _build_axis(name: str, values: tuple[Any, ...], leaves: tuple[str, ...], file: str) -> tuple[Axis | None, list[Problem]]:
    where = f"axes.{name}"
    if not values:
        return None, [Problem(file, where, "empty axis: give at least one value")]
    problems = []
    if is_arch_path(name, leaves):
        axis_values = tuple(AxisValue(v, ((name, v),)) for v in values)
        linked = False
    elif all(isinstance(v, Mapping) for v in values):
        linked = True
        first = list(values[0])
        for j, mapping in enumerate(values):
            if not mapping:
                problems.append(Problem(file, f"{where}[{j}]", "a linked-axis value must set at least one path"))
            problems += _check_paths(mapping, f"{where}[{j}]", leaves, file)
            if j and list(mapping) != first:
                problems.append(Problem(file, f"{where}[{j}]", f"sets {', '.join(mapping)} but {where}[0] "
                                        f"sets {', '.join(first)}; every value of a linked axis sets the same paths"))
        axis_values = tuple(AxisValue("/".join(str(x) for x in m.values()), tuple(m.items())) for m in values)
    else:
        return None, [_unknown(where, name, leaves, file)]
    seen: dict[str, int] = {}
    for j, value in enumerate(axis_values):
        text = repr(value.overrides)
        if text in seen:
            problems.append(Problem(file, f"{where}[{j}]", f"value {value.label!r} repeats {where}[{seen[text]}]"))
        seen.setdefault(text, j)
    return Axis(name, axis_values, linked), problems


def point_count(spec: SweepFileSpec) -> tuple[int, str]:
    """How many points ``spec`` has and how that number comes about (``"1000 x 1000 grid"``), from the
    lengths of its axes alone: nothing is expanded or validated."""
    if spec.points is not None:
        return len(spec.points), "explicit points"
    lengths = [len(values) for values in (spec.axes or {}).values()]
    mode = spec.mode or "grid"
    if mode == "zip":
        return (min(lengths) if lengths else 0), "zipped axes"
    grid_points = 1
    for length in lengths:
        grid_points *= length
    shape = f"{' x '.join(str(n) for n in lengths)} grid"
    if mode == "random" and spec.samples is not None:
        return min(spec.samples, grid_points), f"{spec.samples} samples of a {shape}"
    return grid_points, shape


def check_point_count(spec: SweepFileSpec, file: str, max_points: int) -> int:
    """The sweep's point count, or one problem naming the size and the limit if it exceeds ``max_points``."""
    count, how = point_count(spec)
    if count > max_points:
        raise InputError.single(file, "axes" if spec.points is None else "points",
                                f"{count:,} points ({how}) is more than the limit of {max_points:,} points; "
                                f"make the axes shorter, or raise the limit with --max-points {count} "
                                "(max_points= in Python)")
    return count


def _points_of(spec: SweepFileSpec, leaves: tuple[str, ...], file: str) -> tuple[tuple[SweepPoint, ...], list[Axis], list[Problem]]:
    """Expand the spec's axes or points, collecting every problem instead of stopping at the first."""
    problems: list[Problem] = []
    if (spec.axes is None) == (spec.points is None):
        return (), [], [Problem(file, "axes", "give either 'axes' or 'points' (exactly one of them)")]
    if spec.points is not None:
        for name in ("mode", "samples", "seed"):
            if getattr(spec, name) is not None:
                problems.append(Problem(file, name, "only used with 'axes', not with 'points'"))
        if not spec.points:
            problems.append(Problem(file, "points", "empty list: give at least one point"))
        for i, point in enumerate(spec.points):
            problems += _check_paths(point, f"points[{i}]", leaves, file)
        return (() if problems else explicit(spec.points)), [], problems
    mode = spec.mode or "grid"
    if not spec.axes:
        problems.append(Problem(file, "axes", "no axes: give at least one dotted arch path with a list of values"))
    axes = []
    for name, values in (spec.axes or {}).items():
        axis, axis_problems = _build_axis(name, values, leaves, file)
        problems += axis_problems
        if axis is not None:
            axes.append(axis)
    owner: dict[str, str] = {}
    for axis in axes:
        for path in dict.fromkeys(p for v in axis.values for p, _ in v.overrides):
            if path in owner:
                problems.append(Problem(file, f"axes.{axis.name}", f"sets {path}, already varied by axes.{owner[path]}"))
            owner.setdefault(path, axis.name)
    if mode == "zip" and axes:
        reference = axes[0]
        for axis in axes[1:]:
            if len(axis.values) != len(reference.values):
                problems.append(Problem(file, f"axes.{axis.name}", f"has {len(axis.values)} values but "
                                        f"axes.{reference.name} has {len(reference.values)}; zip mode pairs the "
                                        f"i-th values, so every axis needs the same length"))
    if mode != "random":
        for name in ("samples", "seed"):
            if getattr(spec, name) is not None:
                problems.append(Problem(file, name, "only used with mode: random"))
    elif spec.samples is None:
        problems.append(Problem(file, "samples", "mode random needs samples (how many points to draw)"))
    elif axes and spec.samples > grid_size(axes) and len(axes) == len(spec.axes or {}):
        problems.append(Problem(file, "samples", f"{spec.samples} is more than the {grid_size(axes)} "
                                "distinct points of the grid"))
    if problems:
        return (), axes, problems
    return expand(axes, mode, spec.samples, spec.seed or 0), axes, problems


def _resolve_file(name: str, folder: Path, suffixes: tuple[str, ...]) -> str | Path:
    """``name`` relative to the sweep file's folder if such a file exists, else as written."""
    path = Path(name)
    if not path.is_absolute():
        for candidate in [folder / path] + [folder / f"{path}{s}" for s in suffixes]:
            if candidate.is_file():
                return candidate
    return name


def _reported(err: InputError, file: str, location: str) -> list[Problem]:
    return [Problem(file, location, str(p)) for p in err.problems]


def _resolve_value(arch: ArchSpec, path: str) -> Any:
    value: Any = arch
    for part in path.split("."):
        value = value.get(part) if isinstance(value, Mapping) else getattr(value, part, None)
    return value


def _locate(arch_path: str, point: SweepPoint, fixed: Mapping[str, Any], explicit_points: bool) -> str:
    """Where in the sweep file the value behind an arch problem was written."""
    origins = dict(point.origins)
    if arch_path in origins:
        return origins[arch_path]
    if arch_path in fixed:
        return f"overrides.{arch_path}"
    return f"points[{point.index}]" if explicit_points else "axes"


def _describe(point: SweepPoint) -> str:
    return ", ".join(f"{name}={label}" for name, label in point.labels)


def resolve_sweep(spec: SweepFileSpec, file: str, folder: Path, max_points: int = DEFAULT_MAX_POINTS,
                  progress: TextIO | None = None) -> Sweep:
    """Validate a parsed sweep against the arch schema and resolve every point (all problems together).

    The points are counted from the axes first: more than ``max_points`` is refused before anything is
    built. Validating the points reports progress on ``progress`` once it has taken
    :data:`VALIDATION_QUIET_S` (a small sweep validates in milliseconds and prints nothing)."""
    total = check_point_count(spec, file, max_points)
    leaves = arch_leaf_paths()
    problems: list[Problem] = []
    fixed = dict(spec.overrides or {})
    problems += _check_paths(fixed, "overrides", leaves, file)
    points, axes, point_problems = _points_of(spec, leaves, file)
    problems += point_problems
    try:
        arch_file, base = load_arch_raw(_resolve_file(spec.arch, folder, (".yaml", ".yml", ".cfg")))
    except InputError as err:
        problems += _reported(err, file, "arch")
        arch_file, base = Path(spec.arch), None
    try:
        network = load_workload(_resolve_file(spec.workload, folder, (".yaml", ".yml", ".csv")))
    except InputError as err:
        problems += _reported(err, file, "workload")
        network = None
    varied = tuple(dict.fromkeys(path for p in points for path, _ in p.overrides))
    for path in varied:
        if path in fixed:
            problems.append(Problem(file, f"overrides.{path}", "also varied by the sweep; set it in one place"))
    if problems or base is None or network is None:
        raise InputError(problems)
    for path, value in fixed.items():
        base = set_dotted(base, path, value)
    digest = workload_hash(network)
    resolved, seen = [], set()
    meter = Progress(f"{spec.name}: validating the {point_count(spec)[1]} (limit {max_points:,})", total, 0,
                     progress, start_after_s=VALIDATION_QUIET_S)
    for point in points:
        meter.advance()
        raw = base
        for path, value in point.overrides:
            raw = set_dotted(raw, path, value)
        try:
            arch = build(ArchSpec, raw, str(arch_file))
        except InputError as err:
            for p in err.problems:
                location = _locate(p.path, point, fixed, spec.points is not None)
                if (location, p.path, p.message) not in seen:
                    seen.add((location, p.path, p.message))
                    problems.append(Problem(file, location, f"{p.message} (arch field {p.path or '(top level)'}, "
                                            f"point {point.index}: {_describe(point)})"))
            continue
        for path, _value in tuple(fixed.items()) + point.overrides:
            message = unused_path_message(arch, path)
            location = _locate(path, point, fixed, spec.points is not None)
            if message is not None and (location, path, message) not in seen:
                seen.add((location, path, message))
                problems.append(Problem(file, location, f"{path}: {message}"))
        values = tuple((path, _resolve_value(arch, path)) for path in varied)
        resolved.append(ResolvedPoint(point.index, point.labels, point.overrides, values, raw, arch,
                                      point_key(arch, digest, __version__)))
    if problems:
        raise InputError(problems)
    meter.finish(only_if_shown=True)
    return Sweep(name=spec.name, description=spec.description, source=file, arch_file=arch_file,
                 network=network, workload_digest=digest, code_version=__version__,
                 axes=tuple(a.name for a in axes) or varied, linked_axes=tuple((a.name, tuple(v.label for v in a.values)) for a in axes if a.linked),
                 varied_paths=varied, metrics=tuple(dict.fromkeys(spec.metrics)), points=tuple(resolved),
                 evaluate=spec.evaluate)


def sweep_from_mapping(raw: Any, file: str = "<sweep>", folder: Path | None = None,
                       max_points: int = DEFAULT_MAX_POINTS, progress: TextIO | None = None) -> Sweep:
    """A sweep from parsed YAML (a dict); ``folder`` is where relative arch/workload paths are tried first;
    more than ``max_points`` points is refused before any is built (:func:`resolve_sweep`)."""
    spec = build(SweepFileSpec, raw, file)
    return resolve_sweep(spec, file, folder if folder is not None else Path.cwd(), max_points, progress)


def load_sweep(path: str | Path, max_points: int = DEFAULT_MAX_POINTS, progress: TextIO | None = None) -> Sweep:
    """Read, validate and resolve a sweep file (:func:`sweep_from_mapping`)."""
    path = Path(path)
    return sweep_from_mapping(read_yaml(path), str(path), path.parent, max_points, progress)
