"""Studies are short scripts over the public API with their prose in Markdown templates (issue 32): no study
function is longer than 60 lines, no study module holds a paragraph of prose in a string, and every template a
study names exists."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

STUDIES = Path(__file__).resolve().parents[2] / "accel_sim" / "studies"
MODULES = sorted(p for p in STUDIES.glob("*.py") if p.name != "__init__.py")
MAX_FUNCTION_LINES = 60
MAX_STRING_CHARS = 400   # a paragraph: prose of that length belongs in templates/<study>.md


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_study_functions_are_short(path):
    tree = ast.parse(path.read_text())
    long = [f"{node.name}: {node.end_lineno - node.lineno + 1} lines" for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert not long, f"{path.name}: functions longer than {MAX_FUNCTION_LINES} lines: {long}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_study_prose_lives_in_templates(path):
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    prose = [node.value[:60] + "..." for node in ast.walk(tree) if isinstance(node, ast.Constant)
             and isinstance(node.value, str) and len(node.value) > MAX_STRING_CHARS and id(node) not in docstrings]
    assert not prose, f"{path.name}: prose in strings (move it to templates/{path.stem}.md): {prose}"
