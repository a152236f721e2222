"""Foundations: what every other tier describes its work with. Configs and their schema, units,
errors, workloads and their operands, compression (pruning, quantization, storage formats), energy
and area tables, the result types and the family contract. Nothing here knows a model."""
