"""Element-wise passes a binary network runs around its binary convolutions on an ARMv8 NEON core.

A binary convolution library does more than the XNOR-popcount kernel: it packs the fp32 input's signs into bits
before the kernel, scales the kernel's output by the batch norm after it and, in Bi-Real Net, adds the real-valued
shortcut; pooling layers stand between some convolutions. Each pass streams one tensor, a 128-bit vector (``fp_lanes`` fp32 values) at a time, with the per-vector
instructions of the libraries' code (:data:`PASSES`, each cited). A vector takes the longest of its ASIMD operations
over the core's ASIMD pipes, its 128-bit loads over the load ports and all its instructions over the issue width;
a pass takes the longer of that compute time and its compulsory bytes over the DRAM bandwidth (the rule of
:mod:`accel_sim.systems.cpu_simd.gemm`).

Which passes a network runs is the case's (``conditions.binary_layer_passes`` / ``fp32_layer_passes``, and
``layer_passes`` for the pools around named layers):
daBNN keeps every BatchNormalization as an ``Affine`` layer (its converter folds none) and packs the input inside
each ``BinConv``; Larq Compute Engine fuses the batch norm into the binary convolution's output transform, so it
runs only the packing (``LceQuantize``) and the shortcut add.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from accel_sim.systems.cpu_simd.gemm import FP32_BYTES, GemmTime, memory_cycles
from accel_sim.systems.cpu_simd.spec import CpuSpec

DABNN_PACK = ("JDAI-CV/dabnn dabnn/bitpack.h (commit d93aa950), pack_128_opt: per 128 floats 8 four-register LD1 "
              "(32 Q loads), 31 SRI and a NOT, one ST1, 4 PRFM, SUBS and BNE (47 instructions)")
LCE_PACK = ("larq/compute-engine larq_compute_engine/core/bitpacking/bitpack_aarch64.h: 16 LD2 (32 Q loads) per "
            "128 floats; 'bit-packing is memory, not compute bound'")
DABNN_AFFINE = ("JDAI-CV/dabnn dabnn/layers/Affine.cpp (commit d93aa950), affine_inplace: x = a[c] * x + b[c] in "
                "place, taken compiler-vectorized: loads of x, a and b, one FMLA, one store per vector")
DABNN_MAXPOOL = ("JDAI-CV/dabnn dabnn/layers/MaxPool.cpp (commit d93aa950), maxpool3x3 (aarch64): per output vector "
                 "9 LD1, 9 PRFM, 8 FMAX, one ST1, SUBS and BNE (29 instructions)")
DABNN_MAXPOOL2 = ("JDAI-CV/dabnn dabnn/layers/MaxPool.cpp (commit d93aa950), maxpool2x2 (aarch64): per output vector "
                  "4 LD1, 4 PRFM, 3 FMAX, one ST1, SUBS and BNE (14 instructions)")
TFLITE_CONCAT = ("tensorflow/lite/kernels/internal/reference/concatenation.h: each input's rows copied with memcpy; "
                 "taken as one 128-bit load and one store a vector")
DABNN_AVEPOOL = ("JDAI-CV/dabnn dabnn/layers/AvePool.cpp (commit d93aa950), ave_pool_2x2_s2 (aarch64): per output "
                 "vector 4 LD1, 4 PRFM, 3 FADD, one FDIV (taken as one pipe slot: a lower bound), one ST1, SUBS "
                 "and BNE (15 instructions)")
DABNN_ADD = ("JDAI-CV/dabnn dabnn/layers/Add.cpp (commit d93aa950), add_inplace: a += b in place, taken "
             "compiler-vectorized: two loads, one FADD, one store per vector")


@dataclass(frozen=True)
class PassCost:
    """One element-wise pass per 128-bit vector of fp32 values, and its compulsory DRAM bytes per value."""

    simd_ops: float          # ASIMD operations (FMLA, FADD, SRI, NOT)
    loads: float             # 128-bit loads
    instructions: float      # every instruction issued (loads, stores, loop control included)
    bytes_per_element: float  # compulsory DRAM bytes per value the pass produces
    on: str                  # "input" or "output": the tensor of the layer the pass streams
    source: str
    per_value: float = 1.0   # values the pass produces per value of that tensor (a 2 x 2-strided pool: 1/4)


PASSES: dict[str, PassCost] = {
    # fp32 in, 1 bit out: 4 + 1/8 bytes per value. daBNN packs a 64-channel input with the scalar pack_64_bitfield
    # (dabnn/bitpack.h pack_mat), slower than this NEON cost, which stays a lower bound there
    "sign_pack": PassCost(32 / 32, 32 / 32, 47 / 32, FP32_BYTES + 1 / 8, "input", f"{DABNN_PACK}; {LCE_PACK}"),
    # read and write the fp32 output in place (a and b are one value per channel, cached)
    "batch_norm": PassCost(1, 3, 5, 2 * FP32_BYTES, "output", DABNN_AFFINE),
    # read the output and the shortcut, write the output
    "shortcut_add": PassCost(1, 2, 4, 3 * FP32_BYTES, "output", DABNN_ADD),
    # a 3 x 3 stride-2 max pool of a conv's output: one output value per 4 inputs; reads 4 values, writes 1
    "max_pool_3x3_s2": PassCost(8, 9, 29, 5 * FP32_BYTES, "output", DABNN_MAXPOOL, 1 / 4),
    # a 2 x 2 stride-2 max pool of a conv's input (QuickNet's transition shortcut): reads 4 values, writes 1
    "max_pool_2x2_s2": PassCost(3, 4, 14, 5 * FP32_BYTES, "input", DABNN_MAXPOOL2, 1 / 4),
    # concatenating the shortcut and the sum into twice the conv's output channels: read and write each value
    "concat": PassCost(0, 1, 2, 2 * FP32_BYTES, "output", TFLITE_CONCAT, 2),
    # a 2 x 2 stride-2 average pool of a conv's input (Bi-Real Net's downsample shortcut): reads 4, writes 1
    "avg_pool_2x2_s2": PassCost(4, 4, 15, 5 * FP32_BYTES, "input", DABNN_AVEPOOL, 1 / 4),
}


def vector_cycles(cpu: CpuSpec, cost: PassCost) -> float:
    """Cycles per vector of a pass: the tightest of the ASIMD pipes, the load ports and the issue width."""
    return max(cost.simd_ops / cpu.simd_pipes, cost.loads / cpu.load_ports, cost.instructions / cpu.issue_width)


def pass_time(cpu: CpuSpec, name: str, elements: int, threads: int | None = None) -> GemmTime:
    """Time of pass ``name`` (a key of :data:`PASSES`; a case's pass names are checked where its conditions are
    read, :func:`accel_sim.systems.cpu_simd.measured.run_seconds`) producing ``elements`` fp32 values."""
    cost = PASSES[name]
    compute = math.ceil(elements / cpu.fp_lanes) * vector_cycles(cpu, cost) / (threads or cpu.cores)
    return GemmTime(compute, memory_cycles(cpu, elements * cost.bytes_per_element))
