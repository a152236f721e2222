"""Problem: the tensor-core GEMM of a layer, its mode, per-element widths and where it lives in L2.

A layer's GEMM (output m x n = input m x k @ weights k x n) runs as C (M x N) = A (M x K) x B
(K x N) with A the weights transposed, the 2:4 operand (NVIDIA's sparse MMA compresses A along
K): M = the layer's ``n`` (output features / filters), N = the layer's ``m`` (batch x pixels).
Widths: an A slot is a kept value plus its metadata; B and C elements are words. No timing here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.errors import InputError
from accel_sim.models.tensor_core.plan.block_scaling import SCALE_BITS, BlockScaling
from accel_sim.models.tensor_core.plan.precision import LayerPrecision
from accel_sim.models.tensor_core.spec import TensorCoreSpec

BITS_PER_BYTE = 8
SUPPORTED_WORD_BITS = (8, 16, 32)  # INT8, FP16 / BF16, TF32 (brief)


def tensor_core_spec(arch: ArchBase) -> TensorCoreSpec:
    """The arch's ``tensor_core`` section, refused at word widths the tensor core does not run."""
    spec = arch.section("tensor_core")
    if arch.word_bits not in SUPPORTED_WORD_BITS:
        raise InputError.single(arch.name, "word_bits", f"the tensor core runs {', '.join(map(str, SUPPORTED_WORD_BITS))}"
                                f"-bit words (INT8, FP16 / BF16, TF32), got {arch.word_bits}")
    return spec


@dataclass(frozen=True)
class TCProblem:
    """C (m x n) = A (m x k, the weights transposed; 2:4 when ``sparse``) x B (k x n), ``groups`` times.

    ``m`` is the layer's ``n`` (output features), ``n`` the layer's ``m`` (batch x pixels).
    """

    m: int
    n: int
    k: int
    groups: int
    word_bits: int
    sparse: bool
    nm_n: int          # hardware pattern kept per group (used when sparse)
    nm_m: int          # hardware pattern group length
    a_bits: int = 0    # bits of a stored A value (weight-only quantization); 0: word_bits
    scaling: BlockScaling | None = None   # block-scaled A and B (MX / NVFP4), else None
    a_group: int = 0        # group-wise quantization: dense K per scale (and zero point) of an A row; 0: none
    a_group_bits: int = 0   # bits of one group's scale and zero point
    precision: LayerPrecision | None = None   # 8-bit A and B (W8A8 / FP8) with per-row / per-column scales
    a_shared: int = 1       # consecutive groups that read one A (a KV head's cache read by each query head's
                            # thread block, :class:`~accel_sim.foundations.workload.layer.BatchedGemmLayer`); 1: own A

    def slots(self, extent: int) -> int:
        """Stored A values per row for a K extent: all of them dense; ``ceil(extent / M) * N`` 2:4."""
        if not self.sparse:
            return extent
        return -(-extent // self.nm_m) * self.nm_n

    def useful_products_per_row(self) -> int:
        """Products per (A row, B column) pair the sparse core does usefully (kept positions inside K)."""
        if not self.sparse:
            return self.k
        full, tail = divmod(self.k, self.nm_m)
        return full * self.nm_n + min(self.nm_n, tail)


def gemm_problem(word_bits: int, m: int, n: int, k: int, groups: int, sparse: bool,
                 pattern: tuple[int, int], weight_bits: int | None = None, group: int = 0,
                 group_bits: int = 0, shared: int = 1) -> TCProblem:
    """The tensor-core problem of a layer GEMM (output m x n = input m x k @ weights k x n);
    ``weight_bits``: the weights' stored width when quantized below the word (dequantized in
    registers before the MMA, as weight-only INT4 / INT8 kernels do); ``group`` / ``group_bits``: one
    scale and zero point of ``group_bits`` per ``group`` weights along K of an A row (0: none); ``shared``:
    consecutive groups whose weights (A) are one and the same operand."""
    return TCProblem(m=n, n=m, k=k, groups=groups, word_bits=word_bits, sparse=sparse, nm_n=pattern[0],
                     nm_m=pattern[1], a_bits=weight_bits or 0, a_group=group, a_group_bits=group_bits,
                     a_shared=shared)


def check_groups(problem: TCProblem, layer_name: str) -> None:
    """Refuse group-wise scales the 2:4 path cannot split into whole kept slots (a group of K keeps
    ``group x N / M`` values)."""
    if problem.a_group and problem.sparse and (problem.a_group * problem.nm_n) % problem.nm_m:
        raise InputError.single(layer_name, "quant_group_size", f"{problem.a_group} must be a multiple of "
                                f"{problem.nm_m // math.gcd(problem.nm_n, problem.nm_m)} on the {problem.nm_n}:"
                                f"{problem.nm_m} path (a group keeps a whole number of values)")


@dataclass(frozen=True)
class ElementBits:
    """Widths: an A slot (value; metadata separately), a B element, an output element; with block
    scaling, ``block`` elements of K share one ``scale_bits`` scale (0 / 0 without)."""

    a_value: int
    a_metadata: int
    b_value: int
    c_value: int
    block: int = 0
    scale_bits: int = 0
    a_group: int = 0        # group-wise quantization of A: slots per scale (and zero point); 0: none
    a_group_bits: int = 0   # bits of one group's scale and zero point
    b_group: int = 0        # B elements (along K) per scale: K for W8A8 / FP8's per-token scales; 0: none
    b_group_bits: int = 0   # bits of one B scale

    @property
    def a_slot(self) -> int:
        return self.a_value + self.a_metadata

    def scale_stream(self, elements: int) -> int:
        """Scale bits of ``elements`` consecutive-in-K operand elements (whole blocks)."""
        return (elements // self.block) * self.scale_bits if self.block else 0

    def group_stream(self, slots: int) -> int:
        """Group scale and zero-point bits of ``slots`` consecutive-in-K A slots: ``group_bits`` per group,
        spread over its slots (a stage shorter than a group carries its share, rounded up; whole groups
        exactly)."""
        return -(-slots * self.a_group_bits // self.a_group) if self.a_group else 0

    def b_group_stream(self, elements: int) -> int:
        """Per-token scale bits of ``elements`` consecutive-in-K B elements, spread as ``group_stream``'s."""
        return -(-elements * self.b_group_bits // self.b_group) if self.b_group else 0

    def a_stream(self, slots: int) -> int:
        """Bits of ``slots`` A slots with their block or group scales (an A row's K, or a sum of such)."""
        return slots * self.a_slot + self.scale_stream(slots) + self.group_stream(slots)

    def b_stream(self, elements: int) -> int:
        """Bits of ``elements`` B elements with their block scales."""
        return elements * self.b_value + self.scale_stream(elements) + self.b_group_stream(elements)


def element_bits(spec: TensorCoreSpec, problem: TCProblem) -> ElementBits:
    meta = spec.metadata_bits_per_value if problem.sparse else 0
    w = problem.word_bits
    scaling = problem.scaling
    if scaling is not None:
        e = scaling.element_bits
        return ElementBits(a_value=e, a_metadata=meta, b_value=e, c_value=w, block=scaling.block, scale_bits=SCALE_BITS)
    if problem.precision is not None:   # 8-bit A and B; one scale per A row and per B column (its whole K)
        p = problem.precision
        return ElementBits(a_value=p.element_bits, a_metadata=meta, b_value=p.element_bits, c_value=w,
                           a_group=problem.slots(problem.k), a_group_bits=p.scale_bits, b_group=problem.k,
                           b_group_bits=p.scale_bits)
    group = problem.a_group * problem.nm_n // problem.nm_m if problem.sparse else problem.a_group  # in kept slots
    return ElementBits(a_value=problem.a_bits or w, a_metadata=meta, b_value=w, c_value=w, a_group=group,
                       a_group_bits=problem.a_group_bits if group else 0)


def footprint_bits(problem: TCProblem, bits: ElementBits) -> int:
    """A (kept values with metadata; once per ``a_shared`` groups) and B of every group: what the kernel reads
    at least once."""
    return (problem.groups // problem.a_shared * problem.m * bits.a_stream(problem.slots(problem.k))
            + problem.groups * problem.n * bits.b_stream(problem.k))


def l2_resident(spec: TensorCoreSpec, problem: TCProblem, bits: ElementBits) -> bool:
    """Whether A and B fit the L2 together: then every operand panel is read from DRAM once per
    kernel; otherwise once per wave of CTAs that touches it."""
    return footprint_bits(problem, bits) <= spec.l2_size * BITS_PER_BYTE
