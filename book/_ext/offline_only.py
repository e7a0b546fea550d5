"""Sphinx extension: strip the dormant Thebe/Binder machinery from every page.

Jupyter Book 1.x always loads ``sphinx_thebe``, which puts on every page a script naming a
CDN (``unpkg.com``) and a Binder repository, and includes it twice (a console error). The book
has no launch buttons and must work offline, so these assets are removed from the pages.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes


def _is_thebe(asset: Any) -> bool:
    name = str(getattr(asset, "filename", None) or asset)
    body = str(getattr(asset, "attributes", {}).get("body", ""))
    return "thebe" in name.lower() or "THEBE_JS_URL" in body


def _drop_assets(app: Any, pagename: str, templatename: str, context: dict,
                 doctree: Any) -> None:
    for key in ("script_files", "css_files"):
        if key in context:
            context[key] = [a for a in context[key] if not _is_thebe(a)]


def _drop_config(app: Any, doctree: nodes.document, docname: str) -> None:
    for node in list(doctree.findall(nodes.raw)):
        if "x-thebe-config" in node.astext():
            node.parent.remove(node)


def setup(app: Any) -> dict[str, Any]:
    app.connect("html-page-context", _drop_assets, priority=900)
    app.connect("doctree-resolved", _drop_config, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
