"""Executing one run: the one papermill path (:func:`execute_run`, and
:func:`execute_notebook`, which ``ensel evaluate`` uses), and the post-processing that makes an
executed notebook reproducible byte for byte (volatile metadata stripped, run labels and title
filled in, the "Reproduce this" box and the plotted data of every figure)."""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ensel._errors import DataError
from ensel._io import NotebookRunError, SignalGuard, signal_guard
from ensel.book.runner._config import (
    NotebookRun,
    adhoc_run,
    check_parameter_names,
    find_runs,
    load_runs,
    repo_root,
    source_root,
    unavailable_data,
)
from ensel.book.runner._keys import _environment_digest


def _missing_data_note(names: Sequence[str]) -> str:
    """One Markdown note: which data is missing and how to get it."""
    which = ", ".join(f"`{n}`" for n in names)
    fetch = " and ".join(f"`python -m ensel.datasets fetch {n}`" for n in names)
    from ensel.book.profiles import label as profile_label

    label = profile_label(names[0]) if len(names) == 1 else which
    return (
        f"```{{note}}\n**{label} data not available on this machine**, so this page was not "
        f"computed (dataset {which}). To get the published files (pinned by commit and checked "
        f"by SHA-256), run {fetch} once (it downloads into the cache, `ENSEL_DATA_DIR`), or "
        "point `ENSEL_DATA_MIRROR` at a folder laid out as "
        "`<owner>/<repo>/<commit>/<upstream path>` that holds them; then rebuild the book "
        "(`make book`).\n```"
    )


def _unavailable_page(nb: Any, names: Sequence[str]) -> Any:
    """The page shown instead of a run whose data is missing: its title and one note."""
    import nbformat

    title = next((line for cell in nb.cells if cell.cell_type == "markdown"
                  for line in cell.source.split("\n") if line.startswith("# ")), "# Page")
    page = nbformat.v4.new_notebook(metadata=copy.deepcopy(nb.metadata))
    page.cells = [nbformat.v4.new_markdown_cell(title),
                  nbformat.v4.new_markdown_cell(_missing_data_note(names))]
    return page


def _set_title(nb: Any, title: str) -> None:
    """Replace the page title (the first H1 of the first markdown cell) for one run."""
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.split("\n")
        for i, line in enumerate(lines):
            if line.startswith("# "):
                lines[i] = f"# {title}"
                cell.source = "\n".join(lines)
                return
        break
    raise DataError("the notebook has no '# title' line in its first markdown cell")


def _fill_run_labels(nb: Any, output: str) -> None:
    """Give each run its own labels: ``{output}`` in a cell's ``mystnb.figure.name`` and in a
    markdown ``(label)=`` target becomes the run's output name (a notebook run several
    times, e.g. ``correlation_sweep``, would otherwise define the same label on every page
    it produces)."""
    for cell in nb.cells:
        if cell.cell_type == "markdown" and "{output}" in cell.source:
            # ``(tab-{output}-pool)=`` targets of tables and sections
            cell.source = re.sub(r"(?m)^\((\S*)\)=$",
                                 lambda m: m.group(0).replace("{output}", output),
                                 cell.source)
        figure = cell.metadata.get("mystnb", {}).get("figure")
        if figure and "{output}" in figure.get("name", ""):
            figure["name"] = figure["name"].replace("{output}", output)


def _figure_alt_texts(nb: Any) -> None:
    """Each captioned figure's image gets its caption, in plain text, as ``alt`` text
    (MyST-NB's ``mystnb.image.alt``; without it Sphinx writes the image's file name)."""
    from ensel._html import caption_text

    for cell in nb.cells:
        mystnb = cell.metadata.get("mystnb", {})
        caption = mystnb.get("figure", {}).get("caption")
        if caption and "alt" not in mystnb.get("image", {}):
            mystnb.setdefault("image", {})["alt"] = caption_text(caption)


def _strip_volatile(nb: Any) -> None:
    """Remove timestamps and durations so identical runs give identical files."""
    pm = nb.metadata.get("papermill")
    if pm is not None:
        for key in ("start_time", "end_time", "duration", "input_path", "output_path",
                    "environment_variables", "version"):
            pm.pop(key, None)
    for index, cell in enumerate(nb.cells):
        if "id" in cell:  # jupytext and papermill draw random cell ids
            cell["id"] = f"cell-{index:03d}"
        cpm = cell.metadata.get("papermill")
        if cpm is not None:
            for key in ("start_time", "end_time", "duration"):
                cpm.pop(key, None)
        cell.metadata.pop("execution", None)


def _warnings_in(nb: Any) -> list[str]:
    found = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                text = out.get("text", "")
                if "Warning" in text:
                    found.append(f"cell {cell.get('execution_count')}: {text.strip()[:500]}")
    return found


def execute_run(run: NotebookRun, *, out_dir: Path, test: bool = False,
                extra_parameters: dict[str, Any] | None = None,
                allow_warnings: bool = False, root: Path | None = None,
                key: str | None = None, cwd: Path | None = None,
                progress: bool = False, share_picks: bool = False) -> Path:
    """Execute one run with papermill and write ``<out_dir>/<output>.ipynb``.

    ``root`` is the folder whose ``notebooks/`` holds the source (default: the repository,
    :func:`repo_root`); ``cwd`` the kernel's working folder (default ``root``); with
    ``progress``, papermill's per-cell progress bar is drawn on stderr; with ``share_picks``
    (the book's builds) the kernel shares its selectors' pick paths with the other runs of
    the build through ``<out_dir>/.cache/picks`` (``ensel._picks``).

    The kernel runs with the repository root as working directory and with
    ``ENSEL_RESULTS_DIR=<out_dir>/results`` so notebooks that save results for later pages
    (the experiments notebook) share one folder.

    The notebook executes into ``<out_dir>/.staging/`` and replaces ``<output>.ipynb`` only
    when it succeeded; ``key`` (see :func:`run_key`) is stored in its metadata.

    Raises
    ------
    NotebookRunError
        Naming the notebook, the run, the failing cell and the error; the partially executed
        notebook is kept under ``<out_dir>/_failed/`` for inspection, and the last good page
        is left as it was.
    """
    import jupytext
    import nbformat
    import papermill as pm

    root = root or repo_root()
    out_dir = Path(out_dir).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    source = root / "notebooks" / f"{run.notebook}.py"
    nb = jupytext.read(source)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python",
                                 "name": "python3"}
    if run.title:
        _set_title(nb, run.title)
    _fill_run_labels(nb, run.output)
    _figure_alt_texts(nb)
    params = run.effective_parameters(test=test)
    params.update(extra_parameters or {})
    check_parameter_names(run, params, root)
    target = out_dir / f"{run.output}.ipynb"
    staging = out_dir / ".staging" / f"{run.output}.ipynb"
    failed = out_dir / "_failed" / f"{run.output}.ipynb"
    staging.parent.mkdir(parents=True, exist_ok=True)
    missing = unavailable_data(run, params)
    if missing:  # one clear note instead of a page that cannot compute (never cached)
        page = _unavailable_page(nb, missing)
        _strip_volatile(page)
        nbformat.write(page, staging)
        os.replace(staging, target)
        return target
    label = f"notebook {run.notebook!r} (run {run.output!r}, parameters {params})"
    try:
        # Ctrl-C or SIGTERM ends the run, wherever it lands: the kernel client can take it
        # for a kernel that failed to start (which would be retried), or swallow it and go
        # on, so the guard remembers it and the run never continues or retries after one.
        with signal_guard() as guard:
            for attempt in (1, 2):
                try:
                    with _kernel_environment(out_dir, root, share_picks):
                        executed = pm.execute_notebook(
                            copy.deepcopy(nb), str(staging), parameters=params,
                            kernel_name="python3", cwd=str(cwd or root),
                            progress_bar=_progress_bar(run) if progress else False,
                            log_output=False, extra_arguments=_KERNEL_ARGUMENTS,
                            kernel_manager_class=_kernel_manager_class(guard),
                        )
                    break
                except pm.PapermillExecutionError:
                    guard.check()
                    raise
                except Exception as exc:
                    guard.check()
                    # two kernels starting at once can pick the same free port (jupyter_client
                    # chooses ports before binding them): the kernel dies before its first
                    # cell. That is the one failure worth a second try.
                    if attempt == 2 or not any(m in str(exc) for m in _KERNEL_START_FAILURES):
                        raise
            guard.check()
    except pm.PapermillExecutionError as exc:
        kept = _keep_failed(staging, failed)
        raise NotebookRunError(
            f"{label} failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue}{kept}"
        ) from None
    except BaseException as exc:  # kernel death, bad parameters, Ctrl-C, ...
        kept = _keep_failed(staging, failed)
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):  # Ctrl-C, or SIGTERM's exit
            raise
        raise NotebookRunError(f"{label} could not be executed: {exc}{kept}") from exc
    _strip_volatile(executed)
    _finish_page(executed, run, root=root, out_dir=out_dir, test=test,
                 extra_parameters=extra_parameters or {}, key=key)
    executed.metadata["ensel"] = {"key": key, **_provenance(root), "parameters": params,
                                  "command": reproduce_command(run, test=test,
                                                               extra=extra_parameters)}
    warnings = _warnings_in(executed)
    if warnings and not allow_warnings:
        nbformat.write(executed, staging)
        kept = _keep_failed(staging, failed)
        raise NotebookRunError(
            f"{label} printed warnings (fix them, or pass --allow-warnings):\n  "
            + "\n  ".join(warnings) + kept
        )
    nbformat.write(executed, staging)
    os.replace(staging, target)  # atomic: the page is replaced only by a complete run
    failed.unlink(missing_ok=True)
    return target


def execute_notebook(notebook: str, parameters: dict[str, Any], *, out_dir: Path,
                     keep_failed: Path | None = None, allow_warnings: bool = True,
                     progress: bool = False) -> Any:
    """Execute a notebook of the book on ad-hoc parameters through :func:`execute_run` (the
    one papermill path) into ``out_dir`` and return the executed notebook (``ensel
    evaluate`` uses it on the user's data).

    The source and ``runs.yml`` come from the repository when one is found, else from the
    installed package (:func:`source_root`); outside a checkout the kernel runs in
    ``out_dir``. ``progress``: papermill's per-cell progress bar on stderr.

    Raises
    ------
    NotebookRunError
        As :func:`execute_run`; with ``keep_failed`` the partly executed notebook is copied
        there and the message names it.
    """
    import nbformat

    from ensel._io import repository_root

    root = source_root()
    runs = load_runs(root / "notebooks" / "runs.yml")
    base = find_runs(runs, notebook)[0]
    run, _ = adhoc_run(base, dict(parameters), runs)
    cwd = None if repository_root() is not None else Path(out_dir).resolve()
    if cwd is not None:
        cwd.mkdir(parents=True, exist_ok=True)
    try:
        path = execute_run(run, out_dir=Path(out_dir), extra_parameters=dict(parameters),
                           allow_warnings=allow_warnings, root=root, cwd=cwd,
                           progress=progress)
    except NotebookRunError as exc:
        failed = Path(out_dir) / "_failed" / f"{run.output}.ipynb"
        if keep_failed is not None and failed.is_file():
            Path(keep_failed).write_bytes(failed.read_bytes())
            raise NotebookRunError(f"{str(exc).split(' (the failed notebook')[0]} (the partly "
                                   f"executed notebook is {keep_failed})") from None
        raise
    return nbformat.read(path, as_version=4)


def _progress_bar(run: NotebookRun) -> dict[str, Any]:
    """papermill's progress bar (tqdm keywords): one line on stderr, named after the run."""
    return {"file": sys.stderr, "desc": f"{run.notebook}", "unit": "cell", "leave": False,
            "dynamic_ncols": True}


def _kernel_manager_class(guard: SignalGuard) -> type:
    """The kernel manager of a run: after a signal the kernel is stopped at once.

    The graceful shutdown (a shutdown request while the interrupted cell still runs) races
    that cell's reply: the kernel closes its sockets first and logs the failed reply, a
    20-line ``ZMQError: Socket operation on non-socket`` traceback on the terminal it shares
    with the command, above the command's one line. Stopped at once, it writes nothing; a run
    that ends without a signal keeps the graceful shutdown (and the kernel's own errors stay
    on stderr)."""
    from jupyter_client import AsyncKernelManager

    class _KernelManager(AsyncKernelManager):
        async def shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:
            await super().shutdown_kernel(now=now or guard.received is not None,
                                          restart=restart)

        async def _async_interrupt_kernel(self) -> None:
            # jupyter_client interrupts (SIGINT) every kernel it shuts down; a kernel still
            # finishing its last reply then logs "KeyboardInterrupt caught in kernel" on the
            # build's terminal. The runs shut a kernel down only between cells (or kill it
            # after a signal), so a shutdown skips the interrupt; nbclient's interrupt of a
            # cell that timed out goes through ``interrupt_kernel`` and is kept.
            if not self.shutting_down:
                await super()._async_interrupt_kernel()

        async def start_kernel(self, **kw: Any) -> None:  # type: ignore[override]
            # jupyter_client picks a kernel's five ports by binding port 0 and letting go, so
            # two kernels starting at once (two workers of a build, two test processes) can
            # be given the same port, and the loser dies with a traceback on the terminal
            # before its first cell. Starts take turns on this machine, each until its
            # kernel listens on its ports, so a port handed out is already held.
            with _kernel_start_turn():
                await super().start_kernel(**kw)
                await _until_listening(self)

        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
            # a worker of a book build forks the kernel from its warm zygote (_zygote)
            from ensel.book.runner import _zygote

            forked = None
            if all(kw.get(k) is None for k in ("stdin", "stdout", "stderr")):
                forked = _zygote.spawn(kernel_cmd, kw.get("env"), kw.get("cwd"))
            if forked is None:
                await super()._async_launch_kernel(kernel_cmd, **kw)
                return
            provisioner: Any = self.provisioner
            provisioner.process, provisioner.pid = forked, forked.pid
            # no pgid: the provisioner signals through the forked kernel's own send_signal
            provisioner.pgid, provisioner.cwd = None, kw.get("cwd") or os.getcwd()
            self._reconcile_connection_info(provisioner.connection_info)

    return _KernelManager


@contextlib.contextmanager
def _kernel_start_turn() -> Iterator[None]:
    """Hold this machine's kernel-start lock (a ``flock`` on a file of the temporary folder,
    per user); without one (no such folder, no ``fcntl``) starts do not take turns."""
    try:
        import fcntl

        lock = open(Path(tempfile.gettempdir()) / f"ensel-kernel-start-{os.getuid()}.lock", "a")
    except (ImportError, OSError, AttributeError):
        yield
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


async def _until_listening(km: Any, timeout: float = 30.0) -> None:
    """Wait until the kernel of ``km`` listens on all its TCP ports (Linux's
    ``/proc/net/tcp``), it died, or ``timeout`` seconds passed; elsewhere return at once."""
    import asyncio

    table = Path("/proc/net/tcp")
    if km.transport != "tcp" or not table.is_file():
        return
    wanted = {km.shell_port, km.iopub_port, km.stdin_port, km.hb_port, km.control_port}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        listening = {int(f[1].rsplit(":", 1)[1], 16)
                     for f in (line.split() for line in table.read_text().splitlines()[1:])
                     if len(f) > 3 and f[3] == "0A"}
        if wanted <= listening or not await km.is_alive():
            return
        await asyncio.sleep(0.02)


#: Arguments of every page's kernel: quiet logs, and every displayed figure carries the
#: data it plots (:func:`ensel.book.figures.install_figure_data`).
_KERNEL_ARGUMENTS = ["--IPKernelApp.log_level=ERROR",
                     "--IPKernelApp.exec_lines=from ensel.book.figures import "
                     "install_figure_data as _ensel_fd; _ensel_fd(); del _ensel_fd"]

_KERNEL_START_FAILURES = ("Kernel died before replying", "Kernel didn't respond",
                          "Address already in use")

#: Environment of every kernel: one thread for BLAS/OpenMP (no printed value may depend on
#: thread scheduling or summation order, and parallel runs do not oversubscribe the cores).
KERNEL_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "NUMEXPR_NUM_THREADS": "1", "VECLIB_MAXIMUM_THREADS": "1"}


def picks_dir(out_dir: Path, root: Path | None = None) -> Path:
    """Where the runs of a build share their selectors' pick paths (``ensel._picks``): one
    folder per version of the code (the first 16 hex digits of :func:`_environment_digest`
    of ``root``), under ``<out_dir>/.cache/picks`` (that folder when ``root`` is ``None``)."""
    base = Path(out_dir) / ".cache" / "picks"
    return base if root is None else base / _environment_digest(root)[:16]


@contextlib.contextmanager
def _kernel_environment(out_dir: Path, root: Path, share_picks: bool) -> Iterator[None]:
    """Set the variables the kernel inherits (results folder, thread pins and, with
    ``share_picks``, the pick cache shared by the runs of a build, ``ensel._picks``, keyed by
    the code's digest); restore after."""
    from ensel import _picks

    values = {**KERNEL_ENV, "ENSEL_RESULTS_DIR": str(out_dir / "results"),
              _picks.DIR_VARIABLE: str(picks_dir(out_dir, root)) if share_picks else "",
              _picks.KEY_VARIABLE: _environment_digest(root) if share_picks else ""}
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _keep_failed(staging: Path, failed: Path) -> str:
    if not staging.is_file():
        return ""
    failed.parent.mkdir(parents=True, exist_ok=True)
    os.replace(staging, failed)
    return f" (the failed notebook is kept at {failed}; the last good page is unchanged)"


def _finish_page(nb: Any, run: NotebookRun, *, root: Path, out_dir: Path, test: bool = False,
                 extra_parameters: dict[str, Any] | None = None, key: str | None = None
                 ) -> None:
    """Show the parameters the page ran with, put a "Reproduce this" box under every figure
    (:func:`_figure_provenance`) and add the page's download links (the executed notebook
    and its jupytext source, copied to ``<out_dir>/_sources/``).

    When papermill injected parameters, the notebook's defaults cell is folded (a reader
    would otherwise see ``rho = 0.3`` on the page that ran with ``rho = 0.6``) and the
    injected cell, which follows it, is shown."""
    import nbformat

    injected = any("injected-parameters" in c.metadata.get("tags", []) for c in nb.cells)
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if injected and "parameters" in tags and "hide-cell" not in tags:
            cell.metadata["tags"] = [*tags, "hide-cell"]
        if "injected-parameters" in tags:
            cell.metadata["tags"] = [t for t in tags if t != "hide-cell"]
    _figure_provenance(nb, run, root=root, out_dir=out_dir, test=test,
                       extra_parameters=extra_parameters or {}, key=key)
    sources = out_dir / "_sources"
    sources.mkdir(parents=True, exist_ok=True)
    src = root / "notebooks" / f"{run.notebook}.py"
    dst = sources / src.name
    if not dst.is_file() or dst.read_bytes() != src.read_bytes():
        tmp = dst.with_suffix(".py.tmp")
        shutil.copyfile(src, tmp)
        os.replace(tmp, dst)
    nb.cells.append(nbformat.v4.new_markdown_cell(
        f"---\n\nDownload this page: {{download}}`executed notebook <{run.output}.ipynb>` · "
        f"{{download}}`jupytext source <_sources/{src.name}>` "
        f"(`notebooks/{src.name}` in the repository)",
        id="cell-downloads"))


#: Tag of the "Reproduce this figure" cells (MyST; ``ensel evaluate``'s HTML report, made by
#: nbconvert, leaves them out).
PROVENANCE_TAG = "ensel-provenance"

#: Folder (under the output folder) of the figures' data, one sub-folder per run.
FIGURE_DATA_DIR = "_figdata"


def reproduce_command(run: NotebookRun, *, test: bool = False,
                      extra: dict[str, Any] | None = None) -> str:
    """The command that re-executes ``run`` (listed runs by output name; ad-hoc runs with
    their ``-p`` parameters)."""
    if extra:
        params = " ".join(f"-p {k}={json.dumps(v) if not isinstance(v, str) else v}"
                          for k, v in sorted(extra.items()))
        cmd = f"ensel notebooks run {run.notebook} {params}"
    else:
        cmd = f"ensel notebooks run {run.notebook} --output {run.output}"
    return cmd + (" --test" if test else "")


@functools.lru_cache(maxsize=8)
def _provenance(root: Path) -> dict[str, str]:
    """The ensel version, the commit of the checkout (``+`` when it has uncommitted
    changes; empty outside git) and the environment digest (:func:`_environment_digest`)."""
    import subprocess

    import ensel

    commit = ""
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True, timeout=10, check=True)
        commit = head.stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True, text=True,
                               timeout=10, check=True)
        if dirty.stdout.strip():
            commit += "+"
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return {"version": ensel.__version__, "commit": commit,
            "environment": _environment_digest(root)}


def _figure_provenance(nb: Any, run: NotebookRun, *, root: Path, out_dir: Path, test: bool,
                       extra_parameters: dict[str, Any], key: str | None) -> None:
    """Under every figure the page shows: write the data it plots (the CSV its kernel
    attached, :data:`ensel.book.figures.FIGURE_DATA_MIME`) to
    ``<out_dir>/_figdata/<output>/<figure>.csv`` and add a folded "Reproduce this" box with
    the command, the ensel version and commit, the environment digest, the run key and the
    SHA-256 and download of the data. The box's cell metadata (``ensel.figures``) lists the
    figures for the list of figures."""
    import nbformat

    from ensel.book.figures import FIGURE_DATA_MIME

    folder = out_dir / FIGURE_DATA_DIR / run.output
    if folder.is_dir():
        shutil.rmtree(folder)
    info = _provenance(root)
    command = reproduce_command(run, test=test, extra=extra_parameters)
    cells = []
    count = 0
    for cell in nb.cells:
        cells.append(cell)
        if cell.cell_type != "code":
            continue
        tags = cell.metadata.get("tags", [])
        blobs = []
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if FIGURE_DATA_MIME in data:
                blobs.append(data.pop(FIGURE_DATA_MIME))
        if not blobs or "remove-cell" in tags or "remove-output" in tags:
            continue
        figure = cell.metadata.get("mystnb", {}).get("figure", {})
        base = figure.get("name") or f"{run.output}-figure-{count + 1}"
        entries = []
        for i, csv in enumerate(blobs):
            count += 1
            name = base if i == 0 else f"{base}-{i + 1}"
            folder.mkdir(parents=True, exist_ok=True)
            raw = (csv if isinstance(csv, str) else "".join(csv)).encode()
            tmp = folder / f".{name}.csv.tmp"
            tmp.write_bytes(raw)
            os.replace(tmp, folder / f"{name}.csv")
            entries.append({"name": name, "label": figure.get("name", ""),
                            "caption": figure.get("caption", ""),
                            "csv": f"{FIGURE_DATA_DIR}/{run.output}/{name}.csv",
                            "sha256": hashlib.sha256(raw).hexdigest()})
        rows = [f"| command | `{command}` |",
                f"| ensel | {info['version']}"
                + (f", commit `{info['commit']}`" if info["commit"] else "") + " |",
                f"| environment digest | `{info['environment'][:16]}` |"]
        if key:
            rows.append(f"| run key | `{key[:16]}` |")
        for e in entries:
            rows.append(f"| data of `{e['name']}` | {{download}}`CSV <{e['csv']}>` · SHA-256 "
                        f"`{e['sha256'][:16]}` |")
        box = nbformat.v4.new_markdown_cell(
            ":::{admonition} Reproduce this figure\n:class: dropdown ensel-provenance\n\n"
            "| | |\n|---|---|\n" + "\n".join(rows) + "\n:::",
            id=f"cell-provenance-{count:03d}")
        box.metadata["ensel"] = {"figures": entries}
        box.metadata["tags"] = [PROVENANCE_TAG]  # standalone reports drop the boxes
        cells.append(box)
    nb.cells = cells
