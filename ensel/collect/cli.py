"""``ensel collect``: run, estimate, status, export, merge, simulate.

::

    ensel collect estimate CONFIG                      dry run: requests, tokens, cost, time
    ensel collect run CONFIG [--shard i/n] [--store PATH] [--allow-mixed] [--no-progress]
    ensel collect status STORE [--config CONFIG]       progress, errors, abstentions, spend
    ensel collect export STORE -o answers.parquet [--dataset NAME]
    ensel collect merge OUT STORE...                   combine the stores of several shards
    ensel collect simulate CONFIG [--port P] [--fault-rate R] [--unauthorized]

Bad input (config, store, dataset file) prints one line naming the problem and exits with 2;
an endpoint that refuses the key (401/402/403) or a reached cost cap exits with 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
import time
from collections.abc import Sequence
from pathlib import Path

__all__ = ["main", "add_arguments", "run_command"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ensel collect",
                                description="Regenerate the paper's raw LLM answers.")
    add_arguments(p)
    return p


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``ensel collect`` (shared by :mod:`ensel.cli`'s tree)."""
    sub = p.add_subparsers(dest="action", required=True)
    e = sub.add_parser("estimate", help="requests, tokens, cost and time of a run (no network)")
    e.add_argument("config")
    r = sub.add_parser("run", help="collect every missing answer (resumable)")
    r.add_argument("config")
    r.add_argument("--shard", default="1/1", help="i/n: this machine's share of the queries")
    r.add_argument("--store", help="store path (default: the config's store)")
    r.add_argument("--base-url", help="override endpoint.base_url")
    r.add_argument("--allow-mixed", action="store_true",
                   help="accept a store holding answers of another prompt version")
    r.add_argument("--no-progress", action="store_true")
    s = sub.add_parser("status", help="progress per model and condition")
    s.add_argument("store")
    s.add_argument("--config", help="a config, for prices")
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
    sim.add_argument("config")
    sim.add_argument("--port", type=int, default=0)
    sim.add_argument("--fault-rate", type=float, default=0.0,
                     help="rate of each fault kind (429, 500, 502, 503, drop, malformed, ...)")
    sim.add_argument("--unauthorized", action="store_true", help="answer every request 401")
    sim.add_argument("--seconds", type=float, default=0.0, help="stop after this many seconds")


def _run(args: argparse.Namespace) -> int:
    from ensel.collect.collector import EndpointRefused, collect, parse_shard
    from ensel.collect.config import load_config

    cfg = load_config(args.config)
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
    from ensel.collect.config import load_config
    from ensel.collect.simulate import Faults, SimulatedPool, SimulatorServer

    cfg = load_config(args.config)
    pool = SimulatedPool.from_config(cfg, load_queries(cfg))
    r = args.fault_rate
    faults = Faults(rate_429=r, rate_500=r, rate_502=r, rate_503=r, drop=r, malformed=r,
                    off_format=r, unauthorized=args.unauthorized)
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
            from ensel.collect.config import load_config
            from ensel.collect.estimate import estimate

            est = estimate(load_config(args.config))
            print(est.to_string(index=False, float_format=lambda v: f"{v:,.2f}"))
            a = est.attrs
            print(f"total: {a['total_requests']:,} requests, about ${a['total_cost_usd']:,.0f} "
                  f"(prices as of {a['prices_as_of']}), about {a['hours']:.1f} h at the "
                  "configured rates")
            return 0
        if args.action in ("status", "export"):
            if not Path(args.store).is_file():
                raise StoreError(f"no store at {args.store}")
        if args.action == "status":
            prices = {}
            if args.config:
                from ensel.collect.config import load_config

                prices = load_config(args.config).prices
            with Store(args.store) as st:
                print(st.status(prices).to_string(index=False))
            return 0
        if args.action == "export":
            from ensel.practice import check_output

            check_output(args.output, inputs=[args.store], force=args.force)
            with Store(args.store) as st:
                df = st.export(args.dataset)
            df.to_parquet(args.output, index=False)
            print(f"{len(df)} answers -> {args.output}")
            return 0
        with Store(args.output) as st:
            n = st.merge(args.stores, allow_mixed=args.allow_mixed)
        print(f"{n} rows in {args.output}")
        return 0
    except (ConfigError, StoreError, DatasetFileError, DataUnavailableError, ValueError,
            OSError) as exc:
        print(f"ensel collect: error: {exc}".splitlines()[0], file=sys.stderr)
        return 2
