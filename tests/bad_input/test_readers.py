"""Bad input to the readers: encodings and dtypes, structure, files and compression, and the
same table in every container (CSV, Parquet, gzip, pandas, numpy) read identically.

Every case goes through the library (``read_data``) or the command line (``ensel import``,
``ensel select``) and asserts either the correct result or exit code 2 with one line naming
the file, line/row, column or parameter, never a traceback.
"""

from __future__ import annotations

import gzip
import json
import logging
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ensel._validation import check_X
from ensel.data import DataError, read_responses, to_wide, validate_responses
from ensel.datasets import read_data
from ensel.datasets.importers import read

from .conftest import assert_usage_error, run_cli

ITEMS = [f"q{i}" for i in range(6)]
MODELS = ["a", "b", "c"]
Y = np.array([1, -1, 1, -1, 1, -1], dtype=np.int8)
# +1/-1 answers: model a right everywhere, b right on the first four, c wrong on odd items
X = np.array([[1, 1, 1], [-1, -1, 1], [1, 1, 1], [-1, -1, 1], [1, -1, 1], [-1, 1, 1]],
             dtype=np.int8)


def tidy(answers=None, labels=None, items=ITEMS, models=MODELS) -> pd.DataFrame:
    """The small table in tidy form, answers given per cell (item-major)."""
    answers = X.ravel() if answers is None else answers
    labels = np.repeat(Y, len(models)) if labels is None else labels
    return pd.DataFrame({"item": np.repeat(items, len(models)),
                         "model": np.tile(models, len(items)),
                         "answer": answers, "label": labels})


def write_csv(df: pd.DataFrame, path: Path) -> Path:
    df.to_csv(path, index=False)
    return path


def as_text(df: pd.DataFrame) -> pd.DataFrame:
    return df.astype({"item": str, "model": str, "condition": str}).reset_index(drop=True)


def imported(tmp_path: Path, capsys, fmt: str, *paths: Path) -> pd.DataFrame:
    """``ensel import FMT PATHS -o out.parquet`` must succeed; the table it wrote."""
    out = tmp_path / "imported.parquet"
    r = run_cli(["import", fmt, *paths, "-o", out], capsys)
    assert r.code == 0 and "Traceback" not in r.err, r.err
    return pd.read_parquet(out)


# --------------------------------------------------------------------------- encodings/dtypes
ZERO_ONE = np.where(X.ravel() == 1, 1, 0)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int64", "float64", "bool"])
def test_zero_one_answers_read_alike_in_parquet_csv_and_pandas(tmp_path, dtype):
    # int8 0/1 in Parquet used to be read as abstentions; the rule now decides on the table
    values = ZERO_ONE.astype(dtype)
    csv = write_csv(tidy(ZERO_ONE), tmp_path / "t.csv")
    pq = tmp_path / "t.parquet"
    tidy(values).to_parquet(pq, index=False)
    a, b = read_data(csv), read_data(pq)
    pd.testing.assert_frame_equal(as_text(a), as_text(b), check_dtype=False)
    assert (a["answer"].to_numpy() == X.ravel()).all()  # 1/0 = True/False, no abstention
    if dtype != "int8":  # an in-memory int8 column is the encoded form (README)
        assert (validate_responses(tidy(values))["answer"].to_numpy() == X.ravel()).all()


def test_int8_plus_one_zero_minus_one_parquet_reads_as_csv(tmp_path):
    answers = X.ravel().copy()
    answers[[0, 4]] = 0  # abstentions in a table that also holds -1
    pq = tmp_path / "t.parquet"
    tidy(answers.astype(np.int8)).to_parquet(pq, index=False)
    csv = write_csv(tidy(answers), tmp_path / "t.csv")
    assert read_data(pq)["answer"].tolist() == read_data(csv)["answer"].tolist() \
        == answers.tolist()


def test_float_nan_blanks_in_parquet_read_as_csv_blanks(tmp_path):
    answers = X.ravel().astype(float)
    answers[[1, 5]] = np.nan
    pq = tmp_path / "t.parquet"
    tidy(answers).to_parquet(pq, index=False)
    csv = write_csv(tidy(answers), tmp_path / "t.csv")
    out = read_data(pq)
    assert out["answer"].tolist() == read_data(csv)["answer"].tolist()
    assert out["answer"].tolist()[1] == 0 and out["answer"].tolist()[5] == 0


def test_pandas_numpy_and_file_give_the_same_matrix(tmp_path):
    csv = write_csv(tidy(np.where(X.ravel() == 1, "True", "False")), tmp_path / "t.csv")
    Xf, yf = to_wide(read_data(csv))
    Xp, yp = to_wide(tidy())
    np.testing.assert_array_equal(Xf.to_numpy(), Xp.to_numpy())
    np.testing.assert_array_equal(Xf.to_numpy(), check_X(X.astype(float)))
    np.testing.assert_array_equal(yf.to_numpy(), Y)


def test_zero_one_with_blanks_in_parquet_is_refused(tmp_path, capsys):
    answers = ZERO_ONE.astype(float)
    answers[4] = np.nan
    pq = tmp_path / "t.parquet"
    tidy(answers).to_parquet(pq, index=False)
    r = run_cli(["import", "tidy", pq, "-o", tmp_path / "o.parquet"], capsys)
    assert_usage_error(r, "import", "column 'answer'", f"row 4 of {pq}", "could mean False")


def test_true_false_with_zero_is_refused(tmp_path, capsys):
    cells = np.where(X.ravel() == 1, "True", "False").astype(object)
    cells[7] = "0"
    csv = write_csv(tidy(cells), tmp_path / "t.csv")
    r = run_cli(["select", csv, "-k", "1"], capsys)
    assert_usage_error(r, "select", "mixes True/False with 0", f"line 9 of {csv}")


def test_unknown_answer_value_names_line_and_column(tmp_path, capsys):
    cells = X.ravel().astype(object)
    cells[2] = "maybe"
    csv = write_csv(tidy(cells), tmp_path / "t.csv")
    r = run_cli(["import", "tidy", csv, "-o", tmp_path / "o.parquet"], capsys)
    assert_usage_error(r, "import", "column 'answer' has value 'maybe'", f"line 4 of {csv}")


def test_label_zero_with_minus_one_is_refused(tmp_path):
    labels = np.repeat(Y, 3).astype(object)
    labels[3] = 0
    with pytest.raises(DataError, match=r"column 'label' has value 0 in line 5 of .*t.csv"):
        read_data(write_csv(tidy(labels=labels), tmp_path / "t.csv"))


def test_every_answer_blank_is_refused(tmp_path, capsys):
    csv = write_csv(tidy([None] * 18), tmp_path / "t.csv")
    r = run_cli(["select", csv, "-k", "1"], capsys)
    assert_usage_error(r, "select", str(csv), "every answer is blank")


def test_wide_zero_one_with_blanks_anywhere_is_refused(tmp_path, capsys):
    # one column 1/0 without blanks, another with a blank: one decision for the matrix
    w = tmp_path / "w.csv"
    w.write_text("item,gold,m1,m2\nq1,True,1,1\nq2,False,0,\nq3,True,1,0\n")
    r = run_cli(["import", "wide", w, "-o", tmp_path / "o.parquet"], capsys)
    assert_usage_error(r, "import", str(w), "line 3, column 'm2'", "could mean False")


def test_wide_true_false_in_one_column_and_zero_in_another_is_refused(tmp_path):
    w = tmp_path / "w.csv"
    w.write_text("item,gold,m1,m2\nq1,True,True,1\nq2,False,False,0\n")
    with pytest.raises(DataError, match=r"mixes True/False with 0 .*line 3, column 'm2'"):
        read_data(w)


def test_wide_zero_is_abstained_in_every_column_when_the_matrix_holds_minus_one(tmp_path,
                                                                                capsys):
    # m2 holds only 1 and 0: column by column it was True/False; the matrix holds -1
    w = tmp_path / "w.csv"
    w.write_text("item,gold,m1,m2\nq1,1,1,1\nq2,-1,-1,0\nq3,1,-1,1\n")
    df = imported(tmp_path, capsys, "wide", w)
    m2 = df[df["model"] == "m2"].set_index("item")["answer"]
    assert m2.to_dict() == {"q1": 1, "q2": 0, "q3": 1}


def test_wide_int8_parquet_reads_as_csv(tmp_path):
    frame = pd.DataFrame({"item": ["q1", "q2", "q3"], "gold": [1, 0, 1],
                          "m1": np.array([1, 0, 0], np.int8), "m2": np.array([1, 0, 1], np.int8)})
    pq, csv = tmp_path / "w.parquet", tmp_path / "w.csv"
    frame.to_parquet(pq, index=False)
    frame.to_csv(csv, index=False)
    a, b = read_data(pq, format="wide"), read_data(csv, format="wide")
    assert a["answer"].tolist() == b["answer"].tolist() == [1, 1, -1, -1, -1, 1]


# --------------------------------------------------------------------------- structure
def test_item_ids_are_text(tmp_path):
    df = tidy(items=["01", "1", "001", "2", "02", "3"])
    out = read_data(write_csv(df, tmp_path / "t.csv"))
    assert out["item"].nunique() == 6
    assert list(to_wide(out)[0].index) == ["01", "1", "001", "2", "02", "3"]


def test_model_names_are_text(tmp_path):
    df = tidy(models=["1", "01", "1.0"])
    out = read_data(write_csv(df, tmp_path / "t.csv"))
    assert list(to_wide(out)[0].columns) == ["1", "01", "1.0"]


def test_wide_item_ids_are_text(tmp_path):
    w = tmp_path / "w.csv"
    w.write_text("id,gold,m1,m2\n01,True,True,False\n1,False,True,False\n")
    assert read_data(w)["item"].nunique() == 2


def test_tidy_csv_without_answer_column_says_so(tmp_path, capsys):
    csv = write_csv(tidy().drop(columns="answer"), tmp_path / "t.csv")
    r = run_cli(["select", csv, "-k", "1"], capsys)
    assert_usage_error(r, "select", str(csv), "missing the column 'answer'")


def test_semicolon_separator_is_named(tmp_path, capsys):
    csv = tmp_path / "t.csv"
    tidy().to_csv(csv, index=False, sep=";")
    r = run_cli(["select", csv, "-k", "1"], capsys)
    assert_usage_error(r, "select", f"{csv}, line 1", "separated by ';'")


def test_tab_separator_is_named(tmp_path, capsys):
    csv = tmp_path / "t.csv"
    tidy().to_csv(csv, index=False, sep="\t")
    r = run_cli(["import", "tidy", csv, "-o", tmp_path / "o.parquet"], capsys)
    assert_usage_error(r, "import", f"{csv}, line 1", "separated by '\\t'")


def test_column_named_twice_in_the_header(tmp_path):
    csv = tmp_path / "t.csv"
    csv.write_text("item,model,answer,answer,label\n1,a,1,1,1\n")
    with pytest.raises(DataError, match=r"t.csv, line 1: the header names the column "
                                         r"'answer' twice"):
        read_data(csv)


def test_duplicate_answer_names_both_lines(tmp_path, capsys):
    df = pd.concat([tidy(), tidy().iloc[[4]]], ignore_index=True)
    csv = write_csv(df, tmp_path / "t.csv")
    r = run_cli(["import", "tidy", csv, "-o", tmp_path / "o.parquet"], capsys)
    assert_usage_error(r, "import", "item 'q1', model 'b' appears more than once",
                     f"line 6 of {csv} and line 20 of {csv}")


def test_duplicate_across_files_names_both_files(tmp_path, capsys):
    a = write_csv(tidy(), tmp_path / "a.csv")
    b = write_csv(tidy().iloc[[7]], tmp_path / "b.csv")
    r = run_cli(["import", "tidy", a, b, "-o", tmp_path / "o.parquet"], capsys)
    assert_usage_error(r, "import", f"line 9 of {a} and line 2 of {b}")


def test_conflicting_labels_across_files_name_both_places(tmp_path):
    a = write_csv(tidy(), tmp_path / "a.csv")
    extra = tidy(models=["d", "e", "f"])
    extra.loc[0, "label"] = -1  # q0 is +1 in a.csv
    b = write_csv(extra.iloc[[0]], tmp_path / "b.csv")
    with pytest.raises(DataError, match=rf"item 'q0' has conflicting labels .*\+1 in line 2 of "
                                        rf"{a}, -1 in line 2 of {b}"):
        read_data([a, b])


def test_several_files_are_one_table(tmp_path, capsys):
    a = write_csv(tidy().iloc[:9], tmp_path / "a.csv")
    pq = tmp_path / "b.parquet"
    tidy().iloc[9:].to_parquet(pq, index=False)
    df = imported(tmp_path, capsys, "tidy", a, pq)
    pd.testing.assert_frame_equal(as_text(df), as_text(validate_responses(tidy())),
                                  check_dtype=False)


def test_wide_duplicate_item_names_both_lines(tmp_path, capsys):
    w = tmp_path / "w.csv"
    w.write_text("item,gold,m1\nq1,A,A\nq2,B,A\nq1,B,B\n")
    r = run_cli(["import", "wide", w, "-o", tmp_path / "o.parquet"], capsys)
    assert_usage_error(r, "import", str(w), "duplicate item 'q1' (line 2 and line 4)")


def test_missing_model_name_names_the_line(tmp_path):
    df = tidy().astype({"model": object})
    df.loc[5, "model"] = ""
    with pytest.raises(DataError, match=r"column 'model' has a missing value in line 7 of"):
        read_data(write_csv(df, tmp_path / "t.csv"))


def test_ragged_row_names_its_line(tmp_path, capsys):
    csv = tmp_path / "t.csv"
    csv.write_text("item,model,answer,label\n1,a,1,1\n1,b,1\n2,a,1,1\n")
    r = run_cli(["import", "tidy", csv, "-o", tmp_path / "o.parquet"], capsys)
    assert_usage_error(r, "import", f"{csv}, line 3", "expected 4 comma-separated fields")


def _mmlu_record(qid, answer_index=1, pred="B", n=4):
    return {"question_id": qid, "question": f"Q{qid}", "options": [f"o{i}" for i in range(n)],
            "answer": "ABCD"[answer_index] if isinstance(answer_index, int) else "B",
            "answer_index": answer_index, "category": "biology", "src": "ori_mmlu-x",
            "pred": pred}


def _mmlu_file(folder: Path, model: str, records: list) -> Path:
    d = folder / model
    d.mkdir(exist_ok=True)
    p = d / "biology_result.json"
    p.write_text(json.dumps(records))
    return p


def test_mmlu_pro_question_twice_in_one_file_is_refused(tmp_path, capsys):
    p = _mmlu_file(tmp_path, "m1", [_mmlu_record(1), _mmlu_record(2), _mmlu_record(1)])
    r = run_cli(["import", "mmlu-pro", p, "-o", tmp_path / "o.parquet"], capsys)
    assert_usage_error(r, "import", "question_id 1 of model 'm1' is given twice",
                     f"record 0 of {p} and record 2 of {p}")


def test_mmlu_pro_fractional_answer_index_is_refused(tmp_path):
    p = _mmlu_file(tmp_path, "m1", [_mmlu_record(1), _mmlu_record(2, answer_index=1.5)])
    with pytest.raises(DataError, match=rf"{p}, record 1: answer_index 1.5 is not an integer"):
        read_data(p)


def test_mmlu_pro_same_model_in_two_files_is_refused(tmp_path):
    a = _mmlu_file(tmp_path, "m1", [_mmlu_record(1)])
    (tmp_path / "again" / "m1").mkdir(parents=True)
    b = tmp_path / "again" / "m1" / "biology_result.json"
    b.write_text(json.dumps([_mmlu_record(1, pred="C")]))
    with pytest.raises(DataError, match=rf"record 0 of {a} and record 0 of {b}"):
        read_data([a, b])


def test_mmlu_pro_drops_are_said_in_one_notice(tmp_path, caplog):
    a = _mmlu_file(tmp_path, "m1", [_mmlu_record(1), _mmlu_record(2), "total", _mmlu_record(3)])
    b = _mmlu_file(tmp_path, "m2", [_mmlu_record(1), _mmlu_record(2, answer_index=2)])
    with caplog.at_level(logging.WARNING, logger="ensel"):
        df = read_data([a, b])
    lines = [r.getMessage() for r in caplog.records if r.name == "ensel"]
    assert lines == ["ensel: mmlu-pro import: dropped 2 of 3 questions (1 with an answer key "
                     "that differs between files; 1 not answered by every model); 1 entries "
                     "that are not records skipped"]
    assert df.attrs["dropped"]["not_answered_by_all"] == 1
    assert set(df["item"].astype(str).str.split(":").str[0]) == {"1"}


def _lm_line(doc_id: int, target: int = 0) -> str:
    return json.dumps({"doc_id": doc_id, "target": target,
                       "arguments": [["Q", " A"], ["Q", " B"]],
                       "filtered_resps": [["-1.0", "False"], ["-2.0", "False"]]})


def test_lm_eval_drops_are_said_in_one_notice(tmp_path, caplog):
    files = []
    for model, docs in (("m1", [0, 1, 2]), ("m2", [0, 1])):
        d = tmp_path / model
        d.mkdir()
        f = d / "samples_task_2025-01-01T00-00-00.000001.jsonl"
        f.write_text("\n".join(_lm_line(i) for i in docs))
        files.append(f)
    with caplog.at_level(logging.WARNING, logger="ensel"):
        df = read_data(files)
    lines = [r.getMessage() for r in caplog.records if r.name == "ensel"]
    assert lines == ["ensel: lm-eval import: dropped 1 of 3 documents (not answered by every "
                     "one of the 2 models)"]
    assert df["item"].nunique() == 4


def test_lm_eval_duplicate_document_names_both_lines(tmp_path, capsys):
    f = tmp_path / "samples_task_2025-01-01T00-00-00.000001.jsonl"
    f.write_text("\n".join([_lm_line(0), _lm_line(1), _lm_line(0)]))
    r = run_cli(["import", "lm-eval", f, "-o", tmp_path / "o.parquet"], capsys)
    assert_usage_error(r, "import", f"{f}, line 3: duplicate doc_id 0 (first on line 1)")


# --------------------------------------------------------------------------- files
def test_gzip_named_csv_is_read(tmp_path):
    plain = write_csv(tidy(), tmp_path / "t.csv")
    packed = tmp_path / "packed.csv"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    pd.testing.assert_frame_equal(as_text(read_data(packed)), as_text(read_data(plain)))


def test_parquet_named_csv_is_read(tmp_path, capsys):
    p = tmp_path / "really_parquet.csv"
    tidy().to_parquet(p, index=False)
    df = imported(tmp_path, capsys, "auto", p)
    assert len(df) == 18 and df["answer"].tolist() == X.ravel().tolist()


def test_plain_text_named_csv_gz_is_read(tmp_path):
    p = write_csv(tidy(), tmp_path / "t.csv.gz")  # pandas infers gzip from the name...
    plain = tmp_path / "plain.csv.gz"
    plain.write_bytes(gzip.decompress(p.read_bytes()))  # ...so write the text itself
    assert read_data(plain)["answer"].tolist() == X.ravel().tolist()


def test_truncated_csv_gz_is_one_line(tmp_path, capsys):
    big = pd.concat([tidy(items=[f"q{i}_{j}" for i in range(6)]) for j in range(300)])
    p = tmp_path / "t.csv.gz"
    big.to_csv(p, index=False)
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])
    r = run_cli(["select", p, "-k", "1"], capsys)
    assert_usage_error(r, "select", str(p), "is the .gz file complete?")


def test_truncated_parquet_is_one_line(tmp_path, capsys):
    p = tmp_path / "t.parquet"
    tidy().to_parquet(p, index=False)
    p.write_bytes(p.read_bytes()[:-40])
    r = run_cli(["import", "tidy", p, "-o", tmp_path / "o.parquet"], capsys)
    assert_usage_error(r, "import", str(p), "is it a complete Parquet file?")


def test_zip_named_csv_says_zip(tmp_path):
    p = tmp_path / "t.csv"
    with zipfile.ZipFile(p, "w") as zf:
        zf.writestr("t.csv", "item,model,answer,label\n")
    with pytest.raises(DataError, match=r"t.csv: the file holds a zip archive, not a CSV"):
        read_responses(p)


def test_json_named_csv_says_json(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text(json.dumps([{"item": 1}]))
    with pytest.raises(DataError, match=r"t.csv: the file holds JSON"):
        read_responses(p)


def test_empty_file(tmp_path, capsys):
    p = tmp_path / "t.csv"
    p.write_text("")
    r = run_cli(["select", p, "-k", "1"], capsys)
    assert_usage_error(r, "select", str(p), "the file is empty")


def test_not_utf8_names_the_line(tmp_path):
    p = tmp_path / "t.csv"
    p.write_bytes("item,model,answer,label\nq1,a,1,1\nq\xe9,a,1,1\n".encode("latin-1"))
    with pytest.raises(DataError, match=r"t.csv, line 3: not UTF-8 text"):
        read_data(p)


def test_byte_order_mark_is_read(tmp_path):
    p = tmp_path / "t.csv"
    p.write_bytes(b"\xef\xbb\xbf" + tidy().to_csv(index=False).encode())
    assert read_data(p)["answer"].tolist() == X.ravel().tolist()


def test_directory_is_named(tmp_path, capsys):
    r = run_cli(["import", "tidy", tmp_path, "-o", tmp_path / "o.parquet"], capsys)
    assert_usage_error(r, "import", str(tmp_path), "is a directory")


def test_missing_file_is_named(tmp_path, capsys):
    r = run_cli(["select", tmp_path / "nope.csv", "-k", "1"], capsys)
    assert_usage_error(r, "select", "nope.csv")


def test_same_file_twice_is_refused(tmp_path):
    a = write_csv(tidy(), tmp_path / "a.csv")
    with pytest.raises(DataError, match="the same file is given twice"):
        read([a, a])


def test_errors_are_one_class():
    # the command line turns one exception class into one line
    assert issubclass(DataError, ValueError)
    with pytest.raises(DataError) as info:
        validate_responses(tidy().drop(columns="label"))
    assert "missing the column 'label'" in str(info.value)


# --------------------------------------------------------------------------- names, parameters
def test_dataset_name_typo_suggests_the_name(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run_cli(["select", "medmcq", "-k", "1"], capsys)
    assert_usage_error(r, "select", "unknown dataset 'medmcq' (did you mean 'medmcqa'?)",
                       "known: medmcqa, mmlu")


def test_data_dir_that_is_a_file_is_one_line(tmp_path, monkeypatch):
    from ensel.datasets import load

    f = tmp_path / "not_a_folder"
    f.write_text("x")
    monkeypatch.setenv("ENSEL_DATA_DIR", str(f))
    with pytest.raises(DataError, match=r"cannot use ENSEL_DATA_DIR='.*not_a_folder' as the "
                                        r"data folder: .*a file is in the way"):
        load("imdb", n_items=50)


def test_negative_seed_names_the_parameter(tmp_path):
    p = _mmlu_file(tmp_path, "m1", [_mmlu_record(1)])
    with pytest.raises(ValueError, match=r"seed of .* must be an int in \[0, inf\); got -5"):
        read_data(p, seed=-5)


def test_unknown_null_pred_names_the_parameter(tmp_path):
    p = _mmlu_file(tmp_path, "m1", [_mmlu_record(1)])
    with pytest.raises(ValueError, match=r"null_pred of .* must be one of 'abstain', 'false'; "
                                         r"got 'skip'"):
        read_data(p, null_pred="skip")


def test_unknown_format_names_the_parameter(tmp_path):
    a = write_csv(tidy(), tmp_path / "a.csv")
    with pytest.raises(DataError, match=r"format of read must be one of 'tidy', 'wide', "
                                        r"'lm-eval', 'mmlu-pro'; got 'xml'"):
        read(a, format="xml")


def test_wide_option_on_a_tidy_table_is_refused(tmp_path):
    a = write_csv(tidy(), tmp_path / "a.csv")
    with pytest.raises(DataError, match=r"option\(s\) \['gold'\] do not apply to the tidy"):
        read(a, format="tidy", gold="label")


def test_blank_lines_do_not_shift_the_line_numbers(tmp_path):
    csv = tmp_path / "t.csv"
    csv.write_text("item,model,answer,label\n\nq1,a,1,1\n\nq1,b,maybe,1\n")
    with pytest.raises(DataError, match=r"has value 'maybe' in line 5 of"):
        read_data(csv)


def test_quoted_line_break_in_a_cell_is_read(tmp_path):
    csv = tmp_path / "t.csv"
    csv.write_text('item,model,answer,label,question\nq1,a,1,1,"two\nlines"\nq1,b,-1,1,one\n')
    out = read_data(csv)
    assert out["answer"].tolist() == [1, -1] and out["question"].tolist()[0] == "two\nlines"


def test_option_of_another_format_is_named(tmp_path):
    p = _mmlu_file(tmp_path, "m1", [_mmlu_record(1)])
    with pytest.raises(DataError, match=r"option\(s\) \['gold'\] do not apply to the mmlu-pro "
                                        r"format; it takes \['condition', 'null_pred', 'seed'\]"):
        read(p, gold="x")
