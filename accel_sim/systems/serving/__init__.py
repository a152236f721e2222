"""LLM serving over time (issue 36): requests with prompt and output lengths arrive, a continuous-batching
engine admits them into a KV cache of the device's capacity and runs iterations of prefill and decode,
each timed by the family's own step model through the pipeline.

- :mod:`.requests`: requests from a seeded distribution or a trace file (one line per bad field);
- :mod:`.step`: the time and energy of one iteration (a decode batch plus an optional prefill chunk),
  composed from the layers of the model's step and cached per layer shape;
- :mod:`.parallel` / :mod:`.pipeline`: tensor and pipeline parallelism (a device's slice; the stages' micro-batch
  schedule as SimPy events, hand-offs overlapping compute);
- :mod:`.engine`: the SimPy model (arrivals, the scheduler: FCFS or chunked prefill) and its results.
"""
