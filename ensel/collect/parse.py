"""Strict parsing of a model's reply into an answer in {-1, 0, +1}.

A reply counts when, after trimming case, whitespace and punctuation, it is exactly one of the
template's words (``True``/``False``; ``POSITIVE``/``NEGATIVE`` for IMDB). Anything else is an
abstention (``0``); the raw text is kept in the store.

Examples
--------
>>> from ensel.collect.prompts import load_template
>>> words = load_template("true_false").answers
>>> [parse_reply(r, words) for r in ["True", " false. ", "**TRUE**", "True, because", None]]
[1, -1, 1, 0, 0]
"""

from __future__ import annotations

import string
from collections.abc import Mapping

__all__ = ["parse_reply"]

_STRIP = string.whitespace + string.punctuation + "\u2018\u2019\u201c\u201d"


def parse_reply(text: str | None, answers: Mapping[str, int]) -> int:
    """Answer of a reply: ``answers[word]`` for an exact word, else 0 (abstention).

    Parameters
    ----------
    text : str or None
        The reply's content (``None`` when the endpoint sent none).
    answers : mapping
        Upper-case accepted words and their answers (:attr:`PromptTemplate.answers`).

    Returns
    -------
    int
        -1, 0 or +1.
    """
    if not text:
        return 0
    return int(answers.get(text.strip(_STRIP).upper(), 0))
