"""The YAML run configuration of ``ensel collect`` (example: ``data/collect/paper.yml``).

Top-level keys (``*`` = required)::

    endpoint:            base_url*, api_key_env (null: no key), timeout_s
    datasets*:           <name>: {source*, models* (paper name: endpoint id), n_queries,
                                  path (a local upstream file), pool (simulator pool), single_only}
    temperatures, runs, max_tokens, concurrency, requests_per_minute (per model; a number or
    {model id: number, default: number}), max_attempts, cost_cap_usd, seed, prompt_version,
    store (path, relative to the config file), prices: {as_of, per_million_tokens: {id: [in, out]}}

Any other key is an error naming the key and the file; so is a key given twice in one mapping
(naming its line), a per-model setting (``requests_per_minute``, ``prices``) for a model id no
dataset lists (with the closest ids), a local ``path`` that does not exist, and an
``api_key_env`` that is not an environment variable's name (a pasted key is refused without
being shown).
"""

from __future__ import annotations

import difflib
import math
import os
import re
from collections.abc import Iterable, Sequence
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

    def queries(self, name: str) -> Any:
        """The query set of dataset ``name`` (seeded with ``seed``), as ``run`` and
        ``estimate`` both build it.

        Raises
        ------
        ConfigError
            A value the source cannot serve (``n_queries`` beyond a local file, an odd
            ``n_queries``), naming the file and the key.
        """
        from ensel.collect.queries import DatasetFileError, build_queries

        d = self.datasets[name]
        try:
            return build_queries(d.source, n_queries=d.n_queries, seed=self.seed, path=d.path,
                                 single_only=d.single_only)
        except DatasetFileError:
            raise
        except (ValueError, TypeError) as exc:
            raise ConfigError(f"{self.path}: datasets.{name}: {exc}") from None

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


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a key given twice in one mapping (YAML keeps the last)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            line = key_node.start_mark.line + 1
            if isinstance(key, str | int | float | bool) and key in seen:
                raise ConfigError(f"line {line}: the key {key!r} is given twice in one mapping "
                                  f"(first on line {seen[key]}); YAML would keep only the last")
            if isinstance(key, str | int | float | bool):
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
                                 _UniqueKeyLoader.construct_mapping)

#: An environment variable's name (what ``api_key_env`` must hold).
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
#: Prefixes of API keys (OpenAI, OpenRouter, Anthropic, Hugging Face, GitHub, AWS, xAI, Groq).
_KEY_PREFIXES = ("sk-", "sk_", "or-", "hf_", "ghp_", "github_pat_", "AKIA", "xai-", "gsk_")


def _check_api_key_env(value: Any, path: Path) -> str | None:
    """``api_key_env`` as given, when it names an environment variable; a value that looks like
    a key is refused without being shown."""
    if value is None:
        return None
    text = str(value)
    looks_like_key = (text.startswith(_KEY_PREFIXES)
                      or (len(text) >= 24 and any(c.isdigit() for c in text)
                          and any(c.islower() for c in text)))
    if looks_like_key or not _ENV_NAME.fullmatch(text):
        what = "looks like an API key itself" if looks_like_key else "is not a variable name"
        raise ConfigError(
            f"{path}: endpoint.api_key_env must name the environment variable that holds the "
            f"key (e.g. OPENROUTER_API_KEY); its value ({len(text)} characters, not shown) "
            f"{what}: put the key in an environment variable and name that variable here")
    return text


def _did_you_mean(name: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, known, n=2, cutoff=0.6)
    return f"; did you mean {' or '.join(map(repr, close))}?" if close else ""


def _check_model_ids(where: str, given: Iterable[str], known: Sequence[str], path: Path) -> None:
    """Refuse a per-model setting for a model id that no dataset lists."""
    for mid in given:
        if mid not in known:
            raise ConfigError(f"{path}: {where}.{mid} names a model id that no dataset lists"
                              f"{_did_you_mean(mid, known)} (model ids: "
                              f"{', '.join(sorted(known)[:6])}{', ...' if len(known) > 6 else ''})")


def _unknown(where: str, got: dict, allowed: set[str], path: Path) -> None:
    extra = sorted(set(got) - allowed)
    if extra:
        raise ConfigError(f"{path}: unknown key {extra[0]!r} in {where}; "
                          f"expected some of {sorted(allowed)}")


def _num(value: Any, key: str, path: Path, *, kind: type = float, low: float = 0.0,
         strict: bool = True) -> Any:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)
    if kind is int:
        ok = ok and float(value).is_integer()
    if not ok or (value <= low if strict else value < low):
        rel = ">" if strict else ">="
        what = "an integer" if kind is int else "a finite number"
        raise ConfigError(f"{path}: {key} must be {what} {rel} {low:g}; got {value!r}")
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
        doc = yaml.load(p.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such configuration file") from None
    except ConfigError as exc:  # a repeated key: name the file
        raise ConfigError(f"{p}, {exc}") from None
    except yaml.MarkedYAMLError as exc:  # a syntax error: where the parser stopped, and why
        mark = exc.problem_mark or exc.context_mark
        where = f", line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        why = "; ".join(str(t) for t in (exc.context, exc.problem) if t)
        raise ConfigError(f"{p}{where}: cannot read the configuration: {why or exc}"
                          .splitlines()[0]) from None
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
        if local is not None and not (p.parent / str(local)).is_file():
            raise ConfigError(f"{p}: datasets.{name}.path: no such file {p.parent / str(local)}"
                              " (a local upstream file, relative to the config's folder)")
        specs[str(name)] = DatasetSpec(
            name=str(name), source=d["source"],
            models={str(k): str(v) for k, v in models.items()},
            n_queries=None if n is None else _num(n, f"datasets.{name}.n_queries", p, kind=int),
            path=None if local is None else (p.parent / str(local)),
            pool=d.get("pool"), single_only=bool(d.get("single_only", False)))
    model_ids = sorted({mid for s in specs.values() for mid in s.models.values()})
    temps = doc.get("temperatures", [0.01, 0.3, 0.7])
    if not isinstance(temps, list) or not temps:
        raise ConfigError(f"{p}: temperatures must be a non-empty list; got {temps!r}")
    temps = tuple(_num(t, "every temperature", p, strict=False) for t in temps)
    repeated = next((t for i, t in enumerate(temps) if t in temps[:i]), None)
    if repeated is not None:  # each would be asked (and paid for) twice
        raise ConfigError(f"{p}: temperatures lists {repeated:g} twice; give each temperature "
                          "once (runs sets the repeats)")
    rpm = doc.get("requests_per_minute", 600)
    per_model: dict[str, float] = {}
    if isinstance(rpm, dict):
        per_model = {str(k): _num(v, f"requests_per_minute.{k}", p) for k, v in rpm.items()}
        default_rpm = per_model.pop("default", 600.0)
        _check_model_ids("requests_per_minute", per_model, model_ids, p)
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
    _check_model_ids("prices.per_million_tokens", prices, model_ids, p)
    cap = doc.get("cost_cap_usd")
    seed = doc.get("seed", 0)
    return RunConfig(
        path=p, base_url=str(ep["base_url"]),
        api_key_env=_check_api_key_env(ep.get("api_key_env", "OPENROUTER_API_KEY"), p),
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
