"""Cnvlutin activation skipping and its DaDianNao-like dense baseline. The model lives in
:mod:`accel_sim.cnvlutin.model`."""
