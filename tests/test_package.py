"""The package's lazy submodules and the command line."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import ensel
from ensel.cli import main as cli_main

PKG = Path(ensel.__file__).parent


def test_every_module_is_exposed_and_imports() -> None:
    modules = {p.stem for p in PKG.glob("*.py") if not p.stem.startswith("_")} | {"datasets"}
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
