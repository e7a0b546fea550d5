"""Findings of the session-8 trial: inputs that gave a silent wrong answer or a misleading
message.

- Two model names that differ only in case or surrounding white space (``m1`` and ``m1 ``)
  became two models, each answering part of the items; they are refused, naming both rows.
- An MMLU-Pro record whose gold letter contradicts its ``answer_index`` was read by the index;
  the question is dropped and counted, as the dataset loader does.
- A spreadsheet's trailing empty columns were reported as a column named twice.
- ``import wide`` naming one column as both gold and item reported a duplicate item; a
  repeated ``--options`` value was taken.
- A DataFrame with integer column names (``pd.DataFrame(array)``) could not be transformed
  after fit, and its output names were the integers; as in scikit-learn, only string names
  are feature names.
- ``-`` (standard input) was taken for a dataset name or a missing file; it is said not to
  be read.
"""

from __future__ import annotations

import pandas as pd
import pytest

from ensel._errors import DataError
from ensel.data import validate_responses
from ensel.select import SELECTORS

from .conftest import assert_usage_error, run_cli


@pytest.mark.parametrize("other", ["m1 ", " m1", "M1", "m1\t"])
def test_two_spellings_of_one_model_are_refused(tmp_path, capsys, other) -> None:
    rows = [("q1", "m1", 1, 1), ("q1", "m2", 1, 1), ("q2", other, -1, 1), ("q2", "m2", 1, 1),
            ("q3", "m1", 1, -1), ("q3", "m2", -1, -1)]
    path = tmp_path / "a.csv"
    path.write_text("item,model,answer,label\n"
                    + "".join(f"{i},{m},{a},{y}\n" for i, m, a, y in rows), encoding="utf-8")
    r = run_cli(["select", path, "-k", "1"], capsys)
    assert_usage_error(r, "select", f"'m1' (line 2 of {path})",
                       f"{other!r} (line 4 of {path})", "differ only in case")
    df = pd.DataFrame(rows, columns=["item", "model", "answer", "label"])
    with pytest.raises(DataError, match=r"'m1' \(row 0\).*\(row 2\)"):
        validate_responses(df)


def test_distinct_models_with_a_shared_prefix_are_kept() -> None:
    df = pd.DataFrame({"item": ["q1", "q1", "q1"], "model": ["m1", "m1-large", "m10"],
                       "answer": [1, -1, 1], "label": [1, 1, 1]})
    assert sorted(validate_responses(df)["model"]) == ["m1", "m1-large", "m10"]


def test_an_mmlu_pro_gold_letter_that_contradicts_its_index_drops_the_question(
        tmp_path, caplog) -> None:
    """MMLU-Pro records carry the key twice (``answer`` letter, ``answer_index``); the import
    used the index when they disagreed, silently. It drops the question, as the dataset
    loader does, and says so."""
    import json

    from ensel.datasets.importers import read

    def rec(qid: int, letter: str, index: int) -> dict:
        return {"question_id": qid, "options": ["a", "b", "c", "d"], "answer": letter,
                "answer_index": index, "pred": "A"}

    path = tmp_path / "m" / "biology_result.json"
    path.parent.mkdir()
    path.write_text(json.dumps([rec(1, "A", 0), rec(2, "B", 0), rec(3, "c", 2)]))
    df = read([path])
    assert sorted({i.split(":")[0] for i in df["item"]}) == ["1", "3"]
    assert df.attrs["dropped"]["letter_contradicts_index"] == 1
    assert "dropped 1 of 3 questions (1 whose gold letter (answer) contradicts answer_index)" \
        in caplog.text


def test_trailing_empty_csv_columns_are_named_as_such(tmp_path, capsys) -> None:
    """A spreadsheet's trailing ',,' gave "the header names the column '' twice"."""
    path = tmp_path / "a.csv"
    path.write_text("item,model,answer,label,,\n" + "".join(
        f"q{i},{m},{1 if (i + j) % 3 else -1},{1 if i % 2 else -1},,\n"
        for i in range(8) for j, m in enumerate("ab")), encoding="utf-8")
    r = run_cli(["select", path, "-k", "1"], capsys)
    assert_usage_error(r, "select", f"{path}, line 1: the header has 2 unnamed columns "
                       "(columns 5, 6)", "',,'")


@pytest.mark.parametrize("argv, needle", [
    (["--item", "gold", "--gold", "gold"], "the gold and the item column are both 'gold'"),
    (["--item", "gold"], "the gold and the item column are both 'gold'"),
    (["--options", "A,A,B,C"], "options ['A', 'A', 'B', 'C']: 'A' is given twice"),
])
def test_import_wide_names_one_column_for_two_roles_and_a_repeated_option(
        tmp_path, capsys, argv, needle) -> None:
    """``--item gold --gold gold`` was reported as a duplicate item; a repeated option was
    taken (its queries asked twice)."""
    path = tmp_path / "w.csv"
    path.write_text("item,gold,m1,m2\nq1,A,A,B\nq2,B,B,B\nq3,C,A,C\n", encoding="utf-8")
    r = run_cli(["import", "wide", path, *argv, "-o", tmp_path / "o.csv"], capsys)
    assert_usage_error(r, "import", needle)
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_a_dataframe_with_integer_column_names_works_as_in_scikit_learn(name) -> None:
    """``pd.DataFrame(array)`` has the column names 0, 1, ...: fit kept them as
    ``feature_names_in_`` and ``transform`` of the same frame was then refused ("got ['0',
    '1', '2']"). As in scikit-learn, only string names are feature names; the output
    names are ``x0, x1, ...``."""
    import numpy as np

    X = pd.DataFrame([[1, -1, 1], [-1, 1, 1], [1, 1, -1], [-1, -1, -1], [1, -1, -1],
                      [-1, 1, 1]], index=list("abcdef"))
    y = np.array([1, -1, 1, -1, 1, -1])
    sel = SELECTORS[name](k=2).fit(X, y)
    assert not hasattr(sel, "feature_names_in_")
    names = sel.get_feature_names_out()
    assert list(names) == [f"x{j}" for j in sel.selected_]
    pd.testing.assert_frame_equal(sel.transform(X), X.iloc[:, list(sel.selected_)])
    out = sel.set_output(transform="pandas").transform(X)
    assert list(out.columns) == list(names) and list(out.index) == list("abcdef")


@pytest.mark.parametrize("argv", [["select", "-", "-k", "1"],
                                  ["import", "tidy", "-", "-o", "o.csv"],
                                  ["frontier", "-", "--prices", "shipped"]])
def test_standard_input_is_said_not_to_be_read(tmp_path, capsys, monkeypatch, argv) -> None:
    """``-`` was taken for a dataset name or a missing file."""
    monkeypatch.chdir(tmp_path)
    r = run_cli(argv, capsys)
    assert_usage_error(r, argv[0], "'-' (standard input) is not read: save the answers to a "
                                   "file")


def test_an_unused_category_spelt_like_a_model_is_not_a_second_spelling() -> None:
    """A categorical column keeps the categories a filter removed: only spellings that
    rows use count."""
    df = pd.DataFrame({"item": ["q1", "q1", "q2", "q2", "q3"],
                       "model": pd.Categorical(["m1", "m2", "m1", "m2", "M1"]),
                       "answer": [1, -1, 1, 1, -1], "label": [1, 1, -1, -1, 1]})
    kept = df[df["model"] != "M1"]
    assert "M1" in kept["model"].cat.categories
    assert sorted(validate_responses(kept)["model"].astype(str).unique()) == ["m1", "m2"]
    with pytest.raises(DataError, match=r"'m1' \(row 0\) and 'M1' \(row 4\)"):
        validate_responses(df)


def test_a_number_and_its_text_are_two_model_names_in_a_frame() -> None:
    df = pd.DataFrame({"item": ["q1", "q1"], "model": [1, "1"], "answer": [1, -1],
                       "label": [1, 1]})
    assert len(validate_responses(df)) == 2


@pytest.mark.parametrize("fmt", [None, "tidy"])
def test_any_path_like_object_names_one_file(tmp_path, fmt) -> None:
    """Only str and pathlib.Path were taken as one path: another os.PathLike gave
    "TypeError: 'P' object is not iterable" (found by a typing pass)."""
    from ensel.datasets import load

    class P:
        def __init__(self, path):
            self.path = str(path)

        def __fspath__(self):
            return self.path

    path = tmp_path / "t.csv"
    path.write_text("item,model,answer,label\nq1,a,1,1\nq1,b,-1,1\n", encoding="utf-8")
    assert sorted(load(P(path), format=fmt)["model"].astype(str)) == ["a", "b"]
