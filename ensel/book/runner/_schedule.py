"""Scheduling: execute a set of runs in parallel worker processes, a run after the runs it
needs, cached runs skipped, the longest chains first (:func:`critical_path`, from the durations
of earlier builds)."""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ensel._io import NotebookRunError
from ensel.book.runner import _zygote
from ensel.book.runner._config import NotebookRun, _parse_params, missing_inputs, repo_root
from ensel.book.runner._execute import KERNEL_ENV, execute_run, picks_dir
from ensel.book.runner._keys import cached, run_keys


def _execute_in_worker(run: NotebookRun, out_dir: str, test: bool, extra: dict[str, Any],
                       allow_warnings: bool, root: str, key: str) -> tuple[str, str]:
    """One run in a worker process: ``("ok", path)`` or ``("FAILED", message)``."""
    try:
        path = execute_run(run, out_dir=Path(out_dir), test=test, extra_parameters=extra,
                           allow_warnings=allow_warnings, root=Path(root), key=key,
                           share_picks=True)
    except NotebookRunError as exc:
        return "FAILED", str(exc)
    return "ok", str(path)


def _init_worker(root: str) -> None:
    """Workers ignore Ctrl-C (the terminal's Ctrl-C reaches every process of the group):
    the parent, which gets it too, ends them with SIGTERM, which :func:`execute_run` honours
    (the kernel is shut down, the page left as it was). Each worker starts its kernel
    zygote (:mod:`~ensel.book.runner._zygote`), which preloads while the first run starts."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _zygote.start({**os.environ, **KERNEL_ENV}, cwd=root)


def _execute_all(runs: Sequence[NotebookRun], args: argparse.Namespace,
                 all_runs: Sequence[NotebookRun] = ()) -> int:
    out_dir = Path(args.out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    root = repo_root()
    extra = _parse_params(args.param)
    chosen = {r.output for r in runs}
    everything = list(all_runs) or list(runs)
    for run in runs:
        upstream = [r for r in everything if r.output not in chosen]
        missing = missing_inputs(run, upstream, out_dir, test=args.test)
        if missing:
            print(f"error: run {run.output!r} needs the runs {', '.join(missing)}, which "
                  f"have not run into {out_dir}; run `make run NB={run.needs[0]}` (or "
                  "`make book`) first", file=sys.stderr)
            return 2
    keys = run_keys(runs, root=root, out_dir=out_dir, test=args.test, extra_parameters=extra,
                    everything=everything)
    # the pick paths the runs share: only this version of the code's, none when forced (a
    # forced build starts cold)
    from ensel import _picks

    _picks.prune(picks_dir(out_dir), None if args.force else picks_dir(out_dir, root).name)
    jobs = max(1, int(args.jobs or min(2, os.cpu_count() or 1)))
    timings: list[dict[str, Any]] = []
    failures: list[str] = []
    finished: dict[str, str] = {}  # output -> status
    durations = read_durations(out_dir)
    # longest chain first (the runs that wait for a run count towards its length); a run
    # without a recorded duration takes the shipped one (a fresh clone would otherwise start
    # the long pages last and leave a core idle at the end), else keeps its runs.yml order
    priority = critical_path(runs, {**shipped_durations(root), **durations})
    pending = sorted(runs, key=lambda r: -priority[r.output])
    t_start = time.perf_counter()

    def record(run: NotebookRun, status: str, seconds: float, where: str) -> None:
        finished[run.output] = status
        timings.append({"output": run.output, "seconds": round(seconds, 1), "status": status})
        if status == "ok":
            durations[run.output] = round(seconds, 1)
        print(f"[{status:>6}] {run.output:<32} {seconds:7.1f} s  -> {where}", flush=True)

    def ready(run: NotebookRun) -> bool | None:
        """True: can start; False: wait; None: blocked by a failed needed run."""
        deps = [r.output for r in runs if r.notebook in run.needs]
        if any(finished.get(d) in ("FAILED", "blocked") for d in deps):
            return None
        return all(d in finished for d in deps)

    pool = None
    if jobs > 1 and len(runs) > 1:
        pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_worker, initargs=(str(root),))
    running: dict[Any, tuple[NotebookRun, float]] = {}
    try:
        while pending or running:
            for run in list(pending):
                state = ready(run)
                if state is None:
                    pending.remove(run)
                    record(run, "blocked", 0.0, "a run it needs failed")
                    continue
                if not state or (pool is not None and len(running) >= jobs):
                    continue
                pending.remove(run)
                key = keys[run.output]
                if not args.force and cached(run, key, out_dir, test=args.test):
                    record(run, "cached", 0.0, str(out_dir / f"{run.output}.ipynb"))
                    continue
                call = (run, str(out_dir), args.test, extra, args.allow_warnings, str(root), key)
                if pool is None:
                    t0 = time.perf_counter()
                    status, msg = _execute_in_worker(*call)
                    running[None] = (run, t0)
                    _collect(None, status, msg, running, record, failures)
                else:
                    running[pool.submit(_execute_in_worker, *call)] = (run, time.perf_counter())
            if failures and not args.keep_going:
                for fut in list(running):
                    fut.cancel()
                break
            if running:
                done, _ = concurrent.futures.wait(
                    list(running), return_when=concurrent.futures.FIRST_COMPLETED)
                for fut in done:
                    status, msg = fut.result()
                    _collect(fut, status, msg, running, record, failures)
            elif pending and all(ready(r) is False for r in pending):
                raise RuntimeError("runner: runs wait for runs that are not scheduled")
    except (KeyboardInterrupt, SystemExit):
        if pool is not None:  # Ctrl-C or SIGTERM of this process alone: end the runs too
            for worker in multiprocessing.active_children():
                worker.terminate()
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    _write_json_atomic(out_dir / "timings.json", timings)
    if not args.test:  # small test parameters would misorder the next full build
        _write_json_atomic(out_dir / DURATIONS, dict(sorted(durations.items())))
    executed = sum(1 for t in timings if t["status"] not in ("cached", "blocked"))
    print(f"{len(timings)} run(s): {executed} executed, "
          f"{sum(t['status'] == 'cached' for t in timings)} unchanged (cached), "
          f"{len(failures)} failed; {time.perf_counter() - t_start:.1f} s wall time "
          f"with {jobs} job(s)", flush=True)
    if failures:
        print("\nFailed notebooks:\n  " + "\n  ".join(failures), file=sys.stderr)
        return 1
    return 0


#: Seconds of the last successful execution of each run (``<out_dir>/durations.json``,
#: kept across builds, unlike ``timings.json`` which lists the last build only): the
#: runner starts the longest chains first.
DURATIONS = "durations.json"


def read_durations(out_dir: str | Path) -> dict[str, float]:
    """Last execution time of each run: ``durations.json``, completed by the executed runs of
    the last build's ``timings.json``; unreadable files count as empty."""
    out_dir = Path(out_dir)
    found: dict[str, float] = {}
    try:
        for t in json.loads((out_dir / "timings.json").read_text()):
            if t.get("status") == "ok":
                found[str(t["output"])] = float(t["seconds"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        pass
    try:
        found.update({str(k): float(v)
                      for k, v in json.loads((out_dir / DURATIONS).read_text()).items()})
    except (OSError, ValueError, TypeError, AttributeError):
        pass
    return found


def shipped_durations(root: str | Path) -> dict[str, float]:
    """The seconds of each run shipped in ``notebooks/durations.json`` (a copy of a full
    build's ``durations.json``): the order of a build that has none of its own. Unreadable:
    empty."""
    try:
        doc = json.loads((Path(root) / "notebooks" / DURATIONS).read_text())
        return {str(k): float(v) for k, v in doc.items()}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def critical_path(runs: Sequence[NotebookRun], durations: dict[str, float]
                  ) -> dict[str, float]:
    """Per run: its expected seconds plus the longest chain of runs that need it (in
    ``durations``; an unknown run counts 0). Starting the runs with the largest value first
    keeps the cores busy until the end (a run that others wait for starts early)."""
    by_output = {r.output: r for r in runs}
    memo: dict[str, float] = {}

    def length(output: str) -> float:
        if output not in memo:
            run = by_output[output]
            after = [length(r.output) for r in runs if run.notebook in r.needs]
            memo[output] = durations.get(output, 0.0) + max(after, default=0.0)
        return memo[output]

    return {r.output: length(r.output) for r in runs}


def _collect(fut: Any, status: str, msg: str, running: dict[Any, tuple[NotebookRun, float]],
             record: Any, failures: list[str]) -> None:
    run, t0 = running.pop(fut)
    if status != "ok":
        failures.append(msg)
        print(f"ERROR: {msg}", file=sys.stderr, flush=True)
        record(run, "FAILED", time.perf_counter() - t0, "(not written)")
    else:
        record(run, "ok", time.perf_counter() - t0, msg)


def _write_json_atomic(path: Path, obj: Any) -> None:
    """Write ``obj`` to ``path`` as JSON; a file that already says the same is left as it is
    (Sphinx reads the pages that depend on a file again when its time changes)."""
    text = json.dumps(obj, indent=1) + "\n"
    try:
        if path.read_text() == text:
            return
    except (OSError, UnicodeDecodeError):
        pass
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
