"""The YAML run configuration of ``ensel collect`` (example: ``data/collect/paper.yml``).

Top-level keys (``*`` = required)::

    endpoint:            base_url*, api_key_env (null: no key), timeout_s
    datasets*:           <name>: {source*, models* (paper name: endpoint id), n_queries,
                                  path (a local upstream file), pool (simulator pool), single_only}
    temperatures, runs, max_tokens, concurrency, requests_per_minute (per model; a number or
    {model id: number, default: number}), max_attempts, cost_cap_usd, seed, prompt_version,
    store (path, relative to the config file), prices: {as_of, per_million_tokens: {id: [in, out]}}

Any other key is an error naming the key and the file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ensel._errors import ConfigError
from ensel.collect.prompts import PROMPT_VERSION
from ensel.collect.queries import SOURCES

__all__ = ["ConfigError", "DatasetSpec", "RunConfig", "load_config"]

_TOP = {"endpoint", "datasets", "temperatures", "runs", "max_tokens", "concurrency",
        "requests_per_minute", "max_attempts", "cost_cap_usd", "seed", "prompt_version",
        "store", "prices", "backoff_s"}
_ENDPOINT = {"base_url", "api_key_env", "timeout_s"}
_DATASET = {"source", "models", "n_queries", "path", "pool", "single_only"}
_PRICES = {"as_of", "per_million_tokens"}




@dataclass(frozen=True)
class DatasetSpec:
    """One dataset of a run: its query source and its models (paper name -> endpoint id)."""

    name: str
    source: str
    models: dict[str, str]
    n_queries: int | None = None
    path: Path | None = None
    pool: str | None = None
    single_only: bool = False


@dataclass(frozen=True)
class RunConfig:
    """A parsed, validated run configuration (see the module docstring for the keys)."""

    path: Path
    base_url: str
    api_key_env: str | None
    timeout_s: float
    datasets: dict[str, DatasetSpec]
    temperatures: tuple[float, ...] = (0.01, 0.3, 0.7)
    runs: int = 2
    max_tokens: int = 5
    concurrency: int = 32
    requests_per_minute: dict[str, float] = field(default_factory=dict)
    default_rpm: float = 600.0
    max_attempts: int = 6
    backoff_s: float = 0.5
    cost_cap_usd: float | None = None
    seed: int = 0
    prompt_version: str = PROMPT_VERSION
    store: Path = Path("answers.sqlite")
    prices: dict[str, tuple[float, float]] = field(default_factory=dict)
    prices_as_of: str | None = None

    def rpm(self, model_id: str) -> float:
        """Requests per minute allowed for ``model_id``."""
        return self.requests_per_minute.get(model_id, self.default_rpm)

    def api_key(self) -> str:
        """The key from the environment (never stored); ``"none"`` when the config needs none.

        Raises
        ------
        ConfigError
            The variable is unset or empty.
        """
        if self.api_key_env is None:
            return "none"
        names = [self.api_key_env]
        if self.api_key_env == "OPENROUTER_API_KEY":
            names.append("OPENAI_API_KEY")
        for name in names:
            value = os.environ.get(name, "").strip()
            if value:
                return value
        raise ConfigError(
            f"{self.path}: no API key: set the environment variable {' or '.join(names)} "
            "(the key is read from the environment only)"
        )


def _unknown(where: str, got: dict, allowed: set[str], path: Path) -> None:
    extra = sorted(set(got) - allowed)
    if extra:
        raise ConfigError(f"{path}: unknown key {extra[0]!r} in {where}; "
                          f"expected some of {sorted(allowed)}")


def _num(value: Any, key: str, path: Path, *, kind: type = float, low: float = 0.0,
         strict: bool = True) -> Any:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        ok = ok and float(value).is_integer()
    if not ok or (value <= low if strict else value < low):
        rel = ">" if strict else ">="
        raise ConfigError(f"{path}: {key} must be a {kind.__name__} {rel} {low:g}; "
                          f"got {value!r}")
    return kind(value)


def load_config(path: str | os.PathLike[str]) -> RunConfig:
    """Read and validate a run configuration.

    Raises
    ------
    ConfigError
        Missing file, invalid YAML, an unknown key, a missing model list, a bad value.

    Examples
    --------
    >>> from ensel.datasets._paths import package_data
    >>> cfg = load_config(package_data("collect", "paper.yml"))
    >>> {n: len(d.models) for n, d in cfg.datasets.items()}
    {'medmcqa': 12, 'mmlu': 13, 'imdb': 12}
    """
    p = Path(path)
    try:
        doc = yaml.safe_load(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such configuration file") from None
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{p}: cannot read the configuration: {exc}".splitlines()[0]) from None
    if not isinstance(doc, dict):
        raise ConfigError(f"{p}: expected a mapping of keys at the top level")
    _unknown("the top level", doc, _TOP, p)
    ep = doc.get("endpoint") or {}
    if not isinstance(ep, dict) or not ep.get("base_url"):
        raise ConfigError(f"{p}: endpoint.base_url is required")
    _unknown("endpoint", ep, _ENDPOINT, p)
    dsets = doc.get("datasets")
    if not isinstance(dsets, dict) or not dsets:
        raise ConfigError(f"{p}: datasets is required (a mapping of dataset name to its source "
                          "and models)")
    specs = {}
    for name, d in dsets.items():
        if not isinstance(d, dict):
            raise ConfigError(f"{p}: datasets.{name} must be a mapping")
        _unknown(f"datasets.{name}", d, _DATASET, p)
        if d.get("source") not in SOURCES:
            raise ConfigError(f"{p}: datasets.{name}.source must be one of {sorted(SOURCES)}; "
                              f"got {d.get('source')!r}")
        models = d.get("models")
        if isinstance(models, list):
            models = {str(m): str(m) for m in models}
        if not isinstance(models, dict) or not models:
            raise ConfigError(f"{p}: datasets.{name}.models is missing or empty: list the "
                              "models (paper name: endpoint id)")
        n = d.get("n_queries")
        local = d.get("path")
        specs[str(name)] = DatasetSpec(
            name=str(name), source=d["source"],
            models={str(k): str(v) for k, v in models.items()},
            n_queries=None if n is None else _num(n, f"datasets.{name}.n_queries", p, kind=int),
            path=None if local is None else (p.parent / str(local)),
            pool=d.get("pool"), single_only=bool(d.get("single_only", False)))
    temps = doc.get("temperatures", [0.01, 0.3, 0.7])
    if not isinstance(temps, list) or not temps:
        raise ConfigError(f"{p}: temperatures must be a non-empty list; got {temps!r}")
    temps = tuple(_num(t, "every temperature", p, strict=False) for t in temps)
    rpm = doc.get("requests_per_minute", 600)
    per_model: dict[str, float] = {}
    if isinstance(rpm, dict):
        per_model = {str(k): _num(v, f"requests_per_minute.{k}", p) for k, v in rpm.items()}
        default_rpm = per_model.pop("default", 600.0)
    else:
        default_rpm = _num(rpm, "requests_per_minute", p)
    prices_doc = doc.get("prices") or {}
    _unknown("prices", prices_doc, _PRICES, p)
    prices = {}
    for mid, pair in (prices_doc.get("per_million_tokens") or {}).items():
        if not (isinstance(pair, list) and len(pair) == 2):
            raise ConfigError(f"{p}: prices.per_million_tokens.{mid} must be [prompt, completion]"
                              f" USD per million tokens; got {pair!r}")
        prices[str(mid)] = (_num(pair[0], f"price of {mid}", p, strict=False),
                            _num(pair[1], f"price of {mid}", p, strict=False))
    cap = doc.get("cost_cap_usd")
    seed = doc.get("seed", 0)
    return RunConfig(
        path=p, base_url=str(ep["base_url"]),
        api_key_env=ep.get("api_key_env", "OPENROUTER_API_KEY"),
        timeout_s=_num(ep.get("timeout_s", 60), "endpoint.timeout_s", p),
        datasets=specs, temperatures=temps,
        runs=_num(doc.get("runs", 2), "runs", p, kind=int),
        max_tokens=_num(doc.get("max_tokens", 5), "max_tokens", p, kind=int),
        concurrency=_num(doc.get("concurrency", 32), "concurrency", p, kind=int),
        requests_per_minute=per_model, default_rpm=default_rpm,
        max_attempts=_num(doc.get("max_attempts", 6), "max_attempts", p, kind=int),
        backoff_s=_num(doc.get("backoff_s", 0.5), "backoff_s", p),
        cost_cap_usd=None if cap is None else _num(cap, "cost_cap_usd", p),
        seed=_num(seed, "seed", p, kind=int, strict=False),
        prompt_version=str(doc.get("prompt_version", PROMPT_VERSION)),
        store=p.parent / str(doc.get("store", "answers.sqlite")),
        prices=prices, prices_as_of=None if not prices_doc.get("as_of")
        else str(prices_doc["as_of"]),
    )
