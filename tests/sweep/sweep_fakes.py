"""Shared test data, and cheap deterministic stand-ins for the simulator (importable by pool and Dask workers)."""
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SMALL_SWEEP = {
    "name": "small",
    "arch": "scalesim_32x32_ws",
    "workload": "tiny_conv",
    "axes": {
        "array": [{"systolic.rows": 8, "systolic.cols": 8}, {"systolic.rows": 16, "systolic.cols": 16}],
        "systolic.dataflow": ["os", "ws", "is"],
        "systolic.ifmap_sram.size": ["16 KiB", "64 KiB"],
    },
}


def fake_point(arch, network):
    """Numbers that depend on every swept field, in microseconds instead of a simulation."""
    s = arch.systolic
    pes = s.rows * s.cols
    macs = network.macs
    cycles = macs // pes + s.rows + s.cols + {"os": 0, "ws": 7, "is": 13}[s.dataflow]
    sram_bytes = s.ifmap_sram.size + s.filter_sram.size + s.ofmap_sram.size
    energy = macs * 0.2 + cycles * 0.05 * pes ** 0.5 + 1e9 / (1 + sram_bytes / 1024) + 1 / 3
    return {"cycles": cycles, "energy_pj": energy, "macs_dense": macs, "macs_issued": macs}


def slow_fake_point(arch, network):
    time.sleep(0.05)
    return fake_point(arch, network)


def area_point(arch, network):
    """fake_point plus an area, to exercise the area metric and a 3-objective front."""
    out = fake_point(arch, network)
    out["area_mm2"] = arch.systolic.rows * arch.systolic.cols * 0.01
    return out
