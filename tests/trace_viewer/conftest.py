"""One headless Chromium for the whole session (see :mod:`tests.trace_viewer.browser`)."""
import pytest

from tests.trace_viewer.browser import chromium_reason, start_chromium


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    pytest.importorskip("selenium", reason="selenium is in the [test] extras: python -m pip install -e '.[test]'")
    reason = chromium_reason()
    if reason:
        pytest.skip(f"no headless Chromium: {reason}")
    driver = start_chromium(tmp_path_factory.mktemp("chromium-profile"))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()
