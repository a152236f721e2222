"""Fixtures of the SIMT tests."""
from __future__ import annotations

import numpy as np
import pytest

from tests.simt.archs import payload_layer


@pytest.fixture()
def two_rows(tmp_path):
    """A (2 x 64): row 0 has 40 non-zeros in columns 0..39, row 1 one in column 63. Weights are A^T."""
    weights = np.zeros((64, 2), dtype=np.float32)
    weights[:40, 0] = 1.0
    weights[63, 1] = 2.0
    return payload_layer(tmp_path, "spmv", 1, weights)
