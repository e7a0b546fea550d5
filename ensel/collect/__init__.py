"""Regenerate the paper's raw data: ``ensel collect``.

==========================  ===================================================================
module                      what
==========================  ===================================================================
:mod:`.queries`             the paper's binary query sets (MedMCQA, MMLU, IMDB, MMLU-Pro's
                            original-MMLU items); :mod:`.sources` downloads the upstream files
:mod:`.prompts`             the paper's prompts as versioned templates with a hash
:mod:`.config`              the YAML run configuration (``data/collect/paper.yml``)
:mod:`.collector`           async requests to an OpenAI-compatible endpoint, retries, limits
:mod:`.store`               the resumable SQLite answer store; export to the tidy table
:mod:`.parse`               strict reply parsing (abstention = 0)
:mod:`.estimate`            dry-run requests, tokens, cost and time
:mod:`.simulate`            a simulated model pool behind a loopback chat-completions server
:mod:`ensel.collect.cli`    ``ensel collect run|estimate|status|export|merge|simulate``
==========================  ===================================================================
"""

from __future__ import annotations

from typing import Any

from ensel.collect.config import ConfigError, RunConfig, load_config
from ensel.collect.estimate import estimate
from ensel.collect.parse import parse_reply
from ensel.collect.prompts import PROMPT_VERSION, PromptTemplate, load_template
from ensel.collect.queries import DatasetFileError, build_queries
from ensel.collect.simulate import Faults, SimulatedPool, SimulatorServer
from ensel.collect.store import Store, StoreError, condition_label

__all__ = [
    "PROMPT_VERSION",
    "ConfigError",
    "DatasetFileError",
    "EndpointRefused",
    "Faults",
    "PromptTemplate",
    "RunConfig",
    "RunSummary",
    "SimulatedPool",
    "SimulatorServer",
    "Store",
    "StoreError",
    "build_queries",
    "collect",
    "condition_label",
    "estimate",
    "load_config",
    "load_queries",
    "load_template",
    "parse_reply",
]

# The collector needs the `collect` extra (openai on httpx2, tenacity, aiolimiter); everything
# else here (queries, prompts, config, estimate, store, simulate) runs on the core install, so
# the collector's names are imported on first use.
_COLLECTOR_NAMES = ("EndpointRefused", "RunSummary", "collect", "load_queries")


def __getattr__(name: str) -> Any:
    if name in _COLLECTOR_NAMES:
        try:
            from ensel.collect import collector
        except ModuleNotFoundError as exc:
            raise ModuleNotFoundError(
                f"ensel.collect.{name} needs the collector's dependencies ({exc.name} is not "
                'installed); install them with: pip install "ensel[collect]"', name=exc.name
            ) from exc
        return getattr(collector, name)
    raise AttributeError(f"module 'ensel.collect' has no attribute {name!r}")
