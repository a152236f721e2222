"""The per-cycle reference and the fast path agree cycle for cycle, counter for counter, and the
reference's outputs equal a numpy reference of the quantized layer."""
import numpy as np
import pytest

from accel_sim.eie import model
from tests.eie.cases import N_CASES, generated_case


@pytest.mark.parametrize("seed", range(N_CASES))
def test_fast_path_equals_per_cycle_reference(seed):
    arch, layer = generated_case(seed)
    plan = model.plan_layer(arch, layer)
    runs = model.reference_runs(plan)
    for v, run in enumerate(runs):
        timeline, counters, _ = model.fast_vector(plan, v)
        assert run.cycles == timeline.cycles
        np.testing.assert_array_equal(run.broadcast, timeline.broadcast)
        np.testing.assert_array_equal(run.start, timeline.start)
        for name in model.PE_COUNTERS:
            np.testing.assert_array_equal(run.counters[name], counters[name], err_msg=name)
    fast = model.layer_result(arch, plan, model.fast_counts(plan))
    reference = model.layer_result(arch, plan, model.reference_counts(runs, plan))
    assert fast == reference
    expected = model.functional_outputs(plan)
    for v, run in enumerate(runs):
        np.testing.assert_array_equal(run.outputs, expected[v])


def test_generated_cases_exercise_every_mechanism():
    """The cases above are not trivially easy: across them, FIFOs fill, padding entries and empty
    slices occur, the accumulator bypass is taken and several vectors run in one layer."""
    seen = dict.fromkeys(("stall_fifo_full_cycles", "padding_entries", "pe_empty_slice_cycles",
                          "accumulator_bypasses", "stall_pe_starved_cycles"), 0)
    multi_vector = 0
    for seed in range(0, N_CASES, 3):
        arch, layer = generated_case(seed)
        result = model.simulate_layer(arch, layer)
        for name in seen:
            seen[name] += result.metrics[name] > 0
        multi_vector += layer.m > 1
    assert all(count >= 5 for count in seen.values()), seen
    assert multi_vector >= 5
