"""One layer's teaching trace, written as its two files: ``trace.json`` (Chrome / Perfetto trace
events) and ``cycles.txt`` (one line per cycle). Every family has a builder in :data:`BUILDERS`:
EIE's own (:mod:`.eie`, the PEs' entries cycle by cycle), the others the generic trace of their
reference's recorded events (:mod:`.source`, one module per family in :mod:`.families`). A vector
layer (softmax, norms, ...) runs on the arch's vector unit and is traced as the vector unit's."""
from __future__ import annotations

import importlib
from functools import partial
from pathlib import Path

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import BatchedGemmLayer, VectorLayer
from accel_sim.foundations.workload.loader import load_workload
from accel_sim.pipeline.catalog import MODEL_NAMES, load_arch
from accel_sim.pipeline.trace import eie
from accel_sim.pipeline.trace.perfetto import write_chrome_trace
from accel_sim.pipeline.trace.source import TraceSource, build_trace
from accel_sim.pipeline.trace.table import write_table

TRACED = ("systolic", "eie", "lowbit", "vector_unit", "cnvlutin", "eyeriss", "eyeriss_v2", "dlu", "bitserial", "simt", "tensor_core", "scnn", "pe_array")    # families with a recorded-events source (trace/families/<name>.py)
SOURCES: dict[str, TraceSource] = {name: importlib.import_module(f"accel_sim.pipeline.trace.families.{name}").SOURCE
                                   for name in TRACED}
BUILDERS = {"eie": eie.build_trace, **{name: partial(build_trace, source) for name, source in SOURCES.items()
                                       if name != "eie"}}  # family -> its teaching trace


def _layers(network) -> list:
    """Every traceable layer: a batched GEMM's instances one at a time (name[i]), vector layers as they are."""
    out = []
    for layer in network.layers:
        if isinstance(layer, BatchedGemmLayer):
            out += [layer.instance(i) for i in range(layer.instances)]
        else:
            out.append(layer)
    return out


def write_trace(arch_name: str, workload_name: str, out: Path, layer_name: str | None = None) -> dict[str, Path]:
    """Build the trace of one layer (the first, or ``layer_name``) and write its two files."""
    arch = load_arch(arch_name)
    network = load_workload(workload_name)
    layers = _layers(network)
    if layer_name is None:
        layer = layers[0]
    else:
        matches = [layer for layer in layers if layer.name == layer_name]
        if not matches:
            known = ", ".join(layer.name for layer in layers)
            raise InputError.single(str(workload_name), "--layer", f"no layer {layer_name!r}; layers: {known}")
        layer = matches[0]
    family = "vector_unit" if isinstance(layer, VectorLayer) else arch.family
    if family not in BUILDERS:
        raise InputError.single(str(arch_name), "family", f"family {family!r} has no teaching trace yet")
    trace = BUILDERS[family](arch, layer)
    out.mkdir(parents=True, exist_ok=True)
    return {"trace": write_chrome_trace(trace, out / "trace.json"), "table": write_table(trace, out / "cycles.txt")}


assert set(BUILDERS) <= set(MODEL_NAMES)
