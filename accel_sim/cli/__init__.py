"""The command line (``accel-sim``): one module per sub-command; :mod:`~accel_sim.cli.main` parses the
arguments and hands each sub-command to its module. Commands only parse, call the Python API below,
print and set exit codes (2 for bad input, with a one-line message).

One BLAS thread unless the user sets another count: the simulator's numpy work is element-wise or small
matrices, where OpenBLAS's thread pool only costs (starting it spends ~0.1 s of CPU in every process, a third
of a one-layer run's), ``reproduce --jobs`` and sweeps already use every core with processes, and one thread
keeps a matrix product's summation order, and so its bits, independent of the machine's core count.
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # before numpy is first imported (cli.main imports it)
