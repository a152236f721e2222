"""A small real network in numpy: a LeNet-300-100-style classifier on scikit-learn's digits.

``digits`` loads the data (optional ``digits`` extra: scikit-learn), ``mlp`` is the
network (forward and backward), ``optim`` the optimisers and ``training`` the loop, in
float32 or with every tensor going through a number format (e.g. ``dynamic_fixed_point``,
the number unit of a DLU-style processor). ``dlu_training`` trains on a ``dlu`` arch and
costs each training step's GEMMs on it. ``lowbit`` trains binary, ternary, k-bit and power-of-two
networks (an MLP and a small CNN) with the straight-through estimator.
"""
