"""Collector throughput against the simulated pool, and store memory as it grows.

The simulated server runs in its own process (``ensel collect simulate``, 127.0.0.1), the
collector in this one, the store on local disk: what a run against a fast local endpoint
costs end to end. Reports completed requests/s, CPU ms per request (this process), and the
resident memory after 10k and 100k stored answers (flat = the store does not grow in RAM).
``ENSEL_BENCH_TINY=1``: 20 questions, a store of 1,000 answers (see ``benchmarks/_bench.py``).
"""

from __future__ import annotations

import dataclasses
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _bench import size

from ensel.collect.collector import collect, load_queries
from ensel.collect.config import load_config
from ensel.collect.store import Store
from ensel.collect.testing import write_fixture

# 2,500 questions = 5,000 queries x 4 models = 20,000 requests (argument: fewer questions)
N_QUESTIONS = int(sys.argv[1]) if len(sys.argv) > 1 else size(2500, 20)
#: Answers added to the store per block (ten blocks).
BLOCK = size(10_000, 100)


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**20


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench-collect-"))
    try:
        _run(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(tmp: Path) -> None:
    write_fixture("mmlu", tmp / "mmlu.parquet", n=N_QUESTIONS)
    (tmp / "run.yml").write_text(
        "endpoint: {base_url: 'http://127.0.0.1:1/v1', api_key_env: null, timeout_s: 30}\n"
        "datasets:\n  mmlu:\n    source: mmlu\n    path: mmlu.parquet\n"
        "    models: {GPT-4.1: a, GPT-4o: b, Qwen3-235b: c, LLaMA-3.1-8b: d}\n"
        "temperatures: [0.7]\nruns: 1\nconcurrency: 16\nrequests_per_minute: 10000000\n"
        "store: answers.sqlite\n")
    cfg = load_config(tmp / "run.yml")
    queries = load_queries(cfg)
    server = subprocess.Popen(
        [sys.executable, "-c", "import sys; from ensel.collect.cli import main; "
         "sys.exit(main(sys.argv[1:]))", "simulate", str(tmp / "run.yml")],
        stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        cfg = dataclasses.replace(cfg, base_url=url)
        cpu0, t0 = time.process_time(), time.perf_counter()
        s = collect(cfg, queries=queries)
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        server_cpu = _cpu_s(server.pid)
        # the same run as two shards in two processes (one per core), then merged: how a
        # run uses both cores (`ensel collect run --shard i/2`, `ensel collect merge`)
        cli = [sys.executable, "-c", "import sys; from ensel.collect.cli import main; "
               "sys.exit(main(sys.argv[1:]))"]
        t1 = time.perf_counter()
        shards = [subprocess.Popen(cli + ["run", str(tmp / "run.yml"), "--shard", f"{i}/2",
                                          "--store", str(tmp / f"shard{i}.sqlite"),
                                          "--base-url", url, "--no-progress"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                  for i in (1, 2)]
        for p in shards:
            _, err = p.communicate(timeout=600)
            if p.returncode != 0:
                raise SystemExit(f"shard failed: {err.decode()[-500:]}")
        wall2 = time.perf_counter() - t1
        subprocess.run(cli + ["merge", str(tmp / "merged.sqlite"), str(tmp / "shard1.sqlite"),
                              str(tmp / "shard2.sqlite")], check=True, capture_output=True)
        with Store(tmp / "merged.sqlite") as st:
            n2 = st.count()
    finally:
        server.terminate()
        server.wait(30)
    print(f"collector: {s.completed:,} answers in {wall:.1f} s = {s.completed / wall:,.0f} "
          f"completed requests/s; {1000 * cpu / s.completed:.2f} CPU ms per request "
          f"(collector process), {1000 * server_cpu / s.completed:.2f} in the simulated server; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"collector, two shards in two processes: {n2:,} answers in {wall2:.1f} s = "
          f"{n2 / wall2:,.0f} completed requests/s (merged store checked: "
          f"{'complete' if n2 == s.completed else 'INCOMPLETE'})")
    if n2 != s.completed:
        raise SystemExit(f"the merged shards hold {n2:,} answers, the one-process run "
                         f"{s.completed:,}")

    with Store(tmp / "grow.sqlite") as st:
        rss = {}
        for block in range(10):
            st.put_many({"dataset": "d", "query_id": f"q{block}-{i}", "model": "m",
                         "temperature": 0.7, "run": 1, "prompt_hash": "h", "label": 1,
                         "answer": 1, "raw_text": "True", "attempts": 1}
                        for i in range(BLOCK))
            rss[st.count()] = _rss_mb()
    print(f"store: resident memory {rss[BLOCK]:.0f} MB at {BLOCK:,} answers, "
          f"{rss[10 * BLOCK]:.0f} MB at {10 * BLOCK:,} answers")


if __name__ == "__main__":
    main()
