"""A small real network in numpy: a LeNet-300-100-style classifier on scikit-learn's digits.

``digits`` loads the data (optional ``digits`` extra: scikit-learn), ``mlp`` is the
network (forward and backward), ``optim`` the optimisers and ``training`` the loop, in
float32 or with every tensor going through a number format (e.g. the simulated dynamic
fixed-point unit of :mod:`accel_sim.dlu`).
"""
