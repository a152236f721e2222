"""The equivalent-mutant listings (``tools/equivalent_mutants/<family>.txt``) name real mutation sites.

``tools/mutation.py`` excludes a listed ``path | line | mutation`` (every site of that mutation on the
line) or ``path | line:col | mutation`` (the one site whose mutated token stands there) from the kill
rate. When code moves, an entry left behind either excludes nothing or, worse, excludes another mutant of the same
kind that happens to land on its old line (or column), and the measured rate is wrong without anyone
noticing. Every entry must therefore still be a mutant the tool generates, a column entry exactly (line,
column and mutation of one site); a moved line fails here, naming the entry, so the listing is
re-pointed (and its argument re-checked) in the same change."""
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
            mutants = tool.find_mutants(source) if source.exists() else []
            sites[path] = {m.key for m in mutants} | {m.site for m in mutants}
        if key not in sites[path]:
            stale.append(key)
    assert not stale, f"{listing.name}: entries that name no mutation site (line or column moved?): {stale}"


def test_an_entry_names_a_line_or_one_site():
    tool = _mutation_tool()
    assert tool.parse_equivalent("a/b.py | 77 | const 1->2 | why: a | b") == ("a/b.py|77|const 1->2", "why: a | b")
    assert tool.parse_equivalent(" a/b.py|77:8|Sub->Add|why ") == ("a/b.py|77:8|Sub->Add", "why")
    assert tool.parse_equivalent("a/b.py | 077:08 | Sub->Add | why") == ("a/b.py|77:8|Sub->Add", "why")


@pytest.mark.parametrize("text", ["a/b.py | 77 | Sub->Add", "a/b.py | 77 | Sub->Add | ", "a/b.py | x | Sub->Add | why",
                                  "a/b.py | 77: | Sub->Add | why", "a/b.py | 77:8:1 | Sub->Add | why",
                                  " | 77 | Sub->Add | why", "a/b.py | 77:-1 | Sub->Add | why"])
def test_a_malformed_entry_is_refused_naming_where(text):
    tool = _mutation_tool()
    with pytest.raises(tool.ListingError, match=r"^x\.txt:3: expected 'path \| line \| mutation \| why'"):
        tool.parse_equivalent(text, "x.txt:3")


def test_a_line_entry_names_every_site_of_its_kind_and_a_column_entry_one(tmp_path):
    """Line 2 ``w - 1 <= first and first + t - 2 <= rows - 1 and (w`` (from column 11) holds three
    ``Sub->Add`` (the ``-`` at columns 13, 40, 52), two ``const 1->2`` (15, 54) and ``first + t``'s
    ``Add->Sub`` (36); ``(w + (t + 1))`` continues on lines 3-4: its outer ``+`` stands at line 3, column
    8 although its expression starts on line 2, the inner one at 3:13, its ``1`` at 4:11. A column entry
    names the one operator (or constant) at that place; a line entry, every site starting on the line."""
    tool = _mutation_tool()
    source = tmp_path / "site.py"
    source.write_text("def f(w, first, t, rows):\n    return w - 1 <= first and first + t - 2 <= rows - 1 and (w\n"
                      "        + (t +  # a comment\n           1)) > 0\n")
    mutants = tool.find_mutants(source)
    assert sorted((m.token, m.mutation) for m in mutants if m.mutation in ("const 1->2", "Sub->Add", "Add->Sub")) == \
        [((2, 13), "Sub->Add"), ((2, 15), "const 1->2"), ((2, 36), "Add->Sub"), ((2, 40), "Sub->Add"),
         ((2, 52), "Sub->Add"), ((2, 54), "const 1->2"), ((3, 8), "Add->Sub"), ((3, 13), "Add->Sub"),
         ((4, 11), "const 1->2")]
    assert len({m.site for m in mutants}) == len(mutants)
    path = mutants[0].path
    listed = {f"{path}|2|const 1->2": "every site", f"{path}|2:40|Sub->Add": "one site", f"{path}|3:8|Add->Sub": "wrapped"}
    assert sorted(m.site.split("|", 1)[1] for m in mutants if tool.is_listed(m, listed)) == \
        ["2:15|const 1->2", "2:40|Sub->Add", "2:54|const 1->2", "3:8|Add->Sub"]
    assert [m.line for m in mutants if m.token == (3, 8)] == [2]   # a plain entry names it by line 2
