"""The version of accel_sim: part of every sweep point's key (a result is a function of the config, the
workload and the code)."""
__version__ = "0.1.0"
