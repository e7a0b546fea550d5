"""Bad multi-class tables (option labels): every problem is refused naming the item (and the
model, for an answer), the file and line, with exit code 2 from the command line.

Decisions under test: option labels are case-sensitive text, and two labels that differ only
in case (``b`` and ``B``) are refused rather than normalised (a table written all in lower
case is fine); an item has one option set in every row and condition; an item needs 2 to 26
options; blank answers are abstentions, a blank gold is "no gold" (the binary view drops
such items).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ensel.data import DataError, answer_matrix, is_native, read_responses, validate_responses
from ensel.datasets.binary import to_binary_view

from .conftest import assert_usage_error, run_cli

HEADER = "item,model,condition,answer,label,options\n"
#: 4 items x 3 models, one condition; q3 has three options
GOOD = [
    "q1,a,t0,A,A,A|B|C|D", "q1,b,t0,B,A,A|B|C|D", "q1,c,t0,A,A,A|B|C|D",
    "q2,a,t0,C,C,4", "q2,b,t0,C,C,4", "q2,c,t0,,C,4",
    "q3,a,t0,B,A,A|B|C", "q3,b,t0,A,A,A|B|C", "q3,c,t0,C,A,A|B|C",
    "q4,a,t0,D,D,A|B|C|D", "q4,b,t0,D,D,A|B|C|D", "q4,c,t0,A,D,A|B|C|D",
]


def write(tmp_path: Path, rows: list[str], header: str = HEADER) -> Path:
    path = tmp_path / "mc.csv"
    path.write_text(header + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def replace(row: int, text: str) -> list[str]:
    rows = list(GOOD)
    rows[row] = text
    return rows


# (rows, fragments of the one error line): line N = GOOD[N - 2]
CASES = {
    "gold outside the options": (
        [r.replace(",C,4", ",E,4") for r in GOOD],
        ["gold label 'E'", "item 'q2'", "line 5 of", "options 'A|B|C|D'"]),
    "answer outside the options": (
        replace(8, "q3,c,t0,D,A,A|B|C"),
        ["answer 'D' of model 'c' on item 'q3'", "line 10 of", "options 'A|B|C'"]),
    "mixed option sets for one item": (
        replace(1, "q1,b,t0,B,A,A|B|C"),
        ["item 'q1' has two option sets", "'A|B|C|D' in line 2", "'A|B|C' in line 3"]),
    "lower-case answer": (
        replace(4, "q2,b,t0,c,C,4"),
        ["'C'", "'c'", "item 'q2'", "model 'b'", "differ only in case"]),
    "lower-case gold": (
        [r.replace(",D,A|B|C|D", ",d,A|B|C|D") for r in GOOD],
        ["'D'", "'d'", "differ only in case", "item 'q4'"]),
    "an item with one option (count)": (
        [r.replace(",A|B|C", ",1") if r.startswith("q3") else r for r in GOOD],
        ["line 8 of", "an item with one option (1)"]),
    "an item with one option (label)": (
        [r.replace(",A|B|C", ",A") if r.startswith("q3") else r for r in GOOD],
        ["line 8 of", "an item with one option ('A')"]),
    "27 options": (
        [r.replace(",4", ",27") for r in GOOD],
        ["line 5 of", "27 options", "2 to 26"]),
    "an option given twice": (
        replace(0, "q1,a,t0,A,A,A|B|B|D"),
        ["line 2 of", "option 'B' is given twice"]),
    "two gold labels for one item": (
        replace(10, "q4,b,t0,D,C,A|B|C|D"),
        ["item 'q4' has two gold labels", "'D' in line 11", "'C' in line 12"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_multiclass_table_is_refused_naming_item_and_model(tmp_path, capsys, case):
    rows, fragments = CASES[case]
    path = write(tmp_path, rows)
    r = run_cli(["select", path, "-k", "2", "--binary"], capsys)
    assert_usage_error(r, "select", str(path), *fragments)
    with pytest.raises(DataError):  # the library says the same
        read_responses(path)


def test_option_sets_that_differ_by_condition(tmp_path, capsys):
    """The same item in two conditions with two option sets: refused naming both."""
    rows = GOOD + [r.replace(",t0,", ",t1,") for r in GOOD]
    rows[len(GOOD) + 6:len(GOOD) + 9] = [r.replace(",t0,", ",t1,").replace("A|B|C", "4")
                                         for r in GOOD[6:9]]
    path = write(tmp_path, rows)
    r = run_cli(["import", "tidy", path, "-o", tmp_path / "o.parquet"], capsys)
    assert_usage_error(r, "import", "item 'q3' has two option sets", "'A|B|C' in line 8",
                       "(condition 't0')", "'A|B|C|D' in line 20", "(condition 't1')")


def test_inferred_one_option_asks_for_the_options_column(tmp_path, capsys):
    """Without an options column the set is inferred from the labels; one label is refused."""
    text = ["q1,a,B,B", "q1,b,A,B", "q2,a,C,C", "q2,b,C,C"]
    path = write(tmp_path, text, "item,model,answer,label\n")
    assert is_native(read_responses(path))  # letters: A up to the last letter seen
    path = write(tmp_path, ["q1,a,B,B", "q1,b,A,B", "q2,a,yes,yes", "q2,b,yes,yes"],
                 "item,model,answer,label\n")
    r = run_cli(["select", path, "-k", "1", "--binary"], capsys)
    assert_usage_error(r, "select", "item 'q2' has one option ('yes'", "line 4 of",
                       "'options' column")


def test_multiclass_table_without_binary_flag_is_refused_where_binary_is_read(tmp_path,
                                                                             capsys):
    """``ensel evaluate`` and the price paths read the paper's view: a multi-class table
    needs --binary there (``ensel select`` and ``ensel report`` read it as it is)."""
    path = write(tmp_path, GOOD)
    for argv in (["evaluate", path, "-o", tmp_path / "r.html"],
                 ["select", path, "-k", "2", "--budget-usd", "1", "--prices", "shipped"]):
        r = run_cli(argv, capsys)
        assert_usage_error(r, argv[0], str(path), "multi-class", "pass --binary")


def test_good_multiclass_table_reads_and_converts(tmp_path):
    """The positive case: codes, gold, labels; a table all in lower case is accepted (a
    count of options means the capital letters, so its sets are written out)."""
    m = answer_matrix(read_responses(write(tmp_path, GOOD)), validate=False)
    assert m.A.tolist() == [[0, 1, 0], [2, 2, -1], [1, 0, 2], [3, 3, 0]]
    assert m.gold.tolist() == [0, 2, 0, 3]
    assert m.options[2] == ("A", "B", "C") and m.A.dtype.name == "int16"
    lower = [r.replace(",4", ",a|b|c|d").lower() for r in GOOD]
    df = validate_responses(pd.read_csv(write(tmp_path, lower), dtype=str,
                                        keep_default_na=False))
    assert answer_matrix(df, validate=False).A.tolist() == m.A.tolist()
    b = to_binary_view(read_responses(write(tmp_path, GOOD)))
    assert sorted(set(b["answer"])) == [-1, 0, 1] and len(b) == 2 * len(GOOD)


def test_items_without_gold_are_dropped_from_the_binary_view(tmp_path, caplog):
    rows = [r.replace(",C,4", ",,4") if r.startswith("q2") else r for r in GOOD]
    df = read_responses(write(tmp_path, rows))
    assert answer_matrix(df, validate=False).gold.tolist() == [0, -1, 0, 3]
    with caplog.at_level("INFO", logger="ensel"):
        b = to_binary_view(df)
    assert b.attrs["dropped"] == {"no_gold": 1} and not b["item"].str.startswith("q2").any()
    assert "1 item(s) without a gold label" in caplog.text


def test_importers_read_lower_case_letters_as_capitals_with_a_note(tmp_path, capsys, caplog):
    """The wide and MMLU-Pro formats hold option letters by definition: ``b`` is read as
    ``B`` (as they always did), now said in a note; the tidy table refuses it (above)."""
    src = tmp_path / "w.csv"
    src.write_text("item,gold,m1,m2\nq1,A,A,b\nq2,B,B,\nq3,C,a,C\n", encoding="utf-8")
    out = tmp_path / "n.csv"
    with caplog.at_level("WARNING", logger="ensel"):
        r = run_cli(["import", "wide", src, "--native", "-o", out], capsys)
    assert r.code == 0, r.err
    notes = [rec.getMessage() for rec in caplog.records if rec.name == "ensel"]
    assert [n for n in notes if "read 2 lower-case option letter(s) as capitals (a = A)" in n]
    assert pd.read_csv(out)["answer"].tolist()[:2] == ["A", "B"]


def test_a_table_without_any_gold_is_multi_class(tmp_path):
    """Letters as answers and every gold blank: a multi-class table with no gold (for
    label-free aggregation), not a binary table with missing labels."""
    path = write(tmp_path, ["q1,a,B,", "q1,b,A,", "q2,a,C,", "q2,b,C,"],
                 "item,model,answer,label\n")
    m = answer_matrix(read_responses(path), validate=False)
    assert m.gold.tolist() == [-1, -1] and m.A.tolist() == [[1, 0], [2, 2]]
    with pytest.raises(DataError, match="no item has a gold label"):
        to_binary_view(read_responses(path))


def test_a_binary_table_with_a_word_in_one_column_keeps_its_binary_message(tmp_path, capsys):
    path = write(tmp_path, ["q1,a,1,Ture", "q1,b,-1,Ture", "q2,a,1,-1", "q2,b,-1,-1"],
                 "item,model,answer,label\n")
    r = run_cli(["select", path, "-k", "1"], capsys)
    assert_usage_error(r, "select", "column 'label' has value 'Ture' in line 2",
                       "expected +1/-1", "a multi-class table holds option labels")
