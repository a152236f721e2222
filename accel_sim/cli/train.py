"""``accel-sim train --method M [--network mlp|cnn] ...``: train one low-bit method on the digits and
print its test accuracy next to float32's. Bad values (0-bit DoReFa, an INQ partition that does
not sum to 1, an unknown method) are one line and exit code 2."""
from __future__ import annotations

import argparse
import math
from dataclasses import replace

from accel_sim.foundations.errors import InputError
from accel_sim.systems.nn.lowbit.inq import INQ_PARTITION
from accel_sim.systems.nn.lowbit.methods import METHODS, NETWORKS, LowBitConfig, check_config

SOURCE = "accel-sim train"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("train", help="train a binary / ternary / low-bit network on the digits "
                                   "(accel_sim.systems.nn.lowbit) and print its test accuracy")
    parser.add_argument("--method", required=True, help=f"one of {', '.join(METHODS)}")
    parser.add_argument("--network", default="mlp", help=f"{' or '.join(NETWORKS)} (default mlp)")
    parser.add_argument("--weight-bits", type=int, default=None, help="dorefa / inq / log weight width")
    parser.add_argument("--activation-bits", type=int, default=None, help="dorefa / log activation width")
    parser.add_argument("--gradient-bits", type=int, default=None, help="dorefa gradient width (32 = float)")
    parser.add_argument("--partition", default=None, help="inq cumulative fractions (default 0.5,0.75,0.875,1)")
    parser.add_argument("--log-base", default="2", help="log: 2 or sqrt2")
    parser.add_argument("--quantize-ends", action="store_true",
                        help="quantize the first and last layers too (default: they stay float32)")
    parser.add_argument("--shift-batch-norm", action="store_true", help="BNN's shift-based batch norm")
    parser.add_argument("--epochs", type=int, default=20, help="training epochs (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of initialisation, batches and noise")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from accel_sim.systems.nn.digits import load_digits_split
    from accel_sim.systems.nn.lowbit.train import LOWBIT_SCHEDULE, train_lowbit

    config = config_from_arguments(args)
    if args.epochs < 1:
        raise InputError.single(SOURCE, "--epochs", f"expected an integer >= 1, got {args.epochs}")
    schedule = replace(LOWBIT_SCHEDULE, epochs=args.epochs, seed=args.seed)
    data = load_digits_split()
    run = train_lowbit(data, config, schedule)
    reference = train_lowbit(data, replace(config, method="fp32", weight_bits=None, activation_bits=None,
                                           gradient_bits=None), schedule)
    print(f"{config.method} on the digits {config.network} ({args.epochs} epochs, seed {args.seed}, "
          f"{'float32' if config.full_precision_ends else 'quantized'} first/last layers): "
          f"test accuracy {100 * run.test_accuracy:.2f} % (float32 {100 * reference.test_accuracy:.2f} %), "
          f"{run.cpu_seconds:.1f} s CPU")
    return 0


def _option(field: str) -> str:
    return "--" + field.replace("_", "-")


def _partition(text: str) -> tuple[float, ...]:
    try:
        values = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise InputError.single(SOURCE, "--partition", f"expected comma-separated fractions, e.g. 0.5,0.75,0.875,1; "
                                                       f"got {text!r}") from None
    if not all(math.isfinite(v) for v in values):
        raise InputError.single(SOURCE, "--partition", f"fractions must be finite numbers, got {text!r}")
    return values


def config_from_arguments(args: argparse.Namespace) -> LowBitConfig:
    config = LowBitConfig(method=args.method, network=args.network, weight_bits=args.weight_bits,
                          activation_bits=args.activation_bits, gradient_bits=args.gradient_bits,
                          partition=_partition(args.partition) if args.partition else INQ_PARTITION,
                          log_base=args.log_base, full_precision_ends=not args.quantize_ends,
                          shift_batch_norm=args.shift_batch_norm)
    return check_config(config, SOURCE, _option)
