"""Fast path of the SCNN family: vectorised counting, one hardware block per module.

- :mod:`.vectors`: F-vectors (weight FIFO) and I-vectors (IARAM) of each PE;
- :mod:`.crossbar`: the scatter crossbar and accumulator bank conflicts (bit-sliced for
  A <= 32, counting for any A);
- :mod:`.pe`: the Cartesian-product PE's busy cycles and work per (pass, PE, group);
- :mod:`.dense`: the dense dot-product PE of DCNN / DCNN-opt;
- :mod:`.multipliers`: useful and energised multiplications;
- :mod:`.drain`: halo exchange and PPU drain;
- :mod:`.dram`: DRAM traffic of every pass;
- :mod:`.timeline`: barriers, double-buffered drains and DRAM overlap of one pass (closed form).

Batch images and conv groups run one after the other; each (image, conv group) runs its
passes (temporal tile, channel chunk) one after the other. Checked field by field against
the discrete-event reference (:mod:`accel_sim.models.scnn.reference`).
"""
from __future__ import annotations

import numpy as np

from accel_sim.foundations.contract import block_piece
from accel_sim.foundations.errors import SimulationError
from accel_sim.models.scnn.counters import SCNNCounters
from accel_sim.models.scnn.fast.dense import dense_work
from accel_sim.models.scnn.fast.drain import drain_cycles, drain_geometry, largest_halo_region
from accel_sim.models.scnn.fast.dram import PassTraffic, chunk_partial_sums, pass_traffic
from accel_sim.models.scnn.fast.multipliers import useful_products
from accel_sim.models.scnn.fast.pe import PeWork, cartesian_work
from accel_sim.models.scnn.fast.products import product_level
from accel_sim.models.scnn.fast.scatter_fifo import terms_only
from accel_sim.models.scnn.fast.shape_pieces import shape_piece
from accel_sim.models.scnn.fast.timeline import PassTiming, pass_timing
from accel_sim.models.scnn.fast.vectors import WeightVectors, weight_vectors
from accel_sim.models.scnn.plan import Plan
from accel_sim.models.scnn.plan.keys import pe_key, tiling_key, vectors_key


def fast(plan: Plan, max_cycles: int | None = None) -> SCNNCounters:
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    geometry = drain_geometry(spec, tiling, view.out_h, view.out_w)
    serial = spec.halo_charge == "largest_region_serial"
    region = largest_halo_region(spec, tiling, view.r, view.s, view.pad_top, view.pad_left) if serial else None
    drains = drain_cycles(spec, geometry, tiling.group_channels(view.out_channels), not plan.dcnn, region)
    timed_dram = spec.dram == "modelled"
    psums = chunk_partial_sums(plan, geometry)
    n_chunks = tiling.channel_chunks
    per_weight = product_level(plan)   # the per-weight fields of the F-vectors: only the product-level counts
    per_weight = "term" if per_weight and terms_only(plan) else per_weight   # the FIFO loops: bank terms only
    works: list[PeWork] = []          # per (conv group, image)
    traffic: list[PassTraffic] = []
    timings: list[PassTiming] = []    # per pass of every (conv group, image)
    for g in range(view.groups):
        def weights(g=g):   # made only when some image's PE work is not shared
            at = (vectors_key(spec), tiling.kc, tiling.out_groups, tiling.acc_h, tiling.acc_w, per_weight, g)

            def make() -> WeightVectors:
                return weight_vectors(spec, view, tiling, None, plan.mask_nonzeros(g), per_weight)
            return plan.memo.get(plan.layer, ("weight vectors", plan.traits.skip_weights) + at,
                                 make if plan.traits.skip_weights else lambda: shape_piece(("F-vectors", view) + at,
                                                                                           make))
        for b in range(view.batch):   # archs differing only in what the PEs do not read share their work
            at = ("pe work", pe_key(spec), tiling_key(tiling), plan.traits.skip_weights, plan.traits.skip_activations,
                  per_weight, b, g)

            def work_of(b=b, g=g) -> PeWork:   # a run of the block that met this layer's piece before (not a file's)
                return cartesian_work(plan, b, g, weights(g)) if plan.layer.operands.payload is not None else \
                    block_piece(("SCNN",) + at + (plan.layer,), lambda: cartesian_work(plan, b, g, weights(g)))
            work = dense_work(plan, geometry) if plan.dcnn else plan.memo.get(plan.layer, at, work_of)
            moved = pass_traffic(plan, b, g, geometry, psums)
            per_pass = work.busy_channels if spec.barrier == "group_channel" else work.busy
            timings += [pass_timing(per_pass[t * n_chunks + chunk], drains[t],
                                    int(moved.load_cycles[t, chunk]) if timed_dram else 0,
                                    int(moved.stream_cycles[t, chunk]) if timed_dram else 0, 1 if serial else 2)
                        for t in range(tiling.temporal_tiles) for chunk in range(n_chunks)]
            works.append(work)
            traffic.append(moved)
    compute = sum(t.compute_cycles for t in timings)
    load, stream = sum(t.load_stall for t in timings), sum(t.stream_stall for t in timings)
    if max_cycles is not None and compute + load + stream > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {compute + load + stream} cycles exceed the max_cycles guard "
                              f"{max_cycles}")
    images = view.batch * view.groups
    busy, steps = sum(int(w.busy.sum()) for w in works), sum(int(w.steps.sum()) for w in works)
    products = sum(int(w.products.sum()) for w in works)
    ppu_outputs = images * int(geometry.owned.sum()) * view.out_channels
    if plan.dcnn:
        macs = products
    elif spec.stride_phases == "dnnsim":   # DNNsim's pairing: the in-plane products it multiplies
        macs = sum(w.in_plane for w in works)
    else:   # the operands' masks alone (every Cartesian design skipping the same operands shares the count)
        macs = plan.memo.get(plan.layer, ("useful products", spec.fc_layout, plan.traits.skip_weights,
                                          plan.traits.skip_activations),
                             lambda: useful_products(view, plan.weight_counts(), plan.input_mask))
    banked = macs if spec.out_of_plane == "slot_only" and not plan.dcnn else products   # products into a bank
    return SCNNCounters(
        compute_cycles=compute, input_load_stall_cycles=load, dram_stream_stall_cycles=stream,
        barrier_idle_cycles=sum(t.barrier_idle for t in timings), group_cycles=sum(t.group_cycles for t in timings),
        pe_busy_cycles=busy, steps=steps, bank_conflict_cycles=busy - steps, products=products,
        macs_issued=macs,
        multiplier_ops=(plan.memo.get(plan.layer, ("energised products", spec.fc_layout), lambda: useful_products(
            view, (plan.weights != 0).sum(axis=1, dtype=np.int64), plan.inputs != 0))
                        if plan.traits.gate_zero_operands else products),
        crossbar_transfers=0 if plan.dcnn else banked, accumulator_adds=banked,
        accumulator_reads=0 if plan.dcnn else banked, accumulator_writes=ppu_outputs if plan.dcnn else banked,
        iaram_reads=sum(w.iaram_reads for w in works),
        iaram_write_bits=tuple(moved.iaram_write_bits for moved in traffic),
        oaram_write_bits=tuple(int(plan.output_bits[b, g].sum()) for g in range(view.groups)
                               for b in range(view.batch)),
        weight_fifo_reads=sum(w.fifo_reads for w in works), weight_fifo_writes=sum(w.fifo_writes for w in works),
        weight_fifo_overflow_blocks=sum(w.fifo_overflow_blocks for w in works),
        psum_oaram_words=images * psums.oaram_words,
        halo_link_words=0 if plan.dcnn else images * int(geometry.link.sum()) * view.out_channels,
        spilled_partial_sums=sum(moved.spilled_words for moved in traffic), ppu_outputs=ppu_outputs,
        dram_read_bits=sum(int(moved.read_bits.sum()) for moved in traffic),
        dram_write_bits=sum(int(moved.write_bits.sum()) for moved in traffic))
