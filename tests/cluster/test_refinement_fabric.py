"""The cluster's communication path (:class:`accel_sim.systems.cluster.plan.Fabric`) as the plan both the closed
forms and the SimPy model share: what it refuses and what its defaults mean, worked by hand. Named
test_refinement_* so that `python tools/mutation.py cluster` runs it against mutants of the plan."""
import numpy as np
import pytest

from accel_sim.systems.cluster.plan import Fabric

# 4 devices on one host, PCIe 2 B/s + 0.5 s a copy, adds 1 B/s, network 1 B/s, ring
VALID = dict(devices=4, devices_per_host=4, pcie_bandwidth=2.0, pcie_latency=0.5, reduce_bandwidth=1.0,
             network_bandwidth=1.0, network_latency=0.0, topology="ring")


@pytest.mark.parametrize("field, value, message", [
    ("devices", 0, "devices and devices_per_host must be >= 1"),
    ("devices_per_host", 0, "devices and devices_per_host must be >= 1"),
    ("pcie_bandwidth", 0.0, "every bandwidth must be > 0"),
    ("reduce_bandwidth", 0.0, "every bandwidth must be > 0"),
    ("network_bandwidth", 0.0, "every bandwidth must be > 0"),
    ("memory_bandwidth", 0.0, "memory_bandwidth must be > 0"),
    ("devices_per_switch", 0, "devices_per_switch must be >= 1"),
    ("topology", "mesh", "topology must be one of ring, tree, parameter_server"),
])
def test_a_fabric_refuses_a_zero_count_or_rate(field, value, message):
    with pytest.raises(ValueError, match=message):
        Fabric(**dict(VALID, **{field: value}))


def test_the_smallest_valid_fabric_is_accepted():
    # one device on its own host and switch, every rate just above 0: nothing to refuse
    tiny = dict(VALID, devices=1, devices_per_host=1, pcie_bandwidth=1e-9, reduce_bandwidth=1e-9,
                network_bandwidth=1e-9, memory_bandwidth=1e-9, devices_per_switch=1)
    fabric = Fabric(**tiny)
    assert (fabric.hosts, fabric.local_devices, fabric.switch_sharers) == (1, 1, 1)


def test_by_default_every_device_has_its_own_root_port_and_host_memory_is_not_modelled():
    """Four devices on one host, devices_per_switch and memory_bandwidth left at their defaults: a copy of
    6 B takes 0.5 + 6 / 2 = 3.5 s (no uplink shared); the local sum's 3 adds of 6 B take 18 s alone, not
    slowed by host memory."""
    fabric = Fabric(**VALID)
    assert fabric.switch_sharers == 1 and fabric.memory_bandwidth is None
    assert fabric.copy_time(np.array([6.0])).tolist() == [3.5]
    cap, traffic = fabric.phases(np.array([6.0]))
    assert fabric.alone_time(cap, traffic).tolist() == [[3.5, 18.0, 0.0, 3.5]]


@pytest.mark.parametrize("topology", ["ring", "tree", "parameter_server"])
def test_one_host_has_no_all_reduce_among_hosts(topology):
    """Four devices on their one host, network latency 0.5 s: the all-reduce among hosts is empty (no
    message, not even the parameter server's two latencies). Per 6 B chunk: copies 0.5 + 6 / 2 = 3.5 s and
    4 x 6 = 24 B of host memory; local sum 3 adds of 6 B: 18 s, 3 x 18 = 54 B."""
    fabric = Fabric(**dict(VALID, network_latency=0.5, topology=topology, memory_bandwidth=1e3))
    cap, traffic = fabric.phases(np.array([6.0]))
    assert cap.tolist() == [[3.5, 18.0, 0.0, 3.5]]
    assert traffic.tolist() == [[24.0, 54.0, 0.0, 24.0]]
    assert fabric.reduce_time(np.array([6.0])).tolist() == [18.0]
