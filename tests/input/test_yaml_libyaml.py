"""The YAML reader and writer use libyaml where PyYAML has it (for speed): the documents read and the
text written must be the ones of PyYAML's pure-Python loader and emitter, for every shipped file."""
from pathlib import Path

import pytest
import yaml

from accel_sim.foundations.config.loader import REPO_ROOT
from accel_sim.foundations.config.schema import spec_to_dict
from accel_sim.foundations.config.yaml_io import dump_yaml, parse_yaml
from accel_sim.foundations.workload.loader import load_workload
from accel_sim.pipeline.catalog import load_arch

SHIPPED = sorted(p for folder in ("arch_configs", "workloads", "sweeps", "cluster_configs", "measured_hardware")
                 for p in (REPO_ROOT / folder).rglob("*.yaml"))


def test_libyaml_is_used_where_pyyaml_has_it():
    if not yaml.__with_libyaml__:
        pytest.skip("this PyYAML was built without libyaml: the pure-Python loader and emitter are used")
    from accel_sim.foundations.config import yaml_io
    assert issubclass(yaml_io._StrictLoader, yaml.CSafeLoader) and yaml_io._SAFE_DUMPER is yaml.CSafeDumper


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_shipped_files_read_and_write_as_with_the_python_loader_and_emitter(path: Path):
    text = path.read_text(encoding="utf-8")
    document = parse_yaml(text, str(path))
    assert document == yaml.safe_load(text)
    assert dump_yaml(document) == yaml.safe_dump(document, sort_keys=False)


def test_a_resolved_run_config_is_written_as_with_the_python_emitter():
    resolved = {"arch": spec_to_dict(load_arch("ampere_a100")),
                "workload": [spec_to_dict(layer) for layer in load_workload("resnet18").layers]}
    assert dump_yaml(resolved) == yaml.safe_dump(resolved, sort_keys=False)
