"""System models built on the accelerator models through the run pipeline: training clusters
(``cluster``), training on one device (``training``) and real network training in numpy (``nn``)."""
