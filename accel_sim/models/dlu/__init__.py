"""Statistics-driven dynamic fixed-point processor (Fujitsu DLU style)."""
