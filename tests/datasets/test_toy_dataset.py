"""A new dataset is one declaration: a toy one is added to a copy of the repository's files the
way a contributor adds one (an entry in ``data/datasets.yml``, its loader module, its data file,
and the ``_toc.yml`` that ``ensel notebooks toc`` regenerates: four files, no test, no
``notebooks/runs.yml``, no list anywhere else), and then shows up in ``ensel datasets list``, in
the book's runs and table of contents, in the reproduction report's sources and in the tests
parametrised over the declared datasets."""

from __future__ import annotations

import hashlib
import importlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ensel.datasets import (
    DATASETS,
    DatasetSpec,
    load,
    read_specs,
    register_dataset,
    unregister_dataset,
)

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "toy_judges" / "judgements.csv"
NAME = "toy_judges"
#: What a contributor appends to data/datasets.yml: the declaration and the profile.
ENTRY = f"""\
  {NAME}:
    kind: real
    description: toy LLM judges choosing the better of two outputs (a test)
    pages: [experiments, realdata_card]
    loader: toy_judges:load
    family: toy_judges:family
    label: Toy judges
    queries: native
"""
#: Its loader module: one row per (pair, judge, prompting) with the judge's preferred output
#: (1 or 2) and the verified one, as the tidy table (``+1`` = output 1 is the better).
LOADER = '''\
from pathlib import Path

import pandas as pd


def load():
    raw = pd.read_csv(Path(__file__).with_name("judgements.csv"))
    sign = {1: 1, 2: -1}
    return pd.DataFrame({"item": raw["pair_id"], "model": raw["judge"],
                         "condition": raw["prompting"], "answer": raw["preferred"].map(sign),
                         "label": raw["gold"].map(sign)})


def family(model):
    return model.split("-", 1)[0]
'''
#: Registers the datasets of the copy's data/datasets.yml that the package does not declare
#: (a pytest plugin: the registration happens before the tests are collected).
PLUGIN = '''\
from pathlib import Path

from ensel.datasets import DATASETS, read_specs, register_dataset

for spec in read_specs(Path(__file__).parent / "data" / "datasets.yml"):
    if spec.name not in DATASETS:
        register_dataset(spec)
'''
#: The repository's files a dataset could touch, copied (the library's modules are read in
#: place: none of them is written).
COPIED = ("data/datasets.yml", "data/registry", "_toc.yml", "notebooks")


def _snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def _add_the_toy(copy: Path) -> None:
    """What a contributor does: the entry, the loader, its data, then `ensel notebooks toc`
    (here: the function it calls, on the copy's table of contents)."""
    from ensel.book.runner import load_runs, write_toc

    with open(copy / "data" / "datasets.yml", "a", encoding="utf-8") as fh:
        fh.write(ENTRY)
    (copy / "toy").mkdir()
    (copy / "toy" / "toy_judges.py").write_text(LOADER, encoding="utf-8")
    shutil.copyfile(FIXTURE, copy / "toy" / "judgements.csv")
    sys.path.insert(0, str(copy / "toy"))
    importlib.invalidate_caches()
    for spec in read_specs(copy / "data" / "datasets.yml"):
        if spec.name not in DATASETS:
            register_dataset(spec)
    assert write_toc(load_runs(), copy / "_toc.yml")  # it changed


@pytest.fixture
def toy(tmp_path: Path) -> Iterator[tuple[Path, set[str]]]:
    """A copy with the toy added, and the files the addition touched; the toy is registered
    while the test runs."""
    copy = tmp_path / "repo"
    for rel in COPIED:
        src, dst = ROOT / rel, copy / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copyfile(src, dst)
    before = _snapshot(copy)
    try:
        _add_the_toy(copy)
        after = _snapshot(copy)
        yield copy, {f for f in before.keys() | after.keys() if before.get(f) != after.get(f)}
    finally:
        unregister_dataset(NAME)
        if str(copy / "toy") in sys.path:
            sys.path.remove(str(copy / "toy"))
        sys.modules.pop("toy_judges", None)
    assert NAME not in DATASETS


def test_adding_a_dataset_touches_at_most_four_files(toy: tuple[Path, set[str]]) -> None:
    _, touched = toy
    assert touched == {"data/datasets.yml", "toy/toy_judges.py", "toy/judgements.csv",
                       "_toc.yml"}
    assert len(touched) <= 4


def test_the_toy_dataset_loads_by_name(toy: tuple[Path, set[str]]) -> None:
    df = load(NAME)
    assert list(df.columns[:5]) == ["item", "model", "condition", "answer", "label"]
    assert df["model"].nunique() == 3 and df["condition"].nunique() == 2
    assert len(df) == 240
    assert DATASETS[NAME].family_of("judge-a") == "judge"
    assert DATASETS[NAME].registry is None and DATASETS[NAME].is_available()


def test_the_toy_dataset_is_in_ensel_datasets_list(toy: tuple[Path, set[str]],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from ensel.cli import main

    assert main(["datasets", "list"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith(NAME))
    assert "toy LLM judges" in line and "real" in line
    assert main(["datasets", "list", "--json"]) == 0
    assert '"name": "toy_judges"' in capsys.readouterr().out


def test_the_toy_dataset_gets_its_runs_without_editing_runs_yml(
        toy: tuple[Path, set[str]]) -> None:
    from ensel.book.runner import load_runs

    mine = {r.output: r for r in load_runs() if r.parameters.get("dataset") == NAME}
    assert sorted(mine) == ["experiments-toy_judges", "realdata_card-toy_judges"]
    assert mine["experiments-toy_judges"].title == "Experiments: Toy judges"
    assert mine["experiments-toy_judges"].requires_data == ("{dataset}",)


def test_the_regenerated_toc_lists_its_pages_beside_the_other_real_datasets(
        toy: tuple[Path, set[str]]) -> None:
    from ensel.book.runner import load_runs, toc_files, toc_problems

    copy, _ = toy
    runs = load_runs()
    assert toc_problems(runs, copy / "_toc.yml") == []
    # the repository's own table of contents misses them: make book writes them
    assert sorted(toc_problems(runs, ROOT / "_toc.yml")) == [
        f"_toc.yml does not list the page of run '{page}-{NAME}' (notebook '{page}', dataset "
        f"'{NAME}'): add '- file: book/_generated/{page}-{NAME}'"
        for page in ("experiments", "realdata_card")]
    files = toc_files(copy / "_toc.yml")
    old = toc_files(ROOT / "_toc.yml")
    gen = "book/_generated/"
    assert files.index(f"{gen}experiments-{NAME}") == files.index(f"{gen}experiments-llmbar") + 1
    assert files.index(f"{gen}realdata_card-{NAME}") == \
        files.index(f"{gen}realdata_card-llmbar") + 1
    assert [f for f in files if NAME not in f] == old  # nothing else moved


def test_the_toy_dataset_is_a_source_of_the_report(toy: tuple[Path, set[str]]) -> None:
    from ensel.book import profiles, protocol

    assert protocol.report_sources()[-1] == NAME
    assert profiles.is_real(NAME) and profiles.label(NAME) == "Toy judges"


def test_the_parametrised_tests_pick_it_up(toy: tuple[Path, set[str]]) -> None:
    """The tests over the declared datasets, run on the copy (its runs and table of contents)
    with its declaration registered before collection (a plugin), gain the toy's cases, and
    they pass."""
    copy, _ = toy
    (copy / "toy_plugin.py").write_text(PLUGIN, encoding="utf-8")
    env = {**os.environ, "ENSEL_REPO_ROOT": str(copy), "PYTHONPATH": os.pathsep.join(
        [str(copy), str(copy / "toy"), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-q", "-rA",
         "-p", "toy_plugin", "-k", NAME, "tests/datasets/test_declared_once.py",
         "tests/datasets/test_parquet_round_trip.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    passed = sorted(line.split("::", 1)[1] for line in proc.stdout.splitlines()
                    if line.startswith("PASSED "))
    assert passed == [
        f"test_a_loaded_dataset_saves_to_parquet_and_back[{NAME}]",
        f"test_each_declared_dataset_has_its_loader_pages_and_profile[{NAME}]",
        f"test_each_declared_real_dataset_has_its_registry_and_family[{NAME}]"]


def test_without_it_nothing_lists_it() -> None:
    from ensel.book import protocol
    from ensel.book.runner import load_runs, repo_root, toc_problems

    assert NAME not in DATASETS and NAME not in protocol.report_sources()
    assert not [r for r in load_runs() if r.parameters.get("dataset") == NAME]
    assert toc_problems(load_runs(), repo_root() / "_toc.yml") == []


def test_a_bad_declaration_is_refused(tmp_path: Path) -> None:
    from ensel._errors import ConfigError

    with pytest.raises(ValueError, match="already declared"):
        register_dataset(DATASETS["llmbar"])
    with pytest.raises(ValueError, match="kind must be"):
        register_dataset(DatasetSpec("toy2", "fake", "x", "m:f"))
    with pytest.raises(ValueError, match="loader must be 'module:function'"):
        register_dataset(DatasetSpec("toy2", "real", "x", "no_colon"))
    bad = tmp_path / "datasets.yml"
    bad.write_text("datasets:\n  toy2:\n    kind: real\n    label: Toy\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"datasets\.yml: dataset 'toy2': needs a one-line "
                                          "description"):
        read_specs(bad)
    bad.write_text("datasets:\n  toy2:\n    kind: real\n    description: t\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="dataset 'toy2': loader must be 'module:function', "
                                          "got ''"):
        read_specs(bad)


def test_a_new_kind_of_page_needs_its_first_place_in_the_toc(tmp_path: Path) -> None:
    from ensel._errors import ConfigError
    from ensel.book.runner import load_runs, toc_text

    toc = tmp_path / "_toc.yml"
    toc.write_text("\n".join(ln for ln in (ROOT / "_toc.yml").read_text().splitlines()
                             if "realdata_card-" not in ln) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="_toc.yml has no page of notebook 'realdata_card' on "
                                          "a real dataset, so the page of run "
                                          "'realdata_card-mmlu_redux' has no place yet"):
        toc_text(load_runs(), toc)
