"""Dry-run estimate of a configuration: requests, tokens, cost and time (no network).

Prompt tokens are estimated from characters (4 characters per token, plus 8 tokens of chat
framing per request; no tokenizer download): from the query texts when the query set can be
built on this machine, else from :data:`ASSUMED_QUERY_CHARS`. Completion tokens: 2 per request
(one word and an end token). Time: each model's requests at its rate limit, models in
parallel, bounded by ``concurrency`` requests in flight at ~1 s latency.
"""

from __future__ import annotations

import pandas as pd

from ensel.collect.config import RunConfig
from ensel.collect.prompts import load_template
from ensel.collect.queries import SOURCES

__all__ = ["ASSUMED_QUERY_CHARS", "estimate"]

#: Mean characters of a query's fields when the source is not on this machine (MedMCQA
#: question + option; MMLU question + option; an IMDB test review: ~230 words).
ASSUMED_QUERY_CHARS = {"medmcqa": 120, "mmlu": 280, "imdb": 1300, "mmlu_pro": 280}
CHARS_PER_TOKEN = 4.0
FRAMING_TOKENS = 8
COMPLETION_TOKENS = 2
LATENCY_S = 1.0


def _local(source: str, path: object) -> bool:
    """Whether the query set can be built without the network."""
    if path is not None:
        return True
    if source == "mmlu_pro":
        from ensel.datasets.mmlu_pro import is_available

        return is_available()
    from ensel.collect.sources import source_entry
    from ensel.datasets._fetch import cache_path, mirror_path

    entry = source_entry(source)
    return any(p is not None and p.is_file() for p in (mirror_path(entry), cache_path(entry)))


def _mean_chars(cfg: RunConfig, name: str) -> tuple[float, int, str]:
    d = cfg.datasets[name]
    template = load_template(SOURCES[d.source], cfg.prompt_version)
    base = len(template.system) + len(template.user)
    if not _local(d.source, d.path):
        n = d.n_queries if d.n_queries is not None else 0
        return base + ASSUMED_QUERY_CHARS[d.source], n, "assumed"
    from ensel.datasets._fetch import DataUnavailableError

    try:  # a bad value (n_queries beyond the file, an unreadable file) is refused as in run
        q = cfg.queries(name)
    except DataUnavailableError:  # no mirror / cache / network: the documented assumption
        n = d.n_queries if d.n_queries is not None else 0
        return base + ASSUMED_QUERY_CHARS[d.source], n, "assumed"
    chars = sum(q[f].astype(str).str.len().mean() for f in template.fields)
    return base + float(chars), len(q), "queries"


def estimate(cfg: RunConfig) -> pd.DataFrame:
    """Requests, tokens, cost and time per (dataset, model) of a configuration.

    Returns
    -------
    pandas.DataFrame
        ``dataset, model, model_id, requests, prompt_tokens, completion_tokens, cost_usd,
        hours, chars_from`` (``queries`` or ``assumed``); ``cost_usd`` is NaN for a model
        without a price. ``attrs``: ``total_requests``, ``total_cost_usd``, ``hours`` (the
        slowest model), ``prices_as_of``.

    Examples
    --------
    >>> from ensel.collect.config import load_config
    >>> from ensel.datasets._paths import package_data
    >>> est = estimate(load_config(package_data("collect", "paper.yml")))
    >>> est.attrs["total_requests"]
    2102352
    """
    rows = []
    conditions = len(cfg.temperatures) * cfg.runs
    for name, d in cfg.datasets.items():
        chars, n_queries, origin = _mean_chars(cfg, name)
        for model, mid in d.models.items():
            n = n_queries * conditions
            pt = n * (chars / CHARS_PER_TOKEN + FRAMING_TOKENS)
            ct = n * COMPLETION_TOKENS
            price = cfg.prices.get(mid)
            cost = (pt * price[0] + ct * price[1]) / 1e6 if price else float("nan")
            rows.append((name, model, mid, n, round(pt), ct, cost, n / cfg.rpm(mid) / 60.0,
                         origin))
    df = pd.DataFrame(rows, columns=["dataset", "model", "model_id", "requests", "prompt_tokens",
                                     "completion_tokens", "cost_usd", "hours", "chars_from"])
    per_model = df.groupby("model_id")["requests"].sum()
    rate_hours = max(per_model[m] / cfg.rpm(m) / 60.0 for m in per_model.index)
    conc_hours = df["requests"].sum() * LATENCY_S / cfg.concurrency / 3600.0
    df.attrs.update(total_requests=int(df["requests"].sum()),
                    total_cost_usd=float(df["cost_usd"].sum(min_count=1)),
                    hours=float(max(rate_hours, conc_hours)), prices_as_of=cfg.prices_as_of)
    return df
