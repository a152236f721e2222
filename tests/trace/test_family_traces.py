"""Every family's teaching trace agrees with the counters of the same run: the compute events' MACs
are the MACs issued, the last event ends at the run's cycles, the stalls add up to its stall
counters and the DRAM bursts to its DRAM bytes (each family's ``totals`` says which counters those
are); recording changes no counter; every registered family has a builder; a layer too large is
refused before it is simulated."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from accel_sim.cli.main import main
from accel_sim.foundations.workload.loader import load_workload
from accel_sim.pipeline.catalog import MODEL_NAMES, load_arch
from accel_sim.pipeline.trace import source as trace_source
from accel_sim.pipeline.trace.files import BUILDERS, SOURCES, _layers
from accel_sim.pipeline.trace.recorded import AMOUNT, COUNTER_COLUMNS, trace_from_recording

EVENT_TOTAL = {"macs": "macs", "stall_cycles": "stall", "dram_bytes": "dram_bytes"}


def _example(source):
    example = source.example
    layers = _layers(load_workload(example.workload))
    layer = layers[0] if example.layer is None else next(l for l in layers if l.name == example.layer)
    return load_arch(example.arch), layer


NOT_YET: set[str] = set()


def test_every_registered_family_has_a_trace_builder():
    assert set(BUILDERS) == set(MODEL_NAMES) - NOT_YET
    assert set(SOURCES) == set(MODEL_NAMES) - NOT_YET


@pytest.mark.parametrize("family", sorted(SOURCES))
def test_trace_events_add_up_to_the_counters(family):
    source = SOURCES[family]
    arch, layer = _example(source)
    plan = source.plan(arch, layer)
    recorder, counters = trace_source.record(source, plan)
    assert counters == source.model.reference(plan, None), "recording moved a counter"
    totals = source.totals(plan, counters)
    assert {"cycles", "macs"} <= set(totals)
    assert recorder.last_end == totals["cycles"]
    for name, value in totals.items():
        if name != "cycles":
            assert recorder.total(EVENT_TOTAL[name]) == pytest.approx(value), name
    assert any(e.macs for e in recorder.events)
    assert len(recorder.events) <= source.estimate(plan), "the estimate that guards the limit is not an upper bound"
    trace = trace_from_recording(recorder, family, arch.clock)
    assert trace.counter_columns == COUNTER_COLUMNS
    last = dict(zip(trace.table.columns, trace.table.rows[-1]))
    for name in COUNTER_COLUMNS:
        assert float(last[name]) == pytest.approx(recorder.total(AMOUNT[name]), abs=0.05)
    assert set(trace.track_kinds) == set(trace.tracks)


@pytest.mark.parametrize("family", sorted(SOURCES))
def test_trace_command_writes_the_example(family, tmp_path):
    example = SOURCES[family].example
    args = ["trace", "--arch", example.arch, "--workload", example.workload, "--out", str(tmp_path / "t")]
    assert main(args + (["--layer", example.layer] if example.layer else [])) == 0
    doc = json.loads((tmp_path / "t" / "trace.json").read_text())
    assert any(e["ph"] == "X" for e in doc["traceEvents"])
    assert (tmp_path / "t" / "cycles.txt").read_text().count("\n") > 3


def test_a_layer_past_the_event_limit_is_refused_before_simulating(capsys, tmp_path, monkeypatch):
    source = SOURCES["systolic"]
    monkeypatch.setattr(trace_source, "MAX_TRACE_EVENTS", 3)
    monkeypatch.setattr(trace_source, "record", lambda *a: pytest.fail("simulated a refused layer"))
    assert main(["trace", "--arch", "scalesim_32x32_ws", "--workload", "tiny_conv", "--out", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "limited to 3 events" in err and "accel-sim trace --arch scalesim_32x32_ws" in err
    assert not (tmp_path / "t").exists()


def test_docs_list_every_family_example():
    text = (Path(__file__).resolve().parents[2] / "docs" / "traces.md").read_text()
    for family, source in SOURCES.items():
        assert f"| {family} |" in text and source.example.command() in text, family


@pytest.mark.parametrize("arch_name, fields", [("ampere_a100", {"precision": "int8"}),
                                               ("hopper_h100", {"precision": "fp8"}),
                                               ("blackwell_b200_mxfp4", {})])
def test_tensor_core_trace_macs_follow_the_mma_of_the_operand_width(arch_name, fields):
    """An 8-bit or block-scaled MMA covers more K in the same cycles: the trace's MACs are the run's executed
    MACs (padding included), not the FP16 MMA's."""
    from accel_sim.foundations.workload.layer import GemmLayer
    from accel_sim.models.tensor_core.family import FAMILY

    source = SOURCES["tensor_core"]
    arch = load_arch(arch_name)
    plan = source.plan(arch, GemmLayer("g", m=64, k=256, n=96, **fields))
    recorder, counters = trace_source.record(source, plan)
    executed = FAMILY.account(plan, counters).metrics["executed_macs"]
    assert recorder.total("macs") == source.totals(plan, counters)["macs"] == executed >= 64 * 256 * 96
