"""The package's lazy submodules and the command line."""

from __future__ import annotations

import ast
import importlib
import re
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
        if rel.parts[0] in ("book", "cli"):
            continue  # the book layer itself; the commands `notebooks`, `evaluate` run the book
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


# Only the book layer and the LLM collector may import these (extras notebooks/book/collect).
_EXTRAS_ONLY = ("matplotlib", "seaborn", "openai", "httpx2", "tenacity", "aiolimiter",
                "sklearn", "myst_nb", "IPython", "papermill", "jupytext", "nbformat")


def _library_modules() -> list[str]:
    import pkgutil

    return sorted(m.name for m in pkgutil.walk_packages(ensel.__path__, "ensel.")
                  if not m.name.startswith("ensel.book") and not m.name.endswith("__main__")
                  and m.name != "ensel.collect.collector")


def test_library_modules_import_without_the_extras() -> None:
    """A core install (no plotting, no collector, no scikit-learn) imports every module."""
    modules = _library_modules()
    assert {"ensel.select", "ensel.collect.estimate", "ensel.theory.saturation"} <= set(modules)
    code = (f"import sys\nfor b in {_EXTRAS_ONLY!r}: sys.modules[b] = None\n"
            f"import importlib\nfor m in {modules!r}: importlib.import_module(m)\n"
            "print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-1500:]


def test_the_collector_names_its_extra_when_openai_is_missing() -> None:
    code = ("import sys; sys.modules['openai'] = None\nimport ensel.collect\n"
            "try:\n    ensel.collect.collect\nexcept ModuleNotFoundError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == ("ensel.collect.collect needs the collector's dependencies (openai is not "
                   'installed); install them with: pip install "ensel[collect]"')


def _pyproject() -> dict:
    return tomllib.loads((PKG.parent / "pyproject.toml").read_text(encoding="utf-8"))


def test_core_dependencies_leave_plotting_and_the_collector_to_extras() -> None:
    project = _pyproject()["project"]
    core = {re.split(r"[<>=!~ \[]", r)[0].lower() for r in project["dependencies"]}
    assert core == {"numpy", "scipy", "pandas", "pyarrow", "pooch", "tqdm", "pyyaml"}
    extras = project["optional-dependencies"]
    names = {k: {re.split(r"[<>=!~ \[]", r)[0].lower() for r in v} for k, v in extras.items()}
    assert {"openai", "httpx2", "tenacity", "aiolimiter"} <= names["collect"]
    assert {"matplotlib", "seaborn", "myst-nb", "ipykernel"} | names["collect"] <= names[
        "notebooks"] <= names["book"]
    assert "openai>=3.0,<4" in extras["collect"]


def test_the_version_lives_in_one_place() -> None:
    import importlib.metadata

    conf = _pyproject()
    assert "version" not in conf["project"] and conf["project"]["dynamic"] == ["version"]
    assert conf["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "ensel.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", ensel.__version__)
    assert importlib.metadata.version("ensel") == ensel.__version__


def test_citation_cff_is_valid_cff_1_2_0() -> None:
    """The keys and types CFF 1.2.0 requires, and the facts shared with pyproject.toml."""
    import yaml

    cff = yaml.safe_load((PKG.parent / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    for key in ("cff-version", "message", "title", "authors"):  # required by the schema
        assert isinstance(cff.get(key), (str, list)) and cff[key], key
    assert cff["type"] == "software" and cff["version"] == ensel.__version__

    def check_authors(authors: list) -> None:
        assert authors and all(isinstance(a, dict) for a in authors)
        for a in authors:  # a person needs family-names (or name for an entity)
            assert a.get("family-names") or a.get("name"), a
            assert set(a) <= {"family-names", "given-names", "name", "affiliation", "email",
                              "orcid", "website"}, a

    check_authors(cff["authors"])
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(cff["date-released"]))
    pref = cff["preferred-citation"]
    for key in ("type", "title", "authors"):  # required in a reference
        assert pref.get(key), key
    assert pref["type"] == "article" and "Highest-Performing Model" in pref["title"]
    check_authors(pref["authors"])
    assert pref["status"] in {"abstract", "advance-online", "in-preparation", "in-press",
                              "preprint", "submitted"}
    project = _pyproject()["project"]
    assert cff["license"] == project["license"] == "MIT"
    names = [f"{a['given-names']} {a['family-names']}" for a in cff["authors"]]
    assert names == [a["name"] for a in project["authors"]]
    assert cff["repository-code"] == project["urls"]["Repository"]
    assert cff["url"] == project["urls"]["Documentation"]
    assert pref["url"] == project["urls"]["Paper"]
    assert (PKG.parent / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    # the book's front page cites the same paper, with the same authors in the same order
    intro = (PKG.parent / "book" / "intro.md").read_text(encoding="utf-8")
    box = intro[intro.index(":::{admonition} How to cite"):]
    box = " ".join(box[:box.index("\n:::")].split())
    assert " ".join(pref["title"].split()) in box.replace("*", "").replace("> ", "")
    assert ", ".join(names[:-1]) + " and " + names[-1] in box
    assert "author = {" + " and ".join(
        f"{a['family-names']}, {a['given-names']}" for a in pref["authors"]) + "}" in box


def test_the_pages_sources_are_package_data() -> None:
    from ensel.datasets._paths import package_data

    assert package_data("notebooks", "experiments.py").is_file()
    assert package_data("notebooks", "runs.yml").is_file()
    assert package_data("collect", "paper.yml").is_file()
    assert package_data("collect", "prompts.yml").is_file()
