"""The three real sources loaded natively (option labels), checked against a count made
straight from the mirrored raw files with plain Python (json, csv, zipfile, ast), not
through ensel's importers; and their binary conversion against today's binary tables.

Per model (LLMBar: per judge and presentation order): accuracy (the answer is the gold
label; an abstention counts as wrong), coverage (the answer is one of the item's options)
and accuracy when answered (accuracy / coverage).
"""

from __future__ import annotations

import ast
import csv
import hashlib
import io
import json
import zipfile
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import UPSTREAMS, require_mirror

from ensel.data import answer_matrix, is_native
from ensel.datasets import load
from ensel.datasets.binary import to_binary_view
from ensel.datasets.mmlu_pro import DEFAULT_POOL

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

#: sha256 of ``pd.util.hash_pandas_object(load(name))``: the binary tables as the loaders
#: gave them before the native view existed (main at 2ebb99f); the book's numbers read these.
BINARY_DIGESTS = {
    "mmlu_pro": "cbdc2cb0518aec5f6476464fb77569331ae968427b415eb78ad84d175763507e",
    "mmlu_redux": "f168acc1c866877c5a983958b85334372c7e99ec6172b686185c8a8f03039aa9",
    "llmbar": "f16173d1cdf3a3e0f5c7b93a948060c63aad48c9683ea71a84b5f607c355466e",
}


def _digest(df: pd.DataFrame) -> str:
    return hashlib.sha256(pd.util.hash_pandas_object(df, index=True).to_numpy().tobytes()
                          ).hexdigest()


@pytest.fixture(scope="module")
def mirrors():
    roots = {name: require_mirror(UPSTREAMS[name]) for name in ("mmlu_pro", "mmlu_redux",
                                                                 "llmbar")}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ENSEL_DATA_MIRROR", str(roots["mmlu_pro"]))
        yield {name: root / UPSTREAMS[name] for name, root in roots.items()}


def _ensel_stats(df: pd.DataFrame) -> dict:
    """(model[, condition]) -> (n, accuracy, coverage, accuracy when answered), from the codes
    of :func:`answer_matrix` (the estimators' input)."""
    out = {}
    for cond in df["condition"].unique():
        m = answer_matrix(df, cond, validate=False)
        for model, row in m.model_summary().iterrows():
            key = (model, cond) if df["condition"].nunique() > 1 else model
            out[key] = (row["n_items"], row["accuracy"], row["coverage"],
                        row["accuracy_answered"])
    return out


def _raw_stats(rows: dict) -> dict:
    """key -> list of (correct, answered) -> the same four numbers."""
    out = {}
    for key, pairs in rows.items():
        right = sum(c for c, _ in pairs)
        answered = sum(a for _, a in pairs)
        out[key] = (len(pairs), right / len(pairs), answered / len(pairs), right / answered)
    return out


def _same(ensel: dict, raw: dict) -> None:
    assert set(ensel) == set(raw)
    for key in raw:
        assert ensel[key][0] == raw[key][0], key
        np.testing.assert_allclose(ensel[key][1:], raw[key][1:], rtol=0, atol=1e-12,
                                   err_msg=str(key))


# --------------------------------------------------------------------------- MMLU-Pro
def _mmlu_pro_raw(root: Path) -> dict:
    """The default pool on the original-MMLU questions, kept by the documented rules: the
    same gold, options and question text in every file, answered by every model, gold letter
    = gold index."""
    records: dict[str, dict[int, dict]] = {}
    for model in DEFAULT_POOL:
        recs: list = []
        if model == "gpt4o":
            for path in sorted(root.glob("ff991b5b*/eval_results/gpt4o/*_result.json")):
                recs += json.loads(path.read_text(encoding="utf-8"))
        else:
            (path,) = root.glob(f"f418b116*/eval_results/model_outputs_{model}_5shots.zip")
            with zipfile.ZipFile(path) as zf:
                (name,) = [n for n in zf.namelist() if n.endswith(".json")]
                recs = json.loads(zf.read(name))
        first: dict[int, dict] = {}
        for r in recs:
            if isinstance(r, dict) and "question_id" in r:
                first.setdefault(int(r["question_id"]), r)
        records[model] = first
    ids = set.union(*(set(r) for r in records.values()))
    src = {}
    for model in DEFAULT_POOL:
        for q, r in records[model].items():
            src.setdefault(q, r["src"])
    kept = []
    for q in sorted(ids):
        if not src[q].startswith("ori_mmlu"):
            continue
        held = [records[m][q] for m in DEFAULT_POOL if q in records[m]]
        keys = {(r["answer"], r["answer_index"], r["question"], tuple(r["options"]))
                for r in held}
        if len(held) < len(DEFAULT_POOL) or len(keys) > 1:
            continue
        r = held[0]
        if len(r["options"]) < 2 or r["answer"] != LETTERS[r["answer_index"]]:
            continue
        kept.append(q)
    rows = defaultdict(list)
    for model in DEFAULT_POOL:
        for q in kept:
            r = records[model][q]
            pred, n = r["pred"], len(r["options"])
            rows[model].append((pred == r["answer"], pred is not None and pred in LETTERS[:n]))
    return rows


def test_mmlu_pro_native_counts_equal_the_raw_files(mirrors):
    df = load("mmlu_pro", view="native")
    assert is_native(df)
    _same(_ensel_stats(df), _raw_stats(_mmlu_pro_raw(mirrors["mmlu_pro"])))


# --------------------------------------------------------------------------- MMLU-Redux
def _read_csv(path: Path) -> list[dict]:
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("cp1252")
    header = text.split("\n", 1)[0]
    sep = ";" if header.count(";") > header.count(",") else ","
    return list(csv.DictReader(io.StringIO(text), delimiter=sep))


def _norm(text: str) -> str:
    return " ".join(str(text).split())


def _mmlu_redux_raw(root: Path) -> dict:
    """HELM letters graded with the verified (``ok``) MMLU-Redux gold; a question matched
    on its text and options, a HELM question given twice dropped, a question annotated
    twice kept once when both annotations agree."""
    (base,) = root.glob("*/outputs")
    base = base.parent
    rows = defaultdict(list)
    for helm_path in sorted((base / "outputs" / "original_helm_combined").glob("*.csv")):
        subject = helm_path.stem
        helm = _read_csv(helm_path)
        models = [c for c in helm[0] if c not in ("question", "choices")]
        by_key: dict = defaultdict(list)
        for r in helm:
            by_key[(_norm(r["question"]),
                    tuple(_norm(c) for c in ast.literal_eval(r["choices"])))].append(r)
        notes: dict = defaultdict(list)
        for r in _read_csv(base / "mmlu_redux" / f"mmlu_{subject}.csv"):
            key = (_norm(r["question"]), tuple(_norm(c) for c in ast.literal_eval(r["choices"])))
            error = "_".join(r["error_type"].replace("_", " ").lower().split())
            notes[key].append((int(r["answer"]), error))
        for key, given in notes.items():
            if len(set(given)) > 1 or len(by_key.get(key, [])) != 1:
                continue
            gold, error = given[0]
            if error != "ok":
                continue
            h = by_key[key][0]
            for model in models:
                letter = h[model].strip()
                rows[model].append((letter == LETTERS[gold],
                                    len(letter) == 1 and letter in LETTERS[:len(key[1])]))
    return rows


def test_mmlu_redux_native_counts_equal_the_raw_files(mirrors):
    df = load("mmlu_redux", view="native")
    assert is_native(df) and set(df["options"].unique()) == {"A|B|C|D"}
    _same(_ensel_stats(df), _raw_stats(_mmlu_redux_raw(mirrors["mmlu_redux"])))


# --------------------------------------------------------------------------- LLMBar
def _llmbar_raw(root: Path) -> dict:
    """Judges x strategies on Natural + the four Adversarial subsets, both orders."""
    rows = defaultdict(list)
    subsets = ["Natural", "Adversarial/Neighbor", "Adversarial/GPTInst", "Adversarial/GPTOut",
               "Adversarial/Manual"]
    for subset in subsets:
        for path in sorted(root.glob(f"*/Dataset/LLMBar/{subset}/evaluators/*/*/result.json")):
            model = f"{path.parent.parent.name}/{path.parent.name}"
            for rec in json.loads(path.read_text(encoding="utf-8")):
                (verdict,) = [r for r in rec["results"] if isinstance(r, dict)]
                for key, cond in (("swap = False", "original-order"),
                                  ("swap = True", "swapped-order")):
                    winner = verdict[key].get("winner")
                    winner = None if winner is None else str(winner)
                    rows[(model, cond)].append((winner == str(rec["label"]),
                                                winner in ("1", "2")))
    return rows


def test_llmbar_native_counts_equal_the_raw_files(mirrors):
    df = load("llmbar", view="native")
    assert is_native(df) and set(df["options"].unique()) == {"1|2"}
    _same(_ensel_stats(df), _raw_stats(_llmbar_raw(mirrors["llmbar"])))


# --------------------------------------------------------------------------- binary views
@pytest.mark.parametrize("name", sorted(BINARY_DIGESTS))
def test_binary_view_of_the_real_sources_is_unchanged(mirrors, name):
    """``load(name)`` (the book's view) is byte for byte the table the loaders gave before
    the native view existed."""
    assert _digest(load(name)) == BINARY_DIGESTS[name]


@pytest.mark.parametrize("name", ["mmlu_pro", "mmlu_redux"])
def test_to_binary_view_of_native_draws_the_loaders_queries(mirrors, name):
    """The one conversion applied to the native table gives the binary table exactly, but
    for the letters beyond a question's options: wrong on both queries in the loader's view,
    blank (0) in the native one (they name no option)."""
    native, binary = load(name, view="native"), load(name)
    converted = to_binary_view(native, validate=False)
    assert list(converted.columns) == list(binary.columns)
    for col in ("item", "model", "condition", "label"):
        assert converted[col].tolist() == binary[col].tolist(), col
    differ = converted["answer"].to_numpy() != binary["answer"].to_numpy()
    outside = sum(native.attrs["outside_options"].values())
    assert differ.sum() == 2 * outside
    assert (converted["answer"].to_numpy()[differ] == 0).all()
    assert (binary["answer"].to_numpy()[differ] == -1).all()
    same = converted[~differ].reset_index(drop=True)
    pd.testing.assert_frame_equal(same, binary[~differ].reset_index(drop=True))


def test_llmbar_native_reads_as_its_binary_table(mirrors):
    """LLMBar is binary by nature: output 1 is +1, output 2 is -1, no verdict 0."""
    native, binary = load("llmbar", view="native"), load("llmbar")
    code = {"1": 1, "2": -1}
    answers = [code.get(a, 0) for a in native["answer"].astype(object)]
    assert answers == binary["answer"].tolist()
    assert [code[g] for g in native["label"].astype(object)] == binary["label"].tolist()
