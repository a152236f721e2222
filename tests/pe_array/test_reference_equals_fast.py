"""The fast path and the per-cycle reference give identical results on generated layers."""
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim import load_arch
from accel_sim.pe_array.model import simulate_layer, simulate_layer_reference
from accel_sim.workload import ConvLayer, GemmLayer, NMSparsity
from accel_sim.workload.layer import OperandSource

PATTERNS = st.sampled_from(["unstructured", "block", "channel"])


# Reduction and filter counts are multiples of 4 so 2x2 and 4x4 weight blocks tile the matrix.
@st.composite
def layers(draw):
    density = draw(st.sampled_from([1.0, 0.7, 0.4, 0.15, 0.05]))
    nm = draw(st.sampled_from([None, NMSparsity(2, 4), NMSparsity(1, 4)]))
    source = OperandSource(weight_pattern="nm" if nm and draw(st.booleans()) else draw(PATTERNS),
                           block=draw(st.sampled_from([2, 4])), seed=draw(st.integers(0, 3)))
    if draw(st.booleans()):
        return GemmLayer("g", m=draw(st.integers(1, 20)), k=4 * draw(st.integers(1, 18)), n=4 * draw(st.integers(1, 10)),
                         weight_sparsity=nm, weight_density=density, input_density=draw(st.sampled_from([1.0, 0.5])),
                         operands=source)
    groups = draw(st.sampled_from([1, 2]))
    return ConvLayer("c", in_h=draw(st.integers(3, 7)), in_w=draw(st.integers(3, 7)), in_channels=4 * groups,
                     out_channels=4 * draw(st.integers(1, 3)) * groups, kernel_h=3, kernel_w=3, pad_top=1, pad_bottom=1,
                     pad_left=1, pad_right=1, groups=groups, stride_h=draw(st.sampled_from([1, 2])),
                     weight_sparsity=nm, weight_density=density, input_density=0.6, operands=source)


@settings(max_examples=120, deadline=None)
@given(layer=layers(), support=st.sampled_from(["none", "memory", "gating", "skipping", "reassignment"]),
       fmt=st.sampled_from(["csr", "bitmap", "nm"]), rows=st.sampled_from([4, 8]),
       window=st.sampled_from([1, 2, 4]), policy=st.sampled_from(["in_order", "longest_first"]),
       vector=st.integers(1, 5), chunk=st.integers(1, 9), latency=st.integers(0, 3))
def test_reference_and_fast_path_agree(layer, support, fmt, rows, window, policy, vector, chunk, latency):
    if fmt == "nm" and layer.operands.weight_pattern != "nm":
        fmt = "csr"  # N:M decoding of a non-N:M layer is an error (tested in test_bad_input)
    if support in ("memory", "gating"):
        chunk = max(chunk, vector)  # the decompressor must keep up with the array (checked in test_bad_input)
    arch = load_arch("pe_array", {
        "pe_array.sparsity_support": support, "pe_array.weight_format": fmt, "pe_array.rows": rows,
        "pe_array.cols": 4, "pe_array.reassign_window": window, "pe_array.reassign_policy": policy,
        "pe_array.vector_width": vector, "pe_array.csr_entries_per_cycle": chunk,
        "pe_array.bitmap_bits_per_cycle": chunk, "pe_array.nm_groups_per_cycle": chunk,
        "pe_array.decoder_latency": latency, "pe_array.nm_n": layer.weight_sparsity.n if layer.weight_sparsity else 2})
    fast, reference = simulate_layer(arch, layer), simulate_layer_reference(arch, layer)
    assert fast.cycles == reference.cycles
    assert fast == reference
