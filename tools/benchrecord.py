"""The benchmarks' record and the README's timing table (``make bench``).

``python -m tools.benchrecord run [--only NAME ...] [--leave-out NAME=WHY ...]`` runs the
scripts ``benchmarks/bench_*.py`` (all, or those ``--only`` names) one after the other, each
in its own process with ``ENSEL_BENCH_RECORD`` set (``benchmarks/_bench.py``: every figure a
script passes to ``record`` is kept), and writes ``benchmarks/results.json``: the machine
(processor, cores, memory, system, Python), the date (UTC), the commit, each script's exit
code, wall time and load average before and after, every figure, and the scripts left out
with why. It refuses to run with ``ENSEL_BENCH_TINY`` set: the tiny size measures start-up,
not the code.

``python -m tools.benchrecord readme [--check]`` renders the record as the README's timing
table between the markers :data:`BEGIN` and :data:`END` of ``README.md`` (nothing else of the
file changes); ``--check`` only says whether the README's block is the rendering of the record
(exit 1 when not). ``tests/test_readme.py`` holds them equal.

Exit codes: 0 done, 1 a script failed (``run``) or the block differs (``--check``), 2 bad
usage (tiny size, an unknown script, a README without the markers).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
RECORD = BENCHMARKS / "results.json"
README = ROOT / "README.md"
BEGIN = "<!-- bench:begin (rendered from benchmarks/results.json by make bench; do not edit) -->"
END = "<!-- bench:end -->"


#: Why a script is not in a record when nobody said why.
NOT_RUN = "not run this time"


class BenchUsageError(Exception):
    """Bad usage of the tool: what was asked and what was expected (exit code 2)."""


def scripts() -> dict[str, Path]:
    """The benchmark scripts by name (``bench_frontier.py`` -> ``frontier``)."""
    return {p.stem.removeprefix("bench_"): p for p in sorted(BENCHMARKS.glob("bench_*.py"))}


def machine() -> dict[str, Any]:
    """What the figures were measured on (no host name)."""
    cpu = platform.processor() or platform.machine()
    memory = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = round(int(line.split()[1]) / 1024 ** 2, 1)
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gb": memory,
            "system": platform.system() + " " + platform.release(),
            "python": platform.python_version()}


def _commit() -> str:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"],
                             capture_output=True, text=True, timeout=10, check=True)
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True, text=True,
                               timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() + ("+" if dirty.stdout.strip() else "")  # +: uncommitted changes


def run(names: list[str] | None = None, left_out: dict[str, str] | None = None,
        *, python: str = sys.executable) -> dict[str, Any]:
    """Run the benchmark scripts ``names`` (default: all) and return the record."""
    if os.environ.get("ENSEL_BENCH_TINY", "") not in ("", "0"):
        raise BenchUsageError("ENSEL_BENCH_TINY is set: the record keeps full-size figures "
                              "only; unset it (the tiny size is for the test suite)")
    found = scripts()
    left_out = dict(left_out or {})
    chosen = list(names) if names else [n for n in found if n not in left_out]
    unknown = [n for n in [*chosen, *left_out] if n not in found]
    if unknown:
        raise BenchUsageError(f"unknown benchmark(s) {', '.join(unknown)}; expected one of "
                              f"{', '.join(found)}")
    record: dict[str, Any] = {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": _commit(), "machine": machine(), "scripts": [], "figures": [],
        "left_out": {n: left_out.get(n, NOT_RUN) for n in found
                     if n not in chosen}}
    for name in chosen:
        with tempfile.TemporaryDirectory(prefix="ensel-bench-") as tmp:
            lines = Path(tmp) / "figures.jsonl"
            before = os.getloadavg()[0]
            t = time.perf_counter()
            proc = subprocess.run([python, str(found[name])], cwd=tmp,
                                  env={**os.environ, "ENSEL_BENCH_RECORD": str(lines)})
            wall = time.perf_counter() - t
            figures = ([json.loads(x) for x in lines.read_text().splitlines() if x.strip()]
                       if lines.is_file() else [])
        record["scripts"].append({"script": name, "exit": proc.returncode,
                                  "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
                                  "seconds": round(wall, 1),
                                  "load": [round(before, 2), round(os.getloadavg()[0], 2)]})
        for f in figures:
            f["script"] = name
            f["value"] = float(f["value"])
            f["load"] = round(float(f["load"]), 2)
        record["figures"] += figures
    return record


def merge(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """``old`` with the scripts ``new`` ran replaced by their new entries and figures (a run
    of some scripts, ``--only``, keeps the others' figures); the date and commit are the new
    ones, each script keeps its own date, and a script left out in ``new`` that ``old`` has
    stays in with its figures."""
    ran = {s["script"] for s in new["scripts"]}
    rank = {n: i for i, n in enumerate(scripts())}

    def order(item: dict[str, Any]) -> int:
        return rank.get(item["script"], len(rank))

    entries = sorted([s for s in old.get("scripts", []) if s["script"] not in ran]
                     + new["scripts"], key=order)
    figures = sorted([f for f in old.get("figures", []) if f["script"] not in ran]
                     + new["figures"], key=order)  # stable: a script's figures keep their order
    kept = {s["script"] for s in entries}
    said = old.get("left_out", {})  # a reason given before outlasts "not run this time"
    left = {n: said.get(n, why) if why == NOT_RUN else why
            for n, why in {**said, **new["left_out"]}.items()}
    return {**new, "scripts": entries, "figures": figures,
            "left_out": {n: why for n, why in left.items() if n not in kept}}


def _value(value: float, unit: str) -> str:
    if not unit:  # a difference of errors: its sign and four decimals
        return f"{value:+.4f}"
    digits = 2 if abs(value) < 10 else 1
    return f"{value:.{digits}f} {unit}"


def render(record: dict[str, Any]) -> str:
    """The README's timing table (Markdown, without the markers) from a record."""
    m = record["machine"]
    memory = f", {m['memory_gb']:g} GB" if m.get("memory_gb") else ""
    loads = [x for s in record["scripts"] for x in s["load"]]
    load = (f"load average {min(loads):.1f} to {max(loads):.1f}" if loads else "")
    head = (f"Measured by `make bench`, last on {record['date']} at commit `{record['commit']}`: "
            f"{m['cpu']}, {m['cores']} cores{memory}, {m['system']}, Python {m['python']}; "
            f"{load} (a shared machine: wall times vary with its load).")
    rows = ["| benchmark | measured | target | load |", "|---|---|---|---|"]
    for f in record["figures"]:
        rows.append(f"| {f['figure']} (`{f['script']}`) | {_value(f['value'], f['unit'])} | "
                    f"{f.get('target') or '–'} | {f['load']:.1f} |")
    failed = [s["script"] for s in record["scripts"] if s["exit"] != 0]
    out = [head, "", *rows]
    if failed:
        out += ["", "Exited with an error (a missed target or a failure): "
                + ", ".join(f"`{n}`" for n in failed) + "."]
    if record.get("left_out"):
        out += ["", "Not in this record: " + "; ".join(
            f"`{n}` ({why})" for n, why in record["left_out"].items()) + "."]
    return "\n".join(out)


def replace_block(text: str, block: str) -> str:
    """``text`` with the part between :data:`BEGIN` and :data:`END` replaced by ``block``."""
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise BenchUsageError(f"README.md needs one line {BEGIN!r} and, after it, one line "
                              f"{END!r} around the timing table")
    start = text.index(BEGIN) + len(BEGIN)
    return text[:start] + "\n" + block + "\n" + text[text.index(END):]


def readme_block(text: str) -> str:
    """The part of ``text`` between the markers (what :func:`replace_block` wrote)."""
    return text[text.index(BEGIN) + len(BEGIN):text.index(END)].strip("\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.benchrecord",
                                 description="The benchmarks' record and the README's table.")
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run the benchmarks and write benchmarks/results.json")
    r.add_argument("--only", nargs="+", metavar="NAME", help="these scripts only")
    r.add_argument("--leave-out", action="append", default=[], metavar="NAME=WHY",
                   help="a script not run, and why (kept in the record)")
    m = sub.add_parser("readme", help="render the record into README.md's timing table")
    m.add_argument("--check", action="store_true", help="only check (exit 1 when it differs)")
    args = ap.parse_args(argv)
    try:
        if args.command == "run":
            bad = [x for x in args.leave_out if "=" not in x]
            if bad:
                raise BenchUsageError(f"--leave-out {bad[0]!r}: expected NAME=WHY")
            record = run(args.only, dict(x.split("=", 1) for x in args.leave_out))
            failed = any(s["exit"] for s in record["scripts"])  # of the scripts run now
            if args.only and RECORD.is_file():  # the other scripts' figures stay
                record = merge(json.loads(RECORD.read_text(encoding="utf-8")), record)
            RECORD.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n",
                              encoding="utf-8")
            print(f"benchrecord: {len(record['figures'])} figures of "
                  f"{len(record['scripts'])} scripts in {RECORD.relative_to(ROOT)}")
            return 1 if failed else 0
        if not RECORD.is_file():
            raise BenchUsageError(f"no {RECORD.relative_to(ROOT)}: run make bench first")
        text = README.read_text(encoding="utf-8")
        new = replace_block(text, render(json.loads(RECORD.read_text(encoding="utf-8"))))
        if args.check:
            if new != text:
                print("benchrecord: README.md's timing table is not the rendering of "
                      f"{RECORD.relative_to(ROOT)} (python -m tools.benchrecord readme)")
                return 1
            return 0
        if new != text:
            README.write_text(new, encoding="utf-8")
            print("benchrecord: README.md's timing table rewritten")
        return 0
    except BenchUsageError as exc:
        print(f"benchrecord: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
