"""Accelerator descriptions: frozen, validated, in base units (bytes, Hz, cycles).

A config file is one ``ArchSpec``. The parts shared by every family (clock, word width, DRAM,
energy table) are :class:`ArchBase`, here; each model adds its own section, named after it
(``systolic:`` for the dense systolic array), which must be present when ``family`` names it.
The sections are added above the models, where they are listed (:mod:`accel_sim.pipeline.catalog`
assembles ``ArchSpec`` from :class:`ArchBase` and each model's
:class:`~accel_sim.foundations.contract.Section`); models see an arch through :class:`ArchBase`
and :meth:`ArchBase.section`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accel_sim.foundations.config.schema import spec_field

# The defaults that follow SCALE-Sim cite it by this name (its version and its default config).
SCALESIM = "SCALE-Sim v3 (scalesim 3.0.0) default"
# Process nodes (nm) a config may name: the nodes of the scaling table
# (accel_sim/foundations/energy/tables/stillmaker_baas_2017.yaml) and common nodes between them.
FAMILY_DOC = "Which accelerator model simulates this config (its section must be present)."
NODES_NM = (130, 90, 65, 45, 40, 32, 28, 22, 20, 16, 14, 10, 7)


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
class UncountedBlock:
    block: str = spec_field("The block's name, a component of the energy breakdown (e.g. pe_control).")
    share: float = spec_field("Its share of the chip's power in a published breakdown of the chip (0.1: 10 %).",
                              positive=True, maximum=0.99)
    source: str = spec_field("Where the share comes from (the paper, figure and workload).")


UNCOUNTED_DOC = (
    "Blocks of the chip that no action counts (control logic, I/O FIFOs, pads), each at its share of the chip's "
    "power in a published breakdown (a post-layout simulation: a description of the design, not a measurement). "
    "After counting, each block is charged share / (1 - the shares' sum) x the run's on-chip dynamic energy "
    "(every component but dram), so the blocks take their published shares of the chip's power "
    "(accel_sim/foundations/energy/cost.py, with_uncounted). Empty: none.")


@dataclass(frozen=True)
class ArchBase:
    name: str = spec_field("Short name used in reports.")
    family: str = spec_field(FAMILY_DOC)  # its choices, the listed families, are set by the catalog
    description: str = spec_field("Free text: what this config is and where it comes from.", "")
    clock: float = spec_field("Clock frequency.", 1e9, unit="frequency", positive=True,
                              source="SCALE-Sim reports cycles only; 1 GHz turns them into time")
    word_bits: int = spec_field("Width of one operand word (activations and weights).", 8, positive=True,
                                source=f"{SCALESIM} (word_size = 1 byte)")
    energy_table: str = spec_field(
        "Energy table: a name in accel_sim/foundations/energy/tables/ or a path to a YAML table.", "horowitz_45nm")
    dram: DramSpec = spec_field("Off-chip memory.", default_factory=DramSpec)
    memory_capacity: float | None = spec_field(
        "Device memory that holds the weights, KV cache and activations (HBM / DRAM capacity). A run whose "
        "footprint exceeds it is refused with the largest batch that fits (accel_sim/foundations/workload/memory.py). "
        "null: the source states no capacity (a generic array, or a paper that leaves off-chip memory unbounded); "
        "runs are not checked.", None, unit="size", positive=True,
        source="each shipped config cites its device's datasheet, or says why it has none")
    device_link_bandwidth: float | None = spec_field(
        "Bandwidth of one device's link to its peers, each direction (NVLink through NVSwitch): the rate of the "
        "tensor-parallel all-reduce (accel_sim/systems/serving/parallel.py). null: not stated; tensor parallelism "
        "needs it.", None, unit="rate", positive=True, source="the device's datasheet, cited in its config")
    device_link_latency: float = spec_field(
        "Fixed time of one transfer between devices: a pipeline stage's hand-off of its activations "
        "(accel_sim/systems/serving/pipeline.py).", 0.0, unit="time", minimum=0,
        source="no microbenchmark at hand: 0, so the hand-off time is a lower bound")
    all_reduce_latency: float = spec_field(
        "Fixed time of one tensor-parallel all-reduce, whatever its size: the time of a smallest-message "
        "all-reduce between the devices (nccl-tests all_reduce_perf); an all-reduce takes this plus its ring "
        "traffic over device_link_bandwidth (accel_sim/systems/serving/parallel.py).", 0.0, unit="time", minimum=0,
        source="a small-message all-reduce measurement, cited in the config; 0: none at hand (a lower bound)")
    technology_node: int = spec_field(
        "Process node (nm) the run is costed at: energy, area and leakage tables are scaled from their "
        "node to this one (accel_sim/foundations/energy/technology.py).", 45, choices=NODES_NM,
        source="Stillmaker & Baas, Integration 2017 (accel_sim/foundations/energy/tables/stillmaker_baas_2017.yaml)")
    supply_voltage: float | None = spec_field(
        "Core supply (V) the run is costed at: dynamic energy scales by the node's Stillmaker energy polynomial "
        "at this voltage over its value at the tables' supply (0.9 V, Horowitz ISSCC 2014). null: the tables' "
        "supply (no scaling).", None, positive=True,
        source="Stillmaker & Baas, Integration 2017 (accel_sim/foundations/energy/tables/stillmaker_baas_2017.yaml)")
    area_table: str = spec_field(
        "Area and leakage table: a name in accel_sim/foundations/energy/tables/ or a path to a YAML table.",
        "cacti_aladdin_45nm_area")
    uncounted_blocks: tuple[UncountedBlock, ...] = spec_field(UNCOUNTED_DOC, default_factory=tuple)

    def __post_init__(self) -> None:
        if getattr(self, self.family) is None:
            raise ValueError(f"family '{self.family}' needs a '{self.family}:' section")
        shares = sum(b.share for b in self.uncounted_blocks)
        if shares >= 1:
            raise ValueError(f"uncounted_blocks: the shares add up to {shares:g}; they must leave the counted "
                             "blocks a part of the chip's power (a sum below 1)")
        names = [b.block for b in self.uncounted_blocks]
        if len(set(names)) != len(names):
            raise ValueError(f"uncounted_blocks: a block is named twice ({', '.join(names)})")

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
