"""Cycles of a binary GEMM (BMXNet's xnor_64 kernel) and of an fp32 GEMM on one :class:`CpuSpec`.

``C (M x N) = A (M x K) x B (K x N)``; both kernels split the N columns over the cores.

- fp32 (a BLAS ``sgemm``): compute at the core's peak, ``M K N / (fp_macs_per_cycle x cores)``
  (no efficiency factor: a real BLAS reaches less, which would raise the binary speed-up).
- binary: the inner loop of BMXNet's xnor_64 kernel per 64-bit word pair is one load, one XOR
  (with its second operand from memory), one NOT, one POPCNT and one ADD (the
  ``popcount(~(a ^ b))`` accumulation): :data:`BINARY_WORD_UOPS` fused micro-operations, one of
  them a POPCNT, four on the ALU ports, two loads. A word takes the longest of issue, POPCNT,
  ALU and load time; ``M x ceil(K / 64) x N`` words.
- binarizing B (``K x N`` fp32 values to packed signs, before the binary GEMM): per vector of
  ``fp_lanes`` values a load, a compare, a move-mask and an OR-shift into the word
  (:data:`BINARIZE_VECTOR_UOPS`), at the issue width.
- binary on an ARMv8 NEON core (``binary_isa: neon``, daBNN and Larq Compute Engine): per 128-bit vector
  pair an EOR, a CNT (bytes' popcounts) and a byte add, the per-byte counts summed before the one ADDV that
  ends a dot product (daBNN's binary direct convolution: :data:`NEON_DIRECT_OPS`); a BGEMM kernel reduces
  with ADDV and adds every vector (:data:`NEON_BGEMM_OPS`), JDAI-CV/dabnn docs/bconv.md. A vector pair takes
  the longer of its operations over the ASIMD pipes and over the issue width; loads are taken to be
  amortized by the kernels' register blocking.
- memory: the compulsory bytes of A, B and C over the DRAM bandwidth; a kernel takes the longer of
  compute and memory time. ``threads`` (default: every core) split the work.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from accel_sim.systems.cpu_simd.spec import CpuSpec

WORD_BITS = 64                 # BMXNet xnor_64: 64 binary values per word
BINARY_WORD_UOPS = 5           # load, xor (load-op fused), not, popcnt, add
BINARY_WORD_ALU_UOPS = 4       # xor, not, popcnt, add
BINARY_WORD_LOADS = 2          # a word of A and a word of B
BINARIZE_VECTOR_UOPS = 4       # load, compare, movemask, or-shift
FP32_BYTES = 4
NEON_VECTOR_BITS = 128         # an ASIMD Q register: 128 binary values
NEON_DIRECT_OPS = 3            # eor, cnt, byte add (addv amortized over the dot product)
NEON_BGEMM_OPS = 4             # eor, cnt, addv, add
KERNELS = ("direct", "bgemm")


@dataclass(frozen=True)
class GemmTime:
    compute_cycles: float
    memory_cycles: float

    @property
    def cycles(self) -> float:
        return max(self.compute_cycles, self.memory_cycles)


def memory_cycles(cpu: CpuSpec, bytes_moved: float) -> float:
    return bytes_moved / cpu.dram_bandwidth * cpu.clock


def fp32_gemm(cpu: CpuSpec, m: int, k: int, n: int, threads: int | None = None) -> GemmTime:
    compute = m * k * n / (cpu.fp_macs_per_cycle * (threads or cpu.cores))
    return GemmTime(compute, memory_cycles(cpu, (m * k + k * n + m * n) * FP32_BYTES))


def binary_word_bits(cpu: CpuSpec) -> int:
    """Binary operands one step of the binary kernel takes: a 64-bit word, or a 128-bit NEON vector."""
    return NEON_VECTOR_BITS if cpu.binary_isa == "neon" else WORD_BITS


def binary_word_cycles(cpu: CpuSpec, kernel: str = "direct") -> float:
    """Cycles per word pair of the binary inner loop: the tightest of its limits (x86: issue, POPCNT, ALU and
    load ports for the xnor_64 loop; NEON: the kernel's vector operations over the ASIMD pipes and the issue)."""
    if cpu.binary_isa == "neon":
        ops = NEON_BGEMM_OPS if kernel == "bgemm" else NEON_DIRECT_OPS
        return max(ops / cpu.simd_pipes, ops / cpu.issue_width)
    return max(BINARY_WORD_UOPS / cpu.issue_width, 1 / cpu.popcnt_per_cycle,
               BINARY_WORD_ALU_UOPS / cpu.alu_ports, BINARY_WORD_LOADS / cpu.load_ports)


def binary_gemm(cpu: CpuSpec, m: int, k: int, n: int, threads: int | None = None, kernel: str = "direct") -> GemmTime:
    bits = binary_word_bits(cpu)
    words = math.ceil(k / bits)
    compute = m * words * n * binary_word_cycles(cpu, kernel) / (threads or cpu.cores)
    packed = words * bits // 8
    return GemmTime(compute, memory_cycles(cpu, (m + n) * packed + m * n * FP32_BYTES))


def binarize(cpu: CpuSpec, k: int, n: int, threads: int | None = None) -> GemmTime:
    """Binarizing and packing the ``k x n`` fp32 input matrix."""
    compute = math.ceil(k * n / cpu.fp_lanes) * BINARIZE_VECTOR_UOPS / cpu.issue_width / (threads or cpu.cores)
    return GemmTime(compute, memory_cycles(cpu, k * n * FP32_BYTES + math.ceil(k / WORD_BITS) * n * 8))


def speedup(cpu: CpuSpec, m: int, k: int, n: int, with_binarize: bool = False) -> float:
    """fp32 GEMM time over binary GEMM time (plus binarizing B when asked)."""
    binary = binary_gemm(cpu, m, k, n).cycles + (binarize(cpu, k, n).cycles if with_binarize else 0.0)
    return fp32_gemm(cpu, m, k, n).cycles / binary
