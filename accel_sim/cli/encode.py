"""``accel-sim encode MATRIX --format F``: a small matrix encoded in a sparse format, printed as JSON."""
from __future__ import annotations

import argparse

from accel_sim.foundations.errors import InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("encode", help="print a small matrix encoded in a sparse format, as JSON")
    parser.add_argument("matrix", help="a .npy file or an inline nested list, e.g. '[[0,1],[2,0]]'")
    parser.add_argument("--format", required=True,
                        help="format name (csr, csc, eie, scnn, rle, csb, bsr, coo, bitmap, nm, dense)")
    parser.add_argument("--pes", type=int, default=None, help="eie: number of PEs rows are interleaved over")
    parser.add_argument("--index-bits", type=int, default=None, help="width of a (relative) index")
    parser.add_argument("--value-bits", type=int, default=8, help="width of a value, for the storage breakdown")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    import json

    from accel_sim.foundations.compress.encode_json import encode, encoded_json, read_matrix

    params = {}
    if args.pes is not None:
        params["n_pes"] = args.pes
    if args.index_bits is not None:
        params["index_bits"] = args.index_bits
    encoded = encode(read_matrix(args.matrix), args.format, params)
    try:
        data = encoded_json(encoded, args.value_bits)
    except ValueError as err:
        raise InputError.single("--value-bits", str(args.value_bits), str(err)) from None
    print(json.dumps(data))
    return 0
