"""Cache keys: what an executed notebook depends on (:func:`run_key`), the keys of a set of runs
in dependency order (:func:`run_keys`), and whether an output folder already holds a run
executed with its key (:func:`cached`)."""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ensel.book.runner._config import NotebookRun, _dataset_available


def _hash_files(paths: Iterable[Path], root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(str(p.relative_to(root)).encode())
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def package_dir() -> Path:
    """The folder of the ``ensel`` package, whose ``*.py`` sources every key depends on."""
    return Path(__file__).resolve().parents[2]


@functools.lru_cache(maxsize=8)
def _environment_digest(root: Path) -> str:
    """The inputs every run shares: the ``ensel`` sources, the shipped data files, the
    pinned environment, and whether the real (downloaded) data is available."""
    pkg = package_dir()
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


def _stored_key(out_dir: Path, output: str) -> str:
    import nbformat

    try:
        nb = nbformat.read(out_dir / f"{output}.ipynb", as_version=4)
    except Exception:
        return "missing"
    return str(nb.metadata.get("ensel", {}).get("key", "missing"))


def run_keys(runs: Sequence[NotebookRun], *, root: Path, out_dir: Path, test: bool = False,
             extra_parameters: dict[str, Any] | None = None,
             everything: Sequence[NotebookRun] = ()) -> dict[str, str]:
    """The key of each of ``runs`` (in dependency order, as :func:`load_runs` orders them):
    a run's upstream keys are those of the runs of the notebooks it ``needs``, computed here
    when they are among ``runs``, else read from their executed notebook in ``out_dir``
    (``"missing"`` when there is none)."""
    keys: dict[str, str] = {}
    for run in runs:
        up = [keys.get(r.output) or _stored_key(out_dir, r.output)
              for r in (everything or runs) if r.notebook in run.needs]
        keys[run.output] = run_key(run, root=root, test=test,
                                   extra_parameters=extra_parameters, upstream=up)
    return keys
