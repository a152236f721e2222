"""Conservation laws on every shipped bitserial config: MACs issued + skipped = dense (all issued without
Bit-Tactical), each step costs at least one cycle, the PE slots of the issuing tiles are used or idle,
DaDianNao takes one cycle per step and Stripes p_a, DRAM reads at least the packed operands and writes
the outputs at output_bits; the CLI run of DNNsim's data through the public API."""
import csv

import pytest

from accel_sim import load_arch
from accel_sim.cli.main import main
from accel_sim.foundations.workload.layer import ConvLayer, Network
from accel_sim.models.bitserial.family import FAMILY
from accel_sim.pipeline.simulate import simulate
from tests.bitserial._layers import DATA, ROOT

CONFIGS = sorted((ROOT / "arch_configs").glob("bitserial_*.yaml"))
LAYER = ConvLayer("c", in_h=9, in_w=9, in_channels=20, out_channels=24, kernel_h=3, kernel_w=3, pad_top=1,
                  pad_bottom=1, pad_left=1, pad_right=1, weight_density=0.4, input_density=0.6, activation_bits=7,
                  weight_bits=9)


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_laws(path):
    arch = load_arch(path)
    spec = arch.bitserial
    result = simulate(arch, Network("n", (LAYER,))).layers[0]
    plan, counters = FAMILY.counters(arch, LAYER)
    assert result.macs_issued + result.metrics["macs_skipped"] == LAYER.macs
    if not spec.tactical:
        assert result.macs_issued == LAYER.macs
    assert counters.cycles >= counters.steps
    assert counters.pe_steps + counters.idle_pe_steps == counters.tile_steps * spec.columns * spec.rows
    if spec.design == "dadiannao" and not spec.tactical:
        assert counters.cycles == counters.steps
    if spec.design == "stripes":
        assert counters.cycles == counters.steps * 7
    # DRAM carries at least the layer's operands packed at their precisions (unpacked: one word each)
    packed = -(-LAYER.input_elements * 7 // 8) - (-LAYER.weight_elements * 9 // 8)
    assert result.dram_read_bytes >= packed
    if not spec.packed_storage:
        assert result.dram_read_bytes == (LAYER.input_elements + LAYER.weight_elements) * arch.word_bits // 8
    # every output is written once, at output_bits: the words are the footprint, DRAM writes at least it
    assert counters.output_words * arch.word_bits == LAYER.output_elements * spec.output_bits
    assert result.dram_write_bytes >= LAYER.output_elements * spec.output_bits // 8
    assert counters.activation_words <= counters.activation_reads and counters.weight_words <= counters.weight_reads


def test_cli_run_gives_dnnsims_cycles(tmp_path):
    want = {r["layer"]: int(r["compute_cycles"]) for r in csv.DictReader(open(DATA / "dnnsim_compute_cycles.csv"))
            if r["set"] == "B" and r["config"] == "ShapeShifter_GS1_CR1"}
    assert main(["run", "--arch", "bitserial_dnnsim_shapeshifter_gs1_cr1", "--workload",
                 str(DATA / "B_alexnet_split.yaml"), "--out", str(tmp_path), "--no-figure"]) == 0
    rows = {row["layer"]: int(row["cycles"]) for row in csv.DictReader(open(tmp_path / "layers.csv"))}
    assert rows == want
