"""Plans sharing pieces through a run's BatchMemo (``shares_work``) count exactly as plans made alone: every design
of one layer, in one memo, against each design's own plan."""
import numpy as np
import pytest

from accel_sim.foundations.contract import BatchMemo
from accel_sim.models.bitserial.family import FAMILY
from tests.bitserial._layers import arch, conv

DESIGNS = [dict(design="dadiannao"), dict(design="dadiannao", tactical=True, lanes=8),
           dict(design="dadiannao", tactical=True, lanes=8, search_shape="L", lookaside_d=3),
           dict(design="stripes", columns=3), dict(design="shapeshifter", columns=3, column_registers=1),
           dict(design="shapeshifter", columns=3, tactical=True, lanes=8), dict(design="pragmatic", columns=2, diffy=True),
           dict(design="pragmatic", columns=3, tactical=True, lanes=8, booth_encoding=True),
           dict(design="loom", columns=3, dynamic_weights=True), dict(design="laconic", columns=2, rows=3)]


def test_shared_plan_counts_as_alone():
    rng = np.random.default_rng(5)
    weights = rng.integers(-60, 60, (6, 5, 3, 3)) * (rng.random((6, 5, 3, 3)) < 0.4)
    inputs = rng.integers(0, 200, (2, 10, 5, 5)) * (rng.random((2, 10, 5, 5)) < 0.6)
    layer = conv("shared", weights, inputs, pad=1, groups=2, activation_bits=9, weight_bits=8)
    memo = BatchMemo()
    shared = [FAMILY.counters(arch(**fields), layer, memo=memo)[1] for fields in DESIGNS]
    assert memo._entries   # the pieces were kept and shared
    alone = [FAMILY.counters(arch(**fields), layer)[1] for fields in DESIGNS]
    assert shared == alone


def test_designs_blind_to_values_never_make_them(monkeypatch):
    """DaDianNao, Stripes and Bit Fusion cost a step from the shapes alone: their plan and fast path make no operand
    value (generating and buffering a network's weights was most of the bit-serial study's Bit Fusion benchmarks),
    and give the counts they give once the values exist."""
    import accel_sim.foundations.workload.operands as operands
    from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer

    layers = (ConvLayer("blind_conv", in_h=7, in_w=6, in_channels=12, out_channels=10, kernel_h=3, kernel_w=3,
                        pad_top=1, pad_bottom=1, pad_left=1, pad_right=1, groups=2, batch=2, activation_bits=6),
              GemmLayer("blind_gemm", m=9, k=20, n=7, weight_bits=5))
    designs = [dict(design="dadiannao"), dict(design="stripes", columns=3),
               dict(name="bitserial_bitfusion")]
    archs = [arch(**fields) for fields in designs]
    operands._cached_operands.cache_clear()
    with monkeypatch.context() as patch:
        patch.setattr(operands, "_generated_weights", lambda *a: pytest.fail("weights made"))
        patch.setattr(operands, "synthetic_activations", lambda *a, **k: pytest.fail("inputs made"))
        blind = [FAMILY.counters(machine, layer)[1] for layer in layers for machine in archs]
    operands._cached_operands.cache_clear()
    seen = []
    for layer in layers:
        for machine in archs:
            plan = FAMILY.plan(machine, layer)
            _ = [p.acts for p in plan.passes], [c.weights for g in plan.chunks for c in g], plan.act_signed
            seen.append(FAMILY.counters(machine, layer)[1])
    assert blind == seen
