"""The package imports from anywhere: a script saved in the folder that contains the clone (where the
clone's folder, named like the package, would be taken for a namespace package ahead of an import hook)
imports the editable install and runs the README's Python snippet.

pyproject.toml's ``package-dir = {"" = "."}`` makes ``pip install -e .`` write a static ``.pth`` file (the
clone's folder on sys.path) instead of an import hook. The run needs that install of this clone (CI's
``.ci/run`` makes it); elsewhere it is skipped, and the pyproject setting is checked on its own."""
import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

REPO = Path(__file__).resolve().parents[2]


def _snippet() -> str:
    """The README's Python example up to the sweep (the same calls a newcomer copies)."""
    block = re.search(r"```python\n(.*?)```", (REPO / "README.md").read_text(), re.S).group(1)
    lines = [line for line in block.split("\n\n")[0].splitlines()]
    return "\n".join(lines) + "\nprint(int(run.summary_frame()['cycles'].iloc[0]))\n"


def test_editable_install_puts_the_clone_on_sys_path():
    text = (REPO / "pyproject.toml").read_text()
    assert re.search(r'^\[tool\.setuptools\]\s*\npackage-dir = \{"" = "\."\}', text, re.M), \
        "pyproject.toml must keep package-dir {'' = '.'} (static .pth editable install)"


def _editable_roots() -> set[Path]:
    """The folders of every editable install of accel_sim this interpreter sees."""
    roots = set()
    for dist in metadata.distributions(name="sparse-accel-sim"):
        info = json.loads(dist.read_text("direct_url.json") or "{}")
        if info.get("dir_info", {}).get("editable"):
            roots.add(Path(unquote(urlparse(info["url"]).path)).resolve())
    return roots


def test_a_script_in_the_clones_parent_folder_imports_the_package(tmp_path):
    if REPO.resolve() not in _editable_roots():
        pytest.skip("needs `pip install -e .` of this clone (CI's .ci/run)")
    parent = tmp_path / "parent"
    parent.mkdir()
    (parent / "accel_sim").symlink_to(REPO, target_is_directory=True)  # the clone, named like the package
    (parent / "snippet.py").write_text(_snippet())
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for cwd in (parent, REPO):  # beside the clone, and inside it
        done = subprocess.run([sys.executable, str(parent / "snippet.py")], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        assert int(done.stdout.strip().splitlines()[-1]) > 0
