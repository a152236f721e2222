"""One layer's teaching trace, written as its files: ``trace.json`` (Chrome / Perfetto trace
events), ``cycles.txt`` (one line per cycle) and, when asked, ``trace.html`` (the cycle-by-cycle
viewer, one self-contained page). A family supports traces with a module
``accel_sim/pipeline/trace/<family>.py`` whose ``build_trace(arch, layer) -> Trace`` is listed in
:data:`BUILDERS`."""
from __future__ import annotations

from pathlib import Path

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import single_layers
from accel_sim.foundations.workload.loader import load_workload
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.trace import eie
from accel_sim.pipeline.trace.events import Trace
from accel_sim.pipeline.trace.html import write_html
from accel_sim.pipeline.trace.perfetto import write_chrome_trace
from accel_sim.pipeline.trace.table import write_table

BUILDERS = {"eie": eie.build_trace}  # family -> its teaching trace


def write_trace(arch_name: str, workload_name: str, out: Path, layer_name: str | None = None,
                html: bool = False) -> dict[str, Path]:
    """Build the trace of one layer (the first, or ``layer_name``) and write its files (``html``: also
    the viewer page)."""
    trace = build(arch_name, workload_name, layer_name)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"trace": write_chrome_trace(trace, out / "trace.json"), "table": write_table(trace, out / "cycles.txt")}
    if html:
        paths["html"] = write_html(trace, out / "trace.html")
    return paths


def build(arch_name: str, workload_name: str, layer_name: str | None = None) -> Trace:
    """The trace of one layer (the first, or ``layer_name``) of a workload on an arch."""
    arch = load_arch(arch_name)
    network = load_workload(workload_name)
    layers = single_layers(network.layers)  # a batched GEMM's instances are traced one at a time: name[i]
    if layer_name is None:
        layer = layers[0]
    else:
        matches = [layer for layer in layers if layer.name == layer_name]
        if not matches:
            known = ", ".join(layer.name for layer in layers)
            raise InputError.single(str(workload_name), "--layer", f"no layer {layer_name!r}; layers: {known}")
        layer = matches[0]
    if arch.family not in BUILDERS:
        raise InputError.single(str(arch_name), "family", f"family {arch.family!r} has no teaching trace yet")
    return BUILDERS[arch.family](arch, layer)
