"""User-facing text cites sources a user can open.

A user has the paper, the datasheet, the repository and its files; a user does not have this
project's issue tracker, the maintainers' notes under ``../shared`` (the "briefs") or a copy of a
paper on a document-sharing site. Configs, docs, study README templates, measured-hardware cases,
tutorials, every spec field's ``source=`` text (docs/config_reference.md) and the string constants of
the studies (accel_sim/studies/*.py: comparison.csv's quantity and source columns, results tables, README
values) must not point to them. Code comments and docstrings of accel_sim/ and tests/ are developer-facing
and are not scanned.
"""
import ast
import re
from pathlib import Path

import pytest

from accel_sim.foundations.config.schema import iter_fields
from tools.config_reference import documented_specs

ROOT = Path(__file__).resolve().parents[2]

# What a user cannot open. A repository's own tracker reference ("NVIDIA/CUDALibrarySamples#57") is
# a source a user can open and is allowed; a bare "#18" or "issue 18" is this project's tracker.
FORBIDDEN = [
    ("an issue number of this project", re.compile(r"(?i)\bissues?\s*(?:#\s*)?\d+")),
    ("a bare issue number", re.compile(r"(?<![\w/.\-])#\d+\b")),
    ("a path into the maintainers' shared folder", re.compile(r"(?i)(\.\./shared|/work/shared|\bshared/papers|\bshared/validation)")),
    ("'the brief' (a maintainers' summary, not a source)", re.compile(r"(?i)\bbriefs?\b")),
    ("a document-sharing site", re.compile(
        r"(?i)\b(vdocuments|fdocuments|scribd|docplayer|studylib|documents\.pub|dokumen\.pub|pdfslide|"
        r"slideshare|issuu|yumpu|pdfcoffee|kupdf|idoc\.pub|doku\.pub|silo\.tips)\b")),
]

CONFIG_DIRS = ["arch_configs", "workloads", "cluster_configs", "sweeps", "tutorials"]


def user_files():
    files = []
    for d in CONFIG_DIRS:
        files += [p for p in sorted((ROOT / d).rglob("*")) if p.is_file() and p.suffix in {".yaml", ".yml", ".md", ".py", ".csv", ".txt", ".cfg"}]
    files += sorted((ROOT / "measured_hardware").rglob("*.yaml"))
    files += sorted((ROOT / "docs").rglob("*.md"))   # docs/teaching/ too
    files += [ROOT / "README.md"]
    files += sorted((ROOT / "accel_sim" / "studies" / "templates").glob("*.md"))
    return files


def hits(text):
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        for what, pat in FORBIDDEN:
            m = pat.search(line)
            if m:
                out.append(f"line {n}: {what}: {m.group(0)!r} in {line.strip()[:120]!r}")
    return out


def test_the_scan_finds_what_it_must():
    for bad in ["see issue 18", "Issues 6 and 7", "(#33)", "../shared/papers/eie.md", "brief: 64 PEs",
                "the brief's own SRAM", "https://vdocuments.site/scnn.html", "scribd.com/doc/1"]:
        assert hits(bad), bad
    for good in ["NVIDIA/CUDALibrarySamples#57", "Han et al., ISCA 2016, Table II", "briefly", "# 64 PEs",
                 "te42kyfo/gpu-benches, README.md"]:
        assert not hits(good), good


@pytest.mark.parametrize("path", user_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_user_file_cites_openable_sources(path):
    found = hits(path.read_text(errors="replace"))
    assert not found, f"{path.relative_to(ROOT)} cites what a user cannot open:\n" + "\n".join(found)


def test_every_spec_source_cites_openable_sources():
    found = []
    for title, _, cls in documented_specs():
        for field_path, _, _, info in iter_fields(cls):
            for h in hits(getattr(info, "source", "") or ""):
                found.append(f"{title} {field_path}: {h}")
    assert not found, "spec source= texts (docs/config_reference.md) cite what a user cannot open:\n" + "\n".join(found)


def study_strings(path: Path) -> list[tuple[int, str]]:
    """Every str constant of a study module (f-string parts included) that is not a docstring, with its line."""
    tree = ast.parse(path.read_text())
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                docstrings.add(id(first.value))
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def test_study_strings_scan_skips_docstrings_and_comments(tmp_path):
    module = tmp_path / "study.py"
    module.write_text('"""Module docstring: brief."""\n# issue 17 comment\n'
                      'def f(x):\n    """Docstring: issue 16."""\n    return f"bar {x} (issue 16 bar)", "brief: DLU"\n')
    assert sorted(s for _, s in study_strings(module)) == [" (issue 16 bar)", "bar ", "brief: DLU"]
    assert all(hits(s) for _, s in study_strings(module) if s != "bar ")


STUDY_MODULES = sorted((ROOT / "accel_sim" / "studies").glob("*.py"))


@pytest.mark.parametrize("path", STUDY_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_study_strings_cite_openable_sources(path):
    found = [f"line {line}: {h.split(': ', 1)[1]}" for line, text in study_strings(path) for h in hits(text)]
    assert not found, f"{path.relative_to(ROOT)}: string constants that reach study outputs cite what a user cannot open:\n" + \
        "\n".join(found)
