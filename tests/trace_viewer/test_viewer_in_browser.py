"""Every family with a trace builder: its viewer page opens in headless Chromium without a console
error or a network request, stepping and jumping show the cycle asked for, the counters shown at a
cycle are that row of the cycle table, hovering a box tells its state, play moves on and pause
stops; a screenshot of each family's page is saved and is not blank."""
from __future__ import annotations

import time

import numpy as np
import pytest
from matplotlib import image

from accel_sim.pipeline.trace.events import CounterSample, CycleTable, Flow, Slice, Trace
from accel_sim.pipeline.trace.html import write_html
from accel_sim.pipeline.trace.teaching import write_page
from tests.trace_viewer.examples import FAMILIES

pytestmark = pytest.mark.usefixtures("browser")


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """family -> (its trace, its page), built once."""
    out = tmp_path_factory.mktemp("viewer")
    built = {}
    for family in FAMILIES:
        built[family] = write_page(family, out)
    return built


def by_id(driver, element_id):
    return driver.find_element("id", element_id)


def shown_cycle(driver) -> int:
    return int(by_id(driver, "cycle-number").text)


def jump(driver, cycle: int) -> None:
    box = by_id(driver, "jump-input")
    box.clear()
    box.send_keys(str(cycle), "\n")


SHOWN_COUNTERS = """const shown = {};
for (const row of document.querySelectorAll('#counters tr')) shown[row.dataset.column] = row.querySelector('td').textContent;
return shown;"""


def severe(driver) -> list[dict]:
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


@pytest.mark.parametrize("family", FAMILIES)
def test_page_steps_to_the_cycle_and_shows_its_counters(browser, pages, family, tmp_path):
    trace, page = pages[family]
    browser.get(page.as_uri())
    assert not severe(browser), severe(browser)
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0   # nothing fetched
    last = len(trace.table.rows) - 1
    assert shown_cycle(browser) == 0 and by_id(browser, "cycle-last").text == str(last)
    by_id(browser, "btn-step").click()
    by_id(browser, "btn-step").click()
    assert shown_cycle(browser) == min(2, last)
    by_id(browser, "btn-back").click()
    assert shown_cycle(browser) == min(1, last)
    columns = trace.table.columns
    assert trace.counter_columns, f"{family}: the trace names no counter columns"
    for cycle in sorted({0, last // 3, last // 2, last}):
        jump(browser, cycle)
        assert shown_cycle(browser) == cycle
        shown = browser.execute_script(SHOWN_COUNTERS)
        assert shown == {c: trace.table.rows[cycle][columns.index(c)] for c in trace.counter_columns}, cycle
    browser.execute_script("location.hash = '#cycle=1'")
    assert shown_cycle(browser) == min(1, last)                         # a link can open a cycle
    shot = tmp_path / f"{family}.png"
    assert browser.save_screenshot(str(shot))
    pixels = (image.imread(shot)[..., :3] * 255).astype(np.uint32)
    colours = np.unique(pixels[..., 0] << 16 | pixels[..., 1] << 8 | pixels[..., 2])   # one int per colour: fast
    assert pixels.std() > 12 and colours.size > 50, f"{family}: the screenshot looks blank"
    assert not severe(browser), severe(browser)


def test_hover_play_and_pause(browser, pages):
    """Family-neutral controls, on EIE's page: hovering a box tells what it does, play moves on and
    pause stops."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.wait import WebDriverWait

    trace, page = pages["eie"]
    browser.get(page.as_uri())
    busy = next(s for s in sorted(trace.slices, key=lambda s: s.start) if s.start >= 0)
    jump(browser, busy.start)
    box = browser.find_element("css selector", f'#datapath g.el[data-track="{busy.track}"]')
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
    ActionChains(browser).move_to_element(box).perform()
    tip = by_id(browser, "tooltip")
    assert tip.is_displayed() and busy.track in tip.text and busy.name in tip.text
    assert busy.track in by_id(browser, "details").text
    if len(trace.table.rows) > 2:
        jump(browser, 0)
        browser.execute_script("document.getElementById('speed').value = '5'")   # 200 ms a cycle
        by_id(browser, "btn-play").click()
        assert "pause" in by_id(browser, "btn-play").text
        WebDriverWait(browser, 5).until(lambda driver: shown_cycle(driver) > 0)
        by_id(browser, "btn-play").click()                                   # pause
        stopped = shown_cycle(browser)
        time.sleep(0.3)
        assert shown_cycle(browser) == stopped and "play" in by_id(browser, "btn-play").text
    assert not severe(browser), severe(browser)


def test_a_trace_with_no_kinds_no_counters(browser, tmp_path):
    """A builder that names no kinds and no counter columns still gets a datapath: kinds guessed
    from the track names, states from args['state'] or the slice's words."""
    trace = Trace(title="bare", clock_hz=0, tracks=("DRAM", "global buffer", "PE 0", "PE 1"),
                  slices=(Slice("DRAM", "read", 0, 2), Slice("global buffer", "fill", 2),
                          Slice("PE 0", "mac", 3, args={"state": "zero"}), Slice("PE 1", "stall: bank conflict", 3),
                          Slice("PE 0", "skip 3 zeros", 4, args={"state": "skip", "skipped": 3})),
                  counters=(CounterSample("occupancy", 2, 5),),
                  table=CycleTable(("cycle", "note"), tuple((str(c), ".") for c in range(6))),
                  flows=(Flow("x", "DRAM", "global buffer", 1, 2),))
    browser.get(write_html(trace, tmp_path / "bare.html").as_uri() + "#cycle=3")
    assert not severe(browser), severe(browser)
    labels = [e.text for e in browser.find_elements("css selector", "#datapath .band-label")]
    assert labels == ["DRAM", "buffers", "PEs"]

    def state(track):
        return browser.find_element("css selector", f'#datapath g.el[data-track="{track}"]').get_attribute("class")

    assert "st-zero" in state("PE 0") and "st-stall" in state("PE 1") and "idle" in state("DRAM")
    jump(browser, 4)
    assert "st-skip" in state("PE 0") and "skip 3 zeros" in browser.find_element("id", "datapath").text
    assert "names no counters" in browser.find_element("id", "side").text
    assert browser.find_element("css selector", '#gauges tr[data-counter="occupancy"] td').text == "5"
