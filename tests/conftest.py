"""Suite-wide fixtures."""
from __future__ import annotations

import matplotlib.pyplot as plt
import pytest


@pytest.fixture(autouse=True)
def _close_figures():
    """Study functions return their figure for the caller to save; a test that only checks the tables
    leaves it open. Close them all after each test, so the suite holds no figures from earlier tests."""
    yield
    plt.close("all")
