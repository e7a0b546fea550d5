"""A loaded table saves to Parquet and reads back the same: ``df.attrs`` holds JSON values only
(pandas writes the attrs into the file's metadata as JSON), for every declared dataset (the
stand-ins at a small size, the real ones from the shared mirror) and for the importers' tables.
A table's companions that are tables themselves (MMLU-Redux's questions and the letters each
model chose) are in :func:`ensel.datasets.mmlu_redux.binary_view`."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ensel.datasets import DATASETS, load
from tests.conftest import REPO, require_mirror


def _round_trip(df: pd.DataFrame, path: Path) -> None:
    json.dumps(df.attrs)  # JSON values only (raises TypeError otherwise)
    df.to_parquet(path)
    back = pd.read_parquet(path)
    pd.testing.assert_frame_equal(back, df)
    assert back.attrs == json.loads(json.dumps(df.attrs))  # tuples come back as lists


@pytest.mark.parametrize("name", list(DATASETS))
def test_a_loaded_dataset_saves_to_parquet_and_back(name: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    spec = DATASETS[name]
    options = {}
    if spec.kind == "stand-in":
        options = {"n_items": 300, "cache": False}
    elif spec.upstream is not None:  # downloaded: from the mirror, converted afresh
        monkeypatch.setenv("ENSEL_DATA_MIRROR", str(require_mirror(spec.upstream)))
        monkeypatch.setenv("ENSEL_DATA_DIR", str(tmp_path / "cache"))
    df = load(name, **options)
    assert len(df) > 0
    _round_trip(df, tmp_path / f"{name}.parquet")


@pytest.mark.parametrize("path, fmt", [
    ("wide_binary.csv", "wide"),
    ("lm_eval", "lm-eval"),
])
def test_an_imported_table_saves_to_parquet_and_back(path: str, fmt: str,
                                                     tmp_path: Path) -> None:
    src = REPO / "tests" / "data" / path
    files = sorted(src.rglob("samples_*.jsonl")) if src.is_dir() else src
    df = load(files, format=fmt)
    _round_trip(df, tmp_path / "t.parquet")
    _round_trip(load(tmp_path / "t.parquet"), tmp_path / "again.parquet")


def test_mmlu_reduxs_tables_are_in_its_view(monkeypatch: pytest.MonkeyPatch) -> None:
    from ensel.datasets import mmlu_redux

    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(require_mirror(DATASETS["mmlu_redux"].upstream)))
    df = load("mmlu_redux", subjects=["anatomy", "virology"])
    assert set(df.attrs) == {"dropped", "options"}
    view = mmlu_redux.binary_view(**df.attrs["options"])
    pd.testing.assert_frame_equal(view.tidy, df)
    assert view.dropped == df.attrs["dropped"] and view.dropped["kept"] == len(view.questions)
    assert list(view.questions.columns) == ["subject", "row", "gold", "error", "name"]
    assert set(view.questions["subject"]) == {"anatomy", "virology"}
    assert len(view.predictions) == len(view.questions) * df["model"].nunique()
    # the page that reads the letters gets them from the view, for the table it loaded
    from ensel.book.modelling import source_view

    src = source_view("mmlu_redux", df)
    pd.testing.assert_frame_equal(src.predictions, view.predictions)
    # load() hands out a copy: changing it leaves the view alone
    df.loc[df.index[0], "answer"] = 0 if df["answer"].iloc[0] != 0 else 1
    assert not view.tidy.equals(df)
