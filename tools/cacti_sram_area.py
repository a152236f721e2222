"""Regenerate the SRAM rows of accel_sim/foundations/energy/tables/cacti_aladdin_45nm_area.yaml with CACTI.

CACTI is not a dependency: build it once from the source bundled in the PyPI package
hwcomponents-cacti 1.0.40 (``pip download --no-deps --only-binary=:all: --python-version 3.12
hwcomponents-cacti==1.0.40``, unzip, ``cd hwcomponents_cacti/cacti && rm -rf obj_* && make``), then

    python tools/cacti_sram_area.py PATH/TO/hwcomponents_cacti > sram_rows.yaml

Each row is one CACTI run: the package's ``default_cfg.cfg`` plus the lines below (the same
inputs the package's own model uses), read back from CACTI's CSV output ("Area (mm2)",
"Standby leakage per bank(mW)").
"""
from __future__ import annotations

import csv
import subprocess
import sys
import tempfile
from pathlib import Path

CAPACITIES = (256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576)
WIDTHS_BITS = (16, 64)
NODE_UM = 0.045


def run_cacti(package: Path, capacity: int, width_bits: int) -> tuple[float, float]:
    """(area mm2, standby leakage mW) of one single-bank, single-port RAM."""
    block = width_bits // 8
    cfg = (package / "default_cfg.cfg").read_text().replace("\r", "") + "\n" + "\n".join([
        f"-size (bytes) {capacity}", "-read-write port  1", f"-block size (bytes) {block}",
        f"-technology (u) {NODE_UM}", f"-output/input bus width  {width_bits}", "-UCA bank 1",
        '-cache type "ram"', '-tag size (b) "default"', "-associativity 1"]) + "\n"
    with tempfile.TemporaryDirectory() as tmp:
        infile = Path(tmp) / f"s{capacity}_w{width_bits}.cfg"
        infile.write_text(cfg)
        subprocess.run(["./cacti", "-infile", str(infile)], cwd=package / "cacti", check=True, capture_output=True)
        row = list(csv.DictReader(Path(f"{infile}.out").read_text().splitlines()))[-1]
    return float(row[" Area (mm2)"]), float(row[" Standby leakage per bank(mW)"])


def main(package: Path) -> None:
    for width in WIDTHS_BITS:
        for capacity in CAPACITIES:
            area, leakage_mw = run_cacti(package, capacity, width)
            size = f"{capacity // 1024} KiB" if capacity >= 1024 else f"{capacity} B"
            print(f'  - {{class: sram, bits: {width}, capacity: {size}, area: {area:.6g} mm2, '
                  f'leakage: {leakage_mw * 1000:.4g} uW, source: "CACTI 7 (45 nm, itrs-lstp cells and periphery, '
                  f'1 RW port, 1 bank, {width}-bit word, RAM)"}}')


if __name__ == "__main__":
    main(Path(sys.argv[1]))
