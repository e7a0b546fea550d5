"""Outputs survive races and signals (issue 28, item 3).

Four processes writing the same ``-o`` at once leave exactly one complete file, and the
other three are refused (exit 2, one line); SIGINT and SIGTERM during ``ensel evaluate``
exit 130/143 with one line and leave no temporary folder and no partial output.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ensel._errors import UsageError
from ensel._io import write_atomic

from .conftest import Result, assert_usage_error


def _wide(path: Path, n_items: int = 4000, n_models: int = 40) -> Path:
    rng = np.random.default_rng(0)
    gold = rng.choice(list("ABCD"), n_items)
    df = pd.DataFrame({"item": [f"q{i}" for i in range(n_items)], "gold": gold})
    for j in range(n_models):
        df[f"m{j}"] = np.where(rng.random(n_items) < 0.7, gold, rng.choice(list("ABCD"),
                                                                           n_items))
    df.to_csv(path, index=False)
    return path


def test_four_writers_of_one_path_leave_one_complete_file(tmp_path) -> None:
    # 1,000 items (40,000 answers): four processes started at once still overlap in their
    # writes; each of the five imports is mostly the interpreter and pandas starting
    src = _wide(tmp_path / "w.csv", n_items=1000)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "same.parquet"
    argv = [sys.executable, "-m", "ensel", "import", "wide", str(src), "-o", str(out)]
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(4)]
    results = []
    for p in procs:
        out_text, err = p.communicate(timeout=300)
        results.append(Result(p.returncode, out_text, err))
    codes = sorted(r.code for r in results)
    assert codes == [0, 2, 2, 2], [(r.code, r.err) for r in results]
    for r in results:
        if r.code == 2:
            assert_usage_error(r, "import", "same.parquet")
            assert ("the file exists" in r.err or "another process" in r.err), r.err
    # the one file is complete: exactly what one import writes
    expected = tmp_path / "alone.parquet"
    assert subprocess.run([*argv[:-1], str(expected)], capture_output=True).returncode == 0
    pd.testing.assert_frame_equal(pd.read_parquet(out), pd.read_parquet(expected))
    assert sorted(p.name for p in out_dir.iterdir()) == ["same.parquet"]  # no temp, no lock


def test_a_failed_write_leaves_nothing(tmp_path) -> None:
    out = tmp_path / "x.csv"

    def boom(tmp: Path) -> None:
        tmp.write_text("half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_atomic(out, boom)
    assert list(tmp_path.iterdir()) == []


def test_a_live_writers_lock_refuses_a_second_writer(tmp_path) -> None:
    out = tmp_path / "x.csv"
    lock = tmp_path / ".x.csv.ensel-lock"
    lock.write_text(str(os.getppid()))  # a process that runs
    with pytest.raises(UsageError, match=r"another process \(pid \d+\) is writing"):
        write_atomic(out, lambda t: t.write_text("a"), force=True)
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == [lock.name]


def test_a_stale_lock_is_taken_over(tmp_path) -> None:
    out = tmp_path / "x.csv"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / ".x.csv.ensel-lock").write_text(str(dead.pid))
    write_atomic(out, lambda t: t.write_text("a"))
    assert out.read_text() == "a" and [p.name for p in tmp_path.iterdir()] == ["x.csv"]


def test_force_replaces_in_one_step(tmp_path) -> None:
    out = tmp_path / "x.csv"
    out.write_text("old")
    write_atomic(out, lambda t: t.write_text("new"), force=True)
    assert out.read_text() == "new" and [p.name for p in tmp_path.iterdir()] == ["x.csv"]


@pytest.mark.notebooks
@pytest.mark.parametrize(("sig", "code", "word"), [(signal.SIGINT, 130, "interrupted"),
                                                   (signal.SIGTERM, 143, "terminated")])
def test_a_signal_during_evaluate_leaves_nothing_behind(tmp_path, sig, code, word) -> None:
    from ensel.copula import sample_equicorrelated
    from ensel.data import to_long

    X, y, _ = sample_equicorrelated([0.7, 0.75, 0.8, 0.65], 0.3, 4, 300, random_state=1)
    data = tmp_path / "pool.parquet"
    to_long(X, y).to_parquet(data, index=False)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    out_dir = tmp_path / "out"
    env = dict(os.environ, TMPDIR=str(tmp))
    p = subprocess.Popen([sys.executable, "-m", "ensel", "evaluate", str(data), "-o",
                          str(out_dir / "r.html"), "--splits", "2", "--ks", "1-2",
                          "--no-exhaustive"], stderr=subprocess.PIPE, text=True, env=env)
    assert p.stderr is not None
    for line in p.stderr:
        if "executing the experiments page" in line:
            break
    time.sleep(2.0)  # the kernel is running the page
    assert p.poll() is None, "the page finished before the signal"
    p.send_signal(sig)
    rest = p.stderr.read()
    assert p.wait(120) == code, rest
    r = Result(code, "", rest)
    lines = [ln for ln in r.err.splitlines() if ln.strip()]
    assert lines == [f"ensel evaluate: {word}; temporary and partial files removed"], r.err
    assert not [p for p in tmp.iterdir() if p.name.startswith("ensel-evaluate-")]
    assert not out_dir.exists() or list(out_dir.iterdir()) == []


def test_an_output_gets_the_mode_open_would_give_it(tmp_path) -> None:
    """The temporary file is private (0600, mkstemp); the published output is not: a new
    file gets the umask's mode, a replaced file keeps its own."""
    mask = os.umask(0o022)
    os.umask(mask)
    out = write_atomic(tmp_path / "new.csv", lambda t: t.write_text("a"))
    assert out.stat().st_mode & 0o777 == 0o666 & ~mask
    kept = tmp_path / "kept.csv"
    kept.write_text("old")
    kept.chmod(0o640)
    write_atomic(kept, lambda t: t.write_text("new"), force=True)
    assert kept.stat().st_mode & 0o777 == 0o640 and kept.read_text() == "new"


@pytest.mark.usefixtures("python_sigint")
def test_signal_guard_gives_a_caller_its_own_interruption_back() -> None:
    """In a library caller, Ctrl-C inside the guard is a KeyboardInterrupt (also when code
    inside swallowed it), an ignored signal stays ignored, and the handlers come back; under
    ``exit=True`` (the commands) it is the exit with code 130."""
    from ensel._io import signal_guard

    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt), signal_guard() as guard:
        try:
            os.kill(os.getpid(), signal.SIGINT)
        except BaseException:  # noqa: BLE001 - library code that swallows it
            pass
        assert guard.received == 130
        guard.check()
    assert signal.getsignal(signal.SIGINT) is before
    with pytest.raises(SystemExit) as exc, signal_guard(exit=True):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)
    assert exc.value.code == 130
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with signal_guard() as guard:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.1)
        assert guard.received is None
    finally:
        signal.signal(signal.SIGINT, before)
