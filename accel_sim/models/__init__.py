"""The accelerator models: one folder per family, each behind the family contract
(:mod:`accel_sim.foundations.contract`): ``spec``, ``plan``, ``counters``, ``fast``, ``reference``,
``accounting`` and ``family``. The list of models is :mod:`accel_sim.pipeline.catalog`."""
