"""Plans sharing pieces through a run's BatchMemo (``shares_work``) count exactly as plans made alone: every design
of one layer, in one memo, against each design's own plan."""
import numpy as np

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
