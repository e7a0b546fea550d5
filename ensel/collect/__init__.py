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
:mod:`.cli`                 ``ensel collect run|estimate|status|export|merge|simulate``
==========================  ===================================================================
"""

from __future__ import annotations

from ensel.collect.collector import EndpointRefused, RunSummary, collect, load_queries
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
