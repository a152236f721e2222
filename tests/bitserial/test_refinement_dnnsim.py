"""DNNsim's own compute_cycles (isakedo/DNNsim 4748a60) on its AlexNet tensors (tests/data/dnnsim_bitserial):
every design DNNsim models, exact, in the fast path. The default run checks every configuration on a
subset of the layers (the Bit-Tactical ones, whose fast path runs the scheduler and, for TCLe, Pragmatic's
shifter per filter, on one layer each); ACCEL_SIM_DNNSIM_ALL=1 checks all 7 layers x 2 tensor sets x 16
configurations (224 layers; the figures in the family's README were measured that way)."""
import csv
import os

import pytest

from accel_sim import load_workload
from accel_sim.models.bitserial.family import FAMILY
from tests.bitserial._layers import DATA, arch

ALL = os.environ.get("ACCEL_SIM_DNNSIM_ALL") == "1"
DNNSIM = {(r["set"], r["config"], r["layer"]): int(r["compute_cycles"])
          for r in csv.DictReader(open(DATA / "dnnsim_compute_cycles.csv"))}
CONFIGS = sorted({key[1] for key in DNNSIM})
TACTICAL = ("BitTactical", "BitTacticalP", "BitTacticalE")
NETWORKS = {s: {layer.name: layer for layer in load_workload(DATA / f"{s}_alexnet_split.yaml").layers} for s in "AB"}


def _cases():
    for config in CONFIGS:
        for tensor_set in "AB":
            if ALL:
                layers = list(NETWORKS[tensor_set])
            elif config in TACTICAL:
                layers = ["conv5_g1"] if tensor_set == "B" else []
            else:
                layers = ["conv4_g1"] if tensor_set == "A" else ["conv2_g1", "conv5_g0"]
            for layer in layers:
                yield config, tensor_set, layer


@pytest.mark.parametrize("config,tensor_set,layer", list(_cases()))
def test_fast_path_gives_dnnsims_compute_cycles(config, tensor_set, layer):
    machine = arch(f"bitserial_dnnsim_{config.lower()}")
    counters = FAMILY.fast(FAMILY.plan(machine, NETWORKS[tensor_set][layer]))
    assert counters.cycles == DNNSIM[(tensor_set, config, layer)]


def test_every_configuration_and_layer_of_the_reference_data_is_known():
    assert len(DNNSIM) == 16 * 2 * 7 and len(CONFIGS) == 16
