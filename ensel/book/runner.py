"""Execute the book's notebooks with papermill, one run per entry of ``notebooks/runs.yml``.

Pipeline for one run: jupytext source ``notebooks/<name>.py`` -> notebook -> papermill
(parameters injected after the cell tagged ``parameters``) -> executed notebook
``book/_generated/<output>.ipynb``. The book is then built from the executed notebooks with
execution switched off, so what the reader sees is exactly what ran here.

Executed notebooks are made reproducible byte for byte: papermill's timestamps and durations are
removed, and the kernel runs with one BLAS/OpenMP thread, so no printed value depends on thread
scheduling; rebuilding with the same seeds gives identical files.

Builds are incremental and parallel: each run has a key (:func:`run_key`: the hash of its
notebook source, parameters, the ``ensel`` sources, the shipped data files, the pinned
environment, the availability of the real data, and the keys of the runs it ``needs``). A run
whose executed notebook already carries its key is not executed again (``--force`` re-executes
everything); independent runs execute in parallel worker processes (``--jobs``), and a run
waits for the runs it needs; the longest chains of runs start first (by the durations of
earlier builds, ``<out_dir>/durations.json``). A run is written in place only when it
succeeded: a failed or interrupted run never replaces the last good page (the failed notebook
is kept under ``<out_dir>/_failed/``, which the book never includes).

Command line (also ``ensel notebooks ...``)::

    python -m ensel.book.runner list
    python -m ensel.book.runner run system_model                  # every run of one notebook
    python -m ensel.book.runner run experiments --output experiments-mmlu
    python -m ensel.book.runner run experiments -p dataset=mmlu -p n_splits=3
    python -m ensel.book.runner all [--test]                      # every run, in order
    python -m ensel.book.runner list --json

``list`` works anywhere: outside a checkout it reads the ``runs.yml`` and page sources shipped
with the package; ``run`` and ``all`` write the book's pages and need the repository.

``list --json`` prints one object, schema ``ensel.notebooks.list/1``::

    {"schema": "ensel.notebooks.list/1",
     "config": "<path of the runs.yml read>",
     "checkout": true,                  # false: the copy shipped with the package
     "runs": [{"notebook": "experiments", "output": "experiments-medmcqa",
               "title": "..." | null, "parameters": {...}, "test_parameters": {...},
               "needs": [...], "produces": [...], "requires_data": [...]}, ...]}
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import copy
import functools
import hashlib
import json
import multiprocessing
import os
import re
import shutil
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ensel._errors import ConfigError, DataError, UsageError
from ensel._io import NotebookRunError

__all__ = [
    "NotebookRun",
    "NotebookRunError",
    "execute_run",
    "execute_notebook",
    "add_arguments",
    "run_command",
    "find_runs",
    "adhoc_run",
    "check_parameter_names",
    "load_runs",
    "notebook_parameters",
    "run_key",
    "reproduce_command",
    "FIGURE_DATA_DIR",
    "PROVENANCE_TAG",
    "missing_inputs",
    "unavailable_data",
    "main",
    "repo_root",
    "source_root",
    "require_page_packages",
    "PAGE_MODULES",
    "list_document",
    "SCHEMA_LIST",
]



@dataclass(frozen=True)
class NotebookRun:
    """One execution of one notebook source with one parameter set."""

    notebook: str
    output: str
    parameters: dict[str, Any] = field(default_factory=dict)
    test_parameters: dict[str, Any] = field(default_factory=dict)
    title: str | None = None
    needs: tuple[str, ...] = ()
    produces: tuple[str, ...] = ()
    requires_data: tuple[str, ...] = ()

    def products(self, *, test: bool = False) -> list[str]:
        """Files this run writes, relative to the output folder (``produces`` templates
        filled in with the run's parameters, e.g. ``results/{dataset}.parquet``)."""
        params = self.effective_parameters(test=test)
        try:
            return [p.format(**params) for p in self.produces]
        except KeyError as exc:
            raise ConfigError(f"run {self.output!r}: 'produces' names parameter {exc} that the "
                             "run does not set") from None

    def effective_parameters(self, *, test: bool) -> dict[str, Any]:
        """Parameters injected by papermill (test parameters override under ``test``)."""
        params = dict(self.parameters)
        if test:
            params.update(self.test_parameters)
        return params


def repo_root() -> Path:
    """The repository root: ``$ENSEL_REPO_ROOT``, else the folder holding ``notebooks/runs.yml``.

    Raises
    ------
    NotebookRunError
        Outside a checkout (an installed wheel used elsewhere): executing the book's runs
        writes the book's pages, which live in the repository.
    """
    from ensel._io import repository_root

    root = repository_root()
    if root is not None:
        return root
    raise NotebookRunError(
        "the book's runs are executed in the ensel repository (its pages go to "
        "book/_generated): run this from a checkout or set ENSEL_REPO_ROOT; outside one, "
        "`ensel notebooks list` lists the runs and `ensel evaluate DATA -o report.html` "
        "runs the experiments page on your data"
    )


#: What executing a page needs beyond the core install: the ``notebooks`` extra
#: (``pip install "ensel[notebooks]"``; the ``book`` extra includes it).
PAGE_MODULES = ("papermill", "jupytext", "nbformat", "nbconvert", "ipykernel", "matplotlib",
                "seaborn", "myst_nb")


def require_page_packages(what: str = "executing a page") -> None:
    """Raise :class:`NotebookRunError` (one line naming the extra to install) when a package
    of :data:`PAGE_MODULES` is not installed, before any work starts.

    Examples
    --------
    >>> require_page_packages()  # the repository's environment has the book extra
    """
    import importlib.util

    missing = [m for m in PAGE_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        raise NotebookRunError(
            f"{what} needs the notebooks extra ({', '.join(missing)} not installed); install "
            'it with: pip install "ensel[notebooks]" (or "ensel[book]" to build the book)')


def source_root() -> Path:
    """The folder whose ``notebooks/`` holds the pages' jupytext sources and ``runs.yml``:
    the repository when one is found (:func:`repo_root`), else the copy shipped in the
    installed package (``ensel.datasets._paths.package_data("notebooks")``).

    Examples
    --------
    >>> (source_root() / "notebooks" / "runs.yml").is_file()
    True
    """
    from ensel._io import repository_root
    from ensel.datasets._paths import package_data

    root = repository_root()
    return root if root is not None else package_data("notebooks").parent


def load_runs(config: Path | None = None) -> list[NotebookRun]:
    """Read the runs config (``notebooks/runs.yml``) and return the runs in order.

    Raises
    ------
    ValueError
        On a malformed entry, a missing notebook source, or a duplicated output name.
    """
    config = (Path(config) if config is not None
              else source_root() / "notebooks" / "runs.yml")
    with open(config, encoding="utf-8") as fh:
        doc = yaml.safe_load(fh) or {}
    entries = doc.get("notebooks")
    if not isinstance(entries, list):
        raise ConfigError(f"{config}: expected a top-level 'notebooks:' list")
    runs: list[NotebookRun] = []
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or "notebook" not in entry:
            raise ConfigError(f"{config}: entry {i} must be a mapping with a 'notebook' key")
        name = str(entry["notebook"])
        unknown = set(entry) - {"notebook", "runs", "test_parameters", "needs", "produces",
                                "requires_data", "per_dataset"}
        if unknown:
            raise ConfigError(f"{config}: notebook {name!r} has unknown keys {sorted(unknown)}")
        source = config.parent / f"{name}.py"
        if not source.is_file():
            raise ConfigError(f"{config}: notebook {name!r} has no source file {source}")
        test_params = dict(entry.get("test_parameters") or {})
        needs = tuple(str(n) for n in entry.get("needs") or ())
        produces = tuple(str(p) for p in entry.get("produces") or ())
        requires = _as_tuple(entry.get("requires_data"))
        run_specs = entry.get("runs") or [{"output": name}]
        if "per_dataset" in entry:
            run_specs = [*(entry.get("runs") or []),
                         *_declared_runs(name, entry["per_dataset"], entry.get("runs") or [],
                                         config)]
        for spec in run_specs:
            bad = set(spec) - {"output", "parameters", "title", "requires_data"}
            if bad:
                raise ConfigError(f"{config}: a run of {name!r} has unknown keys {sorted(bad)}")
            output = str(spec.get("output", name))
            if output in seen:
                raise ConfigError(f"{config}: output name {output!r} is used twice")
            seen.add(output)
            title = spec.get("title")
            runs.append(NotebookRun(name, output, dict(spec.get("parameters") or {}),
                                    test_params, None if title is None else str(title),
                                    needs, produces,
                                    requires + _as_tuple(spec.get("requires_data"))))
    return _order(runs, config)


def _declared_runs(notebook: str, template: Any, listed: Sequence[dict], config: Path
                   ) -> list[dict[str, Any]]:
    """The runs of ``notebook`` for the datasets declared to run on it
    (:attr:`ensel.datasets.DatasetSpec.pages`) that ``runs.yml`` does not list itself, from the
    entry's ``per_dataset: {output: ..., title: ...}`` template (``{dataset}`` and ``{label}``
    are filled in): a new dataset needs no edit of ``runs.yml``."""
    from ensel.book.profiles import label
    from ensel.datasets import DATASETS

    if not isinstance(template, dict) or set(template) - {"output", "title"} \
            or "{dataset}" not in str(template.get("output", "")):
        raise ValueError(f"{config}: notebook {notebook!r}: per_dataset must be a mapping "
                         "{output: '<name with {dataset}>', title: '...'}")
    done = {str((run.get("parameters") or {}).get("dataset")) for run in listed}
    out = []
    for name, spec in DATASETS.items():
        if notebook in spec.pages and name not in done:
            fill = {"dataset": name, "label": label(name)}
            run: dict[str, Any] = {"output": str(template["output"]).format(**fill),
                                   "parameters": {"dataset": name}}
            if "title" in template:
                run["title"] = str(template["title"]).format(**fill)
            out.append(run)
    return out


def _as_tuple(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    return (str(value),) if isinstance(value, str) else tuple(str(v) for v in value)


def _order(runs: list[NotebookRun], config: Path) -> list[NotebookRun]:
    """Runs in file order, except that a run comes after every run of the notebooks it
    ``needs`` (a stable topological order); unknown names and cycles are errors."""
    names = {r.notebook for r in runs}
    for r in runs:
        missing = [n for n in r.needs if n not in names]
        if missing:
            raise ConfigError(f"{config}: notebook {r.notebook!r} needs {missing}, which "
                             "runs.yml does not list")
    ordered: list[NotebookRun] = []
    done: set[str] = set()
    pending = list(runs)
    while pending:
        ready = [r for r in pending
                 if all(n in done or n == r.notebook for n in r.needs)]
        if not ready:
            raise ConfigError(f"{config}: the 'needs' of {sorted({r.notebook for r in pending})} "
                             "form a cycle")
        first = ready[0].notebook
        batch = [r for r in pending if r.notebook == first]
        ordered += batch
        pending = [r for r in pending if r.notebook != first]
        done.add(first)
    return ordered


def missing_inputs(run: NotebookRun, runs: Sequence[NotebookRun], out_dir: Path, *,
                   test: bool = False) -> list[str]:
    """The runs that ``run`` needs and that have not run into ``out_dir`` (no executed
    notebook there yet): ``"<output> (<output>.ipynb)"`` entries. A needed run may have
    written no product (e.g. a dataset that is not available); the page that reads the
    products says so itself."""
    out = []
    for other in runs:
        if other.notebook in run.needs and not (out_dir / f"{other.output}.ipynb").is_file():
            out.append(f"{other.output} ({other.output}.ipynb)")
    return out


def find_runs(runs: Sequence[NotebookRun], notebook: str, output: str | None = None
              ) -> list[NotebookRun]:
    """Select the runs of one notebook (optionally one output)."""
    chosen = [r for r in runs if r.notebook == notebook and (output is None or r.output == output)]
    if not chosen:
        names = sorted({r.notebook for r in runs})
        what = f"notebook {notebook!r}" + (f" with output {output!r}" if output else "")
        raise UsageError(f"no run of {what} in runs.yml; notebooks: {', '.join(names)}")
    return chosen


def _dataset_available(name: str) -> bool:
    """Whether dataset ``name`` can be loaded here, by its declared availability function
    (:meth:`ensel.datasets.DatasetSpec.is_available`, which never probes the network). Names
    without one (the stand-ins, which are generated, and paths to a user's table) count as
    available: loading them reports its own errors."""
    from ensel.datasets import DATASETS

    spec = DATASETS.get(name)
    return True if spec is None else spec.is_available()


def unavailable_data(run: NotebookRun, parameters: dict[str, Any]) -> list[str]:
    """The datasets of ``run.requires_data`` (templates such as ``"{dataset}"`` filled in
    with ``parameters``) that are not available on this machine."""
    names = []
    for template in run.requires_data:
        try:
            name = template.format(**parameters)
        except KeyError:
            continue  # the run does not set that parameter: nothing to require
        if name not in names and not _dataset_available(name):
            names.append(name)
    return names


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
                progress: bool = False) -> Path:
    """Execute one run with papermill and write ``<out_dir>/<output>.ipynb``.

    ``root`` is the folder whose ``notebooks/`` holds the source (default: the repository,
    :func:`repo_root`); ``cwd`` the kernel's working folder (default ``root``); with
    ``progress``, papermill's per-cell progress bar is drawn on stderr.

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
        for attempt in (1, 2):
            try:
                with _kernel_environment(out_dir):
                    executed = pm.execute_notebook(
                        copy.deepcopy(nb), str(staging), parameters=params,
                        kernel_name="python3", cwd=str(cwd or root),
                        progress_bar=_progress_bar(run) if progress else False,
                        log_output=False, extra_arguments=_KERNEL_ARGUMENTS,
                    )
                break
            except pm.PapermillExecutionError:
                raise
            except Exception as exc:
                # two kernels starting at once can pick the same free port (jupyter_client
                # chooses ports before binding them): the kernel dies before its first
                # cell. That is the one failure worth a second try.
                if attempt == 2 or not any(m in str(exc) for m in _KERNEL_START_FAILURES):
                    raise
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


@contextlib.contextmanager
def _kernel_environment(out_dir: Path) -> Iterator[None]:
    """Set the variables the kernel inherits (results folder, thread pins); restore after."""
    values = {**KERNEL_ENV, "ENSEL_RESULTS_DIR": str(out_dir / "results")}
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


# --------------------------------------------------------------------------- keys and cache
def _hash_files(paths: Iterable[Path], root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(str(p.relative_to(root)).encode())
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


@functools.lru_cache(maxsize=8)
def _environment_digest(root: Path) -> str:
    """The inputs every run shares: the ``ensel`` sources, the shipped data files, the
    pinned environment, and whether the real (downloaded) data is available."""
    pkg = Path(__file__).resolve().parents[1]
    files = [p for p in pkg.rglob("*.py") if "__pycache__" not in p.parts]
    data_dir = root / "data"
    data = [p for p in data_dir.rglob("*") if p.is_file()] if data_dir.is_dir() else []
    h = hashlib.sha256()
    h.update(_hash_files(files, pkg.parent).encode())
    h.update(_hash_files(data, root).encode())
    constraints = root / "requirements" / "constraints.txt"
    if constraints.is_file():
        h.update(constraints.read_bytes())
    h.update(sys.version.encode())
    from ensel.book.profiles import names

    for real in names("real"):  # whether each real source's files are here is an input
        try:
            h.update(f"{real}:{_dataset_available(real)}".encode())
        except Exception as exc:  # an unreadable mirror is an input state too
            h.update(f"{real}:{type(exc).__name__}".encode())
    return h.hexdigest()


def run_key(run: NotebookRun, *, root: Path, test: bool = False,
            extra_parameters: dict[str, Any] | None = None,
            upstream: Sequence[str] = ()) -> str:
    """The cache key of a run: what its executed notebook depends on.

    Parameters
    ----------
    upstream : sequence of str
        Keys of the runs this run ``needs`` (a change upstream re-executes it).
    """
    params = run.effective_parameters(test=test)
    params.update(extra_parameters or {})
    source = root / "notebooks" / f"{run.notebook}.py"
    doc = {"source": hashlib.sha256(source.read_bytes()).hexdigest(), "parameters": params,
           "title": run.title, "test": test, "environment": _environment_digest(root),
           "upstream": list(upstream)}
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()


def cached(run: NotebookRun, key: str, out_dir: Path, *, test: bool = False) -> bool:
    """Whether ``out_dir`` already holds this run executed with this key (and its products)."""
    import nbformat

    target = Path(out_dir) / f"{run.output}.ipynb"
    if not target.is_file():
        return False
    try:
        nb = nbformat.read(target, as_version=4)
    except Exception:
        return False
    if nb.metadata.get("ensel", {}).get("key") != key:
        return False
    return all((Path(out_dir) / rel).is_file() for rel in run.products(test=test))


def _parse_params(pairs: Iterable[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise NotebookRunError(f"-p {pair!r} must look like name=value")
        key, value = pair.split("=", 1)
        try:
            params[key.strip()] = yaml.safe_load(value)
        except yaml.YAMLError as exc:
            reason = str(getattr(exc, "problem", None) or exc).splitlines()[0]
            raise NotebookRunError(f"-p {pair!r}: the value is not valid YAML ({reason})"
                                   ) from None
    return params


def notebook_parameters(source: Path) -> dict[str, str]:
    """The parameters a notebook declares: name -> default (source text) of every assignment
    in its cell tagged ``parameters``."""
    import ast

    import jupytext

    nb = jupytext.read(source)
    found: dict[str, str] = {}
    for cell in nb.cells:
        if cell.cell_type == "code" and "parameters" in cell.metadata.get("tags", []):
            tree = ast.parse(cell.source)
            for node in tree.body:
                targets = (node.targets if isinstance(node, ast.Assign)
                           else [node.target] if isinstance(node, ast.AnnAssign) else [])
                for t in targets:
                    if isinstance(t, ast.Name) and node.value is not None:
                        found[t.id] = ast.get_source_segment(cell.source, node.value) or ""
    return found


def check_parameter_names(run: NotebookRun, params: dict[str, Any], root: Path) -> None:
    """Raise :class:`NotebookRunError` at once for a parameter the notebook does not declare
    (papermill would only print a warning and run on the defaults)."""
    if not params:
        return
    declared = notebook_parameters(root / "notebooks" / f"{run.notebook}.py")
    unknown = sorted(set(params) - set(declared))
    if unknown:
        listing = ", ".join(f"{k}={v}" for k, v in declared.items()) or "none"
        raise NotebookRunError(
            f"notebook {run.notebook!r} has no parameter {', '.join(map(repr, unknown))}; "
            f"its parameters (with defaults) are: {listing}")


def _resolve_paths(params: dict[str, Any]) -> dict[str, Any]:
    """A parameter value naming an existing file relative to the caller's folder becomes an
    absolute path (the kernel runs in the repository root)."""
    out = {}
    for k, v in params.items():
        if isinstance(v, str) and v and not os.path.isabs(v) and Path(v).expanduser().exists():
            v = str(Path(v).expanduser().resolve())
        out[k] = v
    return out


def check_dataset_parameters(run: NotebookRun, parameters: dict[str, Any]) -> None:
    """Refuse, before the page runs, a dataset parameter (``dataset``, or what a run's
    ``requires_data`` template names) that is neither a known dataset nor an existing file,
    with the one message of :func:`ensel.datasets.unknown_dataset` (the known names)."""
    from ensel.datasets import DATASETS, _looks_like_path, unknown_dataset

    names = [(f"-p dataset={parameters['dataset']}: ", parameters["dataset"])
             ] if "dataset" in parameters else []
    for template in run.requires_data:
        try:
            names.append((f"requires_data {template!r}: ", template.format(**parameters)))
        except (KeyError, IndexError):
            continue  # the run does not set that parameter: nothing to require
    for where, name in names:
        if (not isinstance(name, str) or name in DATASETS
                or Path(name).expanduser().exists()):
            continue
        if _looks_like_path(name):
            raise NotebookRunError(f"{where}no such file {name}")
        raise NotebookRunError(where + unknown_dataset(name))


def adhoc_run(base: NotebookRun, overrides: dict[str, Any],
              runs: Sequence[NotebookRun]) -> tuple[NotebookRun, bool]:
    """The run for ``base`` with parameters overridden: the listed run of ``runs.yml`` with
    exactly those parameters (``(run, False)``), else a new ad-hoc run with a unique name
    (``(run, True)``) that must not be written where the book reads its pages."""
    params = {**base.parameters, **overrides}
    for r in runs:
        if r.notebook == base.notebook and r.parameters == params:
            return r, False
    slug = "-".join(
        re.sub(r"[^A-Za-z0-9_.]+", "_", Path(str(v)).stem if "/" in str(v) else str(v))
        for v in overrides.values()
    )[:60]
    digest = hashlib.sha256(json.dumps(params, sort_keys=True, default=str).encode())
    name = f"{base.notebook}-{slug}-{digest.hexdigest()[:8]}"
    return NotebookRun(base.notebook, name, params, base.test_parameters, None,
                       base.needs, base.produces, base.requires_data), True


def _execute_in_worker(run: NotebookRun, out_dir: str, test: bool, extra: dict[str, Any],
                       allow_warnings: bool, root: str, key: str) -> tuple[str, str]:
    """One run in a worker process: ``("ok", path)`` or ``("FAILED", message)``."""
    try:
        path = execute_run(run, out_dir=Path(out_dir), test=test, extra_parameters=extra,
                           allow_warnings=allow_warnings, root=Path(root), key=key)
    except NotebookRunError as exc:
        return "FAILED", str(exc)
    return "ok", str(path)


def _stored_key(out_dir: Path, output: str) -> str:
    import nbformat

    try:
        nb = nbformat.read(out_dir / f"{output}.ipynb", as_version=4)
    except Exception:
        return "missing"
    return str(nb.metadata.get("ensel", {}).get("key", "missing"))


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
    # keys in dependency order (runs are ordered so that needed runs come first)
    keys: dict[str, str] = {}
    for run in runs:
        up = [keys.get(r.output) or _stored_key(out_dir, r.output)
              for r in everything if r.notebook in run.needs]
        keys[run.output] = run_key(run, root=root, test=args.test, extra_parameters=extra,
                                   upstream=up)
    jobs = max(1, int(args.jobs or min(2, os.cpu_count() or 1)))
    timings: list[dict[str, Any]] = []
    failures: list[str] = []
    finished: dict[str, str] = {}  # output -> status
    durations = _read_durations(out_dir)
    # longest chain first (the runs that wait for a run count towards its length); runs
    # without a recorded duration keep their order in runs.yml
    priority = critical_path(runs, durations)
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
            max_workers=jobs, mp_context=multiprocessing.get_context("spawn"))
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


def _read_durations(out_dir: Path) -> dict[str, float]:
    """Last execution time of each run: ``durations.json``, completed by the executed runs of
    the last build's ``timings.json``; unreadable files count as empty."""
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
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1) + "\n")
    os.replace(tmp, path)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point (see the module docstring); ``ensel notebooks`` is the same
    command in :mod:`ensel.cli`'s tree."""
    parser = argparse.ArgumentParser(prog="ensel notebooks", description=__doc__.split("\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run_command(args)
    except NotebookRunError as exc:
        print(f"ensel notebooks: error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2


#: Schema name of ``ensel notebooks list --json`` (see the module docstring).
SCHEMA_LIST = "ensel.notebooks.list/1"


def list_document(runs: Sequence[NotebookRun], config: Path) -> dict[str, Any]:
    """The JSON document of ``ensel notebooks list --json`` (schema :data:`SCHEMA_LIST`).

    Examples
    --------
    >>> cfg = source_root() / "notebooks" / "runs.yml"
    >>> doc = list_document(load_runs(cfg), cfg)
    >>> doc["schema"], doc["runs"][0]["notebook"] == load_runs(cfg)[0].notebook
    ('ensel.notebooks.list/1', True)
    """
    from ensel._io import repository_root

    return {"schema": SCHEMA_LIST, "config": str(config),
            "checkout": repository_root() is not None,
            "runs": [{"notebook": r.notebook, "output": r.output, "title": r.title,
                      "parameters": r.parameters, "test_parameters": r.test_parameters,
                      "needs": list(r.needs), "produces": list(r.products()),
                      "requires_data": list(r.requires_data)} for r in runs]}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``ensel notebooks`` (``list``, ``run``, ``all``)."""
    sub = parser.add_subparsers(dest="cmd", required=True)
    lst = sub.add_parser("list", help="list the runs of runs.yml (from the repository, or "
                                      "the copy shipped with the package)")
    lst.add_argument("--json", action="store_true",
                     help=f"JSON output (schema {SCHEMA_LIST}; see the module docstring)")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--out-dir", default=None,
                        help="where executed notebooks go (default: book/_generated)")
    common.add_argument("--test", action="store_true", help="merge in test_parameters")
    common.add_argument("-p", "--param", action="append", default=[],
                        help="override a parameter: name=value (YAML value)")
    common.add_argument("--allow-warnings", action="store_true",
                        help="do not fail on warnings printed by a notebook")
    common.add_argument("--keep-going", action="store_true", help="run the rest after a failure")
    common.add_argument("--force", action="store_true",
                        help="re-execute every run, even those whose inputs did not change")
    common.add_argument("-j", "--jobs", type=int, default=None,
                        help="runs executed in parallel (default: min(2, number of cores))")
    run_p = sub.add_parser("run", parents=[common], help="execute the runs of one notebook")
    run_p.add_argument("notebook")
    run_p.add_argument("--output", default=None, help="only the run with this output name")
    sub.add_parser("all", parents=[common], help="execute every run in order")


def run_command(args: argparse.Namespace) -> int:
    """Run ``ensel notebooks`` on parsed arguments; bad input raises
    :class:`NotebookRunError` (one line)."""
    if args.cmd == "list":
        config = source_root() / "notebooks" / "runs.yml"
        runs = load_runs(config)
        if getattr(args, "json", False):
            print(json.dumps(list_document(runs, config), indent=2, default=str))
            return 0
        for r in runs:
            print(f"{r.notebook:<24} {r.output:<32} {r.parameters}  test: {r.test_parameters}")
        return 0
    runs = load_runs(repo_root() / "notebooks" / "runs.yml")
    require_page_packages(f"ensel notebooks {args.cmd}")
    explicit_out_dir = args.out_dir is not None
    if args.out_dir is None:
        args.out_dir = str(repo_root() / "book" / "_generated")
    if args.cmd == "run":
        try:
            chosen = find_runs(runs, args.notebook, args.output)
        except ValueError as exc:
            raise NotebookRunError(str(exc)) from None
        if args.param:
            overrides = _resolve_paths(_parse_params(args.param))
            check_parameter_names(chosen[0], overrides, repo_root())
            run, is_adhoc = adhoc_run(chosen[0], overrides, runs)
            check_dataset_parameters(run, run.effective_parameters(test=args.test))
            args.param = []
            chosen = [run]
            if is_adhoc and not explicit_out_dir:
                args.out_dir = str(repo_root() / "_build" / "adhoc")
                print(f"ad-hoc run (parameters not listed in notebooks/runs.yml): writing "
                      f"{Path(args.out_dir) / (run.output + '.ipynb')}; the book's pages and "
                      "results are not touched", flush=True)
        return _execute_all(chosen, args, runs)
    return _execute_all(runs, args, runs)


if __name__ == "__main__":
    sys.exit(main())
