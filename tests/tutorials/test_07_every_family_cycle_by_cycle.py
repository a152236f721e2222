"""Tutorial 7 writes a viewer page for every family with a trace builder, and each family's guided
walk (docs/teaching/<family>.md) holds: it links the page the tutorial writes, and every cycle it
stops at ("### Cycle N: ...") shows what it says (each `column = value` quoted under the heading is
that cell of the cycle table's row N)."""
import re
from pathlib import Path

import pytest

from accel_sim.pipeline.trace.teaching import families, page_name
from tests.tutorials.runner import run_tutorial

TEACHING = Path(__file__).resolve().parents[2] / "docs" / "teaching"
STOP = re.compile(r"^### Cycle (\d+)\b.*$", re.M)
CLAIM = re.compile(r"`([^`=]+?) = ([^`]+)`")


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory):
    return run_tutorial(tmp_path_factory, "07_every_family_cycle_by_cycle.py")


def walk(family: str) -> str:
    path = TEACHING / f"{family}.md"
    if not path.is_file():
        pytest.skip(f"no guided walk docs/teaching/{family}.md for family {family!r} yet")
    return path.read_text()


def stops(text: str) -> list[tuple[int, str]]:
    """(cycle, the section's text up to the next heading) per '### Cycle N' heading."""
    out = []
    for match in STOP.finditer(text):
        rest = text[match.end():]
        following = re.search(r"^#", rest, re.M)
        out.append((int(match.group(1)), rest[:following.start()] if following else rest))
    return out


@pytest.mark.parametrize("family", families())
def test_page_is_written(tutorial, family):
    g, out = tutorial
    assert (out / page_name(family)).stat().st_size > 10_000
    assert g["PAGES"][family] == out / page_name(family)


def test_eie_numbers(tutorial):
    g, _ = tutorial
    assert g["EIE_CYCLES"] == 16 and g["EIE_ZEROS_SKIPPED"] == 2


@pytest.mark.parametrize("family", families())
def test_walk_stops_show_what_they_say(tutorial, family):
    text = walk(family)
    trace = tutorial[0]["TRACES"][family]
    columns = trace.table.columns
    assert f"../../tutorials/out/{page_name(family)}" in text, "the walk links the page tutorial 7 writes"
    assert f"](../../tutorials/out/{page_name(family)})" in (TEACHING / "README.md").read_text()
    found = stops(text)
    assert len(found) >= 3, "a walk stops at three cycles at least"
    wrong = []
    for cycle, section in found:
        assert cycle < len(trace.table.rows), f"cycle {cycle}: the trace has {len(trace.table.rows)} cycles"
        claims = CLAIM.findall(section)
        assert claims, f"cycle {cycle}: quote the cycle table (`column = value`)"
        for column, value in claims:
            assert column in columns, f"cycle {cycle}: no column {column!r} in {columns}"
            shown = trace.table.rows[cycle][columns.index(column)]
            if shown != value:
                wrong.append(f"cycle {cycle}: {column} is {shown!r}, the walk says {value!r}")
    assert not wrong, "\n".join(wrong)
