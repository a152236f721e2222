"""Small generated layers and arch variants shared by the SCNN tests."""
import numpy as np
from hypothesis import Phase
from hypothesis import strategies as st

from accel_sim import load_arch
from accel_sim.foundations.workload import ConvLayer, GemmLayer
from accel_sim.foundations.workload.layer import OperandSource

DESIGNS = ("scnn", "scnn_sparse_a", "scnn_sparse_w", "dcnn", "dcnn_opt")
DENSE_DESIGNS = ("dcnn", "dcnn_opt")


def payload(tmp_path, name, weights, inputs) -> OperandSource:
    """Given operands (a ``.npz`` payload in ``tmp_path``) for a hand-made layer."""
    path = tmp_path / f"{name}.npz"
    np.savez(path, weights=np.asarray(weights, dtype=np.float32), inputs=np.asarray(inputs, dtype=np.float32))
    return OperandSource(payload=str(path))


def scnn_arch(overrides: dict):
    """``arch_configs/scnn.yaml`` with ``overrides``; a dense design gets ``scatter: serialise`` (it has no
    scatter network, and scnn.yaml's ``fifo`` is refused for it), a Cartesian one keeps the shipped choice."""
    if overrides.get("scnn.design") in DENSE_DESIGNS:
        overrides = {"scnn.scatter": "serialise", **overrides}
    return load_arch("scnn", overrides)


def small_case(seed: int, design: str | None = None):
    """A random small conv layer (1x1 / 3x3 / 5x5, stride 1 or 2, densities 5-100 %) and a
    random small array (tiles uneven, small accumulators and IARAM forcing temporal tiling)."""
    rng = np.random.default_rng(seed)
    k = int(rng.choice([1, 3, 5]))
    stride = int(rng.choice([1, 2]))
    h, w = int(rng.integers(k, 11)), int(rng.integers(k, 11))
    pad = int(rng.integers(0, k // 2 + 1))
    groups = int(rng.choice([1, 1, 2]))
    design = design or str(rng.choice(DESIGNS))
    arch = scnn_arch({
        "scnn.design": design,
        "scnn.pe_rows": int(rng.integers(1, 4)), "scnn.pe_cols": int(rng.integers(1, 4)),
        "scnn.mult_f": int(rng.choice([2, 4])), "scnn.mult_i": int(rng.choice([2, 4])),
        "scnn.bank_mapping": "linear" if rng.random() < 0.5 else "channel_spread",
        "scnn.weight_order": "rs_then_k" if rng.random() < 0.6 else "k_then_rs",
        "scnn.accumulator_banks": int(rng.choice([4, 8, 32])),
        "scnn.accumulator_entries": int(rng.choice([8, 32])),
        "scnn.iaram_size": int(rng.choice([48, 10240])),
        "scnn.halo_words_per_cycle": int(rng.integers(1, 3)),
        "scnn.dram_bandwidth": float(rng.choice([2.0, 50.0])),
    })
    layer = ConvLayer(f"gen{seed}", in_h=h, in_w=w, in_channels=int(rng.integers(1, 4)) * groups,
                      out_channels=int(rng.integers(1, 6)) * groups, kernel_h=k, kernel_w=k, stride_h=stride,
                      stride_w=stride, pad_top=pad, pad_bottom=pad, pad_left=pad, pad_right=pad, groups=groups,
                      weight_density=float(rng.uniform(0.05, 1.0)), input_density=float(rng.uniform(0.05, 1.0)))
    return arch, layer


CHUNKED_IARAM_BYTES = 48   # 384 bits: one pixel of 24 dense 16-bit channels, fewer compressed ones


def chunked_case(seed: int, design: str | None = None):
    """A random layer whose input channels must be cut into chunks: many channels (16-64) on a
    1 x 1 plane (an FC / GEMM layer, batch 1-2) or on a small conv plane (1x1 / 3x3 kernel), an
    IARAM of 48 B, and an OARAM that sometimes cannot hold the partial sums between chunks."""
    rng = np.random.default_rng(100_000 + seed)
    design = design or str(rng.choice(DESIGNS))
    arch = scnn_arch({
        "scnn.design": design,
        "scnn.pe_rows": int(rng.integers(1, 3)), "scnn.pe_cols": int(rng.integers(1, 3)),
        "scnn.mult_f": int(rng.choice([2, 4])), "scnn.mult_i": int(rng.choice([2, 4])),
        "scnn.bank_mapping": "linear" if rng.random() < 0.5 else "channel_spread",
        "scnn.weight_order": "rs_then_k" if rng.random() < 0.6 else "k_then_rs",
        "scnn.accumulator_banks": int(rng.choice([8, 32])),
        "scnn.accumulator_entries": int(rng.choice([8, 32])),
        "scnn.iaram_size": CHUNKED_IARAM_BYTES,
        "scnn.oaram_size": int(rng.choice([8, 10240])),
        "scnn.halo_words_per_cycle": int(rng.integers(1, 3)),
        "scnn.dram_bandwidth": float(rng.choice([2.0, 50.0])),
    })
    channels = int(rng.integers(16, 65))
    weight_density, input_density = float(rng.uniform(0.05, 1.0)), float(rng.uniform(0.5, 1.0))
    if rng.random() < 0.5:
        layer = GemmLayer(f"fc{seed}", m=int(rng.integers(1, 3)), k=channels, n=int(rng.integers(1, 9)),
                          weight_density=weight_density, input_density=input_density)
    else:
        k = int(rng.choice([1, 3]))
        h, w = int(rng.integers(k, 5)), int(rng.integers(k, 5))
        pad = int(rng.integers(0, k // 2 + 1))
        layer = ConvLayer(f"cc{seed}", in_h=h, in_w=w, in_channels=channels, out_channels=int(rng.integers(1, 5)),
                          kernel_h=k, kernel_w=k, pad_top=pad, pad_bottom=pad, pad_left=pad, pad_right=pad,
                          weight_density=weight_density, input_density=input_density)
    return arch, layer


BANKS = st.sampled_from([4, 8, 8, 32, 64])
# The refinement tests run once per mutant (tools/mutation.py): a failing example is reported as
# drawn, not shrunk, which keeps a killed mutant's run short.
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)


@st.composite
def generated_case(draw, banks=BANKS, dnnsim=False):
    """A small layer (conv of stride 1-3, kernel 1-5, padding, conv groups, batch; or GEMM) on a
    small array drawing every switch of the ``scnn:`` section: design, F, I, A (beyond 32
    too), bank mapping, weight order, Kc rule, accumulator and buffer sizes (temporal tiles,
    channel chunks, OARAM overflow), FIFO depth, halo and PPU rates, fractional DRAM bandwidth."""
    f, i, a = draw(st.sampled_from([1, 2, 4, 4])), draw(st.sampled_from([1, 2, 3, 4])), draw(banks)
    design = draw(st.sampled_from(DESIGNS))
    cartesian = design not in ("dcnn", "dcnn_opt")

    def rule(default, *others, pe=False):   # DNNsim's rules drawn only when asked (PE-level: Cartesian only)
        return draw(st.sampled_from([default, *others])) if dnnsim and (cartesian or not pe) else default
    mappings = ["linear", "channel_spread"] if a % f == 0 else ["linear"]
    overrides = {
        "scnn.design": design,
        # DNNsim's rules (the PE-level ones only describe the Cartesian PE)
        "scnn.partition": rule("planar", "padded_blocks"),
        "scnn.barrier": rule("group", "group_channel", pe=True),
        "scnn.halo_charge": rule("exchange", "largest_region_serial"),
        "scnn.out_of_plane": rule("banked", "slot_only", pe=True),
        "scnn.dram": rule("modelled", "ignored"),
        # DNNsim's operand-level rules need a design that skips both zero kinds, as DNNsim's SCNN does
        "scnn.stride_phases": rule("aligned", "dnnsim") if design == "scnn" else "aligned",
        "scnn.fc_layout": rule("channels", "dnnsim_planes") if design == "scnn" else "channels",
        "scnn.pe_rows": draw(st.integers(1, 3)), "scnn.pe_cols": draw(st.integers(1, 3)),
        "scnn.mult_f": f, "scnn.mult_i": i, "scnn.accumulator_banks": a,
        "scnn.bank_mapping": draw(st.sampled_from(mappings + ["dnnsim_xor"] if cartesian and dnnsim else mappings)),
        "scnn.weight_order": draw(st.sampled_from(["rs_then_k", "k_then_rs"])),
        "scnn.kc_rule": draw(st.sampled_from(["max_fit", "fixed"] + (["output_tile"] if dnnsim else []))), "scnn.kc": draw(st.integers(1, 3)),
        "scnn.accumulator_entries": draw(st.sampled_from([16, 64])),
        "scnn.accumulator_bits": draw(st.sampled_from([24, 32])),
        "scnn.iaram_size": draw(st.sampled_from([16, 48, 10240])),
        "scnn.oaram_size": draw(st.sampled_from([6, 10240])),
        "scnn.weight_fifo_entries": draw(st.sampled_from([1, 50])),
        "scnn.halo_words_per_cycle": draw(st.integers(1, 3)),
        "scnn.ppu_outputs_per_cycle": draw(st.integers(1, 5)),
        "scnn.dram_bandwidth": draw(st.sampled_from([0.75, 2.0, 12.5, 50.0])),
    }
    weight_density, input_density = draw(st.floats(0.05, 1.0)), draw(st.floats(0.05, 1.0))
    number = draw(st.integers(0, 10**6))
    name = f"case{number}"
    if draw(st.integers(0, 3)) == 0:
        layer = GemmLayer(name, m=draw(st.integers(1, 2)), k=draw(st.integers(1, 40)), n=draw(st.integers(1, 6)),
                          weight_density=weight_density, input_density=input_density)
    else:
        k, stride, groups = draw(st.sampled_from([1, 2, 3, 5])), draw(st.integers(1, 3)), draw(st.sampled_from([1, 2]))
        h, w = draw(st.integers(k, 9)), draw(st.integers(k, 9))
        pad = draw(st.integers(0, k // 2))
        layer = ConvLayer(name, in_h=h, in_w=w, in_channels=draw(st.integers(1, 3)) * groups,
                          out_channels=draw(st.integers(1, 4)) * groups, kernel_h=k, kernel_w=k,
                          stride_h=stride, stride_w=stride, pad_top=pad, pad_bottom=pad, pad_left=pad,
                          pad_right=pad, groups=groups, batch=draw(st.integers(1, 2)),
                          weight_density=weight_density, input_density=input_density)
    # the scatter network from the case's number, not a draw of its own: the cases stay those whose mechanism
    # coverage the refinement tests check
    overrides["scnn.scatter"] = ("serialise", "fifo", "fifo_unbounded")[number % 3] if cartesian else "serialise"
    overrides["scnn.scatter_fifo_depth"] = number // 3 % 6
    return scnn_arch(overrides), layer
