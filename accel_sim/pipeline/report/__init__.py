"""A run's files: the tables, config and figure (``files``) and SCALE-Sim v3's report files (``scalesim``)."""
