"""Fast path == SimPy reference on every counter, on hypothesis-generated small layers and configs covering
every switch of the ``bitserial:`` section, plus hand-worked examples checked on both paths."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accel_sim.foundations.errors import SimulationError
from accel_sim.models.bitserial import fast as fast_module
from accel_sim.models.bitserial import reference as reference_module
from accel_sim.models.bitserial.family import FAMILY
from accel_sim.models.bitserial.plan.tactical import schedule, search_offsets
from tests.bitserial._layers import arch, conv, gemm

DESIGNS = ["dadiannao", "stripes", "shapeshifter", "loom", "pragmatic", "laconic"]


@st.composite
def cases(draw):
    design = draw(st.sampled_from(DESIGNS))
    tactical = design in ("dadiannao", "shapeshifter", "pragmatic") and draw(st.booleans())
    diffy = not tactical and design in ("shapeshifter", "pragmatic") and draw(st.booleans())
    lanes = 8 if tactical else draw(st.sampled_from([2, 3, 4]))
    fields = dict(design=design, tactical=tactical, diffy=diffy, lanes=lanes, tiles=draw(st.integers(1, 3)),
                  rows=draw(st.integers(1, 3)), columns=draw(st.integers(1, 4)), group_size=draw(st.integers(1, 3)),
                  column_registers=draw(st.integers(0, 2)), minor_bit=draw(st.booleans()),
                  pe_serial_bits=draw(st.integers(1, 3)), dynamic_weights=draw(st.booleans()),
                  bits_first_stage=draw(st.integers(0, 3)), booth_encoding=draw(st.booleans()),
                  output_bits=draw(st.sampled_from([16, 32, 48])))
    if tactical:
        fields.update(search_shape=draw(st.sampled_from(["T", "L"])), lookaside_d=5 if draw(st.booleans()) else 3)
        if fields["search_shape"] == "T":
            fields["lookaside_d"] = 5
    k, c = draw(st.integers(1, 7)), draw(st.integers(1, 11))
    r = draw(st.integers(1, 3))
    h = draw(st.integers(r, 5))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    wbits, abits = draw(st.integers(2, 16)), draw(st.integers(1, 16))
    weights = rng.integers(-(1 << (wbits - 1)), 1 << (wbits - 1), (k, c, r, r)) * (rng.random((k, c, r, r)) < 0.5)
    signed_acts = draw(st.booleans())
    low = -(1 << (abits - 1)) if signed_acts else 0
    inputs = rng.integers(low, 1 << abits if not signed_acts else 1 << (abits - 1), (draw(st.integers(1, 2)), c, h, h))
    inputs = inputs * (rng.random(inputs.shape) < 0.6)
    extra = dict(activation_bits=abits, weight_bits=wbits) if draw(st.booleans()) else {}
    layer = conv(f"h{seed}", weights, inputs, pad=draw(st.integers(0, 1)), stride=draw(st.integers(1, 2)), **extra)
    return arch(**fields), layer


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(cases())
def test_fast_equals_reference_on_every_counter(case):
    machine, layer = case
    assert FAMILY.refinement(machine, layer) == []


def test_grouped_and_gemm_layers_agree():
    rng = np.random.default_rng(3)
    grouped = conv("grouped", rng.integers(-50, 50, (6, 3, 3, 3)), rng.integers(0, 40, (1, 6, 5, 5)), pad=1, groups=2)
    fc = gemm("fc", rng.integers(-9, 9, (20, 5)), rng.integers(0, 9, (3, 20)))
    for machine in (arch("bitserial_dnnsim_bitpragmatic_b2_cr1_booth", tiles=2, rows=2),
                    arch("bitserial_dnnsim_bittacticalp", tiles=2, rows=2, lanes=8)):
        for layer in (grouped, fc):
            assert FAMILY.refinement(machine, layer) == []


def test_booth_recoding_as_dnnsims_table():
    """DNNsim's examples: 7 -> 0b1001, 14 -> 0b10010, 15 -> 0b10001, 3 -> 0b11, 11 -> 0b1011."""
    for value, mask in [(7, 0b1001), (14, 0b10010), (15, 0b10001), (3, 0b11), (11, 0b1011), (0, 0), (1, 1)]:
        assert fast_module.BOOTH[value] == mask == reference_module._booth(value)
    assert all(fast_module.BOOTH[v] == reference_module._booth(v) for v in range(0, 1 << 15, 97))


def test_bit_tables():
    assert (fast_module.MSB[[0, 1, 2, 3, 8, 0xFFFF]] == [0, 0, 1, 1, 3, 15]).all()
    assert (fast_module.LSB[[0, 1, 2, 12, 0x8000]] == [16, 0, 1, 2, 15]).all()
    assert (fast_module.POPCOUNT[[0, 7, 0xFFFF, 0x8001]] == [0, 3, 16, 2]).all()
    assert list(fast_module.folded(np.array([-1, -3, 5, 0]), True)) == [0, 2, 5, 0]
    assert list(fast_module.folded(np.array([5]), False)) == [5]


@pytest.mark.parametrize("terms,first_stage,cycles", [
    ([0b1, 0b10000], 2, 2),          # lane 1's term is 4 above the lowest: it waits a cycle
    ([0b1, 0b1000], 2, 1),           # within 3 positions: both in one cycle
    ([0b1, 0b1000], 0, 2),           # a 0-bit first stage: only terms at the lowest position
    ([0b111, 0b1], 2, 3),            # the busiest lane
    ([0, 0], 2, 1),                  # nothing to do still costs a cycle
    ([0b1010, 0b100000000], 2, 3),   # 1 (bit 1), 2 (bit 3), 3 (bit 8)
])
def test_pragmatic_shifter_by_hand(terms, first_stage, cycles):
    assert fast_module.pragmatic_cycles(np.array([terms]), first_stage)[0] == cycles
    assert reference_module._pragmatic(terms, first_stage) == cycles


def test_tactical_search_windows():
    assert search_offsets("T", 2, 5) == ((1, -1), (1, 0), (1, 1), (1, 3), (2, -2), (2, 0), (2, 2))
    assert search_offsets("L", 2, 2) == ((1, -2), (1, -1), (1, 0), (2, 0))


def test_tactical_schedule_by_hand():
    """One filter row of 4 lanes, 4 steps. Step 0 holds zeros in lanes 1 and 3; lane 1 can take (1, 1) or
    (2, 1); lane 3 only (1, 3). Both have candidates... lane 3 has 1, lane 1 has 2: lane 1 (the most
    candidates, lowest lane) goes first and takes (1, 1); then lane 3 takes (1, 3) (search L, h 2, d 1:
    offsets (1, -1), (1, 0), (2, 0)). Step 1 is then all zero and skipped. Step 2's zero lanes 0, 2, 3 each see
    two weights of step 3: lane 0 (lowest) takes its first, (3, 3); lane 2 then (3, 1); lane 3 (3, 2)."""
    values = np.zeros((1, 4, 1, 4), dtype=np.int64)
    values[0, 0, 0] = [5, 0, 6, 0]
    values[0, 1, 0] = [0, 7, 0, 8]
    values[0, 2, 0] = [0, 9, 0, 0]
    values[0, 3, 0] = [1, 1, 1, 1]
    real = np.ones(values.shape, dtype=bool)
    out = schedule(values, real, 2, search_offsets("L", 2, 1))
    assert list(out.values[0, 0, 0]) == [5, 7, 6, 8]
    assert list(out.source_step[0, 0, 0]) == [0, 1, 0, 1]
    assert list(out.source_lane[0, 0, 0]) == [0, 1, 2, 3]
    assert list(out.issued[0]) == [True, False, True, True]
    assert list(out.values[0, 2, 0]) == [1, 9, 1, 1]
    assert list(out.source_lane[0, 2, 0]) == [3, 1, 1, 2]
    assert list(out.values[0, 3, 0]) == [1, 0, 0, 0]


def test_stripes_and_shapeshifter_by_hand():
    """A 1 x 1 convolution, 2 channels, 3 windows on a grid of 2 columns and 2 lanes: 2 window sets of 1 line.
    Activations (window: lanes) 0: (5, 1), 1: (2, 0), 2: (9, 0). Stripes at p_a = 4: 2 sets x 4 = 8 cycles.
    ShapeShifter per set: max msb + 1 = set 0: msb 5 = 2 -> 3; set 1: msb 9 = 3 -> 4: 7 cycles (minor bit:
    set 0: lsb min 0 -> 3, set 1: 9 = 0b1001 -> 4: the same). Pragmatic (no Booth, 2-bit stage): window 0:
    5 = 0b101 and 1: 2 cycles; window 1: 1; window 2: 9 = 0b1001: 2 -> sets cost 2 + 2 = 4. Loom: widths x p_w
    = 7 x 3. Laconic (|w| = 3, 2: 2 and 1 terms): set 0: lane 0 max(terms 5, 2) = 2 x 2 = 4; set 1: 9 -> 2 x 2 = 4."""
    weights = np.array([[[[3]], [[-2]]]])
    inputs = np.array([[[[5, 2, 9]], [[1, 0, 0]]]]).transpose(0, 1, 3, 2)   # (1, 2, 3, 1): 3 windows down the height
    layer = conv("hand", weights, inputs, activation_bits=4, weight_bits=3)
    grid = dict(columns=2, lanes=2, rows=1, tiles=1)
    expected = {"stripes": 8, "shapeshifter": 7, "pragmatic": 4, "dadiannao": 2, "loom": 7 * 3, "laconic": 4 + 4}
    for design, cycles in expected.items():
        machine = arch(design=design, **grid)
        plan = FAMILY.plan(machine, layer)
        assert FAMILY.fast(plan).cycles == cycles == FAMILY.reference(plan).cycles, design
    assert FAMILY.fast(FAMILY.plan(arch(design="shapeshifter", minor_bit=True, **grid), layer)).cycles == 7


def test_counters_by_hand():
    """3 windows, 2 sets of 2 columns: 2 steps; one filter of 2 channels: macs = 3 x 2 = 6; the second set
    holds 1 window (2 PE slots of which 1 used)."""
    weights = np.array([[[[3]], [[-2]]]])
    inputs = np.array([[[[5, 2, 9]], [[1, 0, 0]]]]).transpose(0, 1, 3, 2)
    plan = FAMILY.plan(arch(design="stripes", columns=2, lanes=2, rows=1, tiles=1), conv("count", weights, inputs))
    counters = FAMILY.fast(plan)
    assert counters == FAMILY.reference(plan)
    assert (counters.steps, counters.tile_steps, counters.pe_steps, counters.idle_pe_steps) == (2, 2, 3, 1)
    assert (counters.macs_issued, counters.activation_reads, counters.weight_reads) == (6, 6, 4)
    assert counters.serial_cycles == 3 * 16


def test_max_cycles_raises_on_both_paths():
    rng = np.random.default_rng(0)
    layer = conv("guard", rng.integers(-5, 5, (2, 2, 1, 1)), rng.integers(0, 5, (1, 2, 3, 3)))
    plan = FAMILY.plan(arch(design="stripes", columns=2, lanes=2), layer)
    cycles = FAMILY.fast(plan).cycles
    for count in (FAMILY.fast, FAMILY.reference):
        assert count(plan, cycles).cycles == cycles
        with pytest.raises(SimulationError):
            count(plan, cycles - 1)


def test_integer_operands_kept_as_words_and_others_quantised():
    """Integers within the 16-bit word range [-32768, 32767] are taken as they are; anything else is quantised
    to the layer's precision (32768 does not fit a word: unsigned 16 bits put it on the top code 65535)."""
    from accel_sim.models.bitserial.plan import fixed_point
    assert fixed_point(np.array([-3.0, 5.0]), 16).tolist() == [-3, 5]
    assert fixed_point(np.array([-32768.0, 32767.0]), 16).tolist() == [-32768, 32767]
    assert fixed_point(np.array([32768.0, 1.0]), 16).tolist() == [65535, 2]
    assert fixed_point(np.zeros((0, 3)), 8).shape == (0, 3)       # an empty tensor stays empty


def test_non_negative_weights_with_zeros_are_unsigned():
    weights = np.array([[[[0]], [[3]]]])
    plan = FAMILY.plan(arch(design="loom", columns=2, lanes=2, rows=1, tiles=1), conv("unsigned_w", weights,
                                                                                      np.ones((1, 2, 1, 3))))
    assert not plan.wgt_signed and not plan.act_signed


def test_dynamic_loom_groups_of_filters_agree():
    """Loom's run-time weight width with filter groups of 2 (rows 4): fast == reference."""
    rng = np.random.default_rng(3)
    layer = conv("loom_groups", rng.integers(-9, 9, (6, 3, 1, 1)), rng.integers(0, 40, (1, 3, 2, 3)))
    plan = FAMILY.plan(arch(design="loom", columns=2, lanes=2, rows=4, tiles=2, group_size=2,
                            dynamic_weights=True), layer)
    assert FAMILY.fast(plan) == FAMILY.reference(plan)


def test_dynamic_loom_trailing_bits_with_uneven_filter_groups_agree():
    """Loom's run-time weight width trimming trailing zero bits too (minor_bit), filter groups of 2 over 3 rows
    (the last group one row): the widest group per tile is taken over each group's own rows; fast == reference."""
    rng = np.random.default_rng(11)
    layer = conv("loom_minor", rng.integers(-60, 60, (7, 3, 1, 1)) * 4, rng.integers(0, 40, (1, 3, 3, 3)))
    plan = FAMILY.plan(arch(design="loom", columns=2, lanes=2, rows=3, tiles=2, group_size=2,
                            dynamic_weights=True, minor_bit=True), layer)
    assert FAMILY.fast(plan) == FAMILY.reference(plan)


def test_compiled_shifter_equals_numpy_passes(monkeypatch):
    """The shifter's loops (numba, or plain Python) give :func:`shifter_passes`' cycles, and the fast path
    gives the same counters with them and without numba (the numpy fallback)."""
    rng = np.random.default_rng(5)
    for first_stage in (0, 2, 3):
        terms = rng.integers(0, 1 << 16, (40, 6)) * (rng.random((40, 6)) < 0.5)
        expected = fast_module.shifter_passes(terms, first_stage)
        assert (fast_module.shifter_rows(terms, (1 << first_stage) - 1, fast_module.LSB) == expected).all()
        assert (fast_module.pragmatic_cycles(terms, first_stage) == expected).all()
    layer = conv("shifter", rng.integers(-90, 90, (5, 4, 3, 3)) * (rng.random((5, 4, 3, 3)) < 0.6),
                 rng.integers(0, 900, (1, 4, 6, 6)) * (rng.random((1, 4, 6, 6)) < 0.6), pad=1)
    machines = (arch("bitserial_dnnsim_bitpragmatic_b2_cr1_booth", tiles=2, rows=2),
                arch("bitserial_dnnsim_bittacticale", tiles=2, rows=2, lanes=8))   # Bit-Tactical on Pragmatic
    compiled = [FAMILY.counters(machine, layer)[1] for machine in machines]
    plain = {"rows": fast_module.shifter_rows, "tactical": fast_module.tactical_rows}
    monkeypatch.setattr(fast_module, "_compiled_shifter", lambda: plain)
    assert [FAMILY.counters(machine, layer)[1] for machine in machines] == compiled
    monkeypatch.setattr(fast_module, "_compiled_shifter", lambda: None)
    assert [FAMILY.counters(machine, layer)[1] for machine in machines] == compiled


def test_compiled_tactical_schedule_equals_numpy_passes():
    """Bit-Tactical's scheduling loop (numba, or plain Python) gives :func:`schedule_passes`' schedule: values,
    sources, held slots and skipped lines, on both search shapes and on padded slots."""
    from accel_sim.foundations.compiled import compiled_loop
    from accel_sim.models.bitserial.plan.tactical import schedule_loop, schedule_passes
    rng = np.random.default_rng(11)
    loops = [schedule_loop] + ([compiled_loop(schedule_loop)] if compiled_loop(schedule_loop) else [])
    for shape, h, d, lanes in (("T", 2, 5, 8), ("L", 2, 3, 4), ("L", 3, 1, 5), ("T", 1, 5, 16)):
        values = rng.integers(-9, 9, (3, 12, 2, lanes)) * (rng.random((3, 12, 2, lanes)) < 0.3)
        values[:, 4:7] = 0                                             # a run of zero lines: skipped up to h
        real = np.ones(values.shape, dtype=bool)
        real[:, :, :, lanes - 1] = False                               # a padded lane
        values[~real] = 0
        expected = schedule_passes(values, real, h, search_offsets(shape, h, d))
        for loop in loops:
            got = schedule(values, real, h, search_offsets(shape, h, d), loop=loop)
            for field in ("values", "source_step", "source_lane", "real", "issued"):
                assert (getattr(got, field) == getattr(expected, field)).all(), (shape, field)


def test_compiled_tactical_selection_equals_numpy(monkeypatch):
    """Bit-Tactical ShapeShifter's selected bits: the loop (numba, or plain Python) equals the numpy lines, and the
    fast path counts the same without numba (numpy lines, plain-Python run-ahead)."""
    from accel_sim.foundations.compiled import compiled_loop
    rng = np.random.default_rng(7)
    words = rng.integers(0, 1 << 16, (2, 9, 3, 8)) * (rng.random((2, 9, 3, 8)) < 0.5)
    msb, lsb = fast_module.MSB[words] + 1, fast_module.LSB[words]
    rows = np.minimum(rng.integers(0, 9, (5, 2))[:, :, None] + np.arange(3), 8)
    used = rng.random((5, 2, 3, 8)) < 0.3
    used[0, 1] = False                                  # a tile selecting nothing: msb 0, lsb 16
    expected = fast_module.selected_bits_numpy(msb, lsb, rows, used)
    loops = [fast_module.selected_bits] + ([compiled_loop(fast_module.selected_bits)]
                                           if compiled_loop(fast_module.selected_bits) else [])
    for loop in loops:
        got = loop(msb, lsb, rows, used)
        assert all((g == e).all() and g.dtype == e.dtype for g, e in zip(got, expected))
    layer = conv("select", rng.integers(-90, 90, (5, 4, 3, 3)) * (rng.random((5, 4, 3, 3)) < 0.6),
                 rng.integers(0, 900, (1, 4, 6, 6)) * (rng.random((1, 4, 6, 6)) < 0.6), pad=1)
    machines = (arch("bitserial_dnnsim_bittacticalp", tiles=2, rows=2, lanes=8),
                arch("bitserial_dnnsim_bitpragmatic_b2_cr1_booth", tiles=2, rows=2))   # column registers: run_ahead
    compiled = [FAMILY.counters(machine, layer)[1] for machine in machines]
    monkeypatch.setattr(fast_module, "compiled_loop", lambda function: None)
    assert [FAMILY.counters(machine, layer)[1] for machine in machines] == compiled


def test_compiled_run_ahead_equals_python():
    """The column registers' run-ahead timeline: the loop numba compiles equals it in plain Python on lists, and a
    hand-worked case (2 units, 1 register: steps (3, 1), (1, 3), (2, 2) end at (3, 1), (4, 4), (6, 6))."""
    from accel_sim.foundations.compiled import compiled_loop
    assert fast_module.run_ahead([[3, 1], [1, 3], [2, 2]], 1) == 4 + 2
    assert fast_module.run_ahead([[3, 1], [1, 3]], 2) == 4
    assert fast_module.run_ahead(np.zeros((0, 3), dtype=np.int64).tolist(), 1) == 0
    loop = compiled_loop(fast_module.run_ahead)
    rng = np.random.default_rng(2)
    for registers in (1, 2, 3):
        costs = rng.integers(0, 9, (50, 4))
        expected = fast_module.run_ahead(costs.tolist(), registers)
        assert loop is None or loop(costs, registers) == expected


@pytest.mark.parametrize("block", [5, 1 << 18])
def test_weight_buffer_and_codes_by_hand_layout(monkeypatch, block):
    """The weight buffer holds weight (k, c, r, s) of filter set k // rows at line (s x R + r) x bricks + c // lanes,
    row k % rows, lane c % lanes, 0 elsewhere, as fixed_point's codes (real weights: rint(w x top / peak)); whatever
    the block the codes are written in (``block`` smaller than one filter set's values, or the default)."""
    from accel_sim.models.bitserial import plan as plan_module
    monkeypatch.setattr(plan_module, "_BLOCK", block)
    rng = np.random.default_rng(4)
    weights = rng.standard_normal((7, 5, 2, 3)).astype(np.float32)
    rule = plan_module.fixed_rule(weights, 6)
    codes = np.rint(weights * np.float32(31 / np.abs(weights).max())).astype(np.int64)
    assert (plan_module.fixed_point(weights, 6) == codes).all() and rule.negative
    for view in (weights, np.ascontiguousarray(weights.transpose(1, 0, 2, 3)).transpose(1, 0, 2, 3)):
        values, present = plan_module.weight_buffer(view, 3, 2, rule)
        assert values.shape == (3, 3 * 2 * 3, 3, 2) and present.sum() == 7
        expected = np.zeros(values.shape, dtype=np.int64)
        for k, c, r, s in np.ndindex(weights.shape):
            expected[k // 3, (s * 2 + r) * 3 + c // 2, k % 3, c % 2] = codes[k, c, r, s]
        assert (values == expected).all()


def test_tactical_tile_issuing_fewer_lines_agrees():
    """Bit-Tactical ShapeShifter with two tiles whose filters differ: filter 0 holds weights at one kernel position
    only, so its tile skips zero lines and issues nothing in the chunk's last calls while filter 1's tile goes on;
    an idle tile costs nothing (fast == reference on every counter)."""
    rng = np.random.default_rng(8)
    weights = rng.integers(1, 60, (2, 8, 3, 3))
    weights[0, :, 1:, :] = 0
    weights[0, :, 0, 1:] = 0
    layer = conv("idle_tile", weights, rng.integers(1, 200, (1, 8, 5, 5)), pad=1)
    machine = arch(design="shapeshifter", columns=3, tactical=True, lanes=8, tiles=2, rows=1, minor_bit=True)
    assert (FAMILY.plan(machine, layer).chunks[0][0].lines < 0).any()
    assert FAMILY.refinement(machine, layer) == []


def test_a_gemm_plan_holds_one_window_per_output_row_and_one_filter_per_column():
    """A GEMM's plan (shared by the fast path and the reference) is m one-pixel windows of k channels and n filters:
    no padding, no stride, whatever the columns and rows per set."""
    rng = np.random.default_rng(3)
    layer = gemm("windows", rng.integers(-9, 9, (20, 7)), rng.integers(0, 50, (9, 20)), weight_bits=8)
    for fields in (dict(design="stripes", columns=4), dict(design="pragmatic", columns=3, rows=5)):
        plan = FAMILY.plan(arch(**fields), layer)
        assert sum(int(p.present.sum()) for p in plan.passes) == 9
        assert [p.acts.shape[2] for p in plan.passes] == [fields["columns"]] * len(plan.passes)
        assert sum(int(c.filters.sum()) for c in plan.chunks[0]) == 7
        assert int(plan.real_lanes.sum()) == 20
