"""The dense dot-product PE of DCNN / DCNN-opt (paper, Table 6), fast path.

The comparison designs keep SCNN's array, tiles and buffers but compute like a dense
accelerator: each PE computes its owned outputs as dot products of length C x R x S (per
pass: the chunk's channels x R x S), F x I multipliers wide, all output channels in one group
(no Cartesian product, so no scatter crossbar and no halo: the input halo its windows read
from neighbouring tiles is not counted as traffic). Per (pass, PE): ``owned x K`` dot
products of ``ceil(reduction / (F x I))`` beats each; each beat reads I weight-FIFO entries.
"""
from __future__ import annotations

import numpy as np

from accel_sim.models.scnn.fast.drain import DrainGeometry
from accel_sim.models.scnn.fast.pe import PeWork
from accel_sim.models.scnn.plan import Plan


def dense_work(plan: Plan, geometry: DrainGeometry) -> PeWork:
    """Work of one (image, conv group), arrays (passes, PEs, 1)."""
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    reduction = np.diff(tiling.channel_bounds) * view.r * view.s            # (chunks,)
    lanes = spec.multipliers_per_pe
    owned = geometry.owned[:, None, :, None]                                 # (tiles, 1, PEs, 1)
    busy = owned * view.out_channels * (-(-reduction // lanes))[None, :, None, None]
    products = owned * view.out_channels * reduction[None, :, None, None]
    passes = (tiling.passes, spec.pes, 1)
    return PeWork(busy.reshape(passes), products.reshape(passes), busy.reshape(passes),
                  int(geometry.owned.sum()) * int(reduction.sum()), int(busy.sum()) * spec.mult_i, 0, 0)
