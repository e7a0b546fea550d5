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
earlier builds, ``<out_dir>/durations.json``, and for a run that has none here, as in a fresh
clone, by the seconds shipped in ``notebooks/durations.json``: a hint of the order only,
refreshed by copying a full build's file). The runs of a build share their selectors' pick
paths through ``<out_dir>/.cache/picks`` (``ensel._picks``; ``--force`` empties it). A run
is written in place only when it succeeded: a failed or interrupted run never replaces the
last good page (the failed notebook is kept under ``<out_dir>/_failed/``, which the book
never includes).

The package keeps each concern in its own module: :mod:`~ensel.book.runner._config` (the runs
config and its DAG), :mod:`~ensel.book.runner._keys` (cache keys),
:mod:`~ensel.book.runner._execute` (the one papermill path, also used by ``ensel evaluate``),
:mod:`~ensel.book.runner._schedule` (parallel execution), :mod:`~ensel.book.runner._zygote`
(each worker of a build forks its pages' kernels from a warm process that has imported
ipykernel, numpy, pandas, matplotlib, scipy and ``ensel`` once; ``ENSEL_KERNEL_ZYGOTE=0``
starts every kernel the usual way) and :mod:`~ensel.book.runner._cli` (the command); this
module re-exports the names other modules use.

Command line (also ``ensel notebooks ...``)::

    python -m ensel.book.runner list
    python -m ensel.book.runner run system_model                  # every run of one notebook
    python -m ensel.book.runner run experiments --output experiments-mmlu
    python -m ensel.book.runner run experiments -p dataset=mmlu -p n_splits=3
    python -m ensel.book.runner all [--test]                      # every run, in order
    python -m ensel.book.runner list --json
    python -m ensel.book.runner toc [--check]   # _toc.yml's pages of the declared datasets

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

from ensel._io import NotebookRunError
from ensel.book.runner._cli import SCHEMA_LIST, add_arguments, list_document, main, run_command
from ensel.book.runner._config import (
    PAGE_MODULES,
    NotebookRun,
    adhoc_run,
    check_dataset_parameters,
    check_parameter_names,
    find_runs,
    load_runs,
    missing_inputs,
    notebook_parameters,
    repo_root,
    require_page_packages,
    source_root,
    toc_files,
    toc_problems,
    toc_text,
    unavailable_data,
    write_toc,
)
from ensel.book.runner._execute import (
    FIGURE_DATA_DIR,
    PROVENANCE_TAG,
    execute_notebook,
    execute_run,
    reproduce_command,
)
from ensel.book.runner._keys import cached, run_key, run_keys
from ensel.book.runner._schedule import DURATIONS, critical_path, read_durations

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
    "check_dataset_parameters",
    "load_runs",
    "notebook_parameters",
    "run_key",
    "run_keys",
    "cached",
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
    "DURATIONS",
    "critical_path",
    "read_durations",
    "toc_files",
    "toc_problems",
    "toc_text",
    "write_toc",
]
