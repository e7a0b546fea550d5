"""The tidy answer table: validation, wide/long conversion, file reading."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ensel.datasets
from ensel.data import (
    COLUMNS,
    Responses,
    conditions,
    read_responses,
    to_long,
    to_wide,
    validate_responses,
)


def _table() -> pd.DataFrame:
    return pd.DataFrame({
        "item": ["q1", "q1", "q2", "q2", "q1", "q1", "q2", "q2"],
        "model": ["a", "b", "a", "b", "a", "b", "a", "b"],
        "condition": ["c1"] * 4 + ["c2"] * 4,
        "answer": [1, -1, 0, 1, 1, 1, -1, -1],
        "label": [1, 1, -1, -1, 1, 1, -1, -1],
    })


def test_validate_normalises_encodings_without_touching_input():
    df = pd.DataFrame({
        "item": [1, 1, 2, 2], "model": ["a", "b", "a", "b"],
        "answer": ["True", "FALSE", "", None], "label": [True, True, False, False],
        "note": ["x", "y", "z", "w"],
    })
    before = df.copy()
    out = validate_responses(df)
    pd.testing.assert_frame_equal(df, before)
    assert list(out.columns) == [*COLUMNS, "note"]
    assert out["answer"].tolist() == [1, -1, 0, 0]
    assert out["label"].tolist() == [1, 1, -1, -1]
    assert out["answer"].dtype == np.int8 and out["label"].dtype == np.int8
    assert set(out["condition"]) == {"all"}  # default condition


def test_validate_zero_one_columns():
    df = pd.DataFrame({"item": [1, 2], "model": ["a", "a"], "answer": [0, 1], "label": [1, 0]})
    out = validate_responses(df)
    assert out["answer"].tolist() == [-1, 1]  # a {0, 1} column is read as False/True
    assert out["label"].tolist() == [1, -1]
    df = pd.DataFrame({"item": [1, 2, 3], "model": ["a"] * 3, "answer": [-1, 0, 1],
                       "label": [1, 1, 1]})
    assert validate_responses(df)["answer"].tolist() == [-1, 0, 1]  # 0 = abstained


def test_validate_error_messages():
    df = _table()
    with pytest.raises(ValueError, match="missing the column 'label'"):
        validate_responses(df.drop(columns="label"))
    with pytest.raises(ValueError, match="missing the column 'item'"):
        validate_responses(df.drop(columns="item"))
    with pytest.raises(ValueError, match=r"column 'answer' has value 2 in row 3"):
        validate_responses(df.assign(answer=[1, -1, 0, 2, 1, 1, -1, -1]))
    with pytest.raises(ValueError, match=r"column 'answer' has value 'maybe' in row 0"):
        validate_responses(df.assign(answer=["maybe"] + ["True"] * 7))
    # a blank label is no gold for the item (issue 40): blank on some rows of an item only
    # is a conflict, named with its rows
    with pytest.raises(ValueError, match=r"conflicting labels \(\+1 and blank\).* row 0, "
                                         r"blank in row 1"):
        validate_responses(df.assign(label=[1.0, np.nan, -1, -1, 1, 1, -1, -1]))
    with pytest.raises(ValueError, match=r"conflicting labels \(blank and -1\).*blank in "
                                         r"row 2, -1 in row 3"):
        validate_responses(df.assign(label=["True", "True", None, "False"] * 2))
    dup = pd.concat([df, df.iloc[[5]]], ignore_index=True)
    with pytest.raises(ValueError, match="condition 'c2', item 'q1', model 'b' appears more"):
        validate_responses(dup)
    with pytest.raises(ValueError, match="item 'q2' has conflicting labels .* condition 'c1'"):
        validate_responses(df.assign(label=[1, 1, -1, 1, 1, 1, -1, -1]))
    with pytest.raises(ValueError, match="column 'model' has a missing value in row 1"):
        validate_responses(df.assign(model=["a", None, "a", "b"] * 2))
    with pytest.raises(ValueError, match="must be a pandas DataFrame"):
        validate_responses(df.to_numpy())
    with pytest.raises(ValueError, match="no rows"):
        validate_responses(df.iloc[:0])


def test_labels_may_differ_across_conditions_but_not_within():
    df = _table()
    df.loc[df["condition"] == "c2", "label"] *= -1  # different label in another condition: ok
    validate_responses(df)


def test_to_wide_and_missing_answers_become_abstentions():
    df = _table().drop(index=[1])  # model b gives no answer to q1 in c1
    X, y = to_wide(df, "c1")
    assert X.dtypes.eq(np.int8).all() and y.dtype == np.int8
    assert list(X.index) == ["q1", "q2"] and list(X.columns) == ["a", "b"]
    assert X.to_numpy().tolist() == [[1, 0], [0, 1]]
    assert y.tolist() == [1, -1]
    X2, _ = to_wide(df, "c2")
    assert X2.to_numpy().tolist() == [[1, 1], [-1, -1]]


def test_to_wide_condition_errors():
    df = _table()
    with pytest.raises(ValueError, match="has 2 conditions"):
        to_wide(df)
    with pytest.raises(ValueError, match="unknown condition 'c3'"):
        to_wide(df, "c3")
    single = df[df["condition"] == "c1"].drop(columns="condition")
    X, _ = to_wide(single)
    assert X.shape == (2, 2)


def test_conditions_order():
    df = _table()
    assert conditions(df) == ["c1", "c2"]
    df["condition"] = pd.Categorical(df["condition"], categories=["c2", "c1", "c0"])
    assert conditions(df) == ["c2", "c1"]
    assert conditions(df.drop(columns="condition")) == ["all"]


@settings(deadline=None, max_examples=40)
@given(
    X=hnp.arrays(np.int8, st.tuples(st.integers(1, 12), st.integers(1, 6)),
                 elements=st.sampled_from([-1, 0, 1])),
    data=st.data(),
)
def test_wide_long_round_trip(X, data):
    y = data.draw(hnp.arrays(np.int8, X.shape[0], elements=st.sampled_from([-1, 1])))
    long = to_long(X, y, condition="c")
    assert len(long) == X.size
    # an int8 matrix is already in the encoded form (0 = abstained), whatever it holds
    expected = X
    Xw, yw = to_wide(long, "c", validate=False)
    np.testing.assert_array_equal(Xw.to_numpy(), expected)
    np.testing.assert_array_equal(yw.to_numpy(), y)
    pd.testing.assert_frame_equal(to_long(Xw, yw, condition="c"), long)
    if not X.any():  # every answer blank: refused, nothing to select from
        with pytest.raises(ValueError, match="every answer is blank"):
            to_wide(long, "c")
        return
    Xv, yv = to_wide(long, "c")
    np.testing.assert_array_equal(Xv.to_numpy(), expected)
    np.testing.assert_array_equal(yv.to_numpy(), y)


def test_to_long_names_and_errors():
    X = pd.DataFrame([[1, -1], [0, 1]], index=["i1", "i2"], columns=["gpt", "llama"])
    long = to_long(X, [1, -1])
    assert long["model"].tolist() == ["gpt", "llama", "gpt", "llama"]
    assert long["item"].tolist() == ["i1", "i1", "i2", "i2"]
    assert long["answer"].tolist() == [1, -1, 0, 1]
    with pytest.raises(ValueError, match="models has 3 names but X has 2 columns"):
        to_long(X.to_numpy(), [1, -1], models=["a", "b", "c"])
    with pytest.raises(ValueError, match="y has 3 labels but X has 2 rows"):
        to_long(X, [1, -1, 1])
    with pytest.raises(ValueError, match="model name 'a' appears more than once"):
        to_long(X.to_numpy(), [1, -1], models=["a", "a"])


def test_responses_dataclass():
    r = Responses.from_frame(_table(), "c2")
    assert (r.n_items, r.n_models, r.condition) == (2, 2, "c2")
    assert r.models == ["a", "b"] and r.items == ["q1", "q2"]
    back = validate_responses(r.to_frame())
    expected = validate_responses(_table()).query("condition == 'c2'").reset_index(drop=True)
    pd.testing.assert_frame_equal(back, expected, check_dtype=False)


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".csv.gz"])
def test_read_responses_round_trip(tmp_path, suffix):
    df = _table()
    path = tmp_path / f"answers{suffix}"
    if suffix == ".parquet":
        df.to_parquet(path)
    else:
        df.to_csv(path, index=False)
    out = read_responses(path)
    assert all(out[c].dtype == "category" for c in ("item", "model", "condition"))
    names = {c: str for c in ("item", "model", "condition")}
    pd.testing.assert_frame_equal(out.astype(names), validate_responses(df).astype(names),
                                  check_dtype=False)
    via_load = ensel.datasets.load(str(path))
    pd.testing.assert_frame_equal(via_load, out)


def test_read_responses_csv_with_blank_abstentions(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("item,model,answer,label\n1,m1,True,True\n1,m2,,True\n2,m1,false,False\n")
    out = read_responses(path)
    assert out["answer"].tolist() == [1, 0, -1]
    assert out["label"].tolist() == [1, 1, -1]


def test_read_responses_errors(tmp_path):
    with pytest.raises(ValueError, match="unsupported file type"):
        read_responses(tmp_path / "answers.json")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_responses(tmp_path / "nope.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("item,model,answer\n1,a,1\n")
    with pytest.raises(ValueError, match="missing the column 'label'"):
        read_responses(bad)


@settings(deadline=None, max_examples=25)
@given(seed=st.integers(0, 2**16), n=st.integers(2, 9), m=st.integers(2, 5))
def test_sorted_wide_form_does_not_depend_on_row_order(seed, n, m):
    rng = np.random.default_rng(seed)
    X = rng.choice(np.array([-1, 0, 1], dtype=np.int8), size=(n, m))
    X[0, 0] = 1  # never all blank
    y = rng.choice(np.array([-1, 1], dtype=np.int8), size=n)
    long = to_long(X, y, items=[f"i{v}" for v in rng.permutation(n)],
                   models=[f"m{v}" for v in rng.permutation(m)])
    shuffled = long.iloc[rng.permutation(len(long))].reset_index(drop=True)
    a, ya = to_wide(long, sort=True)
    b, yb = to_wide(shuffled, sort=True)
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_series_equal(ya, yb)
    assert list(a.index) == sorted(a.index) and list(a.columns) == sorted(a.columns)
    # the same through a file: categorical codes, same matrix
    c, yc = to_wide(validate_responses(shuffled.astype({"item": "category"})), sort=True)
    np.testing.assert_array_equal(c.to_numpy(), a.to_numpy())
    np.testing.assert_array_equal(yc.to_numpy(), ya.to_numpy())


def test_a_parquet_files_pandas_index_stays_out_of_the_table(tmp_path):
    # the file is read a column at a time (ensel._files._read_parquet): an index pandas
    # wrote as a column is left out, as pandas reading the whole file leaves it out
    df = _table()
    with_index, plain = tmp_path / "i.parquet", tmp_path / "p.parquet"
    df.set_axis(np.arange(len(df)) + 7).to_parquet(with_index)
    df.to_parquet(plain, index=False)
    out = read_responses(with_index)
    assert "__index_level_0__" not in out.columns
    pd.testing.assert_frame_equal(out, read_responses(plain))


def test_file_reader_returns_codes_not_strings(tmp_path):
    df = _table()
    path = tmp_path / "t.parquet"
    df.to_parquet(path, index=False)
    out = read_responses(path)
    for col in ("item", "model", "condition"):
        assert isinstance(out[col].dtype, pd.CategoricalDtype)
        assert all(isinstance(v, str) for v in out[col].cat.categories)
    assert out["answer"].dtype == np.int8 and out["label"].dtype == np.int8
