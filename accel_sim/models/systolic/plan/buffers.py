"""The three double-buffered SRAMs and their DRAM streams, sized from the config (pure).

SCALE-Sim gives the ifmap, filter and ofmap buffers one DRAM stream each. A buffer holds
``floor(bytes / word)`` words; in USER bandwidth mode each stream moves
``dram.bandwidth / word`` whole words per cycle; in CALC mode the output buffer drains one
word per array column per cycle (SCALE-Sim's ``ofmap_backing_bw = arr_col``) and reads are
stall-free. Output drains are posted writes (SCALE-Sim's ``write_port`` latency is 0).

A CALC read buffer below ``SETS`` (100) words is refused: SCALE-Sim's estimate buffer cuts it into
100 sets of ``floor(words / 100)`` words, so its sets are empty, never close, and the buffer counts
every distinct word once whatever its size (a 2-byte buffer would read less DRAM than 6 MiB).
"""
from __future__ import annotations

import math

from accel_sim.foundations.arch import ArchBase
from accel_sim.hardware.scalesim_scratchpad import SETS
from accel_sim.models.systolic.plan.operands import READ_OPERANDS
from accel_sim.models.systolic.spec import SystolicSpec

BITS_PER_BYTE = 8
MIN_BUFFER_WORDS = 2      # a double buffer needs at least one word in each half
OFMAP_WRITE_LATENCY = 0   # cycles: output drains are posted writes (SCALE-Sim write_port latency 0)
BUFFERS = ("ifmap", "filter", "ofmap")


def checked_spec(arch: ArchBase) -> SystolicSpec:
    """The arch's systolic section, refused when its buffers are not what the model simulates."""
    systolic = arch.section("systolic")
    if not all(getattr(systolic, f"{b}_sram").double_buffered for b in BUFFERS):
        raise ValueError(f"arch {arch.name!r}: the systolic model needs double-buffered SRAMs "
                         "(SCALE-Sim's only scratchpad organisation)")
    for buffer in BUFFERS:
        size = getattr(systolic, f"{buffer}_sram").size
        if size * BITS_PER_BYTE < MIN_BUFFER_WORDS * arch.word_bits:
            raise ValueError(f"arch {arch.name!r}: systolic.{buffer}_sram.size {size} B holds fewer than "
                             f"{MIN_BUFFER_WORDS} words of {arch.word_bits} bits (one per half of the double buffer)")
    if systolic.streaming and arch.dram.bandwidth_mode != "user":
        raise ValueError(f"arch {arch.name!r}: systolic.operand_fetch 'streaming' needs dram.bandwidth_mode 'user' "
                         f"(the operand streams move dram.bandwidth bytes per cycle), got {arch.dram.bandwidth_mode!r}")
    if arch.dram.bandwidth_mode == "calc":
        for buffer in READ_OPERANDS:
            words = capacity_words(arch, systolic, buffer)
            if words < SETS:
                raise ValueError(f"arch {arch.name!r}: systolic.{buffer}_sram.size {getattr(systolic, f'{buffer}_sram').size} B "
                                 f"holds {words} words of {arch.word_bits} bits, fewer than the {SETS} a read buffer needs "
                                 f"with dram.bandwidth_mode calc (SCALE-Sim's estimate buffer keeps {SETS} sets of "
                                 f"words // {SETS}: empty sets never fill, so it would never evict)")
    return systolic


def capacity_words(arch: ArchBase, spec: SystolicSpec, buffer: str) -> int:
    """Words a buffer holds (SCALE-Sim: ``floor(bytes / word size)``)."""
    return math.floor(getattr(spec, f"{buffer}_sram").size * BITS_PER_BYTE / arch.word_bits)


def dram_words_per_cycle(arch: ArchBase) -> int:
    """Words per cycle of each DRAM operand stream in USER mode (whole words, at least one)."""
    return max(1, math.floor(arch.dram.bandwidth * BITS_PER_BYTE / arch.word_bits))


def ofmap_line_words(arch: ArchBase, spec: SystolicSpec) -> int:
    """Width of the output buffer's drain lines: the DRAM stream in USER mode, one word per
    array column in CALC mode."""
    return dram_words_per_cycle(arch) if arch.dram.bandwidth_mode == "user" else spec.cols
