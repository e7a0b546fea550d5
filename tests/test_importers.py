"""Importers: lm-evaluation-harness logs, wide matrices, MMLU-Pro outputs, tidy tables.

The fixtures in tests/data/ are written in the upstream formats: lm-evaluation-harness 0.4
(``results_<timestamp>.json`` with ``model_name``/``config.model_args``, and
``samples_<task>_<timestamp>.jsonl`` with ``doc_id, doc, target, arguments, resps,
filtered_resps, filter, metrics, doc_hash, prompt_hash, target_hash, acc``, log-likelihoods
as strings), MMLU-Pro's ``<category>_result.json`` records.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from ensel.data import DataError
from ensel.datasets import binary, mmlu_pro, read_data
from ensel.datasets.importers import detect, read

DATA = Path(__file__).parent / "data"
LM = sorted((DATA / "lm_eval").glob("*/samples_*.jsonl"))
# the fixture's choices per model (option index per document) and gold options
CHOICES = {
    "EleutherAI/pythia-160m": [0, 2, 2, 1, 0, 1],
    "meta-llama/Llama-3.2-1B": [0, 1, 2, 3, 1, 1],
    "Qwen/Qwen2.5-0.5B": [3, 1, 0, 3, 0, 2],
}
GOLD = [0, 1, 2, 3, 0, 1]


def _check_binary_view(df: pd.DataFrame, choices: dict[str, list[int]], prefix: str) -> None:
    """Every answer is +1 iff the model chose the query's option; labels follow the gold."""
    assert set(df["model"]) == set(choices)
    assert len(df) == 2 * len(GOLD) * len(choices)
    for row in df.itertuples():
        question, option = row.item.rsplit(":", 1)
        doc = int(question.removeprefix(prefix))
        assert row.label == (1 if option == "ABCD"[GOLD[doc]] else -1)
        assert row.answer == (1 if "ABCD"[choices[row.model][doc]] == option else -1)
    # one positive and one negative query per question
    per_q = df.groupby(df["item"].str.rsplit(":", n=1).str[0])["label"].agg(["min", "max"])
    assert (per_q["min"] == -1).all() and (per_q["max"] == 1).all()


def test_lm_eval_samples_become_the_binary_view() -> None:
    assert detect(LM) == "lm-eval"
    df = read(LM)
    _check_binary_view(df, CHOICES, "mmlu_anatomy/")
    assert list(df.columns) == ["item", "model", "condition", "answer", "label"]


def test_lm_eval_model_names_come_from_the_results_file(tmp_path) -> None:
    # model_name; config.model_args string; model_args dict (model_name empty)
    assert set(read(LM)["model"]) == set(CHOICES)
    # without a results file: the folder name
    d = tmp_path / "org__my-model"
    d.mkdir()
    shutil.copy(LM[0], d / LM[0].name)
    shutil.copy(LM[1], tmp_path / LM[1].name)
    df = read([d / LM[0].name, LM[1]])
    assert "org__my-model" in set(df["model"])


def test_wide_matrix_gives_the_same_table_as_lm_eval() -> None:
    # the same answers as a wide matrix, item names as lm-eval's: identical tables
    assert detect([DATA / "wide_mc.csv"]) == "wide"
    text = {"item": str, "model": str, "condition": str}
    a = read(LM).astype(text).sort_values(["item", "model"]).reset_index(drop=True)
    b = read(DATA / "wide_mc.csv").astype(text).sort_values(["item", "model"])
    pd.testing.assert_frame_equal(a, b.reset_index(drop=True))


def test_wide_binary_answers_and_correctness() -> None:
    answers = read(DATA / "wide_binary.csv")
    correct = read(DATA / "wide_binary.csv", correctness=True)
    r2 = answers[answers["item"] == "r2"].set_index("model")  # label False
    assert (r2["label"] == -1).all()
    assert r2["answer"].to_dict() == {"model_a": 1, "model_b": -1, "model_c": -1}
    c2 = correct[correct["item"] == "r2"].set_index("model")
    assert c2["answer"].to_dict() == {"model_a": -1, "model_b": 1, "model_c": 1}
    assert len(answers) == 15 and set(answers["label"]) == {-1, 1}


def test_mmlu_pro_outputs_json_and_zip(tmp_path) -> None:
    path = DATA / "mmlu_pro" / "my-model" / "biology_result.json"
    assert detect([path]) == "mmlu-pro"
    df = read([path])
    assert set(df["model"]) == {"my-model"}
    q72 = df[df["item"].str.startswith("72:")]
    assert (q72["answer"] == 0).all()  # pred null -> abstained on both queries
    z = tmp_path / "model_outputs_my-model_5shots.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.write(path, "my-model.json")
    pd.testing.assert_frame_equal(read([z]), df)


def test_one_binary_conversion_is_shared() -> None:
    assert mmlu_pro.negative_options is binary.negative_options
    questions = pd.DataFrame({"question_id": [5, 9], "answer": ["B", "A"],
                              "answer_index": [1, 0], "n_options": [4, 2]})
    answers = pd.DataFrame({"model": ["m", "m"], "question_id": [5, 9], "pred": ["B", None]})
    t = binary.to_binary(questions, answers, models=["m"], seed=0)
    neg = binary.negative_options([5, 9], [1, 0], [4, 2], seed=0)
    assert list(t.tidy["item"]) == ["5:B", f"5:{'ABCD'[neg[0]]}", "9:A", "9:B"]
    assert list(t.tidy["label"]) == [1, -1, 1, -1]
    assert list(t.tidy["answer"]) == [1, -1, 0, 0]
    assert binary.option_label(27) == "27" and binary.question_key(12) == 12


def test_tidy_files_and_dataset_names(tmp_path) -> None:
    df = read(LM)
    p = tmp_path / "tidy.csv"
    df.to_csv(p, index=False)
    assert detect([p]) == "tidy"
    pd.testing.assert_frame_equal(read(p).astype({"item": str, "model": str}),
                                  df.astype({"item": str, "model": str}),
                                  check_dtype=False)
    assert set(read_data("medmcqa")["model"])  # a dataset name still works


# --------------------------------------------------------------------------- bad input
def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def _lm_line(**fields):
    rec = {"doc_id": 0, "doc": {}, "target": 1,
           "arguments": {"gen_args_0": {"arg_0": "Q", "arg_1": " A"},
                         "gen_args_1": {"arg_0": "Q", "arg_1": " B"}},
           "resps": [[["-1.0", "False"]], [["-2.0", "False"]]],
           "filtered_resps": [["-1.0", "False"], ["-2.0", "False"]],
           "filter": "none", "metrics": ["acc"], "acc": 0.0}
    rec.update(fields)
    return json.dumps({k: v for k, v in rec.items() if v is not None})


@pytest.mark.parametrize(("lines", "match"), [
    ([_lm_line(), "{not json"], r"line 2: not valid JSON"),
    ([_lm_line(filtered_resps=None, resps=None)], r"line 1: missing field"),
    ([_lm_line(), _lm_line()], r"line 2: duplicate doc_id 0 \(first on line 1\)"),
    ([_lm_line(acc=1.0)], r"line 1: acc=1.0 disagrees"),
    ([_lm_line(target=5)], r"line 1: target 5 is outside"),
    ([_lm_line(filtered_resps=["The answer is B"], resps=[["The answer is B"]])],
     r"line 1: filtered_resps must hold one log-likelihood per option"),
])
def test_lm_eval_bad_lines_name_file_and_line(tmp_path, lines, match) -> None:
    p = _write(tmp_path, "samples_task_2025-01-01T00-00-00.000001.jsonl", "\n".join(lines))
    with pytest.raises(DataError, match=match) as info:
        read([p])
    assert str(p) in str(info.value)


@pytest.mark.parametrize(("name", "text", "options", "match"), [
    ("w.csv", "item,m1,m2\n1,A,B\n", {}, r"missing the gold column"),
    ("w.csv", "item,gold,m1\n1,A,A\n2,B,E\n3,C,A\n", {"options": ["A", "B", "C", "D"]},
     r"line 3, column 'm1': answer 'E' is not one of the options"),
    ("w.csv", "item,gold,m1\n1,A,A\n1,B,B\n", {}, r"duplicate item '1' \(line 2 and line 3\)"),
    ("w.csv", "id,label,m1\n1,True,yes\n2,False,maybe\n", {},
     r"line 3, column 'm1': answer 'maybe' is not in \{-1, 0, \+1\}"),
    ("w.csv", "id,label,m1\n1,True,1\n2,False,2\n", {"correctness": True},
     r"line 3, column 'm1': correctness '2' is not 0 or 1"),
    ("t.csv", "item,model,answer,label\n1,a,1,1\n1,b,1,1\n2,a,2,-1\n", {},
     r"column 'answer' has value 2 in line 4 of"),
    ("t.csv", "item,model,answer,label\n1,a,1,1\n1,a,-1,1\n", {},
     r"duplicate answer.*line 2 of .*t.csv and line 3 of"),
    ("t.csv", "item,model,answer,label\n1,a,1,1\n2,a,1,5\n", {}, r"'label'.*5"),
])
def test_table_bad_input_names_file_line_and_column(tmp_path, name, text, options,
                                                    match) -> None:
    p = _write(tmp_path, name, text)
    with pytest.raises(DataError, match=match) as info:
        read(p, **options)
    assert str(p) in str(info.value)


def test_empty_directory_and_unknown_inputs(tmp_path) -> None:
    with pytest.raises(DataError, match="the file is empty"):
        read(_write(tmp_path, "e.csv", ""))
    with pytest.raises(DataError, match="is a directory"):
        read(tmp_path)
    with pytest.raises(DataError, match="unknown format"):
        read(_write(tmp_path, "x.txt", "hello"))
    with pytest.raises(DataError, match="no such file"):
        read(tmp_path / "missing.csv")
    with pytest.raises(DataError, match="format of read must be one of 'tidy', .*; got 'xml'"):
        read(_write(tmp_path, "y.csv", "a\n1\n"), format="xml")
