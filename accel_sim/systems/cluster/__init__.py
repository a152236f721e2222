"""Data-parallel training clusters (system level): N devices, hosts, PCIe, a network; Fujitsu's three
techniques (backward overlap, forward overlap, host pipelining) as switches; gradient precision.

- :mod:`~accel_sim.systems.cluster.spec`: the cluster config file (``cluster_configs/*.yaml``);
- :mod:`~accel_sim.systems.cluster.plan`: one step as layers, buckets, chunks and stage times (pure);
- :mod:`~accel_sim.systems.cluster.fast`: closed forms (the barrier step, the no-overlap and perfect-overlap bounds);
- :mod:`~accel_sim.systems.cluster.reference`: the discrete-event model (SimPy);
- :mod:`~accel_sim.systems.cluster.run`: a config to a step time, its breakdown, energy, power, scaling.
"""
