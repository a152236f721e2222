"""The example family of docs/adding_a_model.md: ``skipper/`` holds its files as they would stand in
``accel_sim/models/skipper/``."""
from __future__ import annotations

from pathlib import Path

import accel_sim.models

HERE = Path(__file__).resolve().parent


def install_skipper() -> None:
    """Put this folder on the models' search path, so ``accel_sim.models.skipper`` is ``skipper/`` here
    (for the tests only: the shipped catalog does not list it)."""
    if str(HERE) not in accel_sim.models.__path__:
        accel_sim.models.__path__.append(str(HERE))
