"""The runs config and its DAG: ``notebooks/runs.yml`` read into :class:`NotebookRun` objects
(the ``per_dataset`` template filled in from :data:`ensel.datasets.DATASETS`), ordered so a run
comes after the runs it ``needs``; where the sources live; the parameters a run may take;
whether the data a run requires is here."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ensel._errors import ConfigError, UsageError
from ensel._io import NotebookRunError


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


def require_page_packages(what: str = "executing a page",
                          modules: tuple[str, ...] = PAGE_MODULES) -> None:
    """Raise :class:`NotebookRunError` (one line naming the extra to install) when a package
    of ``modules`` (default :data:`PAGE_MODULES`) is not installed, before any work starts.

    Examples
    --------
    >>> require_page_packages()  # the repository's environment has the book extra
    """
    import importlib.util

    missing = [m for m in modules if importlib.util.find_spec(m) is None]
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
        raise ConfigError(f"{config}: notebook {notebook!r}: per_dataset must be a mapping "
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


def toc_files(toc: Path) -> list[str]:
    """Every ``file:`` of a jb-book table of contents (``_toc.yml``), in the book's order
    (the root page is not among them)."""
    with open(toc, encoding="utf-8") as fh:
        doc = yaml.safe_load(fh) or {}
    files: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "file" in node:
                files.append(str(node["file"]))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(doc)
    return files


def toc_problems(runs: Sequence[NotebookRun], toc: Path) -> list[str]:
    """What the table of contents ``toc`` (a jb-book ``_toc.yml``) misses or has too many:
    one line per run whose page ``book/_generated/<output>`` it does not list (a dataset
    declared with pages in :data:`ensel.datasets.DATASETS` gets runs, so its pages must be
    listed), and per listed ``book/_generated/`` page that no run writes (a stale entry).
    Empty when they agree; ``tests/book/test_runner.py`` holds the book to it.

    Examples
    --------
    >>> root = repo_root()
    >>> toc_problems(load_runs(root / "notebooks" / "runs.yml"), root / "_toc.yml")
    []
    """
    listed = toc_files(toc)
    pages = {f"book/_generated/{r.output}": r for r in runs}
    out = []
    for page, run in pages.items():
        if page not in listed:
            what = f"notebook {run.notebook!r}"
            if "dataset" in run.parameters:
                what += f", dataset {run.parameters['dataset']!r}"
            out.append(f"{toc.name} does not list the page of run {run.output!r} ({what}): "
                       f"add '- file: {page}'")
    for page in listed:
        if page.startswith("book/_generated/") and page not in pages:
            out.append(f"{toc.name} lists {page}, which no run of runs.yml writes (a stale "
                       "entry, or a dataset no longer declared with that page)")
    return out


_TOC_PAGE = re.compile(r"^(\s*)- file: book/_generated/(\S+)\s*$")


def toc_text(runs: Sequence[NotebookRun], toc: Path) -> str:
    """The table of contents ``toc`` with its per-dataset entries written from ``runs``.

    The pages of the runs with a ``dataset`` parameter (one per dataset declared with that
    page in ``data/datasets.yml``) are grouped by notebook and by the dataset's kind; each
    group is written, in the runs' order, where its first entry stands (so the experiments of
    the stand-ins and of the real datasets stay in their parts), and entries that no run
    writes are dropped. Everything else of the file (parts, other pages, comments) is kept as
    it is. ``make book`` writes the result (``ensel notebooks toc``); the tests check that the
    committed ``_toc.yml`` is current.

    Raises
    ------
    ConfigError
        A group has no entry yet (a new per-dataset notebook, or its first dataset of a
        kind): where its pages go is chosen once, by adding one of them to ``toc``.

    Examples
    --------
    >>> root = repo_root()
    >>> toc = root / "_toc.yml"
    >>> toc_text(load_runs(root / "notebooks" / "runs.yml"), toc) == toc.read_text()
    True
    """
    from ensel.datasets import DATASETS

    by_output = {r.output: r for r in runs}

    def group(run: NotebookRun) -> tuple[str, str]:
        spec = DATASETS.get(str(run.parameters["dataset"]))
        return run.notebook, spec.kind if spec is not None else "user"

    groups: dict[tuple[str, str], list[NotebookRun]] = {}
    for run in runs:
        if "dataset" in run.parameters:
            groups.setdefault(group(run), []).append(run)
    placed: set[tuple[str, str]] = set()
    out: list[str] = []
    for line in toc.read_text(encoding="utf-8").splitlines(keepends=True):
        m = _TOC_PAGE.match(line)
        run = by_output.get(m.group(2)) if m else None
        if m is None or (run is not None and "dataset" not in run.parameters):
            out.append(line)
            continue
        if run is None or group(run) in placed:
            continue  # written with its group, or no run writes it
        placed.add(group(run))
        out += [f"{m.group(1)}- file: book/_generated/{r.output}\n" for r in groups[group(run)]]
    for (notebook, kind), members in groups.items():
        if (notebook, kind) not in placed:
            raise ConfigError(
                f"{toc.name} has no page of notebook {notebook!r} on a {kind} dataset, so the "
                f"page of run {members[0].output!r} has no place yet: add "
                f"'- file: book/_generated/{members[0].output}' where it goes (once; the "
                "pages of later datasets follow it)")
    return "".join(out)


def write_toc(runs: Sequence[NotebookRun], toc: Path, *, check: bool = False) -> bool:
    """Write :func:`toc_text` to ``toc`` when it differs (``check``: only compare); whether it
    differed."""
    text = toc_text(runs, toc)
    stale = text != toc.read_text(encoding="utf-8")
    if stale and not check:
        toc.write_text(text, encoding="utf-8")
    return stale


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


def _count_rule(name: str) -> tuple[str, Any] | None:
    """What a parameter of this name must be, beyond its default's type (``None`` always
    stays allowed where the default is ``None``): the same bounds as the command line's."""
    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if name == "seed":
        return "an integer >= 0", lambda v: is_int(v) and v >= 0
    if name == "n_halvings":
        return "0 or an integer >= 2", lambda v: is_int(v) and (v == 0 or v >= 2)
    if name == "n_jobs":
        return "-1 or an integer >= 1", lambda v: is_int(v) and (v == -1 or v >= 1)
    if name == "n_splits" or name.endswith("_splits"):
        return "an integer >= 2 (an interval needs two splits)", lambda v: is_int(v) and v >= 2
    if name == "ks":
        return ("a non-empty list of integers >= 1",
                lambda v: isinstance(v, list) and bool(v) and all(is_int(k) and k >= 1
                                                                  for k in v))
    if name.startswith("n_") or name.endswith(("_items", "_models", "_reps", "_k")):
        return "an integer >= 1", lambda v: is_int(v) and v >= 1
    if name in ("rho", "accuracy"):
        return ("a number in [0, 1]", lambda v: isinstance(v, (int, float))
                and not isinstance(v, bool) and 0 <= v <= 1)
    return None


def check_parameter_values(run: NotebookRun, params: dict[str, Any], root: Path) -> None:
    """Raise :class:`NotebookRunError` at once, before the kernel starts, for a parameter
    value the notebook cannot take, which the page itself would refuse only in a late cell:
    a count out of its bounds (``seed`` >= 0, ``n_splits`` >= 2, ``n_jobs`` -1 or >= 1,
    ``n_halvings`` 0 or >= 2, ``ks`` integers >= 1, ``n_*`` and ``*_items`` >= 1; ``None``
    where the default is ``None``), or anything but true/false for a switch whose default
    is ``True``/``False``. Other parameters are passed as given (a string parameter may take
    a list, e.g. ``models``)."""
    import ast

    declared = notebook_parameters(root / "notebooks" / f"{run.notebook}.py")
    for name, value in params.items():
        if name not in declared:
            continue
        text = declared[name]
        try:
            default = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            default = ...  # a default computed in code
        shown = f"-p {name}={value!r}: notebook {run.notebook!r} expects"
        if isinstance(default, bool) and not isinstance(value, bool):
            raise NotebookRunError(f"{shown} true or false (default {text})")
        rule = _count_rule(name)
        scalar = name == "ks" or not isinstance(default, (list, dict))  # pool_models = [50]
        if rule is None or not scalar or (value is None and default is None):
            continue
        if not rule[1](value):
            raise NotebookRunError(f"{shown} {rule[0]} (default {text}); got {value!r}")


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
