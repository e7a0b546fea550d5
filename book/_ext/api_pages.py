"""Write the API reference pages (``book/api/<module>.md``) and their part of ``_toc.yml``.

One page per public library module: every module of ``ensel`` except the private ones
(``_name``), the book layer (``ensel.book``: only the modules the map of the paper names,
``BOOK_MODULES``) and the command line (``cli``, ``practice``, ``__main__``). A page has an
autosummary table of the module's ``__all__`` and the module's documentation
(``automodule``); a package that re-exports its modules' names
(``ensel.theory``, ``ensel.collect``) lists them under the module that defines them, where
they are documented once. ``tests/test_api_reference.py`` checks that the committed pages and
the table of contents are what this script writes, so after adding a module run::

    .venv/bin/python book/_ext/api_pages.py

Run from the repository root; ``--check`` only reports pages that differ (exit code 1);
``--link-map`` turns the code names written on the map of the paper (``book/figure_map.md``)
into links to these pages.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "book" / "api"
TOC = ROOT / "_toc.yml"
TOC_CAPTION = "  - caption: API reference\n"
# members inherited from Python's own classes (exceptions, named tuples) are not documented
INHERIT = "object, BaseException, Exception, ValueError, RuntimeError, tuple, dict, str, int, float"
# the order of the library's layers (ARCHITECTURE.md); other modules follow alphabetically
ORDER = ["info", "select", "aggregate", "copula", "theory", "data", "experiment", "stats",
         "diagnostics", "datasets", "collect", "book"]
# the book layer's modules that the map of the paper names (the pages' tables and claims)
BOOK_MODULES = ["ensel.book.simulation", "ensel.book.tables", "ensel.book.claims"]


def public_modules() -> list[str]:
    """Names of the public library modules, in reading order (packages before their modules)."""
    import ensel

    names = []
    for info in pkgutil.walk_packages(ensel.__path__, "ensel."):
        parts = info.name.split(".")
        if (any(p.startswith("_") for p in parts[1:]) or parts[1] in ("book", "cli", "practice")
                or parts[-1] == "cli"):
            continue
        names.append(info.name)
    names += BOOK_MODULES

    def key(name: str) -> tuple[int, str]:
        top = name.split(".")[1]
        return (ORDER.index(top) if top in ORDER else len(ORDER), name)

    return sorted(names, key=key)


def page_name(module: str) -> str:
    """``ensel.theory.saturation`` -> ``theory_saturation`` (the page's file stem)."""
    return module.removeprefix("ensel.").replace(".", "_")


def home_module(package: str, name: str) -> str:
    """The module that defines ``package.name`` (a constant: the submodule listing it)."""
    mod = importlib.import_module(package)
    obj = getattr(mod, name)
    if inspect.isclass(obj) or inspect.isfunction(obj):
        return str(obj.__module__)
    for info in pkgutil.iter_modules(getattr(mod, "__path__", []), package + "."):
        sub = importlib.import_module(info.name)
        if name in getattr(sub, "__all__", ()) and getattr(sub, name) is obj:
            return info.name
    return package


def _table(module: str, names: list[str]) -> str:
    body = "\n".join(f"   {n}" for n in names)
    return (f"```{{eval-rst}}\n.. currentmodule:: {module}\n\n.. autosummary::\n"
            f"   :nosignatures:\n\n{body}\n```\n")


def _directive(mod: ModuleType, name: str) -> str:
    obj = getattr(mod, name)
    if inspect.isclass(obj):
        return f"\n.. autoclass:: {name}\n   :members:\n   :inherited-members: {INHERIT}\n"
    if inspect.isfunction(obj):
        return f"\n.. autofunction:: {name}\n"
    return f"\n.. autodata:: {name}\n   :no-value:\n"


def page(module: str) -> str:
    """The Markdown of one module's page."""
    from sphinx.pycode import ModuleAnalyzer

    mod = importlib.import_module(module)
    groups: dict[str, list[str]] = {}
    for name in mod.__all__:
        groups.setdefault(home_module(module, name), []).append(name)
    own = groups.pop(module, [])
    # names a parent package re-exports from this module without this module's __all__
    parent = module.rsplit(".", 1)[0]
    extra = [n for n in getattr(importlib.import_module(parent), "__all__", [])
             if parent != "ensel" and n not in mod.__all__ and hasattr(mod, n)
             and home_module(parent, n) == module]
    docs = ModuleAnalyzer.for_module(module).find_attr_docs()

    def documented(name: str) -> bool:
        obj = getattr(mod, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            return bool(obj.__doc__)
        return ("", name) in docs

    out = [f"# `{module}`\n\n",
           f"(Generated from the docstrings; `from {module} import <name>` works for every "
           "name listed here.)\n\n"]
    if own or extra:
        out.append(_table(module, own + extra))
    for home, names in groups.items():
        out.append(f"\nFrom {{py:mod}}`{home}`:\n\n{_table(home, names)}")
    members = f":members:\n   :inherited-members: {INHERIT}\n" if own else ":no-members:\n"
    explicit = "".join(_directive(mod, n) for n in [n for n in own if not documented(n)] + extra)
    out.append(f"\n```{{eval-rst}}\n.. automodule:: {module}\n   {members}{explicit}```\n")
    return "".join(out)


def toc_part(modules: list[str]) -> str:
    """The API reference part of ``_toc.yml`` (the last part of the book): one chapter, the
    index, whose sections are the modules (a package's modules nested under it), so the
    sidebar shows one collapsed entry instead of every module."""
    lines = [TOC_CAPTION, "    chapters:\n", "      - file: book/api/index\n",
             "        sections:\n"]
    for module in modules:
        if module in BOOK_MODULES:
            lines.append(f"          - file: book/api/{page_name(module)}\n")
        elif module.count(".") == 1:
            lines.append(f"          - file: book/api/{page_name(module)}\n")
            subs = [m for m in modules if m.startswith(module + ".")]
            if subs:
                lines.append("            sections:\n")
                lines += [f"              - file: book/api/{page_name(m)}\n" for m in subs]
    return "".join(lines)


def link_code_names(text: str) -> str:
    """Turn the code names of the map of the paper (```ensel.theory.ensemble_error```,
    ```copula.copula_diagnostics```, a bare ```mrmr``` after a name of its module in the same
    table cell) into ``{py:...}`` roles that link to the API reference. Names that do not
    import (paths, parameters) are left as they are; names already linked are untouched.
    """

    def resolve(name: str) -> tuple[str, str] | None:
        full = name if name == "ensel" or name.startswith("ensel.") else "ensel." + name
        parts = full.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj: object = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for attr in parts[cut:]:
                obj = getattr(obj, attr, None)
                if obj is None:
                    return None
            kind = ("mod" if inspect.ismodule(obj) else "class" if inspect.isclass(obj)
                    else "func" if callable(obj) else "data")
            return full, kind
        return None

    def cell(text: str) -> str:
        last: list[str] = []

        def repl(m: re.Match[str]) -> str:
            name = m.group(1)
            if name == "book.":
                return "{py:mod}`book <ensel.book>`"
            found = resolve(name) or (resolve(f"{last[-1]}.{name}") if last else None)
            if found is None:
                return m.group(0)
            full, kind = found
            last.append(full if kind == "mod" else full.rsplit(".", 1)[0])
            return f"{{py:{kind}}}`{full}`" if name == full else f"{{py:{kind}}}`{name} <{full}>`"

        return re.sub(r"(?<![\w>}])`([A-Za-z_][\w.]*)`", repl, text)

    return "\n".join("|".join(cell(c) for c in line.split("|")) for line in text.split("\n"))


def expected() -> dict[Path, str]:
    """Every generated file and its content (the pages and ``_toc.yml``)."""
    modules = public_modules()
    files = {API / f"{page_name(m)}.md": page(m) for m in modules}
    toc = TOC.read_text(encoding="utf-8")
    head = toc[:toc.index(TOC_CAPTION)] if TOC_CAPTION in toc else toc.rstrip("\n") + "\n"
    files[TOC] = head + toc_part(modules)
    return files


def main(argv: list[str]) -> int:
    if "--link-map" in argv:  # after editing the map of the paper: link its code names
        path = ROOT / "book" / "figure_map.md"
        path.write_text(link_code_names(path.read_text(encoding="utf-8")), encoding="utf-8")
        return 0
    files = expected()
    stale = [p for p, text in files.items()
             if not p.is_file() or p.read_text(encoding="utf-8") != text]
    orphans = sorted(set(API.glob("*.md")) - set(files) - {API / "index.md"})
    if "--check" in argv:
        for p in stale + orphans:
            print(f"out of date: {p.relative_to(ROOT)}")
        return int(bool(stale or orphans))
    for p in stale:
        p.write_text(files[p], encoding="utf-8")
        print(f"wrote {p.relative_to(ROOT)}")
    for p in orphans:
        p.unlink()
        print(f"removed {p.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main(sys.argv[1:]))
