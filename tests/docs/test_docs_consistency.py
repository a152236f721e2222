"""The documentation cannot drift from the code.

Every ``accel-sim`` command (and its options), every repository path and every
``accel_sim.*`` name the README, the tutorials README and ``docs/*.md`` mention must exist;
the Python blocks of the README and of the concept and sweep guides run and print what the
pages show; every tutorial has a test and is listed in ``tutorials/README.md``.
"""
from __future__ import annotations

import contextlib
import importlib
import io
import re
from pathlib import Path

import matplotlib
import pytest

from accel_sim.cli.main import build_parser
from tests.example_family import install_skipper

matplotlib.use("Agg")

REPO = Path(__file__).resolve().parents[2]
PAGES = sorted([REPO / "README.md", REPO / "tutorials" / "README.md", *(REPO / "docs").glob("*.md"),
                *(REPO / "docs" / "teaching").glob("*.md")])
PAGE_IDS = [str(p.relative_to(REPO)) for p in PAGES]
# Top-level folders whose paths a page may name. Output folders (reports/, out/,
# tutorials/out/) are what runs write, not what the repository holds.
REPO_FOLDERS = ("accel_sim", "docs", "tutorials", "sweeps", "arch_configs", "workloads", "tests", "benchmarks", ".ci")
OUTPUT_FOLDERS = ("tutorials/out",)
PATH_PATTERN = re.compile(r"(?<![\w./-])((?:%s)/[\w./<>*-]*)" % "|".join(re.escape(f) for f in REPO_FOLDERS))
TOP_FILE_PATTERN = re.compile(r"`((?:README|pyproject)\.\w+)`")
COMMAND_PATTERN = re.compile(r"(?:accel-sim|python -m accel_sim)\s+([a-z][\w-]*)([^`\n#|]*)")
DOTTED_PATTERN = re.compile(r"(?<![\w/])(accel_sim(?:\.[A-Za-z_]\w*)+)")
PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def _subcommands() -> dict:
    parser = build_parser()
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return dict(action.choices)


def _strip(path: str) -> str:
    return path.rstrip(".,:;)")


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_every_command_and_option_exists(page):
    commands = _subcommands()
    problems = []
    for match in COMMAND_PATTERN.finditer(page.read_text()):
        name, rest = match.group(1), match.group(2)
        if name not in commands:
            problems.append(f"command 'accel-sim {name}' does not exist (have: {', '.join(commands)})")
            continue
        options = commands[name]._option_string_actions
        for option in re.findall(r"(?<![\w-])(--[a-z][\w-]*)", rest):
            if option not in options:
                problems.append(f"'accel-sim {name}' has no option {option}")
        if name == "reproduce":
            from accel_sim.studies.registry import all_studies

            studies = all_studies()
            for word in rest.split():
                if word.startswith("-") or word.isupper() or "<" in word or "/" in word:
                    break
                if word not in studies and word != "all":
                    problems.append(f"'accel-sim reproduce {word}': no such study (have: {', '.join(studies)})")
    assert not problems, f"{page.relative_to(REPO)}: " + "; ".join(problems)


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_every_repository_path_exists(page):
    text = page.read_text()
    missing = []
    for raw in PATH_PATTERN.findall(text) + TOP_FILE_PATTERN.findall(text):
        path = _strip(raw)
        if path.startswith(OUTPUT_FOLDERS):
            continue
        if "<" in path or "*" in path:   # a pattern such as accel_sim/models/<family>/model.py: one match at least
            pattern = re.sub(r"<[^>]*>", "*", path)
            if not list(REPO.glob(pattern.rstrip("/"))):
                missing.append(path)
        elif not (REPO / path).exists():
            missing.append(path)
    assert not missing, f"{page.relative_to(REPO)} names paths that do not exist: {sorted(set(missing))}"


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_every_accel_sim_name_resolves(page):
    install_skipper()   # adding_a_model.md names the example family's modules (accel_sim.models.skipper.*)
    unresolved = []
    for name in sorted(set(DOTTED_PATTERN.findall(page.read_text()))):
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            try:
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                unresolved.append(name)
            break
        else:
            unresolved.append(name)
    assert not unresolved, f"{page.relative_to(REPO)} names what does not exist: {unresolved}"


def _run_blocks(page: Path, cwd: Path, monkeypatch) -> tuple[str, str]:
    """Run every python block of ``page`` in one namespace inside ``cwd``; (page text, stdout)."""
    text = page.read_text()
    blocks = PYTHON_BLOCK.findall(text)
    assert blocks, f"{page} has no python block"
    monkeypatch.chdir(cwd)
    output = io.StringIO()
    namespace: dict = {"__name__": "__docs__"}
    with contextlib.redirect_stdout(output):
        for block in blocks:
            exec(compile(block, str(page), "exec"), namespace)
    return text, output.getvalue()


def test_readme_python_snippet_works(tmp_path, monkeypatch):
    (tmp_path / "sweeps").symlink_to(REPO / "sweeps")
    _run_blocks(REPO / "README.md", tmp_path, monkeypatch)
    from accel_sim import load_results

    frame = load_results(tmp_path / "out" / "sweep")
    assert len(frame) == 18 and (frame["cycles"] > 0).all()


def test_concept_blocks_print_what_the_page_shows(tmp_path, monkeypatch):
    text, output = _run_blocks(REPO / "docs" / "concepts.md", tmp_path, monkeypatch)
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) >= 9
    stale = [line for line in lines if line not in text]
    assert not stale, f"docs/concepts.md shows other numbers than its code prints; now: {stale}"


def test_sweep_guide_blocks_run(tmp_path, monkeypatch):
    from accel_sim import run_sweep

    run_sweep(REPO / "sweeps" / "systolic_small.yaml", tmp_path / "out" / "small")
    _run_blocks(REPO / "docs" / "sweeps.md", tmp_path, monkeypatch)
    assert (tmp_path / "pareto.png").stat().st_size > 0


TUTORIALS = sorted((REPO / "tutorials").glob("[0-9][0-9]_*.py"))


def test_every_tutorial_has_a_test_and_is_listed():
    assert TUTORIALS, "no tutorials found"
    readme = (REPO / "tutorials" / "README.md").read_text()
    untested = [t.name for t in TUTORIALS if not (REPO / "tests" / "tutorials" / f"test_{t.name}").is_file()]
    unlisted = [t.name for t in TUTORIALS if t.name not in readme]
    assert not untested, f"tutorials without tests/tutorials/test_<name>.py: {untested}"
    assert not unlisted, f"tutorials missing from tutorials/README.md: {unlisted}"


def test_every_tutorial_the_readme_lists_exists():
    listed = set(re.findall(r"`(\d\d_\w+\.py)`", (REPO / "tutorials" / "README.md").read_text()))
    missing = sorted(name for name in listed if not (REPO / "tutorials" / name).is_file())
    assert not missing, f"tutorials/README.md lists tutorials that do not exist: {missing}"


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("page", PAGES, ids=PAGE_IDS)
def test_every_relative_link_and_anchor_resolves(page):
    broken = []
    for target in LINK.findall(page.read_text()):
        if re.match(r"[a-z]+:", target):   # http:, https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        linked = (page.parent / file).resolve() if file else page
        if linked.is_relative_to(REPO) and str(linked.relative_to(REPO)).startswith(OUTPUT_FOLDERS):
            continue   # what a tutorial writes (its test checks that it does)
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+\s+(.*)$", linked.read_text(), re.M)
            if anchor not in {_anchor(h) for h in headings}:
                broken.append(target)
    assert not broken, f"{page.relative_to(REPO)}: broken links {broken}"


def test_families_page_covers_every_family_config_and_study():
    from accel_sim.pipeline.catalog import FAMILIES
    from accel_sim.studies.registry import all_studies

    text = (REPO / "docs" / "families.md").read_text()
    rows = {cells[0].strip("` "): cells for cells in
            (line.strip("|").split("|") for line in text.splitlines() if line.startswith("| `"))}
    assert set(rows) == set(FAMILIES), "docs/families.md: the table must have one row per family"
    assert all(f"## {family}:" in text for family in FAMILIES), "docs/families.md: one section per family"
    configs = {name for cells in rows.values() for name in re.findall(r"`([\w-]+)`", cells[2])}
    studies = {name for cells in rows.values() for name in re.findall(r"`([\w-]+)`", cells[3])}
    assert configs == {p.stem for p in (REPO / "arch_configs").glob("*.yaml")}, "every shipped config, once"
    assert studies <= set(all_studies()), f"unknown studies: {studies - set(all_studies())}"
    unnamed = [name for name in all_studies() if f"`{name}`" not in text]
    assert not unnamed, f"docs/families.md names no family or paragraph for the studies {unnamed}"


@pytest.mark.parametrize("tutorial", TUTORIALS, ids=lambda p: p.name)
def test_every_tutorial_follows_the_convention(tutorial):
    """Opens as a notebook (jupytext percent format, prose first) and writes figures where told."""
    text = tutorial.read_text()
    assert text.startswith("# %% [markdown]"), f"{tutorial.name}: start with a '# %% [markdown]' cell"
    assert "ACCEL_SIM_TUTORIAL_OUT" in text, f"{tutorial.name}: save figures under $ACCEL_SIM_TUTORIAL_OUT"
