"""The package's lazy submodules and the command line."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import ensel
from ensel.cli import main as cli_main

PKG = Path(ensel.__file__).parent


def test_every_module_is_exposed_and_imports() -> None:
    modules = {p.stem for p in PKG.glob("*.py") if not p.stem.startswith("_")}
    modules |= {p.parent.name for p in PKG.glob("*/__init__.py")} - {"book"}
    exposed = set(ensel.__all__) - {"__version__"}
    assert modules == exposed
    for name in sorted(exposed):
        assert getattr(ensel, name) is importlib.import_module(f"ensel.{name}")
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        _ = ensel.nonexistent


def test_cli_help_and_notebooks_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["--help"]) == 0
    assert "notebooks" in capsys.readouterr().out
    assert cli_main(["notebooks", "list"]) == 0
    out = capsys.readouterr().out
    assert "system_model" in out and "experiments-medmcqa" in out


def test_cli_unknown_notebook_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["notebooks", "run", "no_such_page"]) == 2
    assert "no run of notebook 'no_such_page'" in capsys.readouterr().err


def _imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names}
    return names


def test_the_library_never_imports_the_book_layer() -> None:
    offenders = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG)
        if rel.parts[0] == "book" or rel.name == "cli.py":
            continue  # the book layer itself; the CLI's `notebooks` command runs the book
        bad = sorted(m for m in _imported_modules(path) if m.split(".")[:2] == ["ensel", "book"])
        if bad:
            offenders.append(f"{rel}: {bad}")
    assert not offenders, offenders
    # and importing the whole library does not pull the book layer in
    code = ("import sys, ensel, importlib; [importlib.import_module('ensel.' + m) for m in "
            "ensel._SUBMODULES if m != 'cli']; print(sorted(m for m in sys.modules "
            "if m.startswith('ensel.book')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_pyproject_lists_every_package() -> None:
    conf = tomllib.loads((PKG.parent / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(conf["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(PKG.parent).parts) for p in PKG.rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)
    data_dirs = {"ensel._data" + "".join("." + q for q in d.relative_to(PKG.parent / "data").parts)
                 for d in (PKG.parent / "data").rglob("*") if d.is_dir()} | {"ensel._data"}
    assert data_dirs - {d for d in data_dirs if "__pycache__" in d} <= listed, \
        sorted(data_dirs - listed)
