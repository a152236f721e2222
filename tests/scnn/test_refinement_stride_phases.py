"""Refinement of ``scnn.stride_phases: dnnsim`` outside the DNNsim preset: fast path = reference on
every counter. DNNsim's output row is ``(y + pad - r) / stride`` truncated toward zero (C division,
spec.py's ``stride_phases``); with ``pad % stride != 0`` that is one above the floor for EVERY negative
output, not only -1: a 5 x 5 kernel with padding 1 reaches ``y + pad - r = -3`` (floor -2, truncated -1),
a product out of the plane that still lands in a bank (``out_of_plane: banked``) whose number depends on
that row (dnnsim_xor, and the additive mappings' local coordinates)."""
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from accel_sim import load_arch
from accel_sim.foundations.errors import InputError
from accel_sim.models.scnn.family import FAMILY
from accel_sim.models.scnn.fast.products import _truncated
from accel_sim.foundations.workload import ConvLayer
from tests.scnn._layers import NO_SHRINK, small_case

MAPPINGS = ("linear", "channel_spread", "dnnsim_xor")


def with_dnnsim_phases(arch, **choices):
    return dataclasses.replace(arch, scnn=dataclasses.replace(arch.scnn, stride_phases="dnnsim", **choices))


@pytest.mark.parametrize("stride", [2, 3])
@pytest.mark.parametrize("pad", [0, 1, 2, 3])
def test_truncated_outputs_are_c_division(stride, pad):
    """_truncated(floor) = C division of y + pad - r for every pairing DNNsim makes (y = r mod stride)."""
    y, r = np.meshgrid(np.arange(12), np.arange(7))
    y, r = y[(y - r) % stride == 0], r[(y - r) % stride == 0]
    a = y + pad - r
    c_division = np.sign(a) * (np.abs(a) // stride)
    assert np.array_equal(_truncated(a // stride, pad, stride), c_division)


@pytest.mark.parametrize("seed, mapping", [(7, None), (7, "dnnsim_xor"), (59, None), (59, "dnnsim_xor")])
def test_reported_cases(seed, mapping):
    """5 x 5, stride 2, padding 1 (seed 7: two conv groups, channel_spread): these disagreed on
    compute, conflict, barrier and busy cycles before truncation moved every negative output."""
    arch, layer = small_case(seed, "scnn")
    arch = with_dnnsim_phases(arch, **({"bank_mapping": mapping} if mapping else {}))
    assert FAMILY.refinement(arch, layer) == []


@settings(derandomize=True, max_examples=24, deadline=None, database=None, phases=NO_SHRINK)
@given(st.integers(0, 10_000), st.sampled_from(MAPPINGS), st.sampled_from([1, 2]), st.sampled_from([5, 5, 3]),
       st.sampled_from([2, 2, 3]), st.sampled_from([1, 1, 0, 2]), st.sampled_from(["banked", "banked", "slot_only"]))
def test_fast_equals_reference_with_dnnsim_stride_phases(seed, mapping, groups, kernel, stride, pad, out_of_plane):
    """stride_phases dnnsim x bank mappings x conv groups x kernels, strides, paddings, out-of-plane rule
    (drawn mostly 5 x 5, stride 2, padding 1, banked: where truncation moves outputs below -1)."""
    rng = np.random.default_rng(seed)
    arch = load_arch("scnn", {"scnn.stride_phases": "dnnsim", "scnn.bank_mapping": mapping,
                              "scnn.out_of_plane": out_of_plane,
                              "scnn.pe_rows": int(rng.integers(1, 3)), "scnn.pe_cols": int(rng.integers(1, 3)),
                              "scnn.mult_f": int(rng.choice([2, 4])), "scnn.mult_i": int(rng.choice([2, 4])),
                              "scnn.accumulator_banks": int(rng.choice([8, 32])),
                              "scnn.accumulator_entries": 32})
    layer = ConvLayer(f"sp{seed}", in_h=int(rng.integers(kernel, 11)), in_w=int(rng.integers(kernel, 11)),
                      in_channels=int(rng.integers(1, 3)) * groups, out_channels=int(rng.integers(1, 5)) * groups,
                      kernel_h=kernel, kernel_w=kernel, stride_h=stride, stride_w=stride, pad_top=pad,
                      pad_bottom=pad, pad_left=pad, pad_right=pad, groups=groups,
                      weight_density=float(rng.uniform(0.2, 1.0)), input_density=float(rng.uniform(0.2, 1.0)))
    try:
        FAMILY.plan(arch, layer)
    except InputError:   # accumulators too small for this layer: refused, not simulated
        return
    assert FAMILY.refinement(arch, layer) == [], (layer, arch.scnn)


@pytest.mark.parametrize("scatter", ["fifo", "serialise"])
def test_an_image_without_non_zeros_adds_no_in_plane_product(tmp_path, scatter):
    """stride_phases dnnsim counts the products that land in the plane (macs_issued); an image whose
    inputs are all zero has no product, so a batch of one image and an all-zero one issues the MACs
    of the first image alone, on both paths (the FIFO loop returns before its kernels for it)."""
    from tests.scnn._layers import payload
    rng = np.random.default_rng(3)
    weights = rng.random((2, 1, 3, 3)) * (rng.random((2, 1, 3, 3)) < 0.7)
    image = rng.random((1, 1, 7, 7)) * (rng.random((1, 1, 7, 7)) < 0.6)
    arch = load_arch("scnn", {"scnn.stride_phases": "dnnsim", "scnn.scatter": scatter, "scnn.pe_rows": 2,
                              "scnn.pe_cols": 2, "scnn.accumulator_banks": 8})
    counted = []
    for batch in (image, np.concatenate([image, np.zeros_like(image)])):
        layer = ConvLayer(f"zero_image{len(batch)}", in_h=7, in_w=7, in_channels=1, out_channels=2, kernel_h=3,
                          kernel_w=3, stride_h=2, stride_w=2, pad_top=1, pad_bottom=1, pad_left=1, pad_right=1,
                          batch=len(batch), operands=payload(tmp_path, f"zero_image{len(batch)}", weights, batch))
        plan = FAMILY.plan(arch, layer)
        fast, reference = FAMILY.fast(plan, None), FAMILY.reference(plan, None)
        assert fast == reference
        counted.append(fast.macs_issued)
    assert counted[0] == counted[1] > 0
