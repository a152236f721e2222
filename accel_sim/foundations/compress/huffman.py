"""Canonical Huffman coding of a stream of integer symbols (weight codes, relative indices).

Deep Compression (Han et al., ICLR 2016) Huffman-codes the weight-sharing codes and the
relative indices of the sparse format. The code is canonical (codes assigned in order of
(length, symbol), as in DEFLATE, RFC 1951 Sec. 3.2.2), so the code lengths alone define it.

Deterministic tie-breaking: when building the tree, nodes of equal weight are merged in
order of creation, leaves first in increasing symbol order. A stream with a single
distinct symbol gets a 1-bit code (a decoder still needs one bit per symbol), so its
coded size is ``n_symbols`` bits against an entropy of 0.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from accel_sim.foundations.compress._checks import as_finite_array


@dataclass(frozen=True, eq=False)
class HuffmanResult:
    """A coded stream and its cost.

    Attributes:
        bits: the coded stream, one 0/1 per element (uint8).
        code_lengths: code length in bits of every symbol that occurs.
        n_symbols: number of symbols in the stream.
        coded_bits: ``len(bits)``.
        entropy_bits: Shannon bound ``n_symbols x H`` of the stream's empirical distribution.
        dtype: dtype of the original stream (restored by :func:`huffman_decode`).
    """

    bits: np.ndarray
    code_lengths: dict[int, int]
    n_symbols: int
    coded_bits: int
    entropy_bits: float
    dtype: np.dtype

    @property
    def bits_per_symbol(self) -> float:
        """Average code length (0 for an empty stream)."""
        return self.coded_bits / self.n_symbols if self.n_symbols else 0.0

    def codes(self) -> dict[int, str]:
        """The canonical code of every symbol, as a string of '0'/'1'."""
        return {symbol: format(code, f"0{length}b") for symbol, (code, length) in _canonical(self.code_lengths).items()}


def huffman_code_lengths(counts: dict[int, int]) -> dict[int, int]:
    """Huffman code length of every symbol with a positive count (deterministic ties)."""
    symbols = sorted(s for s, c in counts.items() if c > 0)
    if len(symbols) == 1:
        return {symbols[0]: 1}
    lengths = dict.fromkeys(symbols, 0)
    # heap entries: (weight, creation order, symbols under the node)
    heap = [(counts[s], order, [s]) for order, s in enumerate(symbols)]
    heapq.heapify(heap)
    order = len(heap)
    while len(heap) > 1:
        weight_a, _, left = heapq.heappop(heap)
        weight_b, _, right = heapq.heappop(heap)
        for s in left + right:
            lengths[s] += 1
        heapq.heappush(heap, (weight_a + weight_b, order, left + right))
        order += 1
    return lengths


def huffman_coded_size(symbols: np.ndarray) -> tuple[int, float]:
    """``(coded_bits, entropy_bits)`` of a 1-D integer stream, without building the bit stream.

    Same code lengths as :func:`huffman_encode` (so the same ``coded_bits``), for streams of
    millions of symbols where only the size is wanted.
    """
    stream = as_finite_array(symbols, "symbols", ndim=1)
    if stream.dtype.kind not in "biu":
        raise ValueError(f"symbols must be integers, got dtype {stream.dtype}")
    if stream.size == 0:
        return 0, 0.0
    values, counts = symbol_counts(stream)
    lengths = huffman_code_lengths({int(v): int(c) for v, c in zip(values, counts)})
    coded = int(sum(lengths[int(v)] * int(c) for v, c in zip(values, counts)))
    entropy = float(-np.sum(counts * np.log2(counts / stream.size)))
    return coded, entropy + 0.0


BINCOUNT_SPAN = 1 << 16   # symbols 0 .. this (or the stream's length, if longer) are counted by a table, not a sort


def symbol_counts(stream: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct symbols of a non-empty 1-D integer stream, ascending, and how often each occurs: what
    ``np.unique(stream, return_counts=True)`` gives. Small non-negative symbols (weight codes, relative
    indices) are counted in one pass (``np.bincount``) instead of sorting the stream."""
    low, high = int(stream.min()), int(stream.max())
    if low < 0 or high > max(BINCOUNT_SPAN, stream.size):
        return np.unique(stream, return_counts=True)
    counts = np.bincount(stream, minlength=high + 1)
    values = np.flatnonzero(counts)
    return values.astype(stream.dtype, copy=False), counts[values]


def huffman_encode(symbols: np.ndarray) -> HuffmanResult:
    """Canonical-Huffman code a 1-D stream of integer symbols."""
    stream = as_finite_array(symbols, "symbols", ndim=1)
    if stream.dtype.kind not in "biu":
        raise ValueError(f"symbols must be integers, got dtype {stream.dtype}")
    values, inverse, counts = np.unique(stream, return_inverse=True, return_counts=True)
    lengths = huffman_code_lengths({int(v): int(c) for v, c in zip(values, counts)})
    table = _canonical(lengths)
    longest = max((length for _, length in table.values()), default=0)
    code_bits = np.zeros((values.size, longest), dtype=np.uint8)  # row i: code of values[i], left aligned
    code_lengths = np.zeros(values.size, dtype=np.int64)
    for i, v in enumerate(values):
        code, length = table[int(v)]
        code_lengths[i] = length
        code_bits[i, :length] = [int(b) for b in format(code, f"0{length}b")]
    rows = code_bits[inverse]
    bits = rows[np.arange(longest) < code_lengths[inverse][:, None]]
    probabilities = counts / stream.size if stream.size else counts.astype(np.float64)
    entropy = float(-np.sum(counts * np.log2(probabilities))) if stream.size else 0.0
    return HuffmanResult(
        bits=bits.astype(np.uint8),
        code_lengths=lengths,
        n_symbols=int(stream.size),
        coded_bits=int(bits.size),
        entropy_bits=entropy + 0.0,  # + 0.0 turns the -0.0 of a one-symbol stream into 0.0
        dtype=stream.dtype,
    )


def huffman_decode(result: HuffmanResult) -> np.ndarray:
    """The stream coded in ``result`` (canonical decoding with a prefix lookup table).

    Every bit position gets the integer of the next ``longest`` bits (vectorised); a table of
    ``2**longest`` entries maps it to (symbol, code length); the walk from code to code is a
    loop over symbols, not bits. Codes longer than :data:`DECODE_TABLE_MAX_BITS` fall back
    to bit-by-bit decoding.
    """
    table = _canonical(result.code_lengths)
    n_bits = int(result.bits.size)
    longest = max((length for _, length in table.values()), default=0)
    if longest > DECODE_TABLE_MAX_BITS:
        return _decode_bit_by_bit(result, table)
    if n_bits == 0:
        if result.n_symbols:
            raise ValueError(f"bits decode to 0 whole symbols, expected {result.n_symbols}")
        return np.empty(0, dtype=result.dtype)
    bits = np.concatenate((result.bits.astype(np.int64), np.zeros(longest, dtype=np.int64)))
    window = np.zeros(n_bits, dtype=np.int64)
    for offset in range(longest):
        window = (window << 1) | bits[offset : offset + n_bits]
    symbol_of = np.zeros(1 << longest, dtype=np.int64)
    length_of = np.zeros(1 << longest, dtype=np.int64)  # 0: no code starts with these bits
    for symbol, (code, length) in table.items():
        start, span = code << (longest - length), 1 << (longest - length)
        symbol_of[start : start + span] = symbol
        length_of[start : start + span] = length
    lengths = length_of[window].tolist()
    starts = []
    position = 0
    while position < n_bits:
        step = lengths[position]
        if step == 0:
            break
        starts.append(position)
        position += step
    if position != n_bits or len(starts) != result.n_symbols:
        raise ValueError(f"bits decode to {len(starts)} whole symbols, expected {result.n_symbols}")
    return symbol_of[window[np.asarray(starts, dtype=np.int64)]].astype(result.dtype)


DECODE_TABLE_MAX_BITS = 20  # lookup table of at most 2**20 entries (8 MiB per array)


def _decode_bit_by_bit(result: HuffmanResult, table: dict[int, tuple[int, int]]) -> np.ndarray:
    by_code = {(length, code): symbol for symbol, (code, length) in table.items()}
    out = np.empty(result.n_symbols, dtype=result.dtype)
    code = length = produced = 0
    for bit in result.bits.tolist():
        code, length = (code << 1) | bit, length + 1
        symbol = by_code.get((length, code))
        if symbol is not None:
            if produced == result.n_symbols:
                raise ValueError(f"bits decode to more than the expected {result.n_symbols} symbols")
            out[produced] = symbol
            produced += 1
            code = length = 0
    if produced != result.n_symbols or length:
        raise ValueError(f"bits decode to {produced} whole symbols, expected {result.n_symbols}")
    return out


def _canonical(lengths: dict[int, int]) -> dict[int, tuple[int, int]]:
    """(code, length) of every symbol: codes counted up in order of (length, symbol)."""
    table: dict[int, tuple[int, int]] = {}
    code = previous = 0
    for symbol, length in sorted(lengths.items(), key=lambda item: (item[1], item[0])):
        code <<= length - previous
        table[symbol] = (code, length)
        code += 1
        previous = length
    return table
