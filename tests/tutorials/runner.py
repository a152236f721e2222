"""Run a tutorial script top to bottom, as a student would, with its figures in a temporary folder."""
import runpy
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")
TUTORIAL_DIR = Path(__file__).resolve().parents[2] / "tutorials"


def run_tutorial(tmp_path_factory, filename: str) -> tuple[dict, Path]:
    """The tutorial's globals after it ran, and the folder its figures went to."""
    out = tmp_path_factory.mktemp(Path(filename).stem)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ACCEL_SIM_TUTORIAL_OUT", str(out))
        namespace = runpy.run_path(str(TUTORIAL_DIR / filename), run_name="__main__")
    return namespace, out
