"""The handwritten digits scikit-learn ships (1,797 8x8 images, 10 classes), split and scaled.

scikit-learn is optional (the ``digits`` extra); it is imported only here, when the data
are first needed, with a clear error if it is missing.
"""
from __future__ import annotations

import gzip
import importlib.util
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from accel_sim.foundations.workload.operand_cache import arrays_through_cache

PIXEL_MAX = 16.0        # load_digits pixels are integers 0 .. 16
TEST_FRACTION = 0.3     # held-out fraction (stratified)
SPLIT_SEED = 0


@dataclass(frozen=True, eq=False)
class DigitsData:
    """Train / test split: inputs in [0, 1] (float32, one row per image), integer labels."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray

    @property
    def features(self) -> int:
        return int(self.x_train.shape[1])

    @property
    def classes(self) -> int:
        return int(max(self.y_train.max(), self.y_test.max()) + 1)


@lru_cache(maxsize=4)
def load_digits_split(test_fraction: float = TEST_FRACTION, seed: int = SPLIT_SEED) -> DigitsData:
    """A fixed, seeded, stratified split of ``sklearn.datasets.load_digits``."""
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction}")
    arrays = _shipped_split() if (test_fraction, seed) == (TEST_FRACTION, SPLIT_SEED) else None
    if arrays is None:
        arrays = arrays_through_cache(f"digits_split_{_sklearn_version()}_{test_fraction!r}_{seed}",
                                      lambda: _split(test_fraction, seed))
    for array in arrays.values():
        array.setflags(write=False)
    return DigitsData(arrays["x_train"], arrays["y_train"], arrays["x_test"], arrays["y_test"])


SPLIT_FILE = Path(__file__).parent / "data" / "digits_split.txt"


def _shipped_split() -> dict[str, np.ndarray] | None:
    """The default split without importing scikit-learn (~1.4 CPU-s): its digits file read as its
    ``load_digits`` reads it, split by the row indices its ``train_test_split`` gives (shipped in
    :data:`SPLIT_FILE`, checked against it by a test): the same arrays. None when the file is not where
    scikit-learn keeps it (then scikit-learn itself is used)."""
    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(spec.submodule_search_locations[0]) / "datasets" / "data" / "digits.csv.gz"
    try:
        with gzip.open(path, mode="rt", encoding="utf-8") as file:
            table = np.loadtxt(file, delimiter=",")
        lines = [line for line in SPLIT_FILE.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    except (OSError, ValueError):
        return None
    train, test = (np.array(line.split(), dtype=np.int64) for line in lines)
    if table.ndim != 2 or table.shape[0] != train.size + test.size:
        return None
    x = (table[:, :-1] / PIXEL_MAX).astype(np.float32)
    y = table[:, -1].astype(int, copy=False).astype(np.int64)
    return {"x_train": x[train], "y_train": y[train], "x_test": x[test], "y_test": y[test]}


def _sklearn_version() -> str:
    """The installed scikit-learn's version, read without importing it ("none" when it is not installed)."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("scikit-learn")
    except PackageNotFoundError:
        return "none"


def _split(test_fraction: float, seed: int) -> dict[str, np.ndarray]:
    """The split from scikit-learn: made once per ``reproduce all`` (its worker processes read it back from the
    shared operand folder, :func:`~accel_sim.foundations.workload.operand_cache.arrays_through_cache`: the same
    bytes), as scikit-learn's import costs about 1.4 CPU-s."""
    try:
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("the digits classifier needs scikit-learn: python -m pip install -e '.[digits]' "
                          "(from the clone's folder), or pip install scikit-learn") from err
    data = load_digits()
    x = (data.data / PIXEL_MAX).astype(np.float32)
    y = data.target.astype(np.int64)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=test_fraction, random_state=seed,
                                                        stratify=y)
    return {"x_train": x_train, "y_train": y_train, "x_test": x_test, "y_test": y_test}
