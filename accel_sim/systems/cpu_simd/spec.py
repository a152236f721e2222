"""A CPU core as the GEMM kernels see it: issue width, ports and vector width (cited presets).

Two binary kernels: BMXNet's x86 ``popcnt64`` (scalar POPCNT on 64-bit words) and the ARMv8 ``neon`` one
of daBNN and Larq Compute Engine (EOR, CNT and a byte add on 128-bit vectors, on the core's ASIMD pipes).

x86 throughputs are Agner Fog's measurements ("4. Instruction tables", Technical University of
Denmark, 2016 edition, Haswell section): POPCNT r64 one per cycle (port 1 only); MULPS / VMULPS
two per cycle (ports 0, 1); ADDPS / VADDPS one per cycle (port 1); VFMADD...PS two per cycle
(ports 0, 1); scalar ALU operations (XOR, NOT, ADD) on four ports (0, 1, 5, 6); two loads per
cycle; four fused micro-operations issued per cycle. Intel's Intrinsics Guide gives the same
throughputs for Haswell.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.config.schema import spec_field

AGNER = "Agner Fog, Instruction tables (2016), Haswell"
A72_SOG = "ARM Cortex-A72 Software Optimization Guide (ARM UAN 0016A, 2015), Sec. 2.1: 3 instructions dispatched a cycle; two FP/ASIMD pipes F0 and F1"
RPI4 = "Raspberry Pi 4 Model B specifications (raspberrypi.com/products/raspberry-pi-4-model-b/specifications): Broadcom BCM2711, 4 x Cortex-A72 at 1.5 GHz, LPDDR4-3200"
SD821 = "Google Pixel tech specs: Qualcomm Snapdragon 821, 4 Kryo cores (2 x 2.15 GHz + 2 x 1.6 GHz); LPDDR4 1866 MHz dual-channel"
BMXNET_CPU = ("Yang et al., BMXNet, ACM MM 2017 (arXiv 1705.09864), Sec. 4.1: a 4-core 2.5 GHz Intel CPU with "
              "popcnt (SSE4.2) — as recalled, the stored corpus had no full text to confirm it")


@dataclass(frozen=True)
class CpuSpec:
    """One x86 core and its memory, for GEMM kernel throughput."""

    name: str = spec_field("Short name used in reports.", "haswell_sse")
    clock: float = spec_field("Core clock.", 2.5e9, unit="frequency", positive=True, source=BMXNET_CPU)
    cores: int = spec_field("Cores; both kernels split the output columns over them (OpenMP).", 4,
                            positive=True, source=BMXNET_CPU)
    issue_width: int = spec_field("Fused micro-operations issued per cycle.", 4, positive=True, source=AGNER)
    alu_ports: int = spec_field("Ports executing scalar XOR / NOT / ADD.", 4, positive=True, source=AGNER)
    load_ports: int = spec_field("Loads per cycle.", 2, positive=True, source=AGNER)
    popcnt_per_cycle: float = spec_field("POPCNT r64 per cycle.", 1.0, positive=True, source=AGNER)
    fp_vector_bits: int = spec_field("Width of the FP32 vector registers the fp32 GEMM uses.", 128,
                                     positive=True, source="SSE: 128-bit XMM (the ISA the BMXNet CPU is named by)")
    fma: bool = spec_field("Fused multiply-add available to the fp32 kernel (AVX2 + FMA3).", False,
                           source="SSE4.2 has no FMA")
    fp_mul_per_cycle: float = spec_field("Vector FP32 multiplies (or FMAs with fma) per cycle.", 2.0,
                                         positive=True, source=f"{AGNER}: MULPS / VFMADD ports 0 and 1")
    fp_add_per_cycle: float = spec_field("Vector FP32 additions per cycle (without FMA).", 1.0, positive=True,
                                         source=f"{AGNER}: ADDPS port 1")
    dram_bandwidth: float = spec_field("DRAM bytes per second shared by the cores.", 25.6e9, positive=True,
                                       source="assumption: dual-channel DDR3-1600 (2 x 12.8 GB/s)")
    binary_isa: str = spec_field("The binary kernel's instructions: x86 scalar POPCNT on 64-bit words, or ARMv8 "
                                 "NEON EOR + CNT + byte add on 128-bit vectors.", "popcnt64",
                                 choices=("popcnt64", "neon"), source="BMXNet xnor_64; JDAI-CV/dabnn docs/bconv.md")
    simd_pipes: int = spec_field("Vector (ASIMD) pipes, each taking one 128-bit operation a cycle (neon kernel).", 2,
                                 positive=True, source=A72_SOG)

    @property
    def fp_lanes(self) -> int:
        return self.fp_vector_bits // 32

    @property
    def fp_macs_per_cycle(self) -> float:
        """Vector MACs per cycle: an FMA is one; without FMA a MAC needs a multiply and an add."""
        vectors = self.fp_mul_per_cycle if self.fma else min(self.fp_mul_per_cycle, self.fp_add_per_cycle)
        return vectors * self.fp_lanes


HASWELL_SSE = CpuSpec()
HASWELL_AVX2 = CpuSpec(name="haswell_avx2", fp_vector_bits=256, fma=True)
# ARMv8 NEON cores the binary-CPU measurements ran on (measured_hardware/constants/binary_cpu.yaml cites each
# field): 128-bit vectors, FMLA on both FP/ASIMD pipes, 4 cores (the cases run one thread).
RPI4_CORTEX_A72 = CpuSpec(name="rpi4_cortex_a72", clock=1.5e9, cores=4, issue_width=3, alu_ports=2, load_ports=1,
                          popcnt_per_cycle=1.0, fp_vector_bits=128, fma=True, fp_mul_per_cycle=2.0,
                          fp_add_per_cycle=2.0, dram_bandwidth=12.8e9, binary_isa="neon", simd_pipes=2)
PIXEL1_KRYO = CpuSpec(name="pixel1_kryo", clock=1.5936e9, cores=4, issue_width=3, alu_ports=2, load_ports=1,
                      popcnt_per_cycle=1.0, fp_vector_bits=128, fma=True, fp_mul_per_cycle=2.0, fp_add_per_cycle=2.0,
                      dram_bandwidth=29.9e9, binary_isa="neon", simd_pipes=2)
PRESETS = {cpu.name: cpu for cpu in (HASWELL_SSE, HASWELL_AVX2, RPI4_CORTEX_A72, PIXEL1_KRYO)}
