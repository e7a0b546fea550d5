"""The one answer encoding rule: every encoding and container gives the same table and picks."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest

import ensel.datasets
from ensel._validation import check_X
from ensel.data import read_responses, to_wide, validate_responses
from ensel.select import greedy_mi, top_k

RNG = np.random.default_rng(7)
N, M = 40, 4
Y = np.where(RNG.random(N) < 0.5, 1, -1).astype(np.int8)
# model 0 is good but abstains a lot (reading its 0s as False would sink it), model 3 never
# says -1 (a +1/0 column: the case where per-column and whole-table rules disagreed)
X_FULL = np.where(RNG.random((N, M)) < [0.85, 0.7, 0.65, 0.6], Y[:, None], -Y[:, None])
X_FULL = X_FULL.astype(np.int8)
X_ABST = X_FULL.copy()
X_ABST[RNG.random(N) < 0.35, 0] = 0
X_ABST[:, 3] = np.where(X_FULL[:, 3] == 1, 1, 0)  # +1 or abstained
MODELS = ["m0", "m1", "m2", "m3"]


def _tidy(X: np.ndarray, encode) -> pd.DataFrame:
    items = [f"q{i:02d}" for i in range(N)]
    return pd.DataFrame({
        "item": np.repeat(items, M),
        "model": np.tile(MODELS, N),
        "answer": [encode(v) for v in X.ravel()],
        "label": np.repeat(Y, M),
    })


ENCODINGS = {
    "+1/-1, blank": lambda v: {1: 1, -1: -1, 0: None}[int(v)],
    "True/False, blank": lambda v: {1: "True", -1: "false", 0: ""}[int(v)],
    "+1/0/-1": lambda v: int(v),
}


def _write(df: pd.DataFrame, path) -> None:
    if str(path).endswith(".parquet"):
        df.to_parquet(path, index=False)
    else:
        df.to_csv(path, index=False)


def _plain(df: pd.DataFrame) -> pd.DataFrame:
    """Names as plain text (files give categoricals of text, frames keep their type)."""
    return df.astype({c: str for c in ("item", "model", "condition")})


def _picks(X, y) -> tuple[list[int], list[int]]:
    return top_k(X, y, 2), greedy_mi(X, y, 3)


@pytest.mark.parametrize("X", [X_ABST, X_FULL], ids=["abstentions", "no-abstentions"])
def test_every_encoding_and_container_gives_the_same_table_and_picks(tmp_path, X):
    reference = validate_responses(_tidy(X, int))
    ref_picks = _picks(*to_wide(reference))
    encodings = dict(ENCODINGS)
    if not (X == 0).any():
        encodings["1/0 (whole table)"] = lambda v: 1 if v == 1 else 0
        encodings["True/False bool"] = lambda v: bool(v == 1)
    seen = 0
    for enc_name, encode in encodings.items():
        raw = _tidy(X, encode)
        tables = {"pandas": validate_responses(raw)}
        for suffix in (".csv", ".parquet", ".csv.gz"):
            path = tmp_path / f"{enc_name.replace('/', '_').replace(' ', '_')}{suffix}"
            if suffix == ".parquet" and raw["answer"].map(type).nunique() > 1:
                raw_pq = raw.assign(answer=raw["answer"].astype(object).where(
                    raw["answer"].notna(), None).astype("string"))
                _write(raw_pq, path)
            else:
                _write(raw, path)
            tables[suffix] = read_responses(path)
            tables[f"load {suffix}"] = ensel.datasets.load(path)
        for where, table in tables.items():
            pd.testing.assert_frame_equal(
                _plain(table[list(reference.columns)]), _plain(reference), check_dtype=False,
                obj=f"{enc_name} via {where}")
            assert _picks(*to_wide(table)) == ref_picks, (enc_name, where)
            seen += 1
        # the same answers as a wide pandas DataFrame and as a numpy array
        wide = raw.pivot(index="item", columns="model", values="answer")[MODELS]
        np.testing.assert_array_equal(check_X(wide), X)
        assert _picks(wide, Y) == ref_picks
        if enc_name != "True/False, blank":
            numeric = wide.astype(float).to_numpy()
            np.testing.assert_array_equal(check_X(numeric), X)
            assert _picks(numeric, Y) == ref_picks
    assert seen >= 3 * 7


def test_numpy_and_pandas_agree_on_a_plus_one_zero_column():
    X = X_ABST.copy()
    assert set(np.unique(X[:, 3])) == {0, 1} and (X == -1).any()
    assert top_k(X, Y, 1) == top_k(pd.DataFrame(X), Y, 1)
    np.testing.assert_array_equal(check_X(pd.DataFrame(X)), check_X(X))
    np.testing.assert_array_equal(check_X(pd.DataFrame(X)), X)  # 0 = abstained everywhere


def test_zero_one_table_is_read_as_false_true_with_a_notice(tmp_path, caplog):
    raw = _tidy(X_FULL, lambda v: 1 if v == 1 else 0)
    path = tmp_path / "zero_one.csv"
    raw.to_csv(path, index=False)
    with caplog.at_level(logging.WARNING, logger="ensel"):
        df = read_responses(path)
    assert (df["answer"] == 0).sum() == 0
    assert df.attrs["encoding"]["answer"] == "1/0 (read as True/False)"
    lines = [r.getMessage() for r in caplog.records if r.name == "ensel"]
    assert lines == [f"ensel: {path}: the answers hold only 0 and 1 (no blank, no -1): "
                     "read 1 as True (+1), 0 as False (-1)"]
    assert "Warning" not in lines[0]  # the book's runner fails on printed "Warning"
    # a {-1, +1} table makes no notice
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="ensel"):
        assert validate_responses(_tidy(X_FULL, int)).attrs["encoding"]["answer"] == "+1/-1"
    assert not caplog.records


def test_zero_one_with_blanks_is_refused_everywhere(tmp_path):
    raw = _tidy(X_ABST, lambda v: {1: 1, -1: 0, 0: None}[int(v)])
    first_blank = int(np.argmax(raw["answer"].isna()))
    msg = r"uses 1/0 and has a blank cell .*0 could mean False or abstained; encode answers as"
    with pytest.raises(ValueError, match=msg + ".*") as e:
        validate_responses(raw)
    assert f"in row {first_blank}" in str(e.value)
    path = tmp_path / "blanks.csv"
    raw.to_csv(path, index=False)
    with pytest.raises(ValueError, match=msg) as e:
        read_responses(path)
    assert f"line {first_blank + 2} of {path}" in str(e.value)  # header = line 1
    pq = tmp_path / "blanks.parquet"
    raw.assign(answer=raw["answer"].astype("Int8")).to_parquet(pq, index=False)
    with pytest.raises(ValueError, match=msg):
        read_responses(pq)
    wide = raw.pivot(index="item", columns="model", values="answer")[MODELS]
    for X in (wide, wide.to_numpy(dtype=float)):
        with pytest.raises(ValueError, match=msg):
            top_k(X, Y, 1)


def test_true_false_mixed_with_zero_is_refused():
    raw = _tidy(X_ABST, lambda v: {1: "True", -1: "False", 0: "0"}[int(v)])
    with pytest.raises(ValueError, match=r"mixes True/False with 0 \(first 0 in row \d+\), so 0 "
                                         r"could mean False or abstained"):
        validate_responses(raw)
    mixed = pd.DataFrame({"a": [True, False, True], "b": [-1, 0, 1]})
    with pytest.raises(ValueError, match=r"X mixes True/False with 0 \(first 0 in column 'b', "
                                         r"row 1\)"):
        check_X(mixed)


def test_labels_follow_the_rule_without_abstentions():
    df = _tidy(X_FULL, int)
    out = validate_responses(df.assign(label=np.where(df["label"] == 1, 1, 0)))
    pd.testing.assert_series_equal(out["label"], validate_responses(df)["label"])
    zero = np.where(df["item"] == "q00", 0, df["label"])
    with pytest.raises(ValueError, match=r"column 'label' has value 0 in row \d+ but also -1"):
        validate_responses(df.assign(label=zero.astype(np.int64)))
    # ensel's own encoded form (int8 with a -1): 0 = no gold for that item, not an error
    gaps = validate_responses(df.assign(label=zero.astype(np.int8)))
    assert (gaps.loc[gaps["item"] == "q00", "label"] == 0).all()
    # an int8 column of 0 and 1 only is read by the rule: 0 = False, never "no gold"
    ones = validate_responses(df.assign(label=(df["label"] == 1).astype(np.int8)))
    pd.testing.assert_series_equal(ones["label"], validate_responses(df)["label"])


def test_csv_line_numbers_match_the_file(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("item,model,answer,label\n1,a,1,1\n1,b,-1,1\n2,a,maybe,-1\n2,b,1,-1\n")
    with pytest.raises(ValueError,
                       match=r"column 'answer' has value 'maybe' in line 4 of .*bad.csv"):
        read_responses(path)
    dup = tmp_path / "dup.csv"
    dup.write_text("item,model,answer,label\n1,a,1,1\n1,b,-1,1\n1,a,1,1\n")
    with pytest.raises(ValueError, match=r"appears more than once \(line 2 of .*dup.csv "
                                         r"and line 4 of .*dup.csv\)"):
        read_responses(dup)
    miss = tmp_path / "miss.csv"
    miss.write_text("item,model,answer,label\n1,a,1,1\n1,,-1,1\n")
    with pytest.raises(ValueError, match=r"column 'model' has a missing value in line 3 of"):
        read_responses(miss)


# --------------------------------------------------------------------------- paths, messages
def test_directory_is_said_to_be_a_directory(tmp_path):
    folder = tmp_path / "answers.csv"
    folder.mkdir()
    with pytest.raises(IsADirectoryError, match="is a directory, not a file"):
        read_responses(folder)
    with pytest.raises(IsADirectoryError, match="is a directory"):
        ensel.datasets.load(str(folder))


def test_not_utf8_and_gzip_named_csv(tmp_path):
    latin = tmp_path / "latin.csv"
    latin.write_bytes("item,model,answer,label\nq\xe9,a,1,1\nq\xe9,b,1,1\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin.csv, line 2: not UTF-8 text; save it as UTF-8"):
        read_responses(latin)
    import gzip

    gz = tmp_path / "packed.csv"
    gz.write_bytes(gzip.compress(b"item,model,answer,label\n1,a,1,1\n1,b,1,1\n"))
    assert len(read_responses(gz)) == 2  # the content decides: read as gzip
    good = tmp_path / "packed.csv.gz"
    good.write_bytes(gz.read_bytes())
    assert len(read_responses(good)) == 2


def test_needs_at_least_two_models(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("item,model,answer,label\n1,a,1,1\n2,a,-1,-1\n")
    with pytest.raises(ValueError, match=r"'.*one.csv' needs at least 2 models to select an "
                                         r"ensemble from; it has 1: 'a'"):
        ensel.datasets.load(str(path))


def test_relative_paths_are_taken_from_the_current_folder(tmp_path, monkeypatch):
    sub = tmp_path / "work"
    sub.mkdir()
    (sub / "mine.csv").write_text("item,model,answer,label\n1,a,1,1\n1,b,-1,1\n")
    monkeypatch.chdir(sub)
    assert len(ensel.datasets.load("mine.csv")) == 2
    assert len(read_responses("mine.csv")) == 2
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"does not exist \(relative to the current "
                                                r"folder .*\)"):
        read_responses("mine.csv")


def test_validated_answers_and_their_slices_are_never_reread() -> None:
    import numpy as np

    from ensel._validation import check_X
    from ensel.aggregate import MAPAggregator

    X = check_X(np.array([[1, -1], [0, 1], [1, 0], [0, -1]]))
    # column 0 holds only +1 and 0 (abstained): a slice must keep the abstentions
    assert check_X(X[:, [0]]).tolist() == [[1], [0], [1], [0]]
    assert (check_X(X) == X).all()
    y = np.array([1, 1, -1, -1])
    map_rule = MAPAggregator().fit(X[:, [0]], y)
    assert map_rule.predict(X[:, [0]]).tolist() == map_rule.predict(
        pd.DataFrame(X[:, [0]])).tolist()
