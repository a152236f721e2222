"""Where each input word of a convolution sits in its streamed ifmap's fetch sequence, in closed
form (fast path): the positions of an address's *copies*, without searching the sequence.

The im2col matrix (:func:`~accel_sim.models.systolic.plan.operands.ifmap_addresses`) holds input word
``(batch, Y, X, c)`` once per kernel position ``(kr, kc)`` that reads it: at output pixel
``((batch out_h + oy) out_w + ox)`` with ``oy stride_h = Y + pad_top - kr`` and
``ox stride_w = X + pad_left - kc`` (both exact divisions, ``0 <= oy < out_h``, ``0 <= ox < out_w``),
in the kept column of reduction index ``(kr kernel_w + kc) C + c`` (N:M keeps ``j % M < N``, the
``(j // M) N + j % M``-th kept index). The fetch sequence stacks the ``W``-wide blocks of the
``(other x edge)`` matrix and rolls the ``N x W`` stack out along anti-diagonals: cell ``(i, q)``
sits at (cells before diagonal ``i + q``) + (cells of that diagonal left of ``q``)
(:class:`~accel_sim.models.systolic.fast.fold_sets.StackedFetch`'s closed form, the full stack:
the fetch sequence keeps its padding words).

The sets holding an address follow from where each set begins. :mod:`.stacked_scan` asks this
on a miss (which set past the read window brings the address in first) and when a request is found
outside its own set (is another copy resident?), instead of comparing the window's words one by one.
"""
from __future__ import annotations

from accel_sim.models.systolic.fast.fold_sets import stacked_position
from accel_sim.models.systolic.plan.mapping import SystolicMapping
from accel_sim.models.systolic.plan.operands import edge_width, role
from accel_sim.foundations.workload.layer import ConvLayer


class IfmapCopies:
    """Fetch positions of every copy of an address of a streamed convolution ifmap."""

    def __init__(self, mapping: SystolicMapping, layer: ConvLayer):
        r = role(mapping, "ifmap")
        if r.kind != "stream" or mapping.row_wise is not None:
            raise ValueError("copies in closed form: a streamed convolution ifmap without row-wise sparsity")
        self.layer = layer
        self.channels = layer.in_channels // layer.groups
        self.words = layer.batch * layer.in_h * layer.in_w * self.channels   # addresses 0 .. words - 1
        self.nm = mapping.kept_pattern   # N:M, or 1:p for packed narrow elements
        self.pixels_are_rows = r.other_dim == "m"   # ws: (pixels x kept columns); os: (kept columns x pixels)
        self.width = edge_width(mapping, r)
        self.other = mapping.dim(r.other_dim)
        self.rows = -(-mapping.dim(r.edge_dim) // self.width) * self.other

    def positions(self, address: int) -> list[int]:
        """Fetch positions of every copy of ``address`` (a word of the input, not ``NO_ADDRESS``)."""
        layer, channels, nm = self.layer, self.channels, self.nm
        pixel, c = divmod(address, channels)
        pixel, x = divmod(pixel, layer.in_w)
        batch, y = divmod(pixel, layer.in_h)
        rows = _outputs(y + layer.pad_top, layer.kernel_h, layer.stride_h, layer.out_h)
        cols = _outputs(x + layer.pad_left, layer.kernel_w, layer.stride_w, layer.out_w)
        n, w, t_rows, pixels_are_rows = self.rows, self.width, self.other, self.pixels_are_rows
        out_w, kernel_w, first_row = layer.out_w, layer.kernel_w, batch * layer.out_h
        interior_skew = w * (w - 1) // 2
        positions = []
        for kr, oy in rows:
            row_base = (first_row + oy) * out_w
            for kc, ox in cols:
                column = (kr * kernel_w + kc) * channels + c
                if nm is not None:
                    kept, offset = divmod(column, nm.m)
                    if offset >= nm.n:
                        continue
                    column = kept * nm.n + offset
                if pixels_are_rows:
                    block, q = divmod(column, w)
                    d = block * t_rows + row_base + ox + q
                else:
                    block, q = divmod(row_base + ox, w)
                    d = block * t_rows + column + q
                if w - 1 <= d <= n - 1:  # a full diagonal: W d - W (W - 1) / 2 cells before it
                    positions.append(w * d - interior_skew + q)
                else:  # a diagonal cut by the stack's first or last row
                    positions.append(int(stacked_position(d, q, n, w)))
        return positions


def _outputs(padded: int, kernel: int, stride: int, outputs: int) -> list[tuple[int, int]]:
    """(kernel offset, output index) of each window over padded input index ``padded``."""
    found = []
    for offset in range(kernel):
        out, rest = divmod(padded - offset, stride)
        if not rest and 0 <= out < outputs:
            found.append((offset, out))
    return found
