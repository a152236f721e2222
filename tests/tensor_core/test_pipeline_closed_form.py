"""The fast path's closed-form pipeline equals its stage-by-stage recurrence (a buffer ring deeper than the
stages never gates a load), with and without the cp.async fill overlapping each stage's arrival."""
from __future__ import annotations

import numpy as np
import pytest

from accel_sim.models.tensor_core.fast.sm_pipeline import pipeline_finish, ring_pipeline_finish


@pytest.mark.parametrize("overlap", [True, False])
def test_closed_form_is_the_recurrence(overlap):
    rng = np.random.default_rng(7)

    def stage():
        reads = int(rng.integers(0, 30))
        return dict(load=int(rng.integers(0, 40)), shared_memory=reads + int(rng.integers(0, 30)),
                    shared_memory_reads=reads, compute=int(rng.integers(0, 40)))
    for _ in range(1500):
        stages, latency, full, last = int(rng.integers(1, 7)), int(rng.integers(0, 50)), stage(), stage()
        assert int(pipeline_finish(latency, stages, full, last, overlap)) == \
            int(ring_pipeline_finish(latency, stages, stages + 1, full, last, overlap)), (stages, latency, full, last)
