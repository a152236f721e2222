"""Eyeriss v2 (family ``eyeriss_v2``, Chen et al., IEEE JETCAS 2019): ``plan`` (CSC-coded operands, the
PE work units and their rounds over the hierarchical mesh) -> ``fast`` / ``reference`` -> ``accounting``."""
