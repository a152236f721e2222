"""The guided walks' traces: per family with a builder, the shipped example it is taught on and its
viewer page (tutorial 7 writes one per family; ``docs/teaching/<family>.md`` walks through it).

A family's example is its trace source's (``files.SOURCES[family].example``) where it has one, else
the one in :data:`EXAMPLES`."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from accel_sim.pipeline.trace import files
from accel_sim.pipeline.trace.events import Trace
from accel_sim.pipeline.trace.html import write_html

# family -> (arch config, workload, layer or None for the first): small enough to step through by hand
EXAMPLES = {"eie": ("eie_4pe_example", "eie_4pe_example", None)}   # the EIE paper's 4-PE example (Figs. 2, 3)


def families() -> list[str]:
    """Every family with a teaching trace."""
    return sorted(files.BUILDERS)


def example(family: str) -> tuple[str, str, str | None]:
    source = getattr(files, "SOURCES", {}).get(family)
    if source is not None:
        return source.example.arch, source.example.workload, source.example.layer
    if family not in EXAMPLES:
        raise KeyError(f"family {family!r} has a trace builder but no example to trace (add it to EXAMPLES)")
    return EXAMPLES[family]


@lru_cache(maxsize=None)
def example_trace(family: str) -> Trace:
    """The family's example trace (built once per process: a Trace is immutable, and SCNN's takes
    seconds to build)."""
    return files.build(*example(family))


def page_name(family: str) -> str:
    return f"07_{family}.html"


def write_page(family: str, folder: Path) -> tuple[Trace, Path]:
    """The family's example trace and its viewer page ``folder / page_name(family)``."""
    trace = example_trace(family)
    return trace, write_html(trace, folder / page_name(family))
