"""Fixtures of the collector tests: a small MMLU-format query file, a run config, a simulated
pool server on 127.0.0.1 (a real HTTP server, started and stopped by the test)."""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ensel.collect.collector import load_queries
from ensel.collect.config import RunConfig, load_config
from ensel.collect.simulate import Faults, SimulatedPool, SimulatorServer
from ensel.collect.testing import write_fixture

#: A throw-away key drawn afresh for every test session (no key is written in the repository):
#: tests check it never reaches the store, the logs or the outputs.
FAKE_KEY = f"ensel-test-{secrets.token_hex(16)}"
KEY_ENV = "ENSEL_TEST_API_KEY"

CONFIG = """\
endpoint: {{base_url: "http://127.0.0.1:9/v1", api_key_env: {key_env}, timeout_s: {timeout}}}
datasets:
  mmlu:
    source: mmlu
    path: mmlu.parquet
    models: {{GPT-4.1: sim/gpt-4.1, GPT-4o: sim/gpt-4o, LLaMA-3.1-8b: sim/llama-3.1-8b}}
temperatures: [0.01, 0.7]
runs: 1
concurrency: 8
requests_per_minute: {rpm}
max_attempts: 12
backoff_s: 0.01
store: answers.sqlite
prices: {{as_of: "2025-10-15", per_million_tokens: {{sim/gpt-4.1: [2.0, 8.0]}}}}
"""


def write_config(folder: Path, *, n_questions: int = 16, rpm: float = 10_000_000,
                 timeout: float = 10.0, extra: str = "") -> Path:
    """A run config over ``n_questions`` made-up MMLU questions (2 queries each)."""
    write_fixture("mmlu", folder / "mmlu.parquet", n=n_questions)
    path = folder / "run.yml"
    path.write_text(CONFIG.format(key_env=KEY_ENV, rpm=rpm, timeout=timeout) + extra)
    return path


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, FAKE_KEY)
    return FAKE_KEY


@pytest.fixture
def run_config(tmp_path: Path, api_key: str) -> RunConfig:
    return load_config(write_config(tmp_path))


@pytest.fixture
def serve() -> Iterator[Callable[..., tuple[SimulatorServer, RunConfig]]]:
    """``serve(cfg, faults)`` starts a simulator for ``cfg``; returns it and ``cfg`` pointed
    at it. Every server is stopped at the end of the test."""
    servers: list[SimulatorServer] = []

    def start(cfg: RunConfig, faults: Faults | None = None) -> tuple[SimulatorServer, RunConfig]:
        pool = SimulatedPool.from_config(cfg, load_queries(cfg))
        server = SimulatorServer(pool, faults).start()
        servers.append(server)
        return server, dataclasses.replace(cfg, base_url=server.base_url)

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def make_config() -> Callable[..., Path]:
    """:func:`write_config` as a fixture (test modules do not import conftest)."""
    return write_config
