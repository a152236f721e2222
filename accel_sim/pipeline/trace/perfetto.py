"""Chrome trace-event JSON (opens in https://ui.perfetto.dev and chrome://tracing).

One process; one thread per slice track (in the trace's order) with complete events ("X");
counter tracks as counter events ("C"). Time stamps are in cycles: the viewer shows
microseconds, so read 1 us as 1 clock cycle.
"""
from __future__ import annotations

import json
from pathlib import Path

from accel_sim.pipeline.trace.events import Trace

PROCESS_ID = 1


def chrome_trace(trace: Trace) -> dict:
    """The trace as a Chrome trace-event document."""
    thread = {track: i for i, track in enumerate(trace.tracks)}
    events: list[dict] = [{"ph": "M", "pid": PROCESS_ID, "name": "process_name", "args": {"name": trace.title}}]
    for track, tid in thread.items():
        events.append({"ph": "M", "pid": PROCESS_ID, "tid": tid, "name": "thread_name", "args": {"name": track}})
        events.append({"ph": "M", "pid": PROCESS_ID, "tid": tid, "name": "thread_sort_index",
                       "args": {"sort_index": tid}})
    for s in trace.slices:
        events.append({"ph": "X", "pid": PROCESS_ID, "tid": thread[s.track], "name": s.name, "ts": s.start,
                       "dur": s.duration, "args": dict(s.args)})
    for c in trace.counters:
        events.append({"ph": "C", "pid": PROCESS_ID, "name": c.track, "ts": c.cycle, "args": {"value": c.value}})
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"title": trace.title, "time_unit": "1 us in the viewer = 1 clock cycle",
                          "clock_hz": trace.clock_hz, "notes": list(trace.notes)}}


def write_chrome_trace(trace: Trace, path: Path) -> Path:
    path.write_text(json.dumps(chrome_trace(trace), indent=None, separators=(",", ":")), encoding="utf-8")
    return path
