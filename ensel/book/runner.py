"""Execute the book's notebooks with papermill, one run per entry of ``notebooks/runs.yml``.

Pipeline for one run: jupytext source ``notebooks/<name>.py`` -> notebook -> papermill
(parameters injected after the cell tagged ``parameters``) -> executed notebook
``book/_generated/<output>.ipynb``. The book is then built from the executed notebooks with
execution switched off, so what the reader sees is exactly what ran here.

Executed notebooks are made reproducible byte for byte: papermill's timestamps and durations are
removed, so rebuilding with the same seeds gives identical files.

Command line (also ``ensel notebooks ...``)::

    python -m ensel.book.runner list
    python -m ensel.book.runner run system_model                  # every run of one notebook
    python -m ensel.book.runner run experiments --output experiments-mmlu
    python -m ensel.book.runner run experiments -p dataset=mmlu -p n_splits=3
    python -m ensel.book.runner all [--test]                      # every run, in order
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "NotebookRun",
    "NotebookRunError",
    "execute_run",
    "find_runs",
    "load_runs",
    "missing_inputs",
    "unavailable_data",
    "main",
    "repo_root",
]


class NotebookRunError(RuntimeError):
    """A notebook failed to execute, or printed a warning."""


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
            raise ValueError(f"run {self.output!r}: 'produces' names parameter {exc} that the "
                             "run does not set") from None

    def effective_parameters(self, *, test: bool) -> dict[str, Any]:
        """Parameters injected by papermill (test parameters override under ``test``)."""
        params = dict(self.parameters)
        if test:
            params.update(self.test_parameters)
        return params


def repo_root() -> Path:
    """The repository root: ``$ENSEL_REPO_ROOT``, else the folder holding ``notebooks/runs.yml``."""
    env = os.environ.get("ENSEL_REPO_ROOT")
    if env:
        return Path(env).resolve()
    for base in (Path.cwd(), *Path.cwd().parents, Path(__file__).resolve().parents[2]):
        if (base / "notebooks" / "runs.yml").is_file():
            return base
    raise FileNotFoundError(
        "cannot find notebooks/runs.yml from the current folder; run from the repository "
        "or set ENSEL_REPO_ROOT"
    )


def load_runs(config: Path | None = None) -> list[NotebookRun]:
    """Read the runs config (``notebooks/runs.yml``) and return the runs in order.

    Raises
    ------
    ValueError
        On a malformed entry, a missing notebook source, or a duplicated output name.
    """
    config = Path(config) if config is not None else repo_root() / "notebooks" / "runs.yml"
    with open(config, encoding="utf-8") as fh:
        doc = yaml.safe_load(fh) or {}
    entries = doc.get("notebooks")
    if not isinstance(entries, list):
        raise ValueError(f"{config}: expected a top-level 'notebooks:' list")
    runs: list[NotebookRun] = []
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or "notebook" not in entry:
            raise ValueError(f"{config}: entry {i} must be a mapping with a 'notebook' key")
        name = str(entry["notebook"])
        unknown = set(entry) - {"notebook", "runs", "test_parameters", "needs", "produces",
                                "requires_data"}
        if unknown:
            raise ValueError(f"{config}: notebook {name!r} has unknown keys {sorted(unknown)}")
        source = config.parent / f"{name}.py"
        if not source.is_file():
            raise ValueError(f"{config}: notebook {name!r} has no source file {source}")
        test_params = dict(entry.get("test_parameters") or {})
        needs = tuple(str(n) for n in entry.get("needs") or ())
        produces = tuple(str(p) for p in entry.get("produces") or ())
        requires = _as_tuple(entry.get("requires_data"))
        run_specs = entry.get("runs") or [{"output": name}]
        for spec in run_specs:
            bad = set(spec) - {"output", "parameters", "title", "requires_data"}
            if bad:
                raise ValueError(f"{config}: a run of {name!r} has unknown keys {sorted(bad)}")
            output = str(spec.get("output", name))
            if output in seen:
                raise ValueError(f"{config}: output name {output!r} is used twice")
            seen.add(output)
            title = spec.get("title")
            runs.append(NotebookRun(name, output, dict(spec.get("parameters") or {}),
                                    test_params, None if title is None else str(title),
                                    needs, produces,
                                    requires + _as_tuple(spec.get("requires_data"))))
    return _order(runs, config)


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
            raise ValueError(f"{config}: notebook {r.notebook!r} needs {missing}, which "
                             "runs.yml does not list")
    ordered: list[NotebookRun] = []
    done: set[str] = set()
    pending = list(runs)
    while pending:
        ready = [r for r in pending
                 if all(n in done or n == r.notebook for n in r.needs)]
        if not ready:
            raise ValueError(f"{config}: the 'needs' of {sorted({r.notebook for r in pending})} "
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
        raise ValueError(f"no run of {what} in runs.yml; notebooks: {', '.join(names)}")
    return chosen


def _dataset_available(name: str) -> bool:
    """Whether dataset ``name`` can be loaded here, by the dataset's own availability function
    (``ensel.datasets.<name>.is_available``, which never probes the network). Names without
    one (the stand-ins, which are generated, and paths to a user's table) count as
    available: loading them reports its own errors."""
    import importlib

    if not name.isidentifier():
        return True
    try:
        module = importlib.import_module(f"ensel.datasets.{name}")
    except ImportError:
        return True
    check = getattr(module, "is_available", None)
    return True if check is None else bool(check())


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
    label = "MMLU-Pro" if list(names) == ["mmlu_pro"] else which
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
    raise ValueError("the notebook has no '# title' line in its first markdown cell")


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
                allow_warnings: bool = False, root: Path | None = None) -> Path:
    """Execute one run with papermill and write ``<out_dir>/<output>.ipynb``.

    The kernel runs with the repository root as working directory and with
    ``ENSEL_RESULTS_DIR=<out_dir>/results`` so notebooks that save results for later pages
    (the experiments notebook) share one folder.

    Raises
    ------
    NotebookRunError
        Naming the notebook, the run, the failing cell and the error; the partially executed
        notebook is kept at the output path for inspection.
    """
    import jupytext
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
    params = run.effective_parameters(test=test)
    params.update(extra_parameters or {})
    target = out_dir / f"{run.output}.ipynb"
    missing = unavailable_data(run, params)
    if missing:  # one clear note instead of a page that cannot compute
        _write(_unavailable_page(nb, missing), target)
        return target
    _label_figures(nb, run.output)
    label = f"notebook {run.notebook!r} (run {run.output!r}, parameters {params})"
    saved = os.environ.get("ENSEL_RESULTS_DIR")
    os.environ["ENSEL_RESULTS_DIR"] = str(out_dir / "results")  # inherited by the kernel
    try:
        executed = pm.execute_notebook(
            copy.deepcopy(nb), str(target), parameters=params, kernel_name="python3",
            cwd=str(root), progress_bar=False, log_output=False,
            extra_arguments=["--IPKernelApp.log_level=ERROR"],
        )
    except pm.PapermillExecutionError as exc:
        raise NotebookRunError(
            f"{label} failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue}"
        ) from None
    except Exception as exc:  # kernel death, bad parameters, ...
        raise NotebookRunError(f"{label} could not be executed: {exc}") from exc
    finally:
        if saved is None:
            os.environ.pop("ENSEL_RESULTS_DIR", None)
        else:
            os.environ["ENSEL_RESULTS_DIR"] = saved
    _write(executed, target)
    warnings = _warnings_in(executed)
    if warnings and not allow_warnings:
        raise NotebookRunError(
            f"{label} printed warnings (fix them, or pass --allow-warnings):\n  "
            + "\n  ".join(warnings)
        )
    return target


def _write(nb: Any, target: Path) -> None:
    import nbformat

    _strip_volatile(nb)
    tmp = target.with_suffix(".ipynb.tmp")
    nbformat.write(nb, tmp)
    tmp.replace(target)


def _label_figures(nb: Any, output: str) -> None:
    """Fill ``{output}`` in the labels of a page: figure labels and captions in the cells'
    ``mystnb`` metadata and ``(label)=`` targets in markdown cells, so a notebook run once
    per dataset gives each run its own labels (``fig-{output}-map`` ->
    ``fig-experiments-mmlu-map``)."""
    for cell in nb.cells:
        if cell.cell_type == "markdown" and "{output}" in cell.source:
            cell.source = re.sub(r"(?m)^\((\S*)\)=$",
                                 lambda m: m.group(0).replace("{output}", output),
                                 cell.source)
        figure = cell.metadata.get("mystnb", {}).get("figure")
        if isinstance(figure, dict):
            for key in ("name", "caption"):
                if isinstance(figure.get(key), str):
                    figure[key] = figure[key].replace("{output}", output)


def _parse_params(pairs: Iterable[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise SystemExit(f"parameter {pair!r} must look like name=value")
        key, value = pair.split("=", 1)
        params[key.strip()] = yaml.safe_load(value)
    return params


def _adhoc_run(base: NotebookRun, overrides: dict[str, Any]) -> NotebookRun:
    slug = "-".join(
        re.sub(r"[^A-Za-z0-9_.]+", "_", Path(str(v)).stem if "/" in str(v) else str(v))
        for v in overrides.values()
    )
    params = {**base.parameters, **overrides}
    return NotebookRun(base.notebook, f"{base.notebook}-{slug}", params, base.test_parameters,
                       None, requires_data=base.requires_data)


def _execute_all(runs: Sequence[NotebookRun], args: argparse.Namespace,
                 all_runs: Sequence[NotebookRun] = ()) -> int:
    out_dir = Path(args.out_dir)
    timings = []
    failures = []
    chosen = {r.output for r in runs}
    for run in runs:
        upstream = [r for r in all_runs if r.output not in chosen]
        missing = missing_inputs(run, upstream, out_dir, test=args.test)
        if missing:
            print(f"error: run {run.output!r} needs the runs {', '.join(missing)}, which "
                  f"have not run into {out_dir}; run `make run NB={run.needs[0]}` (or "
                  "`make book`) first", file=sys.stderr)
            return 2
        t0 = time.perf_counter()
        try:
            path = execute_run(run, out_dir=out_dir, test=args.test,
                               extra_parameters=_parse_params(args.param),
                               allow_warnings=args.allow_warnings)
            status = "ok"
        except NotebookRunError as exc:
            path, status = None, "FAILED"
            failures.append(str(exc))
            print(f"ERROR: {exc}", file=sys.stderr, flush=True)
        dt = time.perf_counter() - t0
        timings.append({"output": run.output, "seconds": round(dt, 1), "status": status})
        print(f"[{status:>6}] {run.output:<32} {dt:7.1f} s  -> {path}", flush=True)
        if failures and not args.keep_going:
            break
    (out_dir / "timings.json").write_text(json.dumps(timings, indent=1) + "\n")
    total = sum(t["seconds"] for t in timings)
    print(f"{len(timings)} run(s), {total:.1f} s in total, {len(failures)} failed", flush=True)
    if failures:
        print("\nFailed notebooks:\n  " + "\n  ".join(failures), file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="ensel notebooks", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="list the runs of runs.yml")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--out-dir", default=None,
                        help="where executed notebooks go (default: book/_generated)")
    common.add_argument("--test", action="store_true", help="merge in test_parameters")
    common.add_argument("-p", "--param", action="append", default=[],
                        help="override a parameter: name=value (YAML value)")
    common.add_argument("--allow-warnings", action="store_true",
                        help="do not fail on warnings printed by a notebook")
    common.add_argument("--keep-going", action="store_true", help="run the rest after a failure")
    run_p = sub.add_parser("run", parents=[common], help="execute the runs of one notebook")
    run_p.add_argument("notebook")
    run_p.add_argument("--output", default=None, help="only the run with this output name")
    sub.add_parser("all", parents=[common], help="execute every run in order")
    args = parser.parse_args(argv)

    runs = load_runs()
    if args.cmd == "list":
        for r in runs:
            print(f"{r.notebook:<24} {r.output:<32} {r.parameters}  test: {r.test_parameters}")
        return 0
    if args.out_dir is None:
        args.out_dir = str(repo_root() / "book" / "_generated")
    if args.cmd == "run":
        try:
            chosen = find_runs(runs, args.notebook, args.output)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if args.param and args.output is None:
            # an ad-hoc parameter set: one run, named after its parameters
            chosen = [_adhoc_run(chosen[0], _parse_params(args.param))]
        return _execute_all(chosen, args, runs)
    return _execute_all(runs, args, runs)


if __name__ == "__main__":
    sys.exit(main())
