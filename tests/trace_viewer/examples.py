"""The shipped arch, workload and layer whose trace each family's tests open: the family's trace
source's example where it has one (``files.SOURCES``), else the ones below."""
from __future__ import annotations

from accel_sim.pipeline.trace import files

FALLBACK = {"eie": ("eie_4pe_example", "eie_4pe_example", None)}   # the EIE paper's 4-PE example (Figs. 2, 3)
FAMILIES = sorted(files.BUILDERS)


def example(family: str) -> tuple[str, str, str | None]:
    source = getattr(files, "SOURCES", {}).get(family)
    if source is not None:
        return source.example.arch, source.example.workload, source.example.layer
    if family not in FALLBACK:
        raise AssertionError(f"family {family!r} has a trace builder but no example to trace")
    return FALLBACK[family]
