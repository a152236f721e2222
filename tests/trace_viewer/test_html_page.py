"""The viewer page is one self-contained file: the script, the style and the trace are inside it,
nothing is fetched, and the trace's own text cannot break out of its <script> element."""
import json
import re
from types import MappingProxyType

from accel_sim.cli.main import main
from accel_sim.pipeline.trace.events import CounterSample, CycleTable, Flow, Slice, Trace
from accel_sim.pipeline.trace.html import html_page, n_cycles, trace_document

EXTERNAL = re.compile(r"""(?i)(?:src|href)\s*=\s*["']?\s*(?:https?:)?//|@import|url\(\s*["']?\s*(?:https?:)?//""")


def tiny_trace(name="a0") -> Trace:
    return Trace(title="tiny <b>", clock_hz=1e9, tracks=("bus", "FIFO 0", "PE 0"),
                 slices=(Slice("bus", name, 0), Slice("PE 0", "mac", 1, 2, args={"state": "work"})),
                 counters=(CounterSample("FIFO 0", 0, 1), CounterSample("FIFO 0", 1, 0)),
                 table=CycleTable(("cycle", "bus", "macs"), (("0", name, "0"), ("1", ".", "1"), ("2", ".", "2"))),
                 notes=("a note",), flows=(Flow("a0", "bus", "FIFO 0", 0, 0),),
                 track_kinds=MappingProxyType({"bus": "network", "FIFO 0": "fifo", "PE 0": "pe"}),
                 counter_columns=("macs",))


def embedded(page: str) -> dict:
    text = re.search(r'<script id="trace-data" type="application/json">(.*?)</script>', page, re.S).group(1)
    return json.loads(text)


def test_page_is_self_contained():
    page = html_page(tiny_trace())
    assert not EXTERNAL.search(page), EXTERNAL.search(page).group(0)
    assert "/*VIEWER_JS*/" not in page and "/*TRACE_JSON*/" not in page and "/*VIEWER_CSS*/" not in page
    assert "accelSimViewer" in page and "#datapath" in page            # the script and the style are inside
    assert "<title>tiny &lt;b&gt;</title>" in page


def test_trace_text_cannot_close_the_script():
    nasty = "</script><script>alert(1)</script>\u2028"
    page = html_page(tiny_trace(nasty))
    assert page.count("</script>") == 2                                  # the data's and the viewer's own
    assert embedded(page)["table"]["rows"][0][1] == nasty


def test_document_keeps_the_schema():
    doc = trace_document(tiny_trace())
    assert doc["cycles"] == n_cycles(tiny_trace()) == 3                  # row i is cycle i
    assert doc["tracks"][1] == {"name": "FIFO 0", "kind": "fifo"}
    assert doc["slices"][1] == [2, "mac", 1, 2, {"state": "work"}]
    assert doc["flows"] == [["a0", 0, 1, 0, 0]] and doc["counters"]["FIFO 0"] == [[0, 1], [1, 0]]
    assert doc["counter_columns"] == ["macs"]


def test_cli_writes_the_page(tmp_path, capsys):
    assert main(["trace", "--arch", "eie_4pe_example", "--workload", "eie_4pe_example", "--out", str(tmp_path),
                 "--html"]) == 0
    assert "trace.html" in capsys.readouterr().out
    doc = embedded((tmp_path / "trace.html").read_text())
    assert doc["cycles"] == 16 and doc["counter_columns"]
    assert {t["kind"] for t in doc["tracks"]} == {"network", "fifo", "pe"}


def test_html_only_when_asked(tmp_path):
    assert main(["trace", "--arch", "eie_4pe_example", "--workload", "eie_4pe_example", "--out", str(tmp_path)]) == 0
    assert not (tmp_path / "trace.html").exists()
