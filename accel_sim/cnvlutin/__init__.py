"""Cnvlutin activation skipping and its DaDianNao-like dense baseline."""
