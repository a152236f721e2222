"""``accel-sim cluster CONFIG``: one data-parallel training step of a cluster config, and its scaling."""
from __future__ import annotations

import argparse
from pathlib import Path

from accel_sim.cli.args import add_overrides_option, parse_overrides
from accel_sim.cli.output import check_output_file


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("cluster", help="a data-parallel training cluster: step time, breakdown, "
                                   "scaling, energy, power (cluster_configs/)")
    parser.add_argument("config", help="cluster YAML (path or name in cluster_configs/)")
    add_overrides_option(parser, "override a cluster field, e.g. --set devices=16 (repeatable)")
    parser.add_argument("--out", default=None, help="write the scaling table (1, 2, 4, ... devices) to this CSV")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    import pandas as pd

    from accel_sim.systems.cluster.run import device_timing, run_cluster
    from accel_sim.systems.cluster.spec import load_cluster

    if args.out is not None:
        check_output_file(args.out, ".csv")
    loaded = load_cluster(args.config, parse_overrides(args.set))
    spec = loaded.spec
    timing = device_timing(loaded)
    counts = sorted({2 ** i for i in range(spec.devices.bit_length()) if 2 ** i <= spec.devices} | {spec.devices})
    rows = [run_cluster(loaded, devices=n, timing=timing).row() for n in counts]
    result = rows[-1]
    t = spec.techniques
    print(f"{spec.name}: {loaded.network.name} on {spec.devices} x {loaded.arch.name} (batch {spec.device.batch} "
          f"each), {spec.network.topology} all-reduce, {spec.gradients.bits}-bit gradients; backward overlap "
          f"{t.backward_overlap}, forward overlap {t.forward_overlap}, host pipelining {t.host_pipelining}")
    print(f"step {1e3 * result['step_s']:.2f} ms = compute {1e3 * result['compute_s']:.2f} ms + weight update "
          f"{1e3 * result['update_s']:.2f} ms + exposed "
          f"communication {1e3 * result['exposed_communication_s']:.2f} ms (busy: copies "
          f"{1e3 * result['copy_busy_s']:.2f} ms, reduction {1e3 * result['reduce_busy_s']:.2f} ms, host memory "
          f"{1e3 * result['memory_busy_s']:.2f} ms; "
          f"{result['buckets']} buckets, {result['chunks']} chunks)")
    print(f"speed-up {result['speedup']:.2f}x over one device, scaling efficiency {100 * result['scaling_efficiency']:.1f} %, "
          f"{result['samples_per_s']:.0f} samples/s; energy {result['energy_j']:.1f} J per step at "
          f"{result['power_w'] / 1e3:.2f} kW" + ("" if result["devices_in_power_cap"] is None else
                                                f"; {result['devices_in_power_cap']} devices fit the power cap"))
    print(f"device memory: peak {result['peak_memory_bytes'] / 2**30:.2f} GiB of {spec.device.memory / 2**30:.2f} GiB; "
          f"largest batch {result['largest_batch']}")
    frame = pd.DataFrame(rows)
    print(frame[["devices", "step_s", "compute_s", "exposed_communication_s", "speedup", "scaling_efficiency",
                 "energy_j"]].to_string(index=False))
    if args.out is not None:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        frame.to_csv(args.out, index=False)
        print(f"wrote {args.out}")
    return 0
