"""A trace as one self-contained HTML page: the family's datapath, stepped through cycle by cycle.

The page needs no network: the viewer's script and style (``viewer/viewer.js``, ``viewer/viewer.css``,
package data) and the trace itself (JSON) are embedded in the file at write time. It reads only the
:class:`~accel_sim.pipeline.trace.events.Trace` schema, so every family with a builder gets it:

- the datapath: one box per track, in bands by kind (DRAM, buffers, network and crossbar, FIFOs,
  PEs, control; ``Trace.track_kinds``, or guessed from the track's name when a builder gave none),
  wires from the flows' (source, target) pairs, and the flows active at the cycle drawn as arrows;
- per box at the cycle: the slice it is in (name, ``args``), coloured by ``args["state"]``
  (:data:`~accel_sim.pipeline.trace.events.SLICE_STATES`: a zero operand or a stall stands out), a
  badge when ``args["skipped"]`` zeros were passed over, and the counter track of the same name as a
  fill bar (a FIFO's occupancy);
- the cycle table's row for the cycle: its ``counter_columns`` as "the counters so far" and the other
  cells as "this cycle";
- play, pause, step, jump to a cycle (also a click on the timeline strip), hover for details.
"""
from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from accel_sim.pipeline.trace.events import Trace

ASSETS = "viewer"   # package-data folder beside this module
PLACEHOLDERS = ("/*VIEWER_CSS*/", "/*VIEWER_JS*/", "/*TRACE_JSON*/", "<!--TITLE-->")


def n_cycles(trace: Trace) -> int:
    """Cycles the viewer steps through: the table's rows (row i is cycle i), else the events' extent."""
    if trace.table.rows:
        return len(trace.table.rows)
    ends = [s.start + s.duration for s in trace.slices] + [f.end + 1 for f in trace.flows]
    ends += [c.cycle + 1 for c in trace.counters]
    return max(ends, default=1)


def trace_document(trace: Trace) -> dict:
    """The trace as the page's JSON: tracks by index, slices and flows as compact rows."""
    index = {track: i for i, track in enumerate(trace.tracks)}
    counters: dict[str, list[list[float]]] = {}
    for c in sorted(trace.counters, key=lambda c: c.cycle):
        counters.setdefault(c.track, []).append([c.cycle, c.value])
    return {
        "title": trace.title, "clock_hz": trace.clock_hz, "notes": list(trace.notes), "cycles": n_cycles(trace),
        "tracks": [{"name": t, "kind": trace.track_kinds.get(t)} for t in trace.tracks],
        "slices": [[index[s.track], s.name, s.start, s.duration, dict(s.args)] for s in trace.slices],
        "flows": [[f.name, index[f.source], index[f.target], f.start, f.end] for f in trace.flows],
        "counters": counters,
        "table": {"columns": list(trace.table.columns), "rows": [list(r) for r in trace.table.rows]},
        "counter_columns": list(trace.counter_columns),
    }


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(ASSETS, name).read_text(encoding="utf-8")


def _script_safe(text: str) -> str:
    """JSON inside <script>: no '</' (a '</script>' in a name would end the element) and no U+2028/9."""
    return text.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def html_page(trace: Trace) -> str:
    data = json.dumps(trace_document(trace), separators=(",", ":"), default=str, allow_nan=False)
    title = trace.title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    page = _asset("page.html")
    for placeholder in PLACEHOLDERS:
        if page.count(placeholder) != 1:
            raise RuntimeError(f"viewer/page.html must hold {placeholder!r} once")
    # one pass each, data last: the trace's own text is never searched for placeholders
    page = page.replace("<!--TITLE-->", title).replace("/*VIEWER_CSS*/", _asset("viewer.css"))
    script = _asset("viewer.js")
    if "</script" in script.lower() or "<!--" in script:
        raise RuntimeError("viewer/viewer.js must not hold '</script' or '<!--' (it is embedded in a <script>)")
    page = page.replace("/*VIEWER_JS*/", script)
    return page.replace("/*TRACE_JSON*/", _script_safe(data))


def write_html(trace: Trace, path: Path) -> Path:
    path.write_text(html_page(trace), encoding="utf-8")
    return path
