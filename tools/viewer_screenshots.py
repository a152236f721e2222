"""Screenshots of the trace viewer for the README: ``python -m tools.viewer_screenshots``.

Writes each family's example page (tutorial 7's, :mod:`accel_sim.pipeline.trace.teaching`) and saves
a headless-Chromium screenshot of it at the cycle below to ``docs/images/viewer_<family>.png``.
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

from accel_sim.pipeline.trace.teaching import families, write_page
from tests.trace_viewer.browser import chromium_reason, start_chromium

IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"
SHOTS = {"eie": 3, "scnn": 30}   # family -> the cycle shown (EIE: an empty slice skipped, three FIFOs full; SCNN: the operands still streaming in while all 64 PEs multiply)


def main() -> None:
    reason = chromium_reason()
    if reason:
        raise SystemExit(f"no headless Chromium: {reason}")
    IMAGES.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="viewer-shots-"))
    driver = start_chromium(folder / "profile")
    try:
        for family, cycle in SHOTS.items():
            if family not in families():
                print(f"{family}: no trace builder, no screenshot")
                continue
            _, page = write_page(family, folder)
            driver.get(f"{page.as_uri()}#cycle={cycle}")
            time.sleep(0.3)
            driver.save_screenshot(str(IMAGES / f"viewer_{family}.png"))
            print(f"wrote {IMAGES / f'viewer_{family}.png'} (cycle {cycle})")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
