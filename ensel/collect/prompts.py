"""The paper's prompts as versioned templates (``data/collect/prompts.yml``).

A :class:`PromptTemplate` renders one binary query into chat messages (system + user) and
carries a :func:`template_hash`, stored with every collected answer so answers from two
prompt versions are never mixed silently.

Examples
--------
>>> t = load_template("true_false")
>>> msgs = t.render({"question": "Axonal transport is:", "candidate_answer": "Antegrade"})
>>> print(msgs[1]["content"])
Question: Axonal transport is: Is the answer 'Antegrade'?
Answer:
>>> len(t.hash)
16
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

import yaml

from ensel._errors import DataError
from ensel._validation import Shown, constraint_error
from ensel.datasets._paths import package_data

__all__ = ["PROMPT_VERSION", "PromptTemplate", "load_template", "template_hash"]

#: The version of the shipped templates (the paper's prompts).
PROMPT_VERSION = "paper-v1"
_PLACEHOLDER = re.compile(r"<([a-z_]+)>")


def template_hash(version: str, system: str, user: str) -> str:
    """First 16 hex digits of the SHA-256 of a template's version, system and user text."""
    text = json.dumps([version, system, user], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class PromptTemplate:
    """One task's messages, with ``<field>`` placeholders.

    Attributes
    ----------
    task : str
        ``"true_false"`` (MedMCQA, MMLU) or ``"sentiment"`` (IMDB).
    version : str
    system, user : str
        Message templates; ``user`` holds the placeholders.
    answers : dict
        Accepted reply words (upper case) and their answer in {-1, +1}.
    """

    task: str
    version: str
    system: str
    user: str
    answers: Mapping[str, int] = field(repr=False)

    @property
    def fields(self) -> tuple[str, ...]:
        """Placeholder names of the user message, in order."""
        return tuple(_PLACEHOLDER.findall(self.user))

    @property
    def hash(self) -> str:
        """:func:`template_hash` of this template."""
        return template_hash(self.version, self.system, self.user)

    def render(self, values: Mapping[str, str]) -> list[dict[str, str]]:
        """Chat messages for one query (single pass: text inside a value is never expanded).

        Raises
        ------
        ValueError
            A placeholder has no value.
        """
        missing = [f for f in self.fields if f not in values]
        if missing:
            raise constraint_error("values", f"the field(s) {self.fields} of prompt {self.task!r}",
                                   Shown(f"no {missing}"))
        user = _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), self.user)
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]


@cache
def _templates(version: str) -> dict[str, PromptTemplate]:
    path = package_data("collect", "prompts.yml")
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    if doc.get("version") != version:
        raise DataError(
            f"prompt version {version!r} is not shipped; {path} holds {doc.get('version')!r}"
        )
    return {
        task: PromptTemplate(task=task, version=version, system=t["system"], user=t["user"],
                             answers={str(k).upper(): int(v) for k, v in t["answers"].items()})
        for task, t in doc["templates"].items()
    }


def load_template(task: str, version: str = PROMPT_VERSION) -> PromptTemplate:
    """The shipped template of ``task`` (``"true_false"`` or ``"sentiment"``).

    Raises
    ------
    ValueError
        Unknown task or version.
    """
    templates = _templates(version)
    if task not in templates:
        raise constraint_error("task", f"a shipped prompt task, one of {sorted(templates)}", task)
    return templates[task]
