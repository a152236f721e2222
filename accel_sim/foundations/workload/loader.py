"""Load a workload: an accel_sim YAML file or a SCALE-Sim topology CSV."""
from __future__ import annotations

from pathlib import Path

from accel_sim.foundations.config.loader import REPO_ROOT, resolve_path
from accel_sim.foundations.config.schema import build
from accel_sim.foundations.config.yaml_io import read_yaml
from accel_sim.foundations.errors import InputError, Problem
from accel_sim.foundations.workload.layer import Network, ResidentMemory
from accel_sim.foundations.workload.operands import check_payload, check_precision_payload
from accel_sim.foundations.workload.scalesim_topology import read_scalesim_topology
from accel_sim.foundations.workload.spec import WorkloadSpec

WORKLOAD_DIR = REPO_ROOT / "workloads"


def load_workload(workload: str | Path) -> Network:
    """``workload`` is a path, or the name of a file in ``workloads/``."""
    path = resolve_path(workload, WORKLOAD_DIR, (".yaml", ".yml", ".csv"))
    if path.suffix == ".csv":
        return read_scalesim_topology(path)
    spec: WorkloadSpec = build(WorkloadSpec, read_yaml(path), str(path))
    problems, layers = [], []
    for i, entry in enumerate(spec.layers):
        try:
            layers.append(entry.to_layer(seed=spec.seed, base_dir=str(path.parent)))
        except ValueError as err:
            problems.append(Problem(str(path), f"layers[{i}] ({entry.name})", str(err)))
            continue
        try:
            check_payload(layers[-1])  # every family, not only those that read the operands
            check_precision_payload(layers[-1])
        except InputError as err:
            problems += [Problem(str(path), f"layers[{i}] ({entry.name}).operands", f"{p.file}: {p.path}: {p.message}")
                         for p in err.problems]
    if problems:
        raise InputError(problems)
    try:
        memory = None if spec.memory is None else ResidentMemory(
            spec.memory.batch, spec.memory.other_weight_elements, spec.memory.other_weight_bits)
        return Network(name=spec.name, layers=tuple(layers), source=spec.source, description=spec.description,
                       memory=memory)
    except ValueError as err:
        raise InputError.single(str(path), "layers", str(err)) from None
