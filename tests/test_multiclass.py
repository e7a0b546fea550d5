"""Multi-class (native) tidy tables: the estimators' codes (``answer_matrix``), the one
binary conversion (``to_binary_view``) and the importers' native views."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ensel.cli import main
from ensel.data import (
    DataError,
    answer_matrix,
    is_native,
    read_responses,
    to_wide,
    validate_responses,
)
from ensel.datasets import load, read_data
from ensel.datasets.binary import item_seed_key, question_key, to_binary_view
from ensel.datasets.importers import read

DATA = Path(__file__).parent / "data"
LM_EVAL = sorted((DATA / "lm_eval").glob("*/samples_*.jsonl"))


def table() -> pd.DataFrame:
    """Two conditions; q2 has 3 options given as labels, q1 four as a count; model c has no
    row for q2 in t1 (an abstention there)."""
    rows = [("q1", "a", "t0", "A", "B", 4), ("q1", "b", "t0", "B", "B", 4),
            ("q1", "c", "t0", "", "B", 4), ("q2", "a", "t0", "yes", "no", "yes|no|maybe"),
            ("q2", "b", "t0", "maybe", "no", "yes|no|maybe"),
            ("q2", "c", "t0", "no", "no", "yes|no|maybe"),
            ("q1", "a", "t1", "D", "B", 4), ("q1", "b", "t1", "B", "B", 4),
            ("q1", "c", "t1", "C", "B", 4), ("q2", "a", "t1", "no", "no", "yes|no|maybe"),
            ("q2", "b", "t1", None, "no", "yes|no|maybe")]
    return pd.DataFrame(rows, columns=["item", "model", "condition", "answer", "label",
                                       "options"])


def test_answer_matrix_codes_gold_and_labels():
    df = validate_responses(table())
    assert is_native(df) and df["options"].iloc[0] == "A|B|C|D"
    m = answer_matrix(df, "t0", validate=False)
    assert m.A.dtype == np.int16 and m.gold.dtype == np.int16
    assert m.A.tolist() == [[0, 1, -1], [0, 2, 1]]
    assert m.gold.tolist() == [1, 1]
    assert m.options == [("A", "B", "C", "D"), ("yes", "no", "maybe")]
    assert m.n_options.tolist() == [4, 3]
    t1 = answer_matrix(df, "t1", validate=False)
    assert t1.A.tolist() == [[3, 1, 2], [1, -1, -1]]  # c has no row for q2: -1
    assert t1.labels().loc["q1"].tolist() == ["D", "B", "C"]
    assert pd.isna(t1.labels().loc["q2", "c"])


def test_answer_matrix_sort_is_order_free():
    df = table()
    a = answer_matrix(df, "t0", sort=True)
    b = answer_matrix(df.iloc[::-1].reset_index(drop=True), "t0", sort=True)
    assert a.A.tolist() == b.A.tolist() and a.items == b.items and a.models == b.models


def test_binary_and_native_readers_refuse_each_other():
    with pytest.raises(DataError, match="multi-class answers.*answer_matrix.*to_binary_view"):
        to_wide(table().query("condition == 't0'"))
    binary = pd.DataFrame({"item": [1, 1], "model": ["a", "b"], "answer": [1, -1],
                           "label": [1, 1]})
    with pytest.raises(DataError, match="this one is binary.*use to_wide"):
        answer_matrix(binary)
    assert to_binary_view(binary)["answer"].tolist() == [1, -1]  # returned as it is


def test_to_binary_view_uses_the_items_labels_and_seed():
    b = to_binary_view(table())
    queries = b[b["condition"] == "t0"].drop_duplicates("item")
    assert queries["item"].tolist()[:1] == ["q1:B"] and queries["label"].tolist() == [1, -1,
                                                                                       1, -1]
    assert queries["item"].iloc[3].split(":")[1] in ("yes", "maybe")  # a wrong option's label
    again = to_binary_view(table())
    pd.testing.assert_frame_equal(b, again)
    other = [to_binary_view(table(), seed=s)["item"].tolist() for s in range(8)]
    assert len({tuple(o) for o in other}) > 1  # the seed draws the wrong option


def test_item_seed_key_rule():
    assert item_seed_key(70) == item_seed_key("70") == 70
    assert item_seed_key("anatomy/12") == question_key("anatomy", 12)
    assert item_seed_key("01") == question_key("01")  # not a canonical number: a name
    assert item_seed_key("q1") == question_key("q1")


@pytest.mark.parametrize("paths, fmt", [
    (LM_EVAL, "lm-eval"),
    ([DATA / "wide_mc.csv"], "wide"),
    ([DATA / "mmlu_pro" / "my-model" / "biology_result.json"], "mmlu-pro"),
])
def test_importers_native_view_and_its_binary_conversion(paths, fmt):
    """Each multiple-choice importer keeps the answers natively; its binary import is the
    one conversion of that native table."""
    native = read(paths, format=fmt, view="native")
    assert is_native(native)
    m = answer_matrix(native, validate=False)
    assert (m.A >= -1).all() and (m.A < m.n_options[:, None]).all()
    binary = read(paths, format=fmt)
    converted = to_binary_view(native, validate=False)
    pd.testing.assert_frame_equal(converted.astype(object).reset_index(drop=True),
                                  binary.astype(object).reset_index(drop=True),
                                  check_dtype=False)


def test_native_tables_round_trip_through_files(tmp_path):
    native = read(LM_EVAL, format="lm-eval", view="native")
    for name in ("n.csv", "n.parquet"):
        out = tmp_path / name
        assert main(["import", "lm-eval", *map(str, LM_EVAL), "--native", "-o", str(out)]) == 0
        back = read_responses(out)
        assert is_native(back)
        a, b = answer_matrix(native, validate=False), answer_matrix(back, validate=False)
        assert a.A.tolist() == b.A.tolist() and a.gold.tolist() == b.gold.tolist()
        assert a.options == b.options
        # --binary reads it as the paper's queries, the same as importing them directly
        assert_same = read_data(str(out), view="binary")
        direct = read(LM_EVAL, format="lm-eval")
        assert assert_same["answer"].tolist() == direct["answer"].tolist()
        assert assert_same["item"].astype(str).tolist() == direct["item"].astype(str).tolist()


def test_select_reads_a_native_file_with_binary(tmp_path, capsys):
    """``ensel select --binary`` on a native file gives what it gives on the binary import."""
    rng = np.random.default_rng(0)
    gold = rng.choice(list("ABCD"), 80)
    right = rng.random((80, 4)) < [0.8, 0.7, 0.6, 0.5]
    cells = np.where(right, gold[:, None], rng.choice(list("ABCD"), (80, 4)))
    src = tmp_path / "wide.csv"
    pd.DataFrame({"item": [f"q{i}" for i in range(80)], "gold": gold,
                  **{f"m{j}": cells[:, j] for j in range(4)}}).to_csv(src, index=False)
    nat, bin_ = tmp_path / "n.parquet", tmp_path / "b.parquet"
    assert main(["import", "wide", str(src), "--native", "-o", str(nat)]) == 0
    assert main(["import", "wide", str(src), "-o", str(bin_)]) == 0
    capsys.readouterr()
    assert main(["select", str(nat), "-k", "2", "--binary", "--json"]) == 0
    a = capsys.readouterr().out
    assert main(["select", str(bin_), "-k", "2", "--json"]) == 0
    b = capsys.readouterr().out
    assert a.replace(str(nat), "DATA") == b.replace(str(bin_), "DATA")


def test_load_views_of_a_standin_are_the_same_table():
    a = load("imdb", n_items=40, cache=False)
    b = load("imdb", n_items=40, cache=False, view="native")
    pd.testing.assert_frame_equal(a, b)
    with pytest.raises(ValueError, match="view"):
        load("imdb", view="multi")


def test_binary_flag_leaves_binary_tables_as_they_are(tmp_path, capsys):
    """``--binary`` on a binary table (and on a dataset name) changes nothing."""
    src = tmp_path / "b.csv"
    load("imdb", n_items=60, cache=False).to_csv(src, index=False)
    outs = []
    for argv in (["select", str(src), "-k", "2", "--json"],
                 ["select", str(src), "-k", "2", "--json", "--binary"]):
        assert main(argv) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1]


def test_option_matrix_round_trip_and_bad_codes():
    m = answer_matrix(table(), "t1")
    back = answer_matrix(m.to_frame())
    assert back.A.tolist() == m.A.tolist() and back.gold.tolist() == m.gold.tolist()
    assert back.options == m.options
    from dataclasses import replace

    with pytest.raises(DataError, match="item 'q2' has a code outside -1..2"):
        replace(m, A=np.array([[3, 1, 2], [3, -1, -1]], np.int16)).to_frame()


def test_answer_matrix_feeds_the_multiclass_aggregators():
    """The codes (and the labels) are the input of ensel.aggregate's multi-class
    aggregators: codes and labels give the same votes."""
    from ensel.aggregate import DawidSkene, PluralityVote

    rng = np.random.default_rng(1)
    gold = rng.integers(0, 4, 300)
    A = np.where(rng.random((300, 5)) < 0.7, gold[:, None], rng.integers(0, 4, (300, 5)))
    A[rng.random((300, 5)) < 0.1] = -1
    m = answer_matrix(_option_matrix(A, gold).to_frame())
    assert m.A.tolist() == A.tolist()
    codes = PluralityVote().fit(m.A, m.gold).predict(m.A)
    labels = m.labels().to_numpy(dtype=object)
    by_label = PluralityVote().fit(labels, [o[g] for o, g in zip(m.options, m.gold,
                                                                 strict=True)]).predict(labels)
    assert [m.options[i][c] for i, c in enumerate(codes)] == list(by_label)
    assert (DawidSkene(random_state=0).fit(m.A).predict(m.A) == gold).mean() > 0.9


def _option_matrix(A, gold):
    from ensel.data import OptionMatrix

    n, k = A.shape
    return OptionMatrix(A.astype(np.int16), gold.astype(np.int16), [tuple("ABCD")] * n,
                        [f"q{i}" for i in range(n)], [f"m{j}" for j in range(k)])
