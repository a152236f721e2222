"""The equivalent-mutant listings (``tools/equivalent_mutants/<family>.txt``) name real mutation sites.

``tools/mutation.py`` excludes a listed ``path | line | mutation`` from the kill rate. When code moves,
an entry left behind either excludes nothing or, worse, excludes another mutant of the same kind that
happens to land on its old line, and the measured rate is wrong without anyone noticing. Every entry
must therefore still be a mutant the tool generates; a moved line fails here, naming the entry, so the
listing is re-pointed (and its argument re-checked) in the same change."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LISTINGS = sorted(path for path in (ROOT / "tools" / "equivalent_mutants").glob("*.txt") if path.stem != "README")


def _mutation_tool():
    spec = importlib.util.spec_from_file_location("mutation_tool", ROOT / "tools" / "mutation.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)   # its dataclasses look their module up by name
    spec.loader.exec_module(sys.modules[spec.name])
    return sys.modules[spec.name]


@pytest.mark.parametrize("listing", LISTINGS, ids=lambda path: path.stem)
def test_every_listed_equivalent_mutant_is_a_site_the_tool_generates(listing):
    tool = _mutation_tool()
    entries = tool.load_equivalents(listing.stem)
    sites: dict[str, set[str]] = {}
    stale = []
    for key in entries:
        path = key.split("|", 1)[0]
        if path not in sites:
            source = ROOT / path
            sites[path] = {m.key for m in tool.find_mutants(source)} if source.exists() else set()
        if key not in sites[path]:
            stale.append(key)
    assert not stale, f"{listing.name}: entries that name no mutation site (line moved?): {stale}"
