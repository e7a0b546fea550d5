"""A new real dataset is one declaration: a toy one (one spec, one loader, one fixture file in
its upstream format under ``tests/data/toy_judges/``), registered at run time with
``ensel.datasets.register_dataset``, shows up in ``ensel datasets list``, in the book's runs
(no edit of ``notebooks/runs.yml``) and in the reproduction report's sources."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from ensel.datasets import DATASETS, DatasetSpec, load, register_dataset, unregister_dataset

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "toy_judges" / "judgements.csv"
NAME = "toy_judges"


def load_toy() -> pd.DataFrame:
    """The loader: one row per (pair, judge, prompting) with the judge's preferred output (1 or
    2) and the verified one, as the tidy table (``+1`` = output 1 is the better)."""
    raw = pd.read_csv(FIXTURE)
    sign = {1: 1, 2: -1}
    return pd.DataFrame({"item": raw["pair_id"], "model": raw["judge"],
                         "condition": raw["prompting"], "answer": raw["preferred"].map(sign),
                         "label": raw["gold"].map(sign)})


def family(model: str) -> str:
    return model.split("-", 1)[0]


SPEC = DatasetSpec(NAME, "real", "toy LLM judges choosing the better of two outputs (a test)",
                   f"{__name__}:load_toy", ("experiments", "realdata_card"),
                   family=f"{__name__}:family",
                   profile_data={"label": "Toy judges", "kind": "real", "queries": "native"})


@pytest.fixture
def toy() -> Iterator[DatasetSpec]:
    register_dataset(SPEC)
    try:
        yield SPEC
    finally:
        unregister_dataset(NAME)
    assert NAME not in DATASETS


def test_the_toy_dataset_loads_by_name(toy: DatasetSpec) -> None:
    df = load(NAME)
    assert list(df.columns[:5]) == ["item", "model", "condition", "answer", "label"]
    assert df["model"].nunique() == 3 and df["condition"].nunique() == 2
    assert len(df) == 240
    assert toy.family_of("judge-a") == "judge"


def test_the_toy_dataset_is_in_ensel_datasets_list(toy: DatasetSpec,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from ensel.cli import main

    assert main(["datasets", "list"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith(NAME))
    assert "toy LLM judges" in line and "real" in line
    assert main(["datasets", "list", "--json"]) == 0
    assert '"name": "toy_judges"' in capsys.readouterr().out


def test_the_toy_dataset_gets_its_runs_without_editing_runs_yml(toy: DatasetSpec) -> None:
    from ensel.book.runner import load_runs

    mine = {r.output: r for r in load_runs() if r.parameters.get("dataset") == NAME}
    assert sorted(mine) == ["experiments-toy_judges", "realdata_card-toy_judges"]
    assert mine["experiments-toy_judges"].title == "Experiments: Toy judges"
    assert mine["experiments-toy_judges"].requires_data == ("{dataset}",)


def test_its_pages_must_be_in_the_table_of_contents(toy: DatasetSpec) -> None:
    """The one file a dataset with pages adds by hand beyond its declaration: the book's
    ``_toc.yml`` must list the pages its runs write (the toy's are not listed, so the
    repository's own check, ``tests/book/test_runner.py``, would fail with these lines)."""
    from ensel.book.runner import load_runs, repo_root, toc_problems

    problems = toc_problems(load_runs(), repo_root() / "_toc.yml")
    assert sorted(problems) == [
        f"_toc.yml does not list the page of run '{page}-{NAME}' (notebook '{page}', dataset "
        f"'{NAME}'): add '- file: book/_generated/{page}-{NAME}'"
        for page in ("experiments", "realdata_card")]


def test_the_toy_dataset_is_a_source_of_the_report(toy: DatasetSpec) -> None:
    from ensel.book import profiles, protocol

    assert protocol.report_sources()[-1] == NAME
    assert profiles.is_real(NAME) and profiles.label(NAME) == "Toy judges"


def test_without_it_nothing_lists_it() -> None:
    from ensel.book import protocol
    from ensel.book.runner import load_runs, repo_root, toc_problems

    assert NAME not in DATASETS and NAME not in protocol.report_sources()
    assert not [r for r in load_runs() if r.parameters.get("dataset") == NAME]
    assert toc_problems(load_runs(), repo_root() / "_toc.yml") == []


def test_a_bad_declaration_is_refused() -> None:
    with pytest.raises(ValueError, match="already declared"):
        register_dataset(DATASETS["llmbar"])
    with pytest.raises(ValueError, match="kind must be"):
        register_dataset(DatasetSpec("toy2", "fake", "x", "m:f"))
    with pytest.raises(ValueError, match="loader must be 'module:function'"):
        register_dataset(DatasetSpec("toy2", "real", "x", "no_colon"))
