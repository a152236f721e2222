"""The ``eyeriss_v2:`` section of an arch config (family: eyeriss_v2), Eyeriss v2 (Chen, Yang, Emer and
Sze, "Eyeriss v2: A Flexible Accelerator for Emerging Deep Neural Networks on Mobile Devices", IEEE
JETCAS 9(2) 2019). Section numbers below are the JETCAS paper's. The clock is the arch's ``clock``.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.config.schema import spec_field

V2 = "Chen et al., Eyeriss v2, IEEE JETCAS 9(2) 2019"


@dataclass(frozen=True)
class EyerissV2Spec:
    """PE clusters on a hierarchical mesh; PEs that keep iacts and weights CSC-coded and skip zeros in both."""

    clusters: int = spec_field("PE clusters (with as many GLB and router clusters), an 8 x 2 mesh.", 16,
                               positive=True, source=f"{V2}, Sec. II, Fig. 6, Table II (8 x 2 clusters)")
    pes_per_cluster: int = spec_field("PEs of a cluster (3 rows x 4 columns).", 12, positive=True,
                                      source=f"{V2}, Sec. II (3 x 4 PEs per cluster)")
    pes_per_weight_router: int = spec_field(
        "PEs one weight router feeds: one row of a cluster (3 weight routers per cluster, one per PE row).", 4,
        positive=True, source=f"{V2}, Sec. III-C-2")
    simd_width: int = spec_field("MACs a PE does per cycle on one iact (two weights fetched at once).", 2,
                                 positive=True, maximum=2, source=f"{V2}, Sec. IV-B (SIMD width of two)")
    iact_spad_entries: int = spec_field("Iact data SPad entries (12-b count-data pairs): the largest iact window.",
                                        16, positive=True, source=f"{V2}, Sec. IV-A (16 x 12b)")
    weight_data_entries: int = spec_field(
        "Weight data SPad words (24 b: two 12-b count-data pairs each).", 96, positive=True,
        source=f"{V2}, Sec. IV-A (96 x 24b: at most 192 non-zero weights)")
    weight_addr_entries: int = spec_field("Weight address SPad entries: one per weight column (C0 x S).", 16,
                                          positive=True, source=f"{V2}, Sec. IV-A (16 x 7b)")
    weight_addr_bits: int = spec_field("Bits of a weight address entry.", 7, positive=True,
                                       source=f"{V2}, Sec. IV-A (16 x 7b)")
    psum_spad_entries: int = spec_field("Psum SPad entries: the most output channels M0 a PE holds.", 32,
                                        positive=True, source=f"{V2}, Sec. IV-A (32 x 20b)")
    psum_bits: int = spec_field("Psum width.", 20, positive=True, source=f"{V2}, Sec. II (20-bit accumulation)")
    csc_pair_bits: int = spec_field("A CSC count-data pair: 4-b count + 8-b value.", 12, positive=True,
                                    source=f"{V2}, Sec. IV-A (4-b count, 12-b pair)")
    noc_port_bits: int = spec_field("Width of an iact / weight router port (one 24-b weight word a cycle).", 24,
                                    positive=True, source=f"{V2}, Sec. III-C (24-bit ports)")
    pipeline_stages: int = spec_field("PE pipeline depth: a work unit's first result comes stages - 1 cycles "
                                      "after its first iact.", 7, positive=True,
                                      source=f"{V2}, Sec. IV-A (seven pipeline stages)")
    empty_window_cycles: int = spec_field(
        "Cycles a PE spends on an iact window with no non-zero iact (its address entries are still read).", 1,
        unit="cycles", minimum=0, maximum=1,
        source="estimate: the paper says zero iacts cost no cycle (Sec. IV-A) but not what an all-zero window costs")

    def __post_init__(self) -> None:
        if self.pes_per_cluster % self.pes_per_weight_router:
            raise ValueError(f"pes_per_weight_router: {self.pes_per_weight_router} does not divide the "
                             f"{self.pes_per_cluster} PEs of a cluster")

    @property
    def pes(self) -> int:
        return self.clusters * self.pes_per_cluster
