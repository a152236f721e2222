"""The reference covers every schema field and matches the generated text."""
from pathlib import Path

import pytest

from tools.config_reference import documented_specs, render
from accel_sim.foundations.config.schema import iter_fields

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "config_reference.md"


@pytest.mark.parametrize("title, cls", [(t, c) for t, _, c in documented_specs()], ids=lambda x: getattr(x, "__name__", ""))
def test_every_field_is_documented(title, cls):
    undocumented = [path for path, _, _, info in iter_fields(cls) if len(info.doc.strip()) < 8]
    assert not undocumented, f"{title}: fields without a description: {undocumented}"


def test_every_field_appears_in_the_reference():
    text = REFERENCE.read_text()
    missing = [path for _, _, cls in documented_specs() for path, *_ in iter_fields(cls) if f"`{path}`" not in text]
    assert not missing, f"docs/config_reference.md lacks {missing}"


def test_reference_file_is_current():
    assert REFERENCE.read_text() == render(), (
        "docs/config_reference.md is stale: run `python -m tools.config_reference > docs/config_reference.md`")
