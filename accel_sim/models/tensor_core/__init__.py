"""Ampere-style sparse tensor core (2:4 structured sparsity)."""
