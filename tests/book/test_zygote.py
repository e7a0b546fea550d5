"""The kernels of a book build are forked from a warm zygote (``ensel.book.runner._zygote``):
a forked kernel executes a page exactly as a kernel started by jupyter_client does, and a
build stopped by SIGTERM leaves no kernel and no zygote behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ensel.book.runner import NotebookRun, _zygote, execute_run

PAGE = """# # Page

# %% tags=['parameters']
pid_file = ""

# %%
import os
import sys

import matplotlib.pyplot as plt
import numpy as np

if pid_file:
    with open(pid_file, "w") as f:
        f.write(f"{os.getpid()} {os.getppid()}")
rng = np.random.default_rng(3)
print(rng.normal(size=3).round(6), sys.argv[0].endswith("ipykernel_launcher.py"))
print(os.getcwd() == os.environ["PWD_EXPECTED"], os.environ["OPENBLAS_NUM_THREADS"])
import pandas as pd

pd.DataFrame(np.arange(60).reshape(2, 30))  # pandas' width as in a kernel (20 columns)

# %%
fig, ax = plt.subplots(figsize=(2, 2))
ax.plot([1, 2, 3], [3, 1, 2])
plt.show()
"""


def _book(tmp_path: Path, source: str = PAGE) -> Path:
    root = tmp_path / "repo"
    (root / "notebooks").mkdir(parents=True)
    (root / "notebooks" / "page.py").write_text(source)
    (root / "notebooks" / "runs.yml").write_text("notebooks:\n  - notebook: page\n")
    return root


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").is_file() and \
        Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][0] != "Z"


@pytest.mark.notebooks
@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX only")
def test_a_forked_kernel_executes_the_page_as_a_started_one(tmp_path: Path,
                                                             monkeypatch) -> None:
    from ensel.book.runner._execute import KERNEL_ENV

    root = _book(tmp_path)
    monkeypatch.setenv("PWD_EXPECTED", str(root))
    run = NotebookRun("page", "page")
    pid_file = tmp_path / "pids"
    pages = {}
    for mode in ("started", "forked"):
        if mode == "forked":
            _zygote.start({**os.environ, **KERNEL_ENV})
        try:
            path = execute_run(run, out_dir=tmp_path / mode, root=root, key="k",
                               extra_parameters={"pid_file": str(pid_file)})
            pages[mode] = path.read_bytes()
            _, parent = map(int, pid_file.read_text().split())
            zygote = _zygote._ZYGOTE
            assert parent == (os.getpid() if mode == "started" else zygote and zygote.pid)
        finally:
            _zygote.stop()
    assert pages["forked"] == pages["started"]
    assert b"True" in pages["forked"] and b"image/png" in pages["forked"]
    assert b"[2 rows x 30 columns]" in pages["forked"]


@pytest.mark.notebooks
@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX only")
def test_a_terminated_build_leaves_no_kernel_and_no_zygote(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "notebooks").mkdir(parents=True)
    for name in ("a", "b"):
        (root / "notebooks" / f"{name}.py").write_text(
            f"# # {name}\n\n# %%\nimport os\nimport time\n\n"
            f"with open({str(tmp_path / name)!r}, 'w') as f:\n"
            "    f.write(f'{os.getpid()} {os.getppid()}')\n"
            "time.sleep(120)\n")
    (root / "notebooks" / "runs.yml").write_text(
        "notebooks:\n  - notebook: a\n  - notebook: b\n")
    env = {**os.environ, "ENSEL_REPO_ROOT": str(root)}
    log = (tmp_path / "run.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "ensel.book.runner", "all", "--jobs", "2",
                             "--out-dir", str(tmp_path / "out")], env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and not all(
                (tmp_path / n).is_file() and (tmp_path / n).read_text() for n in "ab"):
            time.sleep(0.2)
        pids = [int(p) for n in "ab" for p in (tmp_path / n).read_text().split()]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 143
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
    text = (tmp_path / "run.log").read_text(errors="replace")
    assert [ln for ln in text.splitlines() if ln.strip()] == [
        "ensel notebooks: terminated; temporary and partial files removed"], text
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.1)
    assert not [p for p in pids if _alive(p)]  # the kernels and their zygotes
