"""Private helper: read the SCALE-Sim reference cases in tests/data/scalesim.

Self-contained on purpose (configparser + csv), so the golden tests do not depend on the
config / workload loaders; it can be switched to ``accel_sim.foundations.config.scalesim_cfg`` and
``accel_sim.foundations.workload.scalesim_topology`` once those settle.
"""
from __future__ import annotations

import configparser
import csv
from dataclasses import dataclass
from pathlib import Path

from accel_sim.foundations.arch import DramSpec
from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.models.systolic.spec import BufferSpec, SystolicSpec
from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer, Layer, NMSparsity

CASES_DIR = Path(__file__).resolve().parents[1] / "data" / "scalesim"
KIB = 1024                 # SCALE-Sim *SzkB sizes
SCALESIM_WORD_BITS = 8     # SCALE-Sim words are one byte
SCALESIM_READ_LATENCY = 1  # SCALE-Sim read_port.latency (cycles)


@dataclass(frozen=True)
class ScaleSimCase:
    name: str
    arch: ArchSpec
    layers: tuple[Layer, ...]
    compute: tuple[dict[str, float], ...]   # COMPUTE_REPORT rows
    access: tuple[dict[str, float], ...]    # DETAILED_ACCESS_REPORT rows

    @property
    def user_bandwidth(self) -> bool:
        return self.arch.dram.bandwidth_mode == "user"


def read_cfg(path: Path) -> ArchSpec:
    parser = configparser.ConfigParser(delimiters=(":", "="))
    parser.optionxform = str
    parser.read(path)
    arch = parser["architecture_presets"]
    sparsity = parser.has_section("sparsity") and parser["sparsity"].get("SparsitySupport", "false").lower() == "true"
    row_wise = {}
    if sparsity and parser["sparsity"]["OptimizedMapping"].strip().lower() == "true":
        row_wise = dict(sparse_mapping="row_wise", row_block_size=int(parser["sparsity"]["BlockSize"]),
                        row_seed=int(parser["sparsity"]["RandomNumberGeneratorSeed"]))

    def buffer(key: str) -> BufferSpec:
        return BufferSpec(size=int(arch[f"{key}SramSzkB"]) * KIB)

    return ArchSpec(
        name=parser["general"]["run_name"].strip(), family="systolic", word_bits=SCALESIM_WORD_BITS,
        dram=DramSpec(bandwidth_mode=parser["run_presets"]["InterfaceBandwidth"].strip().lower(),
                      bandwidth=float(arch["Bandwidth"]), latency=SCALESIM_READ_LATENCY),
        systolic=SystolicSpec(rows=int(arch["ArrayHeight"]), cols=int(arch["ArrayWidth"]),
                              dataflow=arch["Dataflow"].strip().lower(), ifmap_sram=buffer("Ifmap"),
                              filter_sram=buffer("Filter"), ofmap_sram=buffer("Ofmap"), nm_sparsity=sparsity,
                              **row_wise))


def _cells(row: list[str]) -> list[str]:
    cells = [c.strip() for c in row]
    while cells and not cells[-1]:
        cells.pop()
    return cells


def read_topology(path: Path) -> tuple[Layer, ...]:
    rows = [_cells(r) for r in csv.reader(path.read_text().splitlines())]
    rows = [r for r in rows if r]
    gemm = [h.lower() for h in rows[0][1:4]] == ["m", "n", "k"]
    layers: list[Layer] = []
    for row in rows[1:]:
        width = 4 if gemm else 8
        nm = NMSparsity(*map(int, row[width].split(":"))) if len(row) > width else None
        if gemm:
            m, n, k = map(int, row[1:4])
            layers.append(GemmLayer(row[0], m=m, k=k, n=n, weight_sparsity=nm))
        else:
            h, w, r, s, c, filters, stride = map(int, row[1:8])
            # SCALE-Sim rounds the output size up: ceil((H - R) / stride) + 1 (bottom / right edge padding)
            layers.append(ConvLayer(row[0], in_h=h, in_w=w, kernel_h=r, kernel_w=s, in_channels=c,
                                    out_channels=filters, stride_h=stride, stride_w=stride,
                                    pad_bottom=(-(h - r)) % stride, pad_right=(-(w - s)) % stride,
                                    weight_sparsity=nm))
    return tuple(layers)


def read_report(path: Path) -> tuple[dict[str, float], ...]:
    rows = [_cells(r) for r in csv.reader(path.read_text().splitlines())]
    header = rows[0]
    return tuple({key: float(value) for key, value in zip(header, row)} for row in rows[1:] if row)


def load_case(directory: Path) -> ScaleSimCase:
    cfg = next(directory.glob("*.cfg"))
    topology = next(p for p in directory.glob("*.csv") if not p.name.isupper() and "REPORT" not in p.name)
    return ScaleSimCase(name=directory.name, arch=read_cfg(cfg), layers=read_topology(topology),
                        compute=read_report(directory / "COMPUTE_REPORT.csv"),
                        access=read_report(directory / "DETAILED_ACCESS_REPORT.csv"))


def case_dirs() -> list[Path]:
    return sorted(p for p in CASES_DIR.iterdir() if p.is_dir())
