"""Sphinx extension for the API reference (``book/api/``): names as users write them.

* A code name written the way users import it resolves to the object's page:
  ``{py:func}`ensel.theory.ensemble_error``` links to ``ensel.theory.saturation.ensemble_error``
  (packages re-export their modules' names), and a bare name in a docstring
  (``:exc:`DatasetFileError```) resolves against the module or class it is written in.
  Only names that import and are documented in this book resolve; a name of a private module,
  the book layer or the command line (no reference page) is shown as plain text; anything
  else stays a nitpicky warning, so a wrong name in a docstring or on a page fails the build.
* The one-line doc comment of a constant (``#: The one registry: name -> class``) is prose:
  napoleon would read the text before its first colon as a type.
"""

from __future__ import annotations

import importlib
import inspect
import re
from typing import Any

from docutils import nodes
from sphinx.addnodes import pending_xref
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment


def _canonical(target: str) -> str | None:
    """``pkg.name`` -> ``home_module.name`` (or ``home_module.Class.attr``), when it imports."""
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        owner: Any = None
        for attr in parts[cut:]:
            owner, obj = obj, getattr(obj, attr, None)
            if obj is None:
                return None
        if inspect.isclass(obj) or inspect.isfunction(obj):
            return f"{obj.__module__}.{obj.__qualname__}"
        if inspect.ismodule(obj):
            return obj.__name__
        if inspect.ismodule(owner):  # a constant: the module of the same name in its __all__
            for home in _homes(owner):
                if parts[-1] in getattr(home, "__all__", ()) and getattr(home, parts[-1],
                                                                         None) is obj:
                    return f"{home.__name__}.{parts[-1]}"
        return None
    return None


def _homes(pkg: Any) -> list[Any]:
    import pkgutil

    mods = [pkg]
    for info in pkgutil.iter_modules(getattr(pkg, "__path__", []), pkg.__name__ + "."):
        try:
            mods.append(importlib.import_module(info.name))
        except ImportError:
            continue
    return mods[1:] + mods[:1]


def _resolve(app: Sphinx, env: BuildEnvironment, node: pending_xref,
             contnode: nodes.TextElement) -> nodes.reference | None:
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip("~.")
    candidates = [target]
    context = [c for c in (node.get("py:class"), node.get("py:module")) if c]
    if node.get("py:module") and node.get("py:class"):
        candidates.insert(0, f"{node['py:module']}.{node['py:class']}.{target}")
    candidates += [f"{node['py:module']}.{target}"] if node.get("py:module") else []
    if not target.startswith("ensel") and not context and "." not in target:
        return None
    domain = env.get_domain("py")
    for name in candidates:
        if not name.startswith("ensel"):
            continue
        home = _canonical(name)
        if home is None:
            continue
        if home != target:
            found = domain.resolve_any_xref(env, node["refdoc"], app.builder, home, node,
                                            contnode)
            if found:
                return found[0][1]
        if _UNDOCUMENTED.fullmatch(home) and home not in domain.objects:
            return contnode  # a private module's or the command line's name: plain text
    # a name written without its module (``PromptTemplate.answers``, ``to_html``): when
    # exactly one documented object of ensel ends with it
    ends = [n for n in domain.objects if n.startswith("ensel.") and n.endswith("." + target)]
    if len(ends) == 1:
        found = domain.resolve_any_xref(env, node["refdoc"], app.builder, ends[0], node,
                                        contnode)
        if found:
            return found[0][1]
    return None


#: Names with no reference page: private modules, the book layer, the command line.
_UNDOCUMENTED = re.compile(r"ensel\.(book|cli|practice|([a-z_]+\.)*_[a-z]\w*|([a-z_]+\.)*cli)"
                           r"(\..*)?")


_PROSE: dict[str, list[str]] = {}


def _keep_constant_doc(app: Sphinx, what: str, name: str, obj: Any, options: Any,
                       lines: list[str]) -> None:
    # napoleon reads "<type>: <text>" from the first line of a constant's doc comment
    if what in ("data", "attribute") and lines and ":" in lines[0]:
        _PROSE[name] = list(lines)


def _restore_constant_doc(app: Sphinx, what: str, name: str, obj: Any, options: Any,
                          lines: list[str]) -> None:
    if name in _PROSE:
        lines[:] = _PROSE.pop(name)


def _drop_type_doc(app: Sphinx, what: str, name: str, obj: Any, options: Any,
                   lines: list[str]) -> None:
    """A constant without a doc comment shows no doc, not its type's ("str(object='') ->
    str ..." under every string constant)."""
    doc = type(obj).__doc__
    if (what in ("data", "attribute") and doc and not callable(obj)
            and "\n".join(lines).strip() == inspect.cleandoc(doc).strip()):
        lines.clear()


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("autodoc-process-docstring", _drop_type_doc, priority=300)
    # around napoleon's own autodoc-process-docstring handler (priority 500)
    app.connect("autodoc-process-docstring", _keep_constant_doc, priority=400)
    app.connect("autodoc-process-docstring", _restore_constant_doc, priority=600)
    app.connect("missing-reference", _resolve)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
