"""Datasets are declared once (``data/datasets.yml``, read into ``ensel.datasets.DATASETS``):
the per-dataset runs of the book, its table of contents and ``ensel datasets list`` agree with
the declaration, and the checks of each dataset are parametrised from it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ensel.datasets import _DESCRIPTIONS, DATASETS, available, read_specs

ROOT = Path(__file__).resolve().parents[2]


def _dataset_runs() -> set[tuple[str, str]]:
    from ensel.book.runner import load_runs

    return {(run.notebook, str(run.parameters["dataset"]))
            for run in load_runs(ROOT / "notebooks" / "runs.yml")
            if "dataset" in run.parameters}


def test_the_per_dataset_runs_are_the_declared_pages() -> None:
    declared = {(page, name) for name, spec in DATASETS.items() for page in spec.pages}
    assert _dataset_runs() == declared


def test_the_list_and_the_loaders_come_from_the_declaration() -> None:
    assert list(available()["name"]) == list(DATASETS)
    assert _DESCRIPTIONS == {n: (s.kind, s.description) for n, s in DATASETS.items()}
    declared = yaml.safe_load((ROOT / "data" / "datasets.yml").read_text(encoding="utf-8"))
    assert [s.name for s in read_specs()] == list(declared["datasets"])
    assert set(declared["datasets"]) <= set(DATASETS)  # a test may register more


@pytest.mark.parametrize("name", list(DATASETS))
def test_each_declared_dataset_has_its_loader_pages_and_profile(name: str) -> None:
    """Parametrised from the declaration: a dataset added to data/datasets.yml (or registered,
    as the toy of test_toy_dataset.py) is checked here without editing this file."""
    from ensel.book.profiles import label
    from ensel.book.runner import load_runs, repo_root, toc_problems

    spec = DATASETS[name]
    module, _, func = spec.loader.partition(":")
    assert callable(getattr(__import__(module, fromlist=[func]), func)), spec.loader
    assert spec.profile["kind"] == spec.kind and label(name) == spec.profile["label"]
    runs = [r for r in load_runs() if r.parameters.get("dataset") == name]
    assert sorted({r.notebook for r in runs}) == sorted(spec.pages)
    # its pages are in the table of contents that `ensel notebooks toc` writes
    assert not [p for p in toc_problems(runs, repo_root() / "_toc.yml") if "does not list" in p]


def test_the_templates_give_the_listed_runs_their_names() -> None:
    # a run runs.yml lists by hand has the output name its notebook's per_dataset template
    # would give it: a dataset added later gets a name of the same pattern
    doc = yaml.safe_load((ROOT / "notebooks" / "runs.yml").read_text(encoding="utf-8"))
    for entry in doc["notebooks"]:
        template = entry.get("per_dataset")
        if template is None:
            continue
        for run in entry.get("runs") or []:
            name = run["parameters"]["dataset"]
            if entry["notebook"] == "mmlu_pro_modelling" and name == "mmlu_pro":
                continue  # the first page of its kind kept its historical name
            assert run["output"] == template["output"].format(dataset=name), run


@pytest.mark.parametrize("name", [n for n, s in DATASETS.items() if s.kind == "real"])
def test_each_declared_real_dataset_has_its_registry_and_family(name: str) -> None:
    from ensel.datasets._fetch import read_registry, registry_path

    spec = DATASETS[name]
    if spec.registry is not None:  # downloaded: its registry and upstream
        assert registry_path(spec.registry).is_file() and read_registry(spec.registry), name
        assert spec.upstream and "/" in spec.upstream, name
    assert spec.family is None or isinstance(spec.family_of("some/model"), str), name
    assert isinstance(spec.is_available(), bool), name


def test_load_reads_a_name_a_tidy_table_or_any_importer_format(tmp_path: Path) -> None:
    # one entry point: ensel.datasets.load(name_or_path, format=...)
    import pandas as pd

    from ensel.datasets import load
    from ensel.datasets.importers import read

    data = ROOT / "tests" / "data"
    wide = load(data / "wide_binary.csv", format="wide")
    pd.testing.assert_frame_equal(wide, read(data / "wide_binary.csv", format="wide"))
    assert set(wide["model"]) == {"model_a", "model_b", "model_c"}
    samples = sorted((data / "lm_eval").rglob("samples_*.jsonl"))
    assert samples
    detected = load(samples)  # several files, format detected
    pd.testing.assert_frame_equal(detected, read(samples))
    assert detected["model"].nunique() == len({p.parent for p in samples}) > 1
    tidy = wide.astype({"item": str, "model": str, "condition": str})
    tidy.to_csv(tmp_path / "t.csv", index=False)
    assert len(load(tmp_path / "t.csv")) == len(load(tmp_path / "t.csv", format="tidy"))
