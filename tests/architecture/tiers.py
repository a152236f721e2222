"""The tiers of ``accel_sim/``, top to bottom: the one declaration the import rules are generated from
(``test_import_rules.py``) and the README's layout table follows.

A module may import any module of a lower tier and any module of its own part (the folder or file just
below its tier's folder: ``accel_sim.models.eie``, ``accel_sim.pipeline.simulate``). Between two parts of
one tier it may import only where ``PEERS`` lets it, and no two parts may reach each other in a circle.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tier:
    name: str
    packages: tuple[str, ...]   # the modules or packages that make up the tier
    says: str


TIERS = (
    Tier("interface", ("accel_sim", "accel_sim.__main__", "accel_sim.cli"),
         "the command line (one module per command) and the Python API (accel_sim/__init__.py)"),
    Tier("studies", ("accel_sim.studies",), "paper figures and validations, as clients of the API below"),
    Tier("systems", ("accel_sim.systems",), "training clusters, training steps, network training, the host CPU (BMXNet), sweeps of system points"),
    Tier("pipeline", ("accel_sim.pipeline",), "the catalog of models, simulate, sweep, report, plot, trace"),
    Tier("models", ("accel_sim.models",), "the accelerator models, one folder per family, one shape"),
    Tier("hardware", ("accel_sim.hardware",), "the shared hardware blocks of the discrete-event references"),
    Tier("foundations", ("accel_sim.foundations",),
         "describe: config, units, errors, workloads, compression, energy and area tables, results, contract"),
)

# Parts of one tier that may import another part of the same tier (everything else within a tier is
# forbidden). Models never import each other; the pipeline's parts import in one direction.
PEERS: dict[str, tuple[str, ...]] = {
    "accel_sim.pipeline.honoured": ("accel_sim.pipeline.catalog",),
    "accel_sim.pipeline.simulate": ("accel_sim.pipeline.catalog", "accel_sim.pipeline.run_result",
                                    "accel_sim.pipeline.honoured"),
    "accel_sim.pipeline.sweep": ("accel_sim.pipeline.catalog", "accel_sim.pipeline.simulate"),
    "accel_sim.pipeline.plot": ("accel_sim.pipeline.sweep",),
    "accel_sim.pipeline.report": ("accel_sim.pipeline.catalog", "accel_sim.pipeline.simulate",
                                  "accel_sim.pipeline.run_result", "accel_sim.pipeline.plot"),
    "accel_sim.pipeline.trace": ("accel_sim.pipeline.catalog",),
    "accel_sim.pipeline.measured": ("accel_sim.pipeline.catalog", "accel_sim.pipeline.simulate"),
    "accel_sim.systems.cluster": ("accel_sim.systems.training",),
    "accel_sim.systems.sweep": ("accel_sim.systems.training",),
}

# Lower tiers a tier may not reach although they are below it: studies are clients of the public API, the
# pipeline and plot, never of a model's internals or the references' blocks.
NEVER: dict[str, tuple[str, ...]] = {
    "accel_sim.studies": ("accel_sim.models", "accel_sim.hardware"),
}
