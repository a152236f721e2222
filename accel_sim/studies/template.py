"""A study's README prose lives in a Markdown template beside the study (``templates/<study module>.md``);
the study fills in its numbers. Templates use :class:`string.Template` placeholders (``$name`` or
``${name}``; a literal dollar sign is ``$$``), so the prose reads as Markdown and any placeholder left
unfilled is an error, not a silent gap."""
from __future__ import annotations

from pathlib import Path
from string import Template

TEMPLATES = Path(__file__).resolve().parent / "templates"


def readme(module: str, **values: object) -> str:
    """The README of the study defined in module ``module`` (its ``__name__`` or its last part), filled
    with ``values``."""
    name = module.rpartition(".")[2]
    return Template((TEMPLATES / f"{name}.md").read_text(encoding="utf-8")).substitute(
        {key: str(value) for key, value in values.items()})


def schedule_values(schedule: object) -> dict[str, object]:
    """A training schedule's fields as the templates name them (``$schedule_epochs``, ...)."""
    return {f"schedule_{name}": getattr(schedule, name)
            for name in ("epochs", "batch_size", "learning_rate", "momentum", "seed")}
