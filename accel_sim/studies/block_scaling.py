"""Block-scaled numbers from FP16 down to MXFP4 / NVFP4, and the DLU's DFP8, per format and block size.

Numerics (``accel_sim.systems.nn.block_scaled``): the digits MLP 64-300-100-10 trained in float32, then run
with every layer's weights and inputs quantized along K (test accuracy); and a transformer FFN
up-projection with heavy-tailed weights (seeded Student-t, 3 degrees of freedom) and Gaussian inputs
(relative error of the GEMM output and of the weights). Hardware: the same GEMMs on the Blackwell-class
tensor core (``arch_configs/blackwell_b200.yaml``) with ``tensor_core.block_format`` per format, the
per-tensor and per-channel 8-bit points on its INT8 path (scales applied once per output, outside the
K loop); cycles and energy (45 nm table: the multipliers shrink with the element width).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from accel_sim.foundations.energy.table import load_energy_table
from accel_sim.foundations.threads import single_threaded_blas
from accel_sim.foundations.workload.layer import GemmLayer
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.plot.studies.block_scaling import error_bits_cycles
from accel_sim.pipeline.simulate import simulate_layer
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.template import readme
from accel_sim.systems.nn.block_scaled import Scheme, gemm_error, quantized_accuracy
from accel_sim.systems.nn.digits import load_digits_split
from accel_sim.systems.nn.training import DEFAULT_SCHEDULE, train

ARCH = "blackwell_b200"
INT8_PATH = {"word_bits": 8, "tensor_core.dense_macs_per_cycle": 2048, "tensor_core.mma_k": 32}
# scheme -> tensor-core overrides (None: no tensor-core path for it)
SCHEMES: tuple[tuple[Scheme, dict | None], ...] = (
    (Scheme("fp16", "fp16"), {}),
    (Scheme("dfp8 (DLU)", "dfp"), INT8_PATH),
    (Scheme("int8 per channel", "mx", "int8", 0), INT8_PATH),
    (Scheme("mxint8", "mx", "int8", 32), {"tensor_core.block_format": "mxint8"}),
    (Scheme("int8 per 16", "mx", "int8", 16), {"tensor_core.block_format": "mxint8", "tensor_core.block_size": 16}),
    (Scheme("mxfp8 e4m3", "mx", "e4m3", 32), {"tensor_core.block_format": "mxfp8_e4m3"}),
    (Scheme("mxfp6 e2m3", "mx", "e2m3", 32), {"tensor_core.block_format": "mxfp6_e2m3"}),
    (Scheme("fp4 per channel", "mx", "e2m1", 0), None),
    (Scheme("mxfp4", "mx", "e2m1", 32), {"tensor_core.block_format": "mxfp4"}),
    (Scheme("fp4 per 16", "mx", "e2m1", 16), {"tensor_core.block_format": "mxfp4", "tensor_core.block_size": 16}),
    (Scheme("nvfp4", "nvfp4", "", 16), {"tensor_core.block_format": "nvfp4"}),
)
STUDENT_T_DF = 3          # heavy tails: finite variance, infinite fourth moment
SEED = 0
NUMERICS = (256, 1024, 2048)          # tokens, d_model, FFN width of the quantized slice (numerics)
FFN_GEMM = GemmLayer("ffn_up", m=4096, k=4096, n=16384)   # prefill of 4096 tokens, d 4096, FFN 16384 (hardware)
DATASHEET = "NVIDIA HGX B200 specifications (dense = half the sparse peaks): FP4 9, FP8 4.5, FP16 2.25 PFLOPS"


def _cost(overrides: dict | None, layers: tuple[GemmLayer, ...], block: int) -> tuple[float, float, float]:
    """Cycles, tensor-core busy cycles and energy (uJ) of the GEMMs on the tensor core, K padded to whole
    blocks; NaN without a tensor-core path."""
    if overrides is None:
        return math.nan, math.nan, math.nan
    arch = load_arch(ARCH, overrides)
    table = load_energy_table(arch.energy_table)
    cycles = busy = energy = 0.0
    for g in layers:
        padded = GemmLayer(g.name, m=g.m, k=-(-g.k // block) * block, n=g.n)
        run = simulate_layer(arch, padded, table)
        cycles += run.result.cycles
        busy += run.result.metrics["math_busy_cycles"]
        energy += sum(run.energy.by_component_pj.values()) / 1e6
    return cycles, busy, energy


def block_scaling_table() -> pd.DataFrame:
    data = load_digits_split()
    model = train(data, DEFAULT_SCHEDULE, per_epoch_accuracy=False).model
    digits = tuple(GemmLayer(f"z{i + 1}", m=DEFAULT_SCHEDULE.batch_size, k=a, n=b)
                   for i, (a, b) in enumerate(zip(model.sizes, model.sizes[1:])))
    rng = np.random.default_rng(SEED)
    tokens, d, ffn = NUMERICS
    x = rng.standard_normal((tokens, d))
    w = rng.standard_t(STUDENT_T_DF, (d, ffn)) / math.sqrt(d)
    with single_threaded_blas():   # as the CLI runs: one BLAS thread for API callers too (half the pool's CPU)
        exact = x @ w
        errors = [gemm_error(x, w, scheme, exact) for scheme, _ in SCHEMES]
        accuracies = [quantized_accuracy(model, data.x_test, data.y_test, scheme) for scheme, _ in SCHEMES]
    rows = []
    for (scheme, overrides), (out_err, w_err, bits), accuracy in zip(SCHEMES, errors, accuracies):
        block = 16 if scheme.kind == "nvfp4" else (scheme.block or 1)
        d_cyc, _, d_uj = _cost(overrides, digits, block)
        t_cyc, t_busy, t_uj = _cost(overrides, (FFN_GEMM,), block)
        rows.append({"format": scheme.name, "granularity": scheme.granularity, "bits_per_value": bits,
                     "digits_accuracy": accuracy,
                     "ffn_output_error": out_err, "ffn_weight_error": w_err,
                     "digits_cycles": d_cyc, "digits_energy_uj": d_uj, "ffn_cycles": t_cyc, "ffn_math_busy_cycles": t_busy, "ffn_energy_uj": t_uj})
    frame = pd.DataFrame(rows)
    fp16 = frame.set_index("format").loc["fp16"]
    frame["ffn_speedup_vs_fp16"] = fp16["ffn_cycles"] / frame["ffn_cycles"]
    frame["ffn_math_speedup_vs_fp16"] = fp16["ffn_math_busy_cycles"] / frame["ffn_math_busy_cycles"]
    frame["ffn_energy_vs_fp16"] = frame["ffn_energy_uj"] / fp16["ffn_energy_uj"]
    return frame


@study("block-scaling", "Block-scaled formats (MX, NVFP4, DLU DFP8): error, bits per value, cycles, energy", cpu_s=4.2)
def block_scaling() -> StudyOutput:
    frame = block_scaling_table()
    by = frame.set_index("format")
    text = readme(__name__, df=STUDENT_T_DF, seed=SEED, numerics="x".join(map(str, NUMERICS)),
                  ffn=f"{FFN_GEMM.m} x {FFN_GEMM.k} x {FFN_GEMM.n}", batch=DEFAULT_SCHEDULE.batch_size,
                  fp4_speedup=f"{by.loc['mxfp4', 'ffn_speedup_vs_fp16']:.2f}",
                  fp8_speedup=f"{by.loc['mxfp8 e4m3', 'ffn_speedup_vs_fp16']:.2f}",
                  dfp_error=f"{by.loc['dfp8 (DLU)', 'ffn_output_error']:.3f}",
                  mxint8_error=f"{by.loc['mxint8', 'ffn_output_error']:.3f}",
                  mxfp4_error=f"{by.loc['mxfp4', 'ffn_output_error']:.3f}",
                  nvfp4_error=f"{by.loc['nvfp4', 'ffn_output_error']:.3f}")
    spec = "OCP Microscaling Formats (MX) v1.0: 4-bit E2M1 elements + one 8-bit E8M0 scale per 32"
    comparisons = tuple(Comparison(f"{fmt} FFN GEMM {what} / FP16", "ratio", ratio, float(by.loc[fmt, column]),
                                   DATASHEET, tolerance=tolerance)
                        for fmt, ratio in (("mxfp4", 9 / 2.25), ("mxfp8 e4m3", 4.5 / 2.25))
                        for what, column, tolerance in (("tensor-core throughput", "ffn_math_speedup_vs_fp16", 0.01),
                                                        ("end-to-end throughput", "ffn_speedup_vs_fp16", None))) + (
        Comparison("MXFP4 bits per value, scales included", "bits", 4.25,
                   float(by.loc["mxfp4", "bits_per_value"]), spec, tolerance=0.0),
    )
    return StudyOutput(frame, error_bits_cycles(frame), text, comparisons)
