"""Suite-wide fixtures."""
from __future__ import annotations

import os

import matplotlib.pyplot as plt
import pytest
from hypothesis import settings

# tools/mutation.py runs each mutant's tests with HYPOTHESIS_PROFILE=mutation: the same examples for every
# mutant (derandomized) and no example database carried from one mutant's run to the next
settings.register_profile("mutation", derandomize=True, database=None)
if os.environ.get("HYPOTHESIS_PROFILE") == "mutation":     # any other value is someone else's profile
    settings.load_profile("mutation")


@pytest.fixture(autouse=True)
def _close_figures():
    """Study functions return their figure for the caller to save; a test that only checks the tables
    leaves it open. Close them all after each test, so the suite holds no figures from earlier tests."""
    yield
    plt.close("all")
