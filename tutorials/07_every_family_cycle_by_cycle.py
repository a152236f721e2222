# %% [markdown]
# # Tutorial 7: every accelerator, cycle by cycle, in your browser
#
# The earlier tutorials show numbers and figures. This one writes, for every accelerator family
# that has a teaching trace, one web page that draws the family's datapath (PEs, FIFOs, buffers,
# network, DRAM) and lets you step through a small example one clock cycle at a time: play,
# pause, step, jump to a cycle, hover a part to see what it holds. Cycles spent on a zero are
# orange, zeros skipped at no cost green, stalls red; the side panel keeps the counters so far.
#
# Each page has a guided walk in `docs/teaching/` (start at `docs/teaching/README.md`): which
# cycle to stop at and what it shows. The pages need no network and no install: open them
# straight from the folder.
#
# Run it with `python tutorials/07_every_family_cycle_by_cycle.py` (a few seconds). The pages go
# to `tutorials/out/07_<family>.html` (or the folder in `ACCEL_SIM_TUTORIAL_OUT`).

# %%
import os
from pathlib import Path

from accel_sim import REPO_ROOT
from accel_sim.pipeline.trace.table import format_table
from accel_sim.pipeline.trace.teaching import example, families, write_page

OUT = Path(os.environ.get("ACCEL_SIM_TUTORIAL_OUT", REPO_ROOT / "tutorials" / "out"))
OUT.mkdir(parents=True, exist_ok=True)

# %% [markdown]
# ## 1. One page per family
#
# A family's trace comes from its cycle-level reference model run on a small shipped example (a
# layer small enough to step through by hand). The same trace also gives a Perfetto file and a
# text table (`accel-sim trace ... --out DIR --html` writes all three for any config and layer).

# %%
PAGES, TRACES = {}, {}
for family in families():
    arch, workload, layer = example(family)
    TRACES[family], PAGES[family] = write_page(family, OUT)
    cycles = len(TRACES[family].table.rows)
    print(f"{family:12s} {arch} / {workload}{' / ' + layer if layer else ''}: {cycles} cycles -> {PAGES[family]}")

# %% [markdown]
# ## 2. What the page reads: the cycle table
#
# Everything the page shows comes from the trace. Its cycle table has one row per cycle: what
# each part did, and the counters so far. Here are EIE's first cycles (the paper's 4-PE
# example; `docs/teaching/eie.md` walks through them in the page):

# %%
eie = TRACES["eie"]
print("\n".join(format_table(eie.table).splitlines()[:7]))
EIE_CYCLES = len(eie.table.rows)
EIE_ZEROS_SKIPPED = int(eie.table.rows[-1][eie.table.columns.index("zero activations skipped")])
print(f"EIE: {EIE_CYCLES} cycles, {EIE_ZEROS_SKIPPED} zero activations never broadcast")

# %% [markdown]
# ## 3. Now open the pages
#
# Open each `07_<family>.html` in a browser, next to its walk in `docs/teaching/<family>.md`.
# Press Space to play, the arrow keys to step, and hover the boxes.
