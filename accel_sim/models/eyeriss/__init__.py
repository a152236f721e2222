"""Eyeriss v1, row stationary (family ``eyeriss``): ``plan`` (the row-stationary mapping, the processing
passes, the run-length-coded DRAM footprints) -> ``fast`` / ``reference`` -> ``accounting``, listed in
:mod:`.family`."""
