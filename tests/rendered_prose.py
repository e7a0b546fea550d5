"""Checks of the rendered HTML pages for prose that misreports its numbers (shared by the
notebook build test and its unit tests).

* :func:`quoted_glue` -- a glued value pasted into a sentence with its quote marks (``{glue:}``
  pastes the ``repr`` of a string: "'2,102,352' requests"; ``{glue:text}`` does not);
* :func:`shown_defaults` -- a page run with other parameters that still shows the notebook's
  default values (``rho = 0.3`` on the ρ = 0.6 page) where the reader reads the code.
"""

from __future__ import annotations

import ast
import re

from bs4 import BeautifulSoup

_QUOTED = re.compile(r"""^\s*(['"‘“]).*(['"’”])\s*$""", re.S)
_FOLDED = {"tag_hide-cell", "tag_hide-input", "tag_remove-cell", "tag_remove-input"}


def quoted_glue(html: str) -> list[str]:
    """The inline glued values of a page whose text is wrapped in quote marks."""
    soup = BeautifulSoup(html, "html.parser")
    found = []
    for span in soup.find_all("span"):
        classes = set(span.get("class") or ())
        if "pasted-text" in classes or {"output", "text_plain"} <= classes:
            text = span.get_text()
            if _QUOTED.match(text):
                found.append(text.strip())
    return found


def _assignments(code: str) -> dict[str, str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return {}
    return {t.id: ast.unparse(node.value) for node in tree.body if isinstance(node, ast.Assign)
            for t in node.targets if isinstance(t, ast.Name)}


def shown_defaults(html: str) -> list[str]:
    """Default parameter values a reader sees although the page ran with other values."""
    soup = BeautifulSoup(html, "html.parser")

    def cells(tag: str) -> list:
        return [d for d in soup.find_all("div") if f"tag_{tag}" in (d.get("class") or ())]

    injected = {}
    for cell in cells("injected-parameters"):
        injected.update(_assignments(cell.find("pre").get_text() if cell.find("pre") else ""))
    problems = []
    for cell in cells("parameters"):
        if _FOLDED & set(cell.get("class") or ()) or not cell.find("pre"):
            continue
        for name, default in _assignments(cell.find("pre").get_text()).items():
            if name in injected and injected[name] != default:
                problems.append(f"{name} = {default} shown; the page ran with "
                                f"{name} = {injected[name]}")
    return problems
