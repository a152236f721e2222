"""Cnvlutin activation skipping and its DaDianNao-like dense baseline (family ``cnvlutin``):
``plan`` -> ``fast`` / ``reference`` -> ``accounting``, listed in :mod:`.family`."""
