"""The distribution has a name of its own on the package index (accel-sim / accel_sim is another
project's), the import name stays accel_sim, and the README says which name to install."""
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _normalised(name: str) -> str:  # PEP 503
    return re.sub(r"[-_.]+", "-", name).lower()


def test_distribution_name_is_not_accel_sim_and_the_readme_names_it():
    name = re.search(r'^name = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.M).group(1)
    assert _normalised(name) != "accel-sim"
    assert (REPO / "accel_sim" / "__init__.py").is_file()
    readme = (REPO / "README.md").read_text()
    assert f"`{name}`" in readme and "import name is `accel_sim`" in readme
