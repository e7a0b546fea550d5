"""The User guide's support (ensel.book.guide): the seeded stand-in and the command runner."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ensel.book.guide import FAMILIES, ensel_json, ensel_output, example, workdir
from ensel.datasets import load


def test_example_is_seeded_spelled_as_a_user_would_and_reads_back(tmp_path) -> None:
    answers, prices = example(n_models=5, n_items=50, abstain=0.2, seed=3)
    again, prices_again = example(n_models=5, n_items=50, abstain=0.2, seed=3)
    pd.testing.assert_frame_equal(answers, again)
    pd.testing.assert_frame_equal(prices, prices_again)
    assert not answers.equals(example(n_models=5, n_items=50, abstain=0.2, seed=4)[0])
    assert set(answers["answer"].dropna()) <= {"True", "False"}
    assert answers["answer"].isna().any() and answers["label"].notna().all()
    assert list(prices["model"]) == list(pd.unique(answers["model"]))
    assert (prices["usd_per_query"] > 0).all()
    answers.to_csv(tmp_path / "a.csv", index=False)
    df = load(tmp_path / "a.csv")
    assert int((df["answer"] == 0).sum()) == int(answers["answer"].isna().sum())


def test_example_refuses_more_models_than_its_families_name() -> None:
    with pytest.raises(ValueError, match="n_models"):
        example(n_models=3 * len(FAMILIES) + 1)


def test_commands_run_as_typed_and_fail_the_page_on_a_surprise(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    answers, _ = example(n_models=4, n_items=60)
    answers.to_csv("answers.csv", index=False)
    refused = ensel_output("ensel select missing.csv -k 2", expect=2)
    assert refused.startswith("ensel select: error:") and str(tmp_path) not in refused
    with pytest.raises(RuntimeError, match="exited with 2, not 0"):
        ensel_output("ensel select missing.csv -k 2")
    with pytest.raises(ValueError, match="must start with 'ensel'"):
        ensel_output("python -c 1")
    doc = ensel_json("ensel select answers.csv -k 2 --splits 2 --halvings 0 --json")
    assert doc["schema"] == "ensel.select/2" and doc["k"] == 2


def test_workdir_is_made_current(monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    path = workdir()
    assert path.is_dir() and path.resolve() == Path.cwd().resolve()
