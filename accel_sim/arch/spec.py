"""Accelerator descriptions: frozen, validated, in base units (bytes, Hz, cycles).

A config file is one :class:`ArchSpec`. The parts shared by every family (clock, word
width, DRAM, energy table) sit at the top level; each family has its own section,
named after it (``systolic:`` for the dense systolic array), which must be present
when ``family`` names it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accel_sim.config.schema import spec_field
from accel_sim.cnvlutin.spec import CnvlutinSpec
from accel_sim.dlu.spec import DLUSpec
from accel_sim.eie.spec import EIESpec
from accel_sim.lowbit.spec import LowbitSpec
from accel_sim.pe_array.spec import PEArraySpec
from accel_sim.scnn.spec import SCNNSpec
from accel_sim.systolic.spec import SCALESIM, SystolicSpec
from accel_sim.tensor_core.spec import TensorCoreSpec
from accel_sim.simt.spec import SimtSpec
from accel_sim.vector_unit.spec import VectorUnitSpec

# Each family names its section in ArchSpec and its folder accel_sim/<family>/ (the family contract).
# Process nodes (nm) a config may name: the nodes of the scaling table
# (accel_sim/energy/tables/stillmaker_baas_2017.yaml) and common nodes between them.
NODES_NM = (130, 90, 65, 45, 40, 32, 28, 22, 20, 16, 14, 10, 7)
FAMILIES = ("systolic", "eie", "scnn", "pe_array", "tensor_core", "cnvlutin", "dlu", "simt", "lowbit")


@dataclass(frozen=True)
class DramSpec:
    bandwidth_mode: str = spec_field(
        "How DRAM bandwidth is set. 'calc': as wide as needed for no memory stall (SCALE-Sim "
        "CALC mode; traffic is still counted); 'user': 'bandwidth' bytes per cycle per operand "
        "stream (SCALE-Sim USER mode).", "calc", choices=("calc", "user"), source=SCALESIM)
    bandwidth: float = spec_field(
        "DRAM interface bandwidth per operand stream (ifmap, filter, ofmap each), used in 'user' mode.",
        10.0, unit="bandwidth", positive=True, source=f"{SCALESIM} (Bandwidth: 10 words/cycle, 1-byte words)")
    latency: int = spec_field(
        "Fixed DRAM access latency added to every burst.", 0, unit="cycles", minimum=0,
        source="SCALE-Sim models no DRAM latency without Ramulator")


@dataclass(frozen=True)
class ArchSpec:
    name: str = spec_field("Short name used in reports.")
    family: str = spec_field("Which accelerator model simulates this config (its section must be present).",
                             choices=FAMILIES)
    description: str = spec_field("Free text: what this config is and where it comes from.", "")
    clock: float = spec_field("Clock frequency.", 1e9, unit="frequency", positive=True,
                              source="SCALE-Sim reports cycles only; 1 GHz turns them into time")
    word_bits: int = spec_field("Width of one operand word (activations and weights).", 8, positive=True,
                                source=f"{SCALESIM} (word_size = 1 byte)")
    energy_table: str = spec_field(
        "Energy table: a name in accel_sim/energy/tables/ or a path to a YAML table.", "horowitz_45nm")
    dram: DramSpec = spec_field("Off-chip memory.", default_factory=DramSpec)
    technology_node: int = spec_field(
        "Process node (nm) the run is costed at: energy, area and leakage tables are scaled from their "
        "node to this one (accel_sim/energy/technology.py).", 45, choices=NODES_NM,
        source="Stillmaker & Baas, Integration 2017 (accel_sim/energy/tables/stillmaker_baas_2017.yaml)")
    area_table: str = spec_field(
        "Area and leakage table: a name in accel_sim/energy/tables/ or a path to a YAML table.",
        "cacti_aladdin_45nm_area")
    systolic: SystolicSpec | None = spec_field("Dense systolic array (family: systolic).", None)
    eie: EIESpec | None = spec_field("EIE: sparse matrix x sparse vector engine (Han et al., ISCA 2016) (family: eie).", None)
    scnn: SCNNSpec | None = spec_field("SCNN and its dense baselines DCNN / DCNN-opt (Parashar et al., ISCA 2017) (family: scnn).", None)
    pe_array: PEArraySpec | None = spec_field("Generic PE array with a selectable level of sparsity support (family: pe_array).", None)
    tensor_core: TensorCoreSpec | None = spec_field("Ampere-style sparse tensor core (2:4 structured sparsity) (family: tensor_core).", None)
    cnvlutin: CnvlutinSpec | None = spec_field("Cnvlutin activation skipping and its DaDianNao-like dense baseline (family: cnvlutin).", None)
    dlu: DLUSpec | None = spec_field("Statistics-driven dynamic fixed-point processor (Fujitsu DLU style) (family: dlu).", None)
    simt: SimtSpec | None = spec_field("SIMT GPU running sparse kernels as warp schedules; reads the A100 machine from tensor_core (family: simt).", None)
    vector_unit: VectorUnitSpec = spec_field(
        "Vector unit of every family: softmax, norms, activations, rotary embedding, residual additions "
        "(workload layers of type vector).", default_factory=VectorUnitSpec)
    lowbit: LowbitSpec | None = spec_field("Binary / ternary / low-bit PE array with per-layer precision (family: lowbit).", None)

    def __post_init__(self) -> None:
        if getattr(self, self.family) is None:
            raise ValueError(f"family '{self.family}' needs a '{self.family}:' section")

    def section(self, family: str) -> Any:
        """The config section of ``family`` (e.g. ``arch.section("eie")``); a model given an arch of
        another family gets an error instead of ``None``."""
        spec = getattr(self, family)
        if spec is None:
            raise ValueError(f"arch {self.name!r} has no {family} section")
        return spec

    @property
    def word_bytes(self) -> float:
        return self.word_bits / 8
