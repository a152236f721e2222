"""The family contract (:mod:`.contract`) and the table of families (:mod:`.registry`)."""
