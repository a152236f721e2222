"""Generic PE array with one switch for its level of weight-sparsity support (issue 6), family
``pe_array``: ``plan`` -> ``fast`` / ``reference`` -> ``accounting``, listed in :mod:`.family`.

Organisation (output stationary): ``rows`` x ``cols`` PEs; a tile is ``rows`` filters x
``cols`` output pixels; each PE row shares one filter's weight stream, ``vector_width``
positions per cycle, and each PE reads its pixel's activation at the positions its row
processes. Tiles run filter tile by filter tile (outer), pixel tile by pixel tile (inner).
Each tile loads its pixels' activations once from the input buffer into a register file
per PE column (``K`` words deep; its size is not limited by the config, a simplification);
the rows read their activations there. Accumulators are drained while the next tile runs.
Groups of a grouped convolution run one after the other.

The levels (``pe_array.sparsity_support``):

- ``none``: weights stored dense (decompressed in memory): zeros travel through DRAM and
  SRAM and are multiplied.
- ``memory``: weights stored and moved compressed (``weight_format``: CSR, bitmap or N:M,
  footprints from :mod:`accel_sim.foundations.compress`); a decompressor between the weight buffer and
  the array expands them (its chunk decodes are counted; the config is refused unless it
  delivers ``vector_width`` positions per cycle, so cycles are those of ``none``). Zeros
  are multiplied.
- ``gating``: as ``memory``, and a MAC with a zero weight or a zero activation is gated
  (``mult_int/gated``): energy falls, cycles do not.
- ``skipping``: each row's index decoder feeds only the stored weights (non-zeros; N:M also
  its zero slots); rows finish on their own, the tile waits for the slowest. Activation
  zeros are still gated. Rows index the column register files independently, so each row
  reads its own activations there (in the dense levels one read serves every row).
- ``reassignment``: as skipping, and a row whose own stream is done takes the next chunks of
  busier rows of its window through a crossbar (weights in, one partial sum per pixel back
  per run of chunks taken from one row).

Hardware blocks, each in one module of ``fast/`` and of ``reference/``: the index decoder
(``decoder``; its formats and footprints in ``plan/decoder``), the PE datapath (``datapath``),
the work distribution under reassignment (``reassignment``) and the memory (``memory``; buffer
residency in ``plan/memory``).
"""
