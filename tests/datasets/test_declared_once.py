"""Datasets are declared once (``ensel.datasets.DATASETS``): the per-dataset runs of the book
and ``ensel datasets list`` agree with the declaration."""

from __future__ import annotations

from pathlib import Path

import yaml

from ensel.datasets import _DESCRIPTIONS, DATASETS, available

ROOT = Path(__file__).resolve().parents[2]


def _dataset_runs() -> set[tuple[str, str]]:
    runs = yaml.safe_load((ROOT / "notebooks" / "runs.yml").read_text(encoding="utf-8"))
    entries = runs["notebooks"] if isinstance(runs, dict) else runs
    out = set()
    for entry in entries:
        for run in entry.get("runs", []) or []:
            ds = (run.get("parameters") or {}).get("dataset")
            if ds is not None:
                out.add((entry["notebook"], str(ds)))
    return out


def test_the_per_dataset_runs_are_the_declared_pages() -> None:
    declared = {(page, name) for name, spec in DATASETS.items() for page in spec.pages}
    assert _dataset_runs() == declared


def test_the_list_and_the_loaders_come_from_the_declaration() -> None:
    assert list(available()["name"]) == list(DATASETS)
    assert _DESCRIPTIONS == {n: (s.kind, s.description) for n, s in DATASETS.items()}
    for spec in DATASETS.values():
        module, _, func = spec.loader.partition(":")
        assert callable(getattr(__import__(module, fromlist=[func]), func)), spec.loader
