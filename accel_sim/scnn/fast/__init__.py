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
the discrete-event reference (:mod:`accel_sim.scnn.reference`).
"""
from __future__ import annotations

from accel_sim.errors import SimulationError
from accel_sim.scnn.counters import SCNNCounters
from accel_sim.scnn.fast.dense import dense_work
from accel_sim.scnn.fast.drain import drain_cycles, drain_geometry
from accel_sim.scnn.fast.dram import chunk_partial_sums, pass_traffic
from accel_sim.scnn.fast.multipliers import useful_products
from accel_sim.scnn.fast.pe import cartesian_work
from accel_sim.scnn.fast.timeline import pass_timing
from accel_sim.scnn.fast.vectors import weight_vectors
from accel_sim.scnn.plan import Plan


def fast(plan: Plan, max_cycles: int | None = None) -> SCNNCounters:
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    geometry = drain_geometry(spec, tiling, view.out_h, view.out_w)
    drains = drain_cycles(spec, geometry, tiling.group_channels(view.out_channels), halo=not plan.dcnn)
    psums = chunk_partial_sums(plan, geometry)
    n_chunks = tiling.channel_chunks
    time = {"compute": 0, "load": 0, "stream": 0, "idle": 0, "groups": 0}
    work_sums = {"busy": 0, "steps": 0, "products": 0, "iaram_reads": 0, "fifo_reads": 0, "fifo_writes": 0,
                 "fifo_overflow": 0, "dram_read": 0, "dram_write": 0, "spilled": 0}
    iaram_write_bits, oaram_write_bits = [], []
    for g in range(view.groups):
        weights = None if plan.dcnn else weight_vectors(spec, view, tiling, plan.weight_mask[g])
        for b in range(view.batch):
            work = dense_work(plan, geometry) if plan.dcnn else cartesian_work(plan, b, g, weights)
            traffic = pass_traffic(plan, b, g, geometry, psums)
            for t in range(tiling.temporal_tiles):
                for chunk in range(n_chunks):
                    timing = pass_timing(work.busy[t * n_chunks + chunk], drains[t],
                                         int(traffic.load_cycles[t, chunk]), int(traffic.stream_cycles[t, chunk]))
                    time["compute"] += timing.compute_cycles
                    time["load"] += timing.load_stall
                    time["stream"] += timing.stream_stall
                    time["idle"] += timing.barrier_idle
                    time["groups"] += timing.group_cycles
            for key, value in (("busy", work.busy.sum()), ("steps", work.steps.sum()),
                               ("products", work.products.sum()), ("iaram_reads", work.iaram_reads),
                               ("fifo_reads", work.fifo_reads), ("fifo_writes", work.fifo_writes),
                               ("fifo_overflow", work.fifo_overflow_blocks), ("dram_read", traffic.read_bits.sum()),
                               ("dram_write", traffic.write_bits.sum()), ("spilled", traffic.spilled_words)):
                work_sums[key] += int(value)
            iaram_write_bits.append(traffic.iaram_write_bits)
            oaram_write_bits.append(int(plan.output_bits[b, g].sum()))
    cycles = time["compute"] + time["load"] + time["stream"]
    if max_cycles is not None and cycles > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {cycles} cycles exceed the max_cycles guard {max_cycles}")
    images = view.batch * view.groups
    products = work_sums["products"]
    ppu_outputs = images * int(geometry.owned.sum()) * view.out_channels
    macs_issued = products if plan.dcnn else useful_products(view, plan.weight_mask, plan.input_mask)
    return SCNNCounters(
        compute_cycles=time["compute"], input_load_stall_cycles=time["load"], dram_stream_stall_cycles=time["stream"],
        barrier_idle_cycles=time["idle"], group_cycles=time["groups"], pe_busy_cycles=work_sums["busy"],
        steps=work_sums["steps"], bank_conflict_cycles=work_sums["busy"] - work_sums["steps"],
        products=products, macs_issued=macs_issued,
        multiplier_ops=(useful_products(view, plan.weights != 0, plan.inputs != 0)
                        if plan.traits.gate_zero_operands else products),
        crossbar_transfers=0 if plan.dcnn else products, accumulator_adds=products,
        accumulator_reads=0 if plan.dcnn else products, accumulator_writes=ppu_outputs if plan.dcnn else products,
        iaram_reads=work_sums["iaram_reads"], iaram_write_bits=tuple(iaram_write_bits),
        oaram_write_bits=tuple(oaram_write_bits), weight_fifo_reads=work_sums["fifo_reads"],
        weight_fifo_writes=work_sums["fifo_writes"], weight_fifo_overflow_blocks=work_sums["fifo_overflow"],
        psum_oaram_words=images * psums.oaram_words,
        halo_link_words=0 if plan.dcnn else images * int(geometry.link.sum()) * view.out_channels,
        spilled_partial_sums=work_sums["spilled"], ppu_outputs=ppu_outputs,
        dram_read_bits=work_sums["dram_read"], dram_write_bits=work_sums["dram_write"])
