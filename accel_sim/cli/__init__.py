"""The command line (``accel-sim``): one module per sub-command; :mod:`~accel_sim.cli.main` parses the
arguments and hands each sub-command to its module. Commands only parse, call the Python API below,
print and set exit codes (2 for bad input, with a one-line message)."""
