"""A config's supply_voltage scales dynamic energy by its node's Stillmaker polynomial (Eyeriss v1 runs at 1 V;
the tables are at Horowitz's 0.9 V); a config without one is costed at the tables' supply."""
from __future__ import annotations

import pytest

from accel_sim import load_arch
from accel_sim.foundations.energy.technology import voltage_factor
from accel_sim.foundations.workload.loader import load_workload
from accel_sim.pipeline.simulate import simulate


def test_factor_is_one_at_the_tables_supply_and_grows_with_voltage():
    assert voltage_factor(65, 0.9) == 1.0
    # Stillmaker & Baas 65 nm polynomial 3.755 V^2 - 4.398 V + 1.975 at 1.0 V over 0.9 V
    assert voltage_factor(65, 1.0) == pytest.approx(1.332 / 1.0584, rel=1e-3)
    assert voltage_factor(65, 1.1) > voltage_factor(65, 1.0) > 1.0


def test_dynamic_energy_scales_and_static_does_not():
    network = load_workload("tiny_conv")
    low = simulate(load_arch("eyeriss_v1", overrides={"supply_voltage": 0.9}), network).summary_row()
    high = simulate(load_arch("eyeriss_v1"), network).summary_row()
    assert high["energy_pj"] == pytest.approx(low["energy_pj"] * voltage_factor(65, 1.0), rel=1e-9)
    assert high["static_energy_pj"] == pytest.approx(low["static_energy_pj"], rel=1e-12)
    assert high["cycles"] == low["cycles"]
