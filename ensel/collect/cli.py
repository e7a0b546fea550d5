"""``ensel collect``: run, estimate, status, export, merge, simulate.

::

    ensel collect estimate CONFIG                      dry run: requests, tokens, cost, time
    ensel collect run CONFIG [--shard i/n] [--store PATH] [--allow-mixed] [--no-progress]
    ensel collect status STORE [--config CONFIG]       progress, errors, abstentions, spend
    ensel collect export STORE -o answers.parquet [--dataset NAME]
    ensel collect merge OUT STORE...                   combine the stores of several shards
    ensel collect simulate CONFIG [--port P] [--fault-rate R] [--unauthorized]

CONFIG is a path, or the name of a config shipped with the package: ``paper`` is the paper's
full run (``data/collect/paper.yml`` in the repository), so ``ensel collect estimate paper``
works from an installed wheel anywhere. A shipped config's store (``paper-answers.sqlite``)
goes to the current folder, not into the installed package.

Bad input (config, store, dataset file) prints one line naming the problem and exits with 2;
an endpoint that refuses the key (401/402/403) or a reached cost cap exits with 1.

``estimate --json`` and ``status --json`` print one JSON object on stdout (costs without a
price are ``null``)::

    {"schema": "ensel.collect.estimate/1", "config": "<path read>",
     "rows": [{"dataset", "model", "model_id", "requests", "prompt_tokens",
               "completion_tokens", "cost_usd", "hours", "chars_from"}, ...],
     "total_requests": 2102352, "total_cost_usd": 306.1, "hours": 40.2,
     "prices_as_of": "2025-..."}

    {"schema": "ensel.collect.status/1", "store": "<path>",
     "rows": [{"dataset", "model", "condition", "model_id", "rows", "answered", "abstained",
               "failed", "attempts", "prompt_tokens", "completion_tokens", "errors",
               "abstention_rate", "cost_usd"}, ...],
     "totals": {"rows", "answered", "abstained", "failed", "cost_usd"}}
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["main", "add_arguments", "run_command", "config_path", "shipped_configs",
           "estimate_document", "status_document", "SCHEMA_ESTIMATE", "SCHEMA_STATUS"]

#: Schema names of the ``--json`` documents (see the module docstring).
SCHEMA_ESTIMATE = "ensel.collect.estimate/1"
SCHEMA_STATUS = "ensel.collect.status/1"


def shipped_configs() -> dict[str, Path]:
    """The run configs shipped with the package, by name (``paper``: the paper's full run).

    Examples
    --------
    >>> sorted(shipped_configs())
    ['paper']
    """
    from ensel.datasets._paths import package_data

    folder = package_data("collect")
    return {p.stem: p for p in sorted(folder.glob("*.yml")) if p.stem != "prompts"}


def config_path(value: str) -> tuple[Path, bool]:
    """``(path, shipped)``: an existing file as given, else the shipped config of that name
    (``paper`` or ``paper.yml``).

    Raises
    ------
    ensel.collect.config.ConfigError
        Neither a file nor a shipped name (the message lists the shipped names).

    Examples
    --------
    >>> path, shipped = config_path("paper")
    >>> path.name, shipped
    ('paper.yml', True)
    """
    from ensel.collect.config import ConfigError

    p = Path(value).expanduser()
    if p.exists():
        return p, False
    shipped = shipped_configs()
    name = p.name[:-4] if p.name.endswith(".yml") else p.name
    if name in shipped and p.parent in (Path("."), Path("data/collect")):
        return shipped[name], True
    raise ConfigError(f"{value}: no such configuration file; give the path of a config or "
                      f"the name of a shipped one: {', '.join(shipped)}")


def _load(value: str) -> Any:
    """The config at ``value`` (a path or a shipped name); a shipped config's store is put in
    the current folder (never inside the installed package)."""
    from ensel.collect.config import load_config

    path, shipped = config_path(value)
    cfg = load_config(path)
    if shipped:
        cfg = dataclasses.replace(cfg, store=Path.cwd() / cfg.store.name)
    return cfg


def _records(df: Any) -> list[dict[str, Any]]:
    """A table as JSON records (NaN becomes null)."""
    return json.loads(df.to_json(orient="records"))


def estimate_document(config: str) -> dict[str, Any]:
    """``ensel collect estimate --json`` (schema :data:`SCHEMA_ESTIMATE`).

    Examples
    --------
    >>> doc = estimate_document("paper")
    >>> doc["schema"], doc["total_requests"], sum(r["requests"] for r in doc["rows"])
    ('ensel.collect.estimate/1', 2102352, 2102352)
    """
    from ensel.collect.estimate import estimate

    path, _ = config_path(config)
    est = estimate(_load(config))
    a = est.attrs
    cost = a["total_cost_usd"]
    return {"schema": SCHEMA_ESTIMATE, "config": str(path), "rows": _records(est),
            "total_requests": int(a["total_requests"]),
            "total_cost_usd": None if cost != cost else float(cost),
            "hours": float(a["hours"]), "prices_as_of": a["prices_as_of"]}


def status_document(store: str, config: str | None = None) -> dict[str, Any]:
    """``ensel collect status --json`` (schema :data:`SCHEMA_STATUS`)."""
    from ensel.collect.store import Store

    prices = _load(config).prices if config else {}
    with Store(store) as st:
        df = st.status(prices)
    cost = float(df["cost_usd"].sum(min_count=1)) if len(df) else float("nan")
    totals = {c: int(df[c].sum()) for c in ("rows", "answered", "abstained", "failed")}
    return {"schema": SCHEMA_STATUS, "store": str(store), "rows": _records(df),
            "totals": {**totals, "cost_usd": None if cost != cost else cost}}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ensel collect",
                                description="Regenerate the paper's raw LLM answers.")
    add_arguments(p)
    return p


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``ensel collect`` (shared by :mod:`ensel.cli`'s tree)."""
    sub = p.add_subparsers(dest="action", required=True)
    cfg_help = "a run config: a path, or a shipped name (paper: the paper's full run)"
    e = sub.add_parser("estimate", help="requests, tokens, cost and time of a run (no network)")
    e.add_argument("config", help=cfg_help)
    e.add_argument("--json", action="store_true", help=f"JSON output (schema {SCHEMA_ESTIMATE})")
    r = sub.add_parser("run", help="collect every missing answer (resumable)")
    r.add_argument("config", help=cfg_help)
    r.add_argument("--shard", default="1/1", help="i/n: this machine's share of the queries")
    r.add_argument("--store", help="store path (default: the config's store)")
    r.add_argument("--base-url", help="override endpoint.base_url")
    r.add_argument("--allow-mixed", action="store_true",
                   help="accept a store holding answers of another prompt version")
    r.add_argument("--no-progress", action="store_true")
    s = sub.add_parser("status", help="progress per model and condition")
    s.add_argument("store")
    s.add_argument("--config", help="a config (path or shipped name), for prices")
    s.add_argument("--json", action="store_true", help=f"JSON output (schema {SCHEMA_STATUS})")
    x = sub.add_parser("export", help="the tidy table (item, model, condition, answer, label)")
    x.add_argument("store")
    x.add_argument("-o", "--output", required=True)
    x.add_argument("--force", action="store_true", help="overwrite an existing output file")
    x.add_argument("--dataset")
    m = sub.add_parser("merge", help="combine stores")
    m.add_argument("output")
    m.add_argument("stores", nargs="+")
    m.add_argument("--allow-mixed", action="store_true")
    sim = sub.add_parser("simulate", help="serve the simulated model pool on 127.0.0.1")
    sim.add_argument("config", help=cfg_help)
    sim.add_argument("--port", type=_port, default=0,
                     help="TCP port in [0, 65535] (default 0: any free port)")
    sim.add_argument("--fault-rate", type=_fault_rate, default=0.0,
                     help=f"rate of each of the {len(_FAULT_KINDS)} fault kinds (429, 500, 502, "
                     f"503, drop, malformed, off-format), in [0, 1/{len(_FAULT_KINDS)}]")
    sim.add_argument("--unauthorized", action="store_true", help="answer every request 401")
    sim.add_argument("--seconds", type=float, default=0.0, help="stop after this many seconds")


#: The fault kinds ``--fault-rate`` sets, each to the same rate (together at most 1).
_FAULT_KINDS = ("rate_429", "rate_500", "rate_502", "rate_503", "drop", "malformed",
                "off_format")


def _port(value: str) -> int:
    try:
        port = int(value)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be a TCP port in [0, 65535]; got {value}")
    return port


def _fault_rate(value: str) -> float:
    try:
        rate = float(value)
    except ValueError:
        rate = float("nan")
    top = 1 / len(_FAULT_KINDS)
    if not 0.0 <= rate <= top:
        raise argparse.ArgumentTypeError(
            f"must be a rate in [0, {top:.4f}] (each of the {len(_FAULT_KINDS)} fault kinds "
            f"gets it, and together they are at most 1); got {value}")
    return rate


def _run(args: argparse.Namespace) -> int:
    from ensel.collect.collector import EndpointRefused, collect, parse_shard

    cfg = _load(args.config)
    shard = parse_shard(args.shard)
    if args.store:
        cfg = dataclasses.replace(cfg, store=Path(args.store))
    if args.base_url:
        cfg = dataclasses.replace(cfg, base_url=args.base_url)
    try:
        s = collect(cfg, shard=shard, allow_mixed=args.allow_mixed,
                    progress=not args.no_progress)
    except EndpointRefused as exc:
        print(f"ensel collect: stopped: {exc}", file=sys.stderr)
        return 1
    print(f"{s.completed} answers stored ({s.abstained} abstentions), {s.failed} without an "
          f"answer, {s.attempts} requests, retries {dict(s.retries)}, "
          f"{s.elapsed_s:.1f} s; store {cfg.store}")
    return 0


def _simulate(args: argparse.Namespace) -> int:
    from ensel.collect.collector import load_queries
    from ensel.collect.simulate import Faults, SimulatedPool, SimulatorServer

    cfg = _load(args.config)
    pool = SimulatedPool.from_config(cfg, load_queries(cfg))
    faults = Faults(**dict.fromkeys(_FAULT_KINDS, args.fault_rate),
                    unauthorized=args.unauthorized)
    server = SimulatorServer(pool, faults, port=args.port).start()
    print(server.base_url, flush=True)
    try:
        deadline = time.monotonic() + args.seconds if args.seconds else None
        while deadline is None or time.monotonic() < deadline:
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    server.stop()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``ensel collect``; returns the exit code."""
    return run_command(_parser().parse_args(list(sys.argv[1:] if argv is None else argv)))


def total_line(est: Any) -> str:
    """The last line of ``ensel collect estimate``: the cost of the priced models only, and
    which models have no price (never "about $nan (prices as of None)")."""
    a = est.attrs
    unpriced = sorted(set(est.loc[est["cost_usd"].isna(), "model_id"].astype(str)))
    as_of = f" (prices as of {a['prices_as_of']})" if a.get("prices_as_of") else ""
    if len(unpriced) == est["model_id"].nunique():
        cost = "cost unknown: no model has a price (prices.per_million_tokens)"
    else:
        cost = f"about ${a['total_cost_usd']:,.0f}{as_of}"
        if unpriced:
            cost += (f" for the priced models; no price for {', '.join(unpriced)} "
                     "(prices.per_million_tokens)")
    return (f"total: {a['total_requests']:,} requests, {cost}, about {a['hours']:.1f} h at the "
            "configured rates")


def run_command(args: argparse.Namespace) -> int:
    """Run ``ensel collect`` on parsed arguments; bad input: one line, exit code 2."""
    from ensel.collect.config import ConfigError
    from ensel.collect.queries import DatasetFileError
    from ensel.collect.store import Store, StoreError
    from ensel.datasets._fetch import DataUnavailableError

    logging.basicConfig(level=logging.WARNING, format="ensel collect: %(message)s")
    try:
        if args.action == "run":
            return _run(args)
        if args.action == "simulate":
            return _simulate(args)
        if args.action == "estimate":
            if args.json:
                print(json.dumps(estimate_document(args.config), indent=2))
                return 0
            from ensel.collect.estimate import estimate

            est = estimate(_load(args.config))
            print(est.to_string(index=False, float_format=lambda v: f"{v:,.2f}"))
            print(total_line(est))
            return 0
        if args.action in ("status", "export"):
            if not Path(args.store).is_file():
                raise StoreError(f"no store at {args.store}")
        if args.action == "status":
            if args.json:
                print(json.dumps(status_document(args.store, args.config), indent=2))
                return 0
            prices = _load(args.config).prices if args.config else {}
            with Store(args.store) as st:
                print(st.status(prices).to_string(index=False))
            return 0
        if args.action == "export":
            from ensel._io import check_output, write_atomic

            check_output(args.output, inputs=[args.store], force=args.force)
            with Store(args.store) as st:
                df = st.export(args.dataset)
            write_atomic(args.output, lambda tmp: df.to_parquet(tmp, index=False),
                         force=args.force)
            print(f"{len(df)} answers -> {args.output}")
            return 0
        with Store(args.output) as st:
            n = st.merge(args.stores, allow_mixed=args.allow_mixed)
        print(f"{n} rows in {args.output}")
        return 0
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly
        from ensel._io import quiet_closed_stdout

        return quiet_closed_stdout()
    except (ConfigError, StoreError, DatasetFileError, DataUnavailableError, ValueError,
            OSError) as exc:
        print(f"ensel collect: error: {exc}".splitlines()[0], file=sys.stderr)
        return 2
