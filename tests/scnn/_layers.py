"""Small generated layers and arch variants shared by the SCNN tests."""
import numpy as np

from accel_sim import load_arch
from accel_sim.workload import ConvLayer, GemmLayer

DESIGNS = ("scnn", "scnn_sparse_a", "scnn_sparse_w", "dcnn", "dcnn_opt")


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
    arch = load_arch("scnn", {
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
    arch = load_arch("scnn", {
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
