"""The runner's cache keys (``ensel.book.runner._keys``) follow their documented recipe.

The key of a run is the SHA-256 of one JSON document: the hash of its notebook source, its
parameters (test parameters merged in under ``--test``), its title, the test flag, the shared
environment digest and the keys of the runs it needs. The test recomputes that document for
every run of ``notebooks/runs.yml`` independently of the runner and compares, so moving the
runner's code (it was one module until the split into a package) cannot change a key
unnoticed. The environment digest is frozen here: it hashes the ``ensel`` sources, which any
change moves on purpose.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from ensel.book.runner import _keys, load_runs, run_keys

ROOT = Path(__file__).resolve().parents[2]


def _expected(run, *, test: bool, upstream: list[str]) -> str:
    params = dict(run.parameters)
    if test:
        params.update(run.test_parameters)
    source = (ROOT / "notebooks" / f"{run.notebook}.py").read_bytes()
    doc = {"source": hashlib.sha256(source).hexdigest(), "parameters": params,
           "title": run.title, "test": test, "environment": "frozen", "upstream": upstream}
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()


@pytest.mark.parametrize("test", [False, True])
def test_every_run_key_is_the_documented_recipe(test: bool, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_keys, "_environment_digest", lambda root: "frozen")
    runs = load_runs(ROOT / "notebooks" / "runs.yml")
    keys = run_keys(runs, root=ROOT, out_dir=tmp_path, test=test)
    expected: dict[str, str] = {}
    for run in runs:  # dependency order: a needed run's key is known before
        up = [expected[r.output] for r in runs if r.notebook in run.needs]
        expected[run.output] = _expected(run, test=test, upstream=up)
    assert keys == expected
    assert len(set(keys.values())) == len(runs)


def test_a_needed_run_outside_the_set_contributes_its_stored_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_keys, "_environment_digest", lambda root: "frozen")
    runs = load_runs(ROOT / "notebooks" / "runs.yml")
    report = [r for r in runs if r.needs][0]
    alone = run_keys([report], root=ROOT, out_dir=tmp_path, everything=runs)
    n_up = sum(r.notebook in report.needs for r in runs)
    assert alone[report.output] == _expected(report, test=False, upstream=["missing"] * n_up)


def test_the_environment_digest_hashes_the_whole_ensel_package() -> None:
    import ensel

    assert _keys.package_dir() == Path(ensel.__file__).resolve().parent
