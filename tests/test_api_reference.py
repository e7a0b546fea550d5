"""The API reference part of the book covers every public name, and the map links into it."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import posixpath
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "book" / "api"
ROLE = re.compile(r"\{py:(mod|func|class|obj|data|meth|attr|exc)\}`(?:[^`<]*<)?([\w.]+)>?`")


def _api_pages():
    path = ROOT / "book" / "_ext" / "api_pages.py"
    spec = importlib.util.spec_from_file_location("api_pages", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _autosummary_entries(text: str) -> set[str]:
    """Fully qualified names listed in the page's autosummary tables."""
    out: set[str] = set()
    for block in re.findall(r"\.\. currentmodule:: ([\w.]+)\n\n\.\. autosummary::\n"
                            r"   :nosignatures:\n\n((?:   \w+\n)+)", text):
        module, names = block
        out |= {f"{module}.{n.strip()}" for n in names.splitlines()}
    return out


def test_the_pages_and_their_toc_are_up_to_date() -> None:
    """Adding a module or a public name: run `python book/_ext/api_pages.py` (it says which)."""
    gen = _api_pages()
    files = gen.expected()
    stale = sorted(str(p.relative_to(ROOT)) for p, text in files.items()
                   if not p.is_file() or p.read_text(encoding="utf-8") != text)
    assert stale == [], f"run: .venv/bin/python book/_ext/api_pages.py (out of date: {stale})"
    modules = gen.public_modules()
    assert {"ensel.info", "ensel.select", "ensel.theory.saturation", "ensel.datasets",
            "ensel.collect.collector"} <= set(modules)
    assert not [m for m in modules if re.search(r"\._|\.cli$|practice|__main__", m)]


def test_every_public_name_is_in_an_autosummary_list() -> None:
    gen = _api_pages()
    listed: set[str] = set()
    for page in API.glob("*.md"):
        listed |= _autosummary_entries(page.read_text(encoding="utf-8"))
    missing = []
    for module in gen.public_modules():
        mod = importlib.import_module(module)
        page = (API / f"{gen.page_name(module)}.md").read_text(encoding="utf-8")
        entries = _autosummary_entries(page)
        for name in mod.__all__:
            home = gen.home_module(module, name)
            if f"{home}.{name}" not in entries or f"{home}.{name}" not in listed:
                missing.append(f"{module}.{name}")
    assert missing == []
    assert len(listed) >= 250


def test_the_map_of_the_paper_links_every_code_name() -> None:
    from ensel.book.provenance import code_role, resolve_name
    from ensel.paper import paper_map

    text = (ROOT / "book" / "figure_map.md").read_text(encoding="utf-8")
    # the generated tables link the code names of the paper map
    text += "\n".join(code_role(name) for obj in paper_map() for name in obj.code)
    # a code name outside a {py:...} role (paths such as notebooks/runs.yml are not code names)
    bare = [m for m in re.findall(r"(?<![}\w])`([A-Za-z_][\w.]*)`", text)
            if not m.endswith((".yml", ".py", ".csv"))]
    assert bare == [], f"code names on the map without a link: {bare}"
    targets = [t for _, t in ROLE.findall(text)]
    assert len(targets) >= 40
    pages = "".join(p.read_text(encoding="utf-8") for p in API.glob("*.md"))
    for target in targets:  # each one imports and is on a page of the API reference
        parts = target.split(".")
        obj = resolve_name(target)
        assert obj is not None, target
        if inspect.ismodule(obj):
            assert f"automodule:: {target}\n" in pages or f"py:module:: {target}\n" in pages
        else:
            assert f"   {parts[-1]}\n" in pages, target


def python_objects(inv_path: Path) -> set[str]:
    """Names of the Python objects in a Sphinx inventory (``objects.inv``)."""
    from sphinx.util.inventory import InventoryFile

    with inv_path.open("rb") as f:
        inv = InventoryFile.load(f, "", posixpath.join)
    return {name for kind, objs in inv.items() if kind.startswith("py:") for name in objs}


@pytest.mark.built_book
def test_objects_inv_lists_the_library() -> None:
    """On the built book (make book, then make test-book): at least 150 Python objects, the
    map's names among them."""
    from conftest import require_built_book

    inv_path = require_built_book() / "objects.inv"
    py = python_objects(inv_path)
    assert len(py) >= 150, len(py)
    assert {"ensel.select.GreedyMI", "ensel.select.GreedyMI.get_params",
            "ensel.aggregate.MAPAggregator.score", "ensel.info.smoothed_mutual_information",
            "ensel.theory.saturation.ensemble_error", "ensel.copula.fit_gaussian_copula",
            "ensel.experiment.evaluate", "ensel.datasets.load"} <= py
