"""Simulate one measured-hardware case (:mod:`accel_sim.foundations.measured`) the way a user would: load its
device and workload, keep its layer, :func:`~accel_sim.pipeline.simulate.simulate`, and read the measured
quantity off the run's summary row.

Quantities: ``time_s``; ``energy_j`` (dynamic energy, plus leakage where the family lists its blocks);
``power_w`` (that energy / time: a chip's measured power includes its leakage); ``chip_power_w`` (the same
without the DRAM's access energy: a chip measured at its own supply, the DRAM off its rails); ``dram_bytes`` (reads and
writes); ``throughput_per_s`` and ``tokens_per_s`` (``conditions.batch`` items per run / time); ``speedup``
(the baseline run's time / this run's); ``geomean_speedup`` (the geometric mean over layers of the baseline layer's
time / this run's layer of the same name: a paper's geometric mean of per-case speed-ups); any other name is a column of the run's summary row or, for a case of
one layer, of that layer's row (a model metric such as ``active_pes``).
"""
from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.measured import PER_ITEM, MeasuredCase, RunRef
from accel_sim.foundations.workload.loader import load_workload
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.simulate import simulate

PICO = 1e-12


@dataclass(frozen=True)
class SimulatedRun:
    """The summary of one run of a case: its arch's family and the summary row (with, for a run of one layer,
    that layer's model metrics where the summary has no column of the name)."""

    family: str
    summary: dict
    layer_times: tuple[tuple[str, float], ...] = ()   # (layer, seconds) in the workload's order
    layer_rows: tuple[dict, ...] = ()                 # the run's layer rows, in the workload's order


@dataclass(frozen=True)
class SimulatedCase:
    """A case's simulated figure (in the case's unit) and the family that produced it."""

    value: float
    family: str
    time_s: float


@functools.lru_cache(maxsize=256)
def simulate_run(run: RunRef) -> SimulatedRun:
    """Simulate ``run`` (remembered: several cases share a baseline run)."""
    arch = load_arch(run.device)
    network = load_workload(run.workload)
    if run.layer is not None:
        chosen = tuple(layer for layer in network.layers if layer.name == run.layer)
        if not chosen:
            raise InputError.single(run.workload, "layer", f"no layer named {run.layer!r} in {network.name}")
        network = dataclasses.replace(network, layers=chosen)
    result = simulate(arch, network)
    summary = result.summary_row()
    if len(network.layers) == 1:
        summary = {**result.layer_rows()[0], **summary}
    rows = tuple(result.layer_rows())
    return SimulatedRun(arch.family, summary, tuple((str(r["layer"]), float(r["time_s"])) for r in rows), rows)


def quantity_of(case: MeasuredCase, summary: dict) -> float:
    """The case's quantity read off one run's summary row (speedup excepted: it needs two runs)."""
    time_s = float(summary["time_s"])
    energy_j = (float(summary["energy_pj"]) + float(summary.get("static_energy_pj", 0.0))) * PICO
    dram_j = float(summary.get("energy_dram_pj", 0.0)) * PICO
    derived = {"time_s": time_s, "energy_j": energy_j, "power_w": energy_j / time_s,
               "chip_power_w": (energy_j - dram_j) / time_s,
               "dram_bytes": float(summary["dram_read_bytes"]) + float(summary["dram_write_bytes"])}
    if case.quantity in PER_ITEM:
        return int(case.conditions["batch"]) / time_s
    if case.quantity in derived:
        return derived[case.quantity]
    if case.quantity not in summary:
        raise InputError.single(case.name, "quantity", f"{case.quantity!r} is neither a known quantity nor a "
                                f"column of the run's summary ({', '.join(map(str, summary))})")
    return float(summary[case.quantity])


def simulate_case(case: MeasuredCase) -> SimulatedCase:
    """The simulated counterpart of ``case``'s measured figure. Bad input (an unknown device, workload or
    layer) raises :class:`~accel_sim.foundations.errors.InputError`."""
    run = simulate_run(case.run)
    time_s = float(run.summary["time_s"])
    if case.quantity == "speedup":
        baseline = simulate_run(case.baseline)
        return SimulatedCase(float(baseline.summary["time_s"]) / time_s, run.family, time_s)
    if case.quantity == "geomean_speedup":
        return SimulatedCase(geomean_speedup(case, run, simulate_run(case.baseline)), run.family, time_s)
    return SimulatedCase(quantity_of(case, run.summary), run.family, time_s)


def geomean_speedup(case: MeasuredCase, run: SimulatedRun, baseline: SimulatedRun) -> float:
    """Geometric mean over the run's layers of (the baseline's layer of the same name) / (the run's layer) times."""
    base = dict(baseline.layer_times)
    missing = [name for name, _ in run.layer_times if name not in base]
    if missing or not run.layer_times:
        raise InputError.single(case.name, "baseline", f"geomean_speedup pairs layers by name; the baseline run has no "
                                f"layer {', '.join(missing) or '(the run has none)'}")
    return math.exp(sum(math.log(base[name] / t) for name, t in run.layer_times) / len(run.layer_times))
