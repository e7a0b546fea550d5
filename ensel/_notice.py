"""One-line notices to the user that are not Python warnings.

The book's notebooks fail on printed warnings (:mod:`ensel.runner` rejects a notebook whose
stderr holds the word "Warning"), yet some events deserve a line on screen: a damaged cache
file rebuilt, a ``{0, 1}`` table read as False/True, a mirror file missing so the cache is
used. They go through the ``logging`` logger ``"ensel"`` at level WARNING: without any logging
configuration Python prints the bare message to stderr; applications silence or redirect it
with ``logging.getLogger("ensel")``. Messages start with ``"ensel: "`` and never contain the
word "Warning".
"""

from __future__ import annotations

import logging

__all__ = ["notice", "logger"]

logger = logging.getLogger("ensel")


def notice(message: str, *, quiet: bool = False) -> None:
    """Emit one line (``"ensel: <message>"``) on the ``ensel`` logger.

    Level WARNING (printed without any logging configuration), or INFO with ``quiet=True``
    (for routine events such as replacing a cache file written by an older ``ensel``).
    """
    text = " ".join(str(message).split())
    text = text if text.startswith("ensel: ") else f"ensel: {text}"
    if quiet:
        logger.info(text)
    else:
        logger.warning(text)
