"""The DLU runs a layer at the layer's precision when the workload sets one (BMXNet keeps the
first and last layers at full precision on a binary datapath); layers without one keep the
configured data type, so existing results do not move."""
import dataclasses

from accel_sim import load_arch
from accel_sim.models.dlu.family import FAMILY
from accel_sim.foundations.workload import GemmLayer

LAYER = GemmLayer("fc", m=8, k=256, n=64)


def test_layer_precision_sets_the_datapath():
    binary = load_arch("dlu", {"dlu.data_type": "binary"})
    fp32 = load_arch("dlu", {"dlu.data_type": "fp32"})
    plan = FAMILY.plan(binary, dataclasses.replace(LAYER, precision="fp32"))
    assert plan.spec.data_type == "fp32" and plan.spec.lanes == fp32.dlu.lanes
    as_layer = FAMILY.layer_result(binary, dataclasses.replace(LAYER, precision="fp32"))
    as_config = FAMILY.layer_result(fp32, LAYER)
    assert as_layer.cycles == as_config.cycles and as_layer.actions == as_config.actions
    assert FAMILY.refinement(binary, dataclasses.replace(LAYER, precision="fp32")) == []


def test_no_precision_keeps_the_configured_type():
    binary = load_arch("dlu", {"dlu.data_type": "binary"})
    assert FAMILY.plan(binary, LAYER).spec.data_type == "binary"
    fp32_layer = FAMILY.layer_result(binary, dataclasses.replace(LAYER, precision="fp32"))
    assert FAMILY.layer_result(binary, LAYER).cycles < fp32_layer.cycles
