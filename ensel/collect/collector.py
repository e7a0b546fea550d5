"""The collector: every (query, model, temperature, run) of a configuration, asked once.

Requests go to any OpenAI-compatible chat-completions endpoint through the official
:mod:`openai` client with its own retries off (``max_retries=0``); this module retries
instead, with :mod:`tenacity` (exponential backoff with full jitter from
``backoff_s``, ``Retry-After`` honoured on 429/503, at most ``max_attempts`` attempts).
Per-model rate limits use :class:`aiolimiter.AsyncLimiter`; at most ``concurrency`` requests
are in flight; each has the configured timeout.

* 401/402/403 (bad key, no credit, forbidden): the run stops at once, no retry
  (:class:`EndpointRefused`);
* 404 (a model the endpoint does not know): the row records the error, the model is skipped
  for the rest of the run, the others go on;
* 429, 5xx, timeouts, dropped connections, malformed replies: retried; after the last
  attempt the row records the error class and the next run asks again;
* a reply that is not one of the prompt's words: an abstention (answer 0, raw text kept).

Answers are committed to the :class:`~ensel.collect.store.Store` one by one, so a killed run
resumes where it stopped and a completed (paid) answer is never requested again.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import email.utils
import json
import logging
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx2
import openai
import pandas as pd
from aiolimiter import AsyncLimiter
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt
from tenacity.wait import wait_random_exponential

from ensel._errors import DataError, EnselError, UsageError
from ensel.collect.config import RunConfig
from ensel.collect.parse import parse_reply
from ensel.collect.prompts import PromptTemplate, load_template
from ensel.collect.queries import SOURCES
from ensel.collect.store import Store

__all__ = ["EndpointRefused", "RunSummary", "collect", "load_queries", "parse_shard",
           "prompt_hashes"]

log = logging.getLogger("ensel.collect")
_RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
_FATAL_STATUS = {401: "the endpoint refused the API key", 402: "the account has no credit",
                 403: "the key may not use this endpoint or model"}


class EndpointRefused(EnselError, RuntimeError):
    """The endpoint answered 401/402/403, or the cost cap was reached: the run stopped."""


@dataclass
class RunSummary:
    """What one run did.

    Attributes
    ----------
    pending : int
        Keys without an answer when the run started (this shard).
    completed, failed, abstained : int
        Answers stored / rows left without an answer / answers that are abstentions.
    attempts : int
        HTTP requests made (including retries).
    retries : collections.Counter
        Retried failures by error class.
    skipped_models : list of str
        Models skipped after a 404.
    elapsed_s : float
    stopped : str or None
        Why the run stopped early (401/402/403, cost cap), else ``None``.
    """

    pending: int = 0
    completed: int = 0
    failed: int = 0
    abstained: int = 0
    attempts: int = 0
    retries: Counter = field(default_factory=Counter)
    skipped_models: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0
    stopped: str | None = None


@dataclass(frozen=True)
class _Item:
    dataset: str
    query_id: str
    label: int
    model: str
    model_id: str
    temperature: float
    run: int
    template: PromptTemplate
    fields: tuple[tuple[str, str], ...]


def parse_shard(text: str) -> tuple[int, int]:
    """``"i/n"`` -> ``(i, n)`` with ``1 <= i <= n``.

    Examples
    --------
    >>> parse_shard("2/3")
    (2, 3)
    """
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise UsageError(f"--shard must look like i/n (e.g. 1/4); got {text!r}") from None
    if not 1 <= i <= n:
        raise UsageError(f"--shard {text}: need 1 <= i <= n")
    return i, n


def _in_shard(query_id: str, shard: tuple[int, int]) -> bool:
    i, n = shard
    return n == 1 or zlib.crc32(query_id.encode("utf-8")) % n == i - 1


def load_queries(cfg: RunConfig) -> dict[str, pd.DataFrame]:
    """The query set of every dataset of a configuration (seeded with ``cfg.seed``)."""
    return {name: cfg.queries(name) for name in cfg.datasets}


def prompt_hashes(cfg: RunConfig) -> set[str]:
    """Hashes of the templates a configuration uses."""
    return {load_template(SOURCES[d.source], cfg.prompt_version).hash
            for d in cfg.datasets.values()}


def _reply(raw: httpx2.Response) -> tuple[str | None, str | None, int | None, int | None,
                                         str | None, str | None]:
    """(text, finish reason, prompt tokens, completion tokens, model, provider) of a reply.

    Raises ``ValueError`` (retried as ``malformed``) when the body is not a chat completion.
    """
    try:
        body = json.loads(raw.content)
        choice = body["choices"][0]
        text = choice["message"].get("content")
        usage = body.get("usage") or {}
        return (text, choice.get("finish_reason"), usage.get("prompt_tokens"),
                usage.get("completion_tokens"), body.get("model"), body.get("provider"))
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        raise DataError("the reply is not a chat completion") from None


def _retry_after(exc: BaseException) -> float | None:
    resp = getattr(exc, "response", None)
    if resp is None or getattr(resp, "status_code", None) not in (429, 503):
        return None
    value = resp.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time()) if when else None


def _error_class(exc: BaseException) -> str:
    status = getattr(exc, "status_code", None)
    if isinstance(exc, openai.APITimeoutError):
        return "timeout"
    if isinstance(exc, openai.APIConnectionError):
        return "connection"
    if status is not None:
        return f"http_{status}"
    return "malformed" if isinstance(exc, (ValueError, openai.APIResponseValidationError)) \
        else type(exc).__name__


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in _RETRY_STATUS
    return isinstance(exc, (openai.APIConnectionError, openai.APIResponseValidationError,
                            ValueError))


class _Run:
    def __init__(self, cfg: RunConfig, store: Store, queries: dict[str, pd.DataFrame],
                 shard: tuple[int, int], progress: bool) -> None:
        self.cfg, self.store, self.shard = cfg, store, shard
        self.queries = queries
        self.summary = RunSummary()
        self.dead: set[str] = set()
        # a one-second bucket: AsyncLimiter(rpm, 60) would allow a burst of a minute's worth
        self.limiters = {mid: AsyncLimiter(max(1.0, cfg.rpm(mid) / 60.0), 1.0)
                         for d in cfg.datasets.values() for mid in d.models.values()}
        self.spent = self._spent_so_far()
        self.progress = progress
        self._fatal: EndpointRefused | None = None
        self._wait_exp = wait_random_exponential(multiplier=cfg.backoff_s, max=30.0)

    def _spent_so_far(self) -> float:
        st = self.store.status(self.cfg.prices)
        return float(st["cost_usd"].fillna(0.0).sum()) if len(st) else 0.0

    def items(self) -> Iterator[_Item]:
        cfg = self.cfg
        for name, spec in cfg.datasets.items():
            template = load_template(SOURCES[spec.source], cfg.prompt_version)
            q = self.queries[name]
            q = q[[_in_shard(x, self.shard) for x in q["query_id"]]]
            cols = list(template.fields)
            recs = list(zip(q["query_id"], q["label"].astype(int),
                            *(q[c].astype(str) for c in cols), strict=True))
            for t in cfg.temperatures:
                for r in range(1, cfg.runs + 1):
                    done = {m: self.store.done(name, m, t, r, template.hash) for m in spec.models}
                    for rec in recs:
                        for model, mid in spec.models.items():
                            if rec[0] in done[model]:
                                continue
                            yield _Item(name, rec[0], int(rec[1]), model, mid, t, r, template,
                                        tuple(zip(cols, rec[2:], strict=True)))

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        ra = _retry_after(exc) if exc is not None else None
        return min(ra, 120.0) if ra is not None else self._wait_exp(state)

    def _before_sleep(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        if exc is not None:
            self.summary.retries[_error_class(exc)] += 1

    async def _ask(self, client: openai.AsyncOpenAI, item: _Item) -> dict[str, Any]:
        cfg = self.cfg
        row: dict[str, Any] = {
            "dataset": item.dataset, "query_id": item.query_id, "model": item.model,
            "temperature": item.temperature, "run": item.run, "prompt_hash": item.template.hash,
            "model_id": item.model_id, "label": item.label, "attempts": 0,
        }
        messages = item.template.render(dict(item.fields))
        t0 = time.perf_counter()
        try:
            async for attempt in AsyncRetrying(
                    stop=stop_after_attempt(cfg.max_attempts), wait=self._wait,
                    retry=retry_if_exception(_retryable), before_sleep=self._before_sleep,
                    reraise=True):
                with attempt:
                    row["attempts"] += 1
                    self.summary.attempts += 1
                    await self.limiters[item.model_id].acquire()
                    # client.post sends the body as is and returns the raw response:
                    # chat.completions.create would transform the request parameters and
                    # build pydantic models, several ms of CPU per request.
                    raw = await client.post(
                        "/chat/completions", cast_to=httpx2.Response, body={
                            "model": item.model_id, "messages": messages,
                            "temperature": item.temperature, "max_tokens": cfg.max_tokens,
                            "seed": cfg.seed * 1000 + item.run})
                    reply = _reply(raw)
        except openai.APIStatusError as exc:
            if exc.status_code in _FATAL_STATUS:
                raise EndpointRefused(
                    f"{_FATAL_STATUS[exc.status_code]} (HTTP {exc.status_code} from "
                    f"{cfg.base_url} for model {item.model_id!r}); stopped without retrying. "
                    f"Check the key in ${cfg.api_key_env or 'OPENROUTER_API_KEY'}."
                ) from None
            row["error_class"] = _error_class(exc)
            if exc.status_code == 404 and item.model_id not in self.dead:
                self.dead.add(item.model_id)
                self.summary.skipped_models.append(item.model_id)
                log.warning("model %r: HTTP 404 from the endpoint; skipping it for this run",
                            item.model_id)
            return row
        except (openai.APIError, ValueError) as exc:
            row["error_class"] = _error_class(exc)
            return row
        text, finish, pt, ct, served, provider = reply
        row.update(
            answer=parse_reply(text, item.template.answers), raw_text=text,
            finish_reason=finish, latency_s=time.perf_counter() - t0, prompt_tokens=pt,
            completion_tokens=ct, served_model=served, provider=provider, error_class=None,
            created_at=time.time())
        price = cfg.prices.get(item.model_id)
        if price and pt is not None and ct is not None:
            self.spent += (pt * price[0] + ct * price[1]) / 1e6
        return row

    async def _worker(self, client: openai.AsyncOpenAI, items: Iterator[_Item], bar: Any) -> None:
        cfg = self.cfg
        for item in items:
            if self._fatal is not None:
                return
            if item.model_id in self.dead:
                continue
            if cfg.cost_cap_usd is not None and self.spent >= cfg.cost_cap_usd:
                self._fatal = EndpointRefused(
                    f"cost cap reached: spent about ${self.spent:.2f} of cost_cap_usd "
                    f"{cfg.cost_cap_usd:g} ({cfg.path}); raise it to go on")
                return
            try:
                row = await self._ask(client, item)
            except EndpointRefused as exc:
                self._fatal = exc
                return
            row.setdefault("created_at", time.time())
            self.store.put(row)
            if row.get("answer") is None:
                self.summary.failed += 1
            else:
                self.summary.completed += 1
                self.summary.abstained += int(row["answer"] == 0)
            if bar is not None:
                bar.update(1)

    def _pending(self) -> int:
        n = 0
        for name, spec in self.cfg.datasets.items():
            template = load_template(SOURCES[spec.source], self.cfg.prompt_version)
            ids = [x for x in self.queries[name]["query_id"] if _in_shard(x, self.shard)]
            for t in self.cfg.temperatures:
                for r in range(1, self.cfg.runs + 1):
                    for m in spec.models:
                        n += len(ids) - len(self.store.done(name, m, t, r, template.hash)
                                            & set(ids))
        return n

    async def run(self, api_key: str) -> RunSummary:
        cfg = self.cfg
        t0 = time.perf_counter()
        self.summary.pending = self._pending()
        bar = None
        if self.progress and self.summary.pending:
            from tqdm.auto import tqdm

            bar = tqdm(total=self.summary.pending, unit="req", desc="collect")
        http = openai.DefaultAsyncHttpxClient(
            limits=httpx2.Limits(max_connections=cfg.concurrency,
                                               max_keepalive_connections=cfg.concurrency))
        client = openai.AsyncOpenAI(api_key=api_key, base_url=cfg.base_url, max_retries=0,
                                    timeout=cfg.timeout_s, http_client=http)
        items = self.items()
        try:
            await asyncio.gather(*(self._worker(client, items, bar)
                                   for _ in range(cfg.concurrency)))
        finally:
            await client.close()
            if bar is not None:
                bar.close()
        self.summary.elapsed_s = time.perf_counter() - t0
        if self._fatal is not None:
            self.summary.stopped = str(self._fatal)
        return self.summary


def _run_sync(coro: Any) -> Any:
    """``asyncio.run``, also from inside a running loop (a Jupyter kernel): then in a thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def collect(cfg: RunConfig, *, store: Store | None = None, shard: tuple[int, int] = (1, 1),
            allow_mixed: bool = False, progress: bool = False,
            queries: dict[str, pd.DataFrame] | None = None, raise_on_stop: bool = True
            ) -> RunSummary:
    """Collect every missing answer of a configuration into its store.

    Parameters
    ----------
    cfg : RunConfig
    store : Store, optional
        An open store; default ``Store(cfg.store)`` (opened and closed here).
    shard : (i, n), default=(1, 1)
        Only queries whose CRC-32 of the id is ``i - 1`` modulo ``n`` (all models and
        conditions of a query go to the same shard); combine shards with ``merge``.
    allow_mixed : bool, default=False
        Accept a store holding answers of another prompt version.
    progress : bool, default=False
        Show a progress bar.
    queries : dict, optional
        Prebuilt query sets (:func:`load_queries`).
    raise_on_stop : bool, default=True
        Raise :class:`EndpointRefused` when the endpoint refused the key or the cost cap was
        reached (else return the summary with ``stopped`` set).

    Returns
    -------
    RunSummary
    """
    key = cfg.api_key()
    queries = load_queries(cfg) if queries is None else queries
    own = store is None
    st = Store(cfg.store, prompt_hashes=prompt_hashes(cfg), allow_mixed=allow_mixed) \
        if store is None else store
    try:
        summary = _run_sync(_Run(cfg, st, queries, shard, progress).run(key))
    finally:
        if own:
            st.close()
    if summary.stopped and raise_on_stop:
        raise EndpointRefused(summary.stopped)
    return summary
