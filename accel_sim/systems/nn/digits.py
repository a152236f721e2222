"""The handwritten digits scikit-learn ships (1,797 8x8 images, 10 classes), split and scaled.

scikit-learn is optional (the ``digits`` extra); it is imported only here, when the data
are first needed, with a clear error if it is missing.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

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
    for array in (x_train, x_test, y_train, y_test):
        array.setflags(write=False)
    return DigitsData(x_train, y_train, x_test, y_test)
