"""The ``vector_unit:`` section of an arch config: the block that runs non-matrix operators.

``units`` independent vector units (a GPU's SMs, a TPU's single vector unit) each have
``lanes`` ALU lanes (one add or multiply per lane per cycle), a special-function unit
(``special_per_cycle`` exp / reciprocal / rsqrt / tanh results per cycle) and an SRAM port of
``sram_bandwidth`` bytes per cycle (reads and writes share it), with a FIFO of
``fifo_depth`` vectors between the SRAM reader and the ALUs. ``overlap`` is how the family
runs vector work against matrix work: ``serial`` (the matrix unit waits: a GPU running an
unfused kernel after the GEMM) or ``overlapped`` (the vector unit works on the previous
matrix layer's output while the matrix unit runs: only what exceeds that layer's cycles shows).
On a GPU every vector layer that ``launches`` is a kernel and first waits ``kernel_launch_cycles``.

The defaults are a TPU-v1-like activation pipeline next to a 128-column array; shipped
configs set their own numbers and cite them.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.config.schema import spec_field

OVERLAP_MODES = ("serial", "overlapped")
TPU_V1 = "Jouppi et al., ISCA 2017 (TPU v1: the activation unit takes one accumulator row per cycle)"


@dataclass(frozen=True)
class VectorUnitSpec:
    """Vector unit attached to the matrix datapath (softmax, norms, activations, rotary, residuals)."""

    units: int = spec_field("Independent vector units; rows (or, for element-wise operators, elements) are "
                            "spread evenly over them.", 1, positive=True, source=TPU_V1 + ": one activation unit")
    lanes: int = spec_field("ALU lanes per unit: elements one add or multiply instruction handles per cycle.",
                            128, positive=True,
                            source=TPU_V1 + "; taken as one lane per column of a 128-column array")
    special_per_cycle: int = spec_field(
        "Special-function results (exp, reciprocal, rsqrt, tanh) per unit per cycle.", 16, positive=True,
        source="estimate: lanes / 8, the SFU-to-FP32-lane ratio of an A100 SM (16 vs 64 per clock per SM, "
               "CUDA C++ Programming Guide, arithmetic instruction throughput, compute capability 8.0)")
    sram_bandwidth: float = spec_field(
        "SRAM bytes per cycle per unit into and out of the vector unit (reads and writes share the port).",
        256.0, unit="bandwidth", positive=True,
        source="estimate: one 128-lane vector of 16-bit elements read and written per cycle (2 x 128 B)")
    sram_size: int = spec_field("SRAM capacity the vector unit reads and writes (sets the energy per access).",
                                2 * 1024 * 1024, unit="size", positive=True,
                                source="estimate: the 2 MiB output buffer of the shipped 128 x 128 arrays")
    element_bits: int = spec_field("Width of one stored element (operand in SRAM).", 16, positive=True,
                                   source="FP16 / BF16 activations, as LLM inference keeps them")
    compute_bits: int = spec_field("Width of the ALU / SFU arithmetic (sets the energy per operation).", 32,
                                   positive=True, source="softmax and norms accumulate in FP32 (common practice)")
    fifo_depth: int = spec_field("Vectors the FIFO between the SRAM reader and the ALUs holds.", 2, positive=True,
                                 source="estimate: double buffering")
    overlap: str = spec_field(
        "How vector work runs against matrix work: serial (adds its cycles) or overlapped (hidden under the "
        "cycles of the matrix layer that produced its input; only the excess adds).", "serial",
        choices=OVERLAP_MODES)
    kernel_launch_cycles: int = spec_field(
        "Cycles every vector kernel costs before its first read: the GPU-side gap between back-to-back kernels, paid "
        "by each vector layer that launches (``launches``: one per operator, or one per run of operators a compiler "
        "fuses). 0: no launch (an accelerator's vector unit is a pipeline stage, not a launched kernel).", 0,
        unit="cycles", minimum=0, source="the shipped A100 / H100 configs set their tensor core's measured "
        "back-to-back time of a minimal kernel under a CUDA graph (te42kyfo/gpu-benches gpu-small-kernels)")
    reduction_level_cycles: int = spec_field(
        "Cycles per level of the adder / max tree that reduces a row's lanes to one scalar.", 1, positive=True,
        source="estimate: one pipelined FP32 add per level per cycle")
