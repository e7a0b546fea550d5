"""A simulated model pool behind a loopback chat-completions server (for tests and the book).

Each model of a pool answers the real query texts with answers drawn from a Gaussian copula,
the paper-calibrated stand-in pools of :mod:`ensel.datasets.standins` (same accuracies, same
latent correlation matrix). The latent vector of a query is

``Z = sqrt(p) Z_query + sqrt(1 - p) Z_(query, temperature, seed)``,  both parts ``N(0, Sigma)``,

each drawn by a generator seeded with a hash of its key, so the answer of a model is a function
of (pool, model, query text, temperature, the request's ``seed``): the same request always gets
the same answer, and the models' errors have the pool's correlations. Model ``j`` errs when
``Z_j < tau_j = Phi^-1(1 - accuracy_j)``.

Faults are injected on demand (:class:`Faults`, rates per request), decided by a hash of the
request and how many times the server has seen it, so a retried request can succeed:
429 with ``Retry-After``, 500/502/503, slow replies, dropped connections, malformed JSON,
replies that are neither word of the prompt, and 404 for a model the pool does not have;
``unauthorized=True`` answers every request with 401.

The server is plain :mod:`asyncio` (HTTP/1.1, keep-alive), bound to 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import ndtri

from ensel._errors import UsageError
from ensel.collect.prompts import load_template

__all__ = ["Faults", "SimulatedPool", "SimulatorServer", "latent_rng"]

_HOST = "127.0.0.1"


def _h64(*parts: object) -> int:
    text = "\x1f".join(map(str, parts)).encode("utf-8")
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little")


def latent_rng(*parts: object) -> np.random.Generator:
    """A generator seeded by a 64-bit hash of ``parts`` (deterministic across processes)."""
    return np.random.default_rng(_h64(*parts))


@dataclass(frozen=True)
class Faults:
    """Fault rates (per request, in [0, 1]) and their parameters.

    Attributes
    ----------
    rate_429, rate_500, rate_502, rate_503 : float
        Error replies; 429 and 503 carry ``Retry-After: retry_after`` (seconds).
    slow : float
        Replies delayed by ``slow_seconds`` (set it past the client's timeout).
    drop : float
        Connections closed without a reply.
    malformed : float
        ``200`` replies whose body is not JSON.
    off_format : float
        Valid replies whose text is neither word of the prompt (an abstention).
    unauthorized : bool
        Every request gets 401 (a bad key).
    """

    rate_429: float = 0.0
    rate_500: float = 0.0
    rate_502: float = 0.0
    rate_503: float = 0.0
    slow: float = 0.0
    drop: float = 0.0
    malformed: float = 0.0
    off_format: float = 0.0
    retry_after: float = 0.05
    slow_seconds: float = 5.0
    unauthorized: bool = False

    def any(self) -> bool:
        """Whether any per-request fault has a positive rate."""
        return any(getattr(self, f) > 0 for f in ("rate_429", "rate_500", "rate_502",
                                                  "rate_503", "slow", "drop", "malformed",
                                                  "off_format"))


@dataclass
class SimulatedPool:
    """Gaussian-copula answers for a set of models keyed by the requested model id.

    Parameters
    ----------
    models : mapping
        Endpoint model id -> (stand-in pool name, model name in that pool).
    labels : mapping
        User-message text -> label (+1/-1) of every known query.
    persistence : float, default=0.9
        Share of the latent variable common to all (temperature, seed) of a query.
    seed : int, default=0
    """

    models: Mapping[str, tuple[str, str]]
    labels: Mapping[str, int]
    persistence: float = 0.9
    seed: int = 0
    _pools: dict = field(default_factory=dict, repr=False)

    def _pool(self, name: str) -> tuple[list[str], np.ndarray, np.ndarray]:
        if name not in self._pools:
            from ensel.datasets.standins import spec

            s = spec(name, variant="label-invariant")  # one threshold per model
            w, V = np.linalg.eigh(np.asarray(s.Sigma))
            L = (V * np.sqrt(np.clip(w, 0.0, None))) @ V.T
            self._pools[name] = (list(s.models), L, ndtri(1.0 - np.asarray(s.accuracy)))
        return self._pools[name]

    @classmethod
    def from_config(cls, cfg: Any, queries: Mapping[str, Any], *, persistence: float = 0.9,
                    seed: int = 0) -> SimulatedPool:
        """The pool a run configuration asks for: each dataset's ``pool`` (default: its
        source when that is a stand-in, ``mmlu`` for ``mmlu_pro``), its models by paper name
        (names the stand-in pool lacks are unknown to the server: 404), and the labels of
        the rendered query texts.
        """
        from ensel.collect.queries import SOURCES
        from ensel.datasets.standins import NAMES, spec

        models: dict[str, tuple[str, str]] = {}
        labels: dict[str, int] = {}
        for name, d in cfg.datasets.items():
            pool = d.pool or (d.source if d.source in NAMES else "mmlu")
            known = set(spec(pool).models)
            models.update({mid: (pool, m) for m, mid in d.models.items() if m in known})
            template = load_template(SOURCES[d.source], cfg.prompt_version)
            q = queries[name]
            cols = [q[c].astype(str) for c in template.fields]
            for label, *vals in zip(q["label"].astype(int), *cols, strict=True):
                user = template.render(dict(zip(template.fields, vals, strict=True)))[1]
                labels[user["content"]] = int(label)
        return cls(models=models, labels=labels, persistence=persistence, seed=seed)

    def knows(self, model_id: str) -> bool:
        """Whether the pool has ``model_id``."""
        return model_id in self.models

    def answer(self, model_id: str, user: str, temperature: float, seed: int | None) -> int:
        """The model's answer (+1/-1) to a query: correct unless its latent variable errs."""
        pool, name = self.models[model_id]
        names, L, tau = self._pool(pool)
        j = names.index(name)
        p = self.persistence
        z_q = L[j] @ latent_rng(self.seed, pool, user).standard_normal(len(names))
        z_c = L[j] @ latent_rng(self.seed, pool, user, f"{temperature:g}", seed).standard_normal(
            len(names))
        err = np.sqrt(p) * z_q + np.sqrt(1.0 - p) * z_c < tau[j]
        label = self.labels.get(user)
        if label is None:  # an unknown query: a fair coin
            return 1 if latent_rng(self.seed, model_id, user).random() < 0.5 else -1
        return -label if err else label


_REASONS = {200: "OK", 401: "Unauthorized", 404: "Not Found", 429: "Too Many Requests",
            400: "Bad Request", 500: "Internal Server Error", 502: "Bad Gateway",
            503: "Service Unavailable"}


class SimulatorServer:
    """The loopback HTTP server of a :class:`SimulatedPool` (run in a background thread).

    Examples
    --------
    >>> pool = SimulatedPool(models={"m": ("mmlu", "GPT-4.1")}, labels={})
    >>> with SimulatorServer(pool) as server:
    ...     server.base_url.startswith("http://127.0.0.1:")
    True
    """

    def __init__(self, pool: SimulatedPool, faults: Faults | None = None, *,
                 port: int = 0) -> None:
        self.pool = pool
        self.faults = faults or Faults()
        self.port = port
        self.requests = 0
        self.counts: dict[str, int] = {}
        self._seen: dict[int, int] = {}
        self._words = {t: {v: k.capitalize() if t == "true_false" else k
                           for k, v in load_template(t).answers.items()}
                       for t in ("true_false", "sentiment")}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.base_events.Server | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``."""
        return f"http://{_HOST}:{self.port}/v1"

    # ------------------------------------------------------------------ lifecycle
    async def start_async(self) -> None:
        """Start serving on the running loop."""
        self._server = await asyncio.start_server(self._handle, _HOST, self.port, backlog=1024)
        self.port = self._server.sockets[0].getsockname()[1]

    def start(self) -> SimulatorServer:
        """Serve in a daemon thread; returns once the port is bound.

        Raises
        ------
        ensel._errors.UsageError
            The port cannot be bound (in use, privileged, out of range): one line naming it.
        """
        ready = threading.Event()
        failed: list[BaseException] = []

        def run() -> None:
            self._loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self._loop)
            try:
                self._loop.run_until_complete(self.start_async())
            except (OSError, OverflowError) as exc:
                failed.append(exc)
                self._loop.close()
                ready.set()
                return
            ready.set()
            self._loop.run_forever()
            # Stopped: finish the open connections' handlers on this loop before closing it,
            # so none is left for the garbage collector to close on a dead loop.
            pending = asyncio.all_tasks(self._loop)
            for task in pending:
                task.cancel()
            self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self._loop.close()

        self._thread = threading.Thread(target=run, name="ensel-simulator", daemon=True)
        self._thread.start()
        ready.wait(30)
        if failed:
            self._thread.join(10)
            reason = getattr(failed[0], "strerror", None) or str(failed[0])
            raise UsageError(f"cannot serve on {_HOST} port {self.port}: {reason}")
        return self

    def stop(self) -> None:
        """Stop the server thread."""
        loop, server = self._loop, self._server
        if loop is not None and server is not None:
            async def shutdown() -> None:
                server.close()
                loop.stop()

            asyncio.run_coroutine_threadsafe(shutdown(), loop)
            if self._thread is not None:
                self._thread.join(10)

    def __enter__(self) -> SimulatorServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ HTTP
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                headers = {k.strip().lower(): v.strip() for k, _, v in
                           (ln.partition(":") for ln in lines[1:] if ln)}
                body = await reader.readexactly(int(headers.get("content-length", 0)))
                status, extra, payload = await self._respond(lines[0], headers, body)
                if status is None:  # drop the connection
                    writer.transport.abort()
                    return
                hdrs = "".join(f"{k}: {v}\r\n" for k, v in extra.items())
                writer.write(
                    f"HTTP/1.1 {status} {_REASONS.get(status, '')}\r\n"
                    f"content-type: application/json\r\ncontent-length: {len(payload)}\r\n"
                    f"{hdrs}\r\n".encode("latin-1") + payload)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    def _error(self, status: int, message: str, **extra: str) -> tuple[int, dict, bytes]:
        body = json.dumps({"error": {"message": message, "code": status}}).encode()
        return status, extra, body

    async def _respond(self, request_line: str, headers: dict[str, str],
                       body: bytes) -> tuple[int | None, dict, bytes]:
        self.requests += 1
        f = self.faults
        if not request_line.startswith("POST ") or "/chat/completions" not in request_line:
            return self._error(404, f"no route {request_line!r}")
        if f.unauthorized or not headers.get("authorization", "").startswith("Bearer "):
            return self._error(401, "invalid API key")
        try:
            req = json.loads(body)
            model = str(req["model"])
            user = next(m["content"] for m in req["messages"] if m["role"] == "user")
            system = next((m["content"] for m in req["messages"] if m["role"] == "system"), "")
            temperature = float(req.get("temperature", 1.0))
            seed = req.get("seed")
        except (ValueError, KeyError, StopIteration, TypeError):
            return self._error(400, "malformed request")
        if not self.pool.knows(model):
            return self._error(404, f"model {model!r} does not exist")
        self.counts[model] = self.counts.get(model, 0) + 1
        key = _h64(model, user, f"{temperature:g}", seed)
        fault = None
        if f.any():
            nth = self._seen.get(key, 0)
            self._seen[key] = nth + 1
            u = latent_rng("fault", key, nth).random()
            for name in ("rate_429", "rate_500", "rate_502", "rate_503", "slow", "drop",
                         "malformed", "off_format"):
                rate = getattr(f, name)
                if u < rate:
                    fault = name
                    break
                u -= rate
        if fault == "rate_429":
            return self._error(429, "rate limited", **{"retry-after": f"{f.retry_after:g}"})
        if fault in ("rate_500", "rate_502"):
            return self._error(int(fault[-3:]), "upstream error")
        if fault == "rate_503":
            return self._error(503, "overloaded", **{"retry-after": f"{f.retry_after:g}"})
        if fault == "drop":
            return None, {}, b""
        if fault == "slow":
            await asyncio.sleep(f.slow_seconds)
        if fault == "malformed":
            return 200, {}, b'{"id": "sim", "choices": [{"message": '
        task = "sentiment" if "sentiment" in system.lower() else "true_false"
        ans = self.pool.answer(model, user, temperature, seed)
        text = "I cannot tell." if fault == "off_format" else self._words[task][ans]
        reply = {
            "id": f"sim-{key:016x}", "object": "chat.completion", "created": 0,
            "model": model, "provider": "ensel-simulator",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": (len(system) + len(user)) // 4 + 8,
                      "completion_tokens": 1,
                      "total_tokens": (len(system) + len(user)) // 4 + 9},
        }
        return 200, {}, json.dumps(reply).encode()
