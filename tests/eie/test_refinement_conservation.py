"""EIE's conservation laws (issue 4) on generated layers, checked against the compress package's
own encoding of the same weights (independent of the plan's slice statistics), plus energy =
sum of parts and bit-for-bit determinism."""
import math

import numpy as np
import pytest

from accel_sim import simulate
from accel_sim.foundations.compress.formats.eie import EIEInterleavedCSC
from accel_sim.models.eie.family import FAMILY
from accel_sim.foundations.energy import load_energy_table
from accel_sim.pipeline.simulate import simulate_layer
from accel_sim.foundations.workload.layer import Network
from tests.eie.cases import generated_case

SEEDS = range(0, 220, 7)


@pytest.mark.parametrize("seed", SEEDS)
def test_entries_macs_and_cycle_bounds(seed):
    arch, layer = generated_case(seed)
    spec = arch.eie
    plan, counters = FAMILY.counters(arch, layer)
    result = FAMILY.account(plan, counters)
    encoded = EIEInterleavedCSC.from_dense(plan.operands.weights.T, n_pes=spec.n_pes, index_bits=spec.index_bits,
                                           pointer_bits=None)
    per_column = encoded.entries_per_column()          # (PEs, columns): non-zeros + padding of each slice
    nonzero_per_column = np.stack([np.count_nonzero(plan.operands.weights.T[p::spec.n_pes], axis=0)
                                   for p in range(spec.n_pes)])
    expected_entries = np.zeros(spec.n_pes, dtype=np.int64)
    expected_nonzeros = ideal = lines = 0
    min_cycles = 0
    for v in range(layer.m):
        columns = np.flatnonzero(plan.operands.inputs[v])
        entries = per_column[:, columns]
        expected_entries += entries.sum(axis=1)
        nonzeros = int(nonzero_per_column[:, columns].sum())
        expected_nonzeros += nonzeros
        ideal += math.ceil(nonzeros / spec.n_pes)
        for pe in encoded.pes:
            first, end = pe.col_ptr[columns], pe.col_ptr[columns + 1]
            busy = end > first
            lines += int(((end[busy] - 1) // spec.entries_per_read - first[busy] // spec.entries_per_read + 1).sum())
        # a vector takes the LNZD latency, one broadcast per cycle, and every PE's entries after the first broadcast
        min_cycles += max(spec.lnzd_latency + columns.size, spec.lnzd_latency + 1 + int(entries.sum(axis=1).max())
                          if columns.size else 0)
    # entries processed per PE = non-zeros + padding entries of its slices in the non-zero columns
    assert counters.pe_entries == tuple(expected_entries.tolist())
    assert counters.padding_entries == expected_entries.sum() - expected_nonzeros
    assert counters.ideal_cycles == ideal
    assert counters.spmat_reads == lines
    assert counters.compute_cycles >= min_cycles
    assert counters.lnzd_activation_reads == layer.k * layer.m
    # MACs issued = sum of entries; issued + skipped = dense
    assert result.macs_issued == expected_entries.sum()
    assert result.macs_issued + result.macs_skipped == result.macs_dense == layer.macs
    assert result.cycles == result.compute_cycles + result.stall_cycles
    assert result.cycles >= math.ceil(result.macs_issued / result.peak_macs_per_cycle)
    assert result.compute_cycles >= result.metrics["ideal_cycles"]
    broadcasts = sum(np.count_nonzero(plan.operands.inputs[v]) for v in range(layer.m))
    assert counters.broadcasts == broadcasts
    assert result.metrics["fifo_pushes"] == result.metrics["fifo_pops"] == broadcasts * spec.n_pes
    assert result.metrics["pointer_reads"] == 2 * broadcasts * spec.n_pes
    # every entry read from the sparse-matrix SRAM at least once, a line holds entries_per_read entries
    assert result.metrics["spmat_reads"] >= result.metrics["entries"] / spec.entries_per_read
    # PE time adds up: busy + starved + tail = PEs x cycles
    busy = sum(counters.pe_busy_cycles)
    assert busy == counters.empty_slice_cycles + expected_entries.sum()
    assert busy + counters.pe_starved_cycles + counters.pe_tail_cycles == spec.n_pes * counters.compute_cycles
    assert 0 <= result.metrics["load_efficiency"] <= 1
    assert (result.metrics["load_efficiency"] > 0) == (busy > 0)


def test_energy_is_the_sum_of_its_parts_and_runs_are_bit_identical():
    arch, layer = generated_case(3)
    network = Network("n", (layer,))
    first, second = simulate(arch, network), simulate(arch, network)
    assert first.layers_frame().equals(second.layers_frame())
    table = load_energy_table(arch.energy_table)
    energy = first.energy[0]
    assert energy.total_pj == pytest.approx(sum(table.energy_pj(a) for a in first.layers[0].actions))
    assert set(energy.by_component_pj) >= {"act_queue", "pointer_read", "spmat_read", "arithmetic", "act_rw"}
    assert energy == simulate_layer(arch, layer, table).energy
    assert first.layers[0].operand_hashes["weight_hash"]


def test_reference_path_through_simulate_matches_fast():
    arch, layer = generated_case(11)
    network = Network("n", (layer,))
    assert simulate(arch, network, reference=True).layers_frame().equals(simulate(arch, network).layers_frame())
