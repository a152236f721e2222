"""``accel-sim storage``: per-layer storage table of a workload's weights in one format."""
from __future__ import annotations

import argparse
from pathlib import Path

from accel_sim.cli.output import check_output_file

PRINTED_COLUMNS = ("layer", "rows", "columns", "nnz", "density", "value_width_bits", "index_width_bits",
                   "dense_bits", "values_bits", "index_bits", "pointer_bits", "metadata_bits", "padding_bits",
                   "compressed_bits", "ratio")
HUFFMAN_COLUMNS = ("huffman_bits", "entropy_bits", "huffman_ratio")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "storage", help="per-layer storage of a workload's weights in a sparse format (bits by part, ratio)")
    parser.add_argument("--workload", required=True, help="workload YAML (path or name in workloads/)")
    parser.add_argument("--format", required=True, help="format name (csr, csc, eie, scnn, rle, csb, bsr, coo, "
                        "bitmap, nm, dense; block-scaled: mxfp8_e4m3, mxfp8_e5m2, mxfp6_e3m2, mxfp6_e2m3, mxfp4, "
                        "mxint8, nvfp4)")
    parser.add_argument("--pes", type=int, default=None, help="eie: number of PEs rows are interleaved over")
    parser.add_argument("--index-bits", type=int, default=None,
                        help="width of a (relative) index; default: the layer's index_bits (eie, scnn, rle) "
                        "or the format's own")
    parser.add_argument("--value-bits", type=int, default=None,
                        help="width of a stored value; default: the layer's weight_bits, else 16")
    parser.add_argument("--huffman", action="store_true",
                        help="also Huffman-code the weight-sharing codes and indices (with the entropy bound)")
    parser.add_argument("--out", default=None, help="write the table to this CSV file")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from accel_sim.foundations.workload.loader import load_workload
    from accel_sim.foundations.workload.storage import StorageOptions, storage_table

    if args.out is not None:
        check_output_file(args.out, ".csv")
    network = load_workload(args.workload)
    options = StorageOptions(format=args.format, n_pes=args.pes, index_bits=args.index_bits,
                             value_bits=args.value_bits, huffman=args.huffman)
    table = storage_table(network, options)
    columns = list(PRINTED_COLUMNS) + (list(HUFFMAN_COLUMNS) if args.huffman else [])
    shown = table[columns].copy()
    shown["density"] = shown["density"].map("{:.3f}".format)
    for column in ("ratio", "huffman_ratio"):
        if column in shown:
            shown[column] = shown[column].map("{:.2f}x".format)
    if "entropy_bits" in shown:
        shown["entropy_bits"] = shown["entropy_bits"].map("{:.0f}".format)
    for column in ("rows", "columns", "value_width_bits", "index_width_bits"):
        shown[column] = shown[column].map(lambda v: "-" if v != v else f"{int(v)}")
    print(f"{network.name}: weights in format {args.format}")
    print(shown.to_string(index=False))
    if args.out is not None:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.out, index=False)
        print(f"wrote {args.out}")
    return 0
