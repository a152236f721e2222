"""Discrete-event reference of Eyeriss v1 (SimPy), for tests and small layers.

Agents:

- the **DRAM link** (a :class:`~accel_sim.hardware.Link` at :class:`~accel_sim.hardware.BytesPerCycle`: ``link_bits`` at ``link_clock``
  in core cycles): ifmap tiles, each pass's filters, ofmap tiles;
- the **PE array**: one process per processing pass; it ramps up (the pass's weights over the
  filter network, ``filter_gin_words`` a cycle) and computes (the busiest PE's MACs, one a cycle, or
  longer when the ifmap GIN, ``ifmap_gin_words`` a cycle, cannot multicast the pass's ifmap values in
  that time);
- the **top-level control**: walks the loop nest (group, strip, images, block of ``m`` filters,
  block of channels, pass). Before a block of channels it loads its ifmaps and waits; each pass
  starts the array and the DRAM fetch of its filters together and ends when both are done; after
  the last block of channels it dumps the ofmaps and waits (the chip overlaps neither).

Events are per pass and per DRAM burst; every access is counted where it happens, pass by pass.
"""
from __future__ import annotations

import simpy

from accel_sim.hardware import BytesPerCycle, Link, run_until_done
from accel_sim.hardware.recorder import BUSY, COMPUTE, Recorder
from accel_sim.models.eyeriss.counters import EyerissCounters
from accel_sim.models.eyeriss.plan import EyerissPlan, blocks, window_rows


class _Tally:
    def __init__(self) -> None:
        self.counts = dict.fromkeys(
            ("processing_cycles", "network_wait_cycles", "passes", "macs_dense", "macs_gated", "glb_ifmap_writes", "glb_ifmap_reads",
             "glb_filter_words", "glb_psum_reads", "glb_psum_writes", "ifmap_spad_writes", "filter_spad_writes",
             "local_link_transfers", "ifmap_load_cycles", "ofmap_dump_cycles", "pass_cycles"), 0)

    def add(self, **values: int) -> None:
        for name, value in values.items():
            self.counts[name] += value


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


ARRAY = "PE array"   # the recorder's agent for the passes and the array's stalls


def _array(env: simpy.Environment, plan: EyerissPlan, images: int, channels: int, filters: int, rows: int,
           tally: _Tally, recorder: Recorder | None = None, gated: int = 0):
    """One processing pass on the PE array (``gated``: its MACs on zero ifmaps, for the recorder)."""
    shape, mp, spec = plan.shape, plan.mapping, plan.spec
    weights = filters * channels * shape.filter_rows * shape.filter_cols
    ramp = _ceil(weights, spec.filter_gin_words)
    macs_per_pe = images * _ceil(filters, mp.t) * _ceil(channels, mp.r) * shape.out_cols * shape.filter_cols
    ifmap_words = images * channels * window_rows(shape, rows) * shape.width
    work = max(macs_per_pe, _ceil(ifmap_words, spec.ifmap_gin_words))
    dense = images * channels * filters * rows * shape.out_cols * shape.filter_rows * shape.filter_cols
    yield env.timeout(ramp + work)
    if recorder is not None:
        if ramp:
            recorder.record(ARRAY, BUSY, env.now - ramp - work, env.now - work, "ramp-up: filters in")
        recorder.record(ARRAY, COMPUTE, env.now - work, env.now, f"pass {tally.counts['passes']}",
                        macs=dense - gated)
    tally.add(processing_cycles=ramp + work, network_wait_cycles=work - macs_per_pe, passes=1,
              macs_dense=dense,
              glb_ifmap_reads=images * channels * window_rows(shape, rows) * shape.width,
              glb_filter_words=weights, glb_psum_writes=images * filters * rows * shape.out_cols,
              ifmap_spad_writes=images * channels * shape.width * shape.filter_rows * rows * _ceil(filters, mp.p),
              filter_spad_writes=weights * rows,
              local_link_transfers=images * filters * rows * shape.out_cols
              * (shape.filter_rows * _ceil(channels, mp.q) - 1))


def _control(env: simpy.Environment, plan: EyerissPlan, bus: Link, tally: _Tally, recorder: Recorder | None = None):
    shape, mp, word = plan.shape, plan.mapping, plan.arch.word_bits
    image_blocks = blocks(shape.images, mp.n)
    channel_blocks = blocks(shape.channels, mp.q * mp.r)
    for g in range(shape.groups):
        for s, rows in enumerate(plan.strips):
            n0 = 0
            for images in image_blocks:
                m0 = 0
                for m_size in blocks(shape.filters, mp.m):
                    c0 = 0
                    for c_index, channels in enumerate(channel_blocks):
                        start = env.now
                        bits = int(plan.ifmap_bits[g, n0:n0 + images, c0:c0 + channels, s].sum())
                        yield bus.get(bits, f"ifmap g{g} s{s}")
                        if recorder is not None and env.now > start:
                            recorder.stall(ARRAY, start, env.now, "ifmaps from DRAM")
                        tally.add(ifmap_load_cycles=int(env.now - start),
                                  glb_ifmap_writes=images * channels * window_rows(shape, rows) * shape.width)
                        zeros = 0
                        if plan.spec.zero_gating:
                            zeros = int(plan.zero_uses[g, n0:n0 + images, c0:c0 + channels, s].sum())
                            tally.add(macs_gated=zeros * m_size)
                        for filters in blocks(m_size, mp.p * mp.t):
                            start = env.now
                            weights = filters * channels * shape.filter_rows * shape.filter_cols
                            busy = tally.counts["processing_cycles"]
                            yield env.all_of([env.process(_array(env, plan, images, channels, filters, rows, tally,
                                                                 recorder, zeros * filters)),
                                              bus.get(weights * word, f"filters g{g} s{s}")])
                            tally.add(pass_cycles=int(env.now - start))
                            busy = start + tally.counts["processing_cycles"] - busy
                            if recorder is not None and env.now > busy:
                                recorder.stall(ARRAY, busy, env.now, "filters from DRAM")
                        if c_index:
                            tally.add(glb_psum_reads=images * m_size * rows * shape.out_cols)
                        c0 += channels
                    start = env.now
                    tally.add(glb_psum_reads=images * m_size * rows * shape.out_cols)
                    bits = int(plan.ofmap_bits[g, n0:n0 + images, m0:m0 + m_size, s].sum())
                    yield bus.put(bits, f"ofmap g{g} s{s}")
                    if recorder is not None and env.now > start:
                        recorder.stall(ARRAY, start, env.now, "ofmaps to DRAM")
                    tally.add(ofmap_dump_cycles=int(env.now - start))
                    m0 += m_size
                n0 += images


def reference(plan: EyerissPlan, max_cycles: int | None = None, recorder: Recorder | None = None) -> EyerissCounters:
    """``recorder`` (teaching traces): each pass's ramp-up and compute, the array's waits for DRAM
    (ifmaps, filters, ofmaps) and every DRAM burst."""
    env = simpy.Environment()
    if recorder is not None:
        recorder.agent(ARRAY, "pe")
    bus = Link(env, "dram_link", BytesPerCycle(plan.bus_bytes_per_cycle), recorder=recorder)   # amounts in bits
    tally = _Tally()
    done = env.process(_control(env, plan, bus, tally, recorder))
    run_until_done(env, done, max_cycles, plan.layer.name)
    c = tally.counts
    filter_bits = c["glb_filter_words"] * plan.arch.word_bits
    return EyerissCounters(
        cycles=int(env.now), processing_cycles=c["processing_cycles"], network_wait_cycles=c["network_wait_cycles"],
        filter_wait_cycles=c["pass_cycles"] - c["processing_cycles"], ifmap_load_cycles=c["ifmap_load_cycles"],
        ofmap_dump_cycles=c["ofmap_dump_cycles"], passes=c["passes"], macs_issued=c["macs_dense"] - c["macs_gated"],
        macs_gated=c["macs_gated"], dram_ifmap_read_bits=bus.counter.read_bits - filter_bits,
        dram_filter_read_bits=filter_bits, dram_ofmap_write_bits=bus.counter.write_bits,
        glb_ifmap_writes=c["glb_ifmap_writes"], glb_ifmap_reads=c["glb_ifmap_reads"],
        glb_filter_words=c["glb_filter_words"], glb_psum_reads=c["glb_psum_reads"],
        glb_psum_writes=c["glb_psum_writes"], ifmap_spad_writes=c["ifmap_spad_writes"],
        filter_spad_writes=c["filter_spad_writes"], local_link_transfers=c["local_link_transfers"])
