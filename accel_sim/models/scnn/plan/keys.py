"""Keys of the pieces of a plan the archs of one run share on a layer
(:class:`~accel_sim.foundations.contract.BatchMemo`): every setting a piece is computed from.

Several pieces of a design's plan and fast path depend on only a few of its settings: the weights'
non-zeros (every design that skips or compresses weights), the tiling (the designs that skip
activations, or not), the F-vectors (SCNN and SCNN-SparseW), the I-vectors (SCNN and SCNN-SparseA).
Their keys hold :func:`spec_key`, :func:`tiling_key` and the design traits the piece reads.

Both keys are read several times per layer and arch (a tiling's key hashes its arrays' bytes): each is
computed once per (frozen) object and kept in a small table by the object's identity (the object is held
there, so its identity is not reused while its key is kept).
"""
from __future__ import annotations

import dataclasses


from accel_sim.foundations.memo import content_key
from accel_sim.models.scnn.plan.tiling import Tiling
from accel_sim.models.scnn.spec import SCNNSpec

KEPT_KEYS = 256   # objects whose key is kept (the oldest goes first)
_kept: dict[tuple[int, str], tuple[object, tuple]] = {}


def _kept_key(value, compute, kind: str = "") -> tuple:
    hit = _kept.get((id(value), kind))
    if hit is not None and hit[0] is value:
        return hit[1]
    key = compute(value)
    if len(_kept) >= KEPT_KEYS:
        _kept.pop(next(iter(_kept)), None)
    _kept[id(value), kind] = (value, key)
    return key


def _spec_key(spec: SCNNSpec) -> tuple:
    return tuple(getattr(spec, f.name) for f in dataclasses.fields(spec) if f.name != "design")


def spec_key(spec: SCNNSpec) -> tuple:
    """Every setting of ``spec`` but the design (the caller adds the design traits it reads)."""
    return _kept_key(spec, _spec_key)


# Settings the PEs' work (steps, products, busy cycles: :func:`accel_sim.models.scnn.fast.pe.cartesian_work` and
# what it calls) never reads: they act through the tiling (which the PE work's key holds) or after the PEs
# (drains, DRAM, partial sums). A setting not listed here is in :func:`pe_key`.
NOT_READ_BY_PES = frozenset({"design", "accumulator_entries", "accumulator_bits", "index_bits", "iaram_size",
                             "oaram_size", "kc_rule", "kc", "partition", "halo_words_per_cycle",
                             "ppu_outputs_per_cycle", "halo_charge", "dram", "dense_partial_sums", "dram_tile_order",
                             "dram_bandwidth"})


def _pe_key(spec: SCNNSpec) -> tuple:
    return tuple((f.name, getattr(spec, f.name)) for f in dataclasses.fields(spec) if f.name not in NOT_READ_BY_PES)


def pe_key(spec: SCNNSpec) -> tuple:
    """The settings of ``spec`` the PEs' work reads (all but :data:`NOT_READ_BY_PES`): archs that differ only
    in the others (``dram: ignored``, ``halo_charge``, ...) share it on a layer with the same tiling."""
    return _kept_key(spec, _pe_key, "pe")


# Settings the operand vectors (F-vectors, I-vectors and their bank terms: :mod:`accel_sim.models.scnn.fast.vectors`)
# and the activations' half of the FIFO loops' tables never read, beyond :data:`NOT_READ_BY_PES`: how the steps are
# scattered, buffered and synchronised.
NOT_READ_BY_VECTORS = NOT_READ_BY_PES | {"scatter", "scatter_fifo_depth", "barrier", "weight_fifo_entries",
                                         "out_of_plane"}


def _vectors_key(spec: SCNNSpec) -> tuple:
    return tuple((f.name, getattr(spec, f.name)) for f in dataclasses.fields(spec)
                 if f.name not in NOT_READ_BY_VECTORS)


def vectors_key(spec: SCNNSpec) -> tuple:
    """The settings of ``spec`` the operand vectors read (all but :data:`NOT_READ_BY_VECTORS`): archs that
    differ only in their scatter network share them."""
    return _kept_key(spec, _vectors_key, "vectors")


# Settings the activations' half of the vectors (the non-zeros' pass, segment, PE, bank term and output-grid
# position: :func:`accel_sim.models.scnn.fast.vectors.activation_elements`, the I-vectors cut from them and the
# FIFO loops' I-vector tables) never read, beyond :data:`NOT_READ_BY_VECTORS`: the weights' side (their FIFO order,
# F) and the bank mapping, since an activation's bank term is ``bank_of(k=0, y, x)``, where the mappings'
# channel coefficients multiply 0 (DNNsim's hash reads the positions, listed for every mapping).
NOT_READ_BY_ACTIVATIONS = NOT_READ_BY_VECTORS | {"weight_order", "mult_f", "bank_mapping"}


def _activation_key(spec: SCNNSpec) -> tuple:
    return tuple((f.name, getattr(spec, f.name)) for f in dataclasses.fields(spec)
                 if f.name not in NOT_READ_BY_ACTIVATIONS)


def activation_key(spec: SCNNSpec) -> tuple:
    """The settings of ``spec`` the activations' pieces read (all but :data:`NOT_READ_BY_ACTIVATIONS`): archs
    that differ only in their weights' order or bank mapping share them."""
    return _kept_key(spec, _activation_key, "activations")


# Settings the zero-run encoders (:mod:`.encoding`: the bits of output tiles and weight blocks) never read: they
# read the PE grid, the index width, the weight order and (through the conv view) the FC layout; the rest acts
# through the tiling (in their keys) or not at all.
NOT_READ_BY_ENCODERS = frozenset({"design", "mult_f", "mult_i", "accumulator_banks", "accumulator_entries",
                                  "accumulator_bits", "iaram_size", "oaram_size", "bank_mapping", "kc_rule", "kc",
                                  "halo_words_per_cycle", "ppu_outputs_per_cycle", "partition", "barrier",
                                  "halo_charge", "out_of_plane", "dram", "stride_phases", "scatter",
                                  "scatter_fifo_depth", "dense_partial_sums", "dram_tile_order", "dram_bandwidth",
                                  "weight_fifo_entries"})


def _encoding_key(spec: SCNNSpec) -> tuple:
    return tuple((f.name, getattr(spec, f.name)) for f in dataclasses.fields(spec)
                 if f.name not in NOT_READ_BY_ENCODERS)


def encoding_key(spec: SCNNSpec) -> tuple:
    """The settings of ``spec`` the encoders read (all but :data:`NOT_READ_BY_ENCODERS`)."""
    return _kept_key(spec, _encoding_key, "encoding")


def tiling_key(tiling: Tiling) -> tuple:
    """Every number of ``tiling`` (its arrays by content)."""
    return _kept_key(tiling, content_key)
