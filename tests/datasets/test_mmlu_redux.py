"""Tests of the MMLU-Redux loader: hand-made fixtures in the upstream formats, then the mirror."""

from __future__ import annotations

import ast
import csv
import io

import pandas as pd
import pytest
from conftest import REPO, UPSTREAMS, require_mirror

from ensel.datasets import _fetch, load
from ensel.datasets import mmlu_redux as mr

FIX = REPO / "tests" / "data" / "mmlu_redux"


def fixture_files() -> dict:
    return {s: (FIX / "outputs" / "original_helm_combined" / f"{s}.csv",
                FIX / "mmlu_redux" / f"mmlu_{s}.csv") for s in ("anatomy", "virology")}


# --------------------------------------------------------------------------- fixtures
def test_fixture_conversion_counts_and_names():
    df = mr.convert(fixture_files())
    d = df.attrs["dropped"]
    # 6 annotated rows: one exact duplicate, one with reordered options (no HELM match),
    # one 'Wrong Groundtruth' -> 3 verified questions (2 anatomy, 1 virology)
    assert d == {"annotated": 6, "annotated_twice_differently": 0, "annotated_twice_same": 1,
                 "not_in_helm": 1, "gold_not_verified": 1, "kept": 3}
    assert list(df.columns) == ["item", "model", "condition", "answer", "label"]
    assert sorted(df["model"].unique()) == ["acme_alpha", "zeta_beta"]
    assert (df["condition"] == "helm-5shot").all()
    assert len(df) == 3 * 2 * 2  # questions x (positive, negative) x models
    pos = df[df["label"] == 1]
    assert sorted(pos["item"].unique()) == ["anatomy/0:A", "anatomy/1:B", "virology/0:A"]


def test_fixture_semantics_hand_checked():
    df = mr.convert(fixture_files())
    a = df.set_index(["item", "model"])["answer"]
    # ' A' (leading space, as HELM writes Llama's and Mixtral's letters) is the letter A
    assert a[("anatomy/0:A", "zeta_beta")] == 1
    # 'To' is not a letter: an abstention on both queries of the question
    q1 = df[(df["item"].str.startswith("anatomy/1:")) & (df["model"] == "zeta_beta")]
    assert len(q1) == 2 and (q1["answer"] == 0).all()
    # 'E' is a letter beyond the 4 options: simply wrong (False on both queries)
    v = df[(df["item"].str.startswith("virology/0:")) & (df["model"] == "zeta_beta")]
    assert (v["answer"] == -1).all()
    acc = mr.upstream_accuracy(df)
    assert acc["acme_alpha"] == 1.0 and acc["zeta_beta"] == pytest.approx(1 / 3)
    # null_pred="false": the abstention becomes False
    f = mr.convert(fixture_files(), null_pred="false")
    assert (f["answer"] != 0).all()


def test_fixture_keep_all_uses_the_original_gold():
    df = mr.convert(fixture_files(), keep="all")
    assert df.attrs["dropped"]["kept"] == 4
    assert "anatomy/2:A" in set(df.loc[df["label"] == 1, "item"])  # MMLU's original gold A


def test_negative_option_is_seeded_by_the_question_only():
    one = mr.convert(fixture_files(), seed=3)
    alone = mr.convert({"anatomy": fixture_files()["anatomy"]}, seed=3)
    neg = one[one["label"] == -1]
    neg_alone = alone[alone["label"] == -1]
    assert set(neg_alone["item"]) == set(neg.loc[neg["item"].str.startswith("anatomy/"),
                                                 "item"])
    draws = {frozenset(mr.convert(fixture_files(), seed=s).query("label == -1")["item"])
             for s in range(6)}
    assert len(draws) > 1  # the seed changes the drawn wrong options


@pytest.mark.parametrize("kwargs, match", [
    ({"keep": "verified"}, r"keep of mmlu_redux.load must be one of \('ok', 'all'\); "
                           r"got 'verified'"),
    ({"null_pred": "none"}, "null_pred of mmlu_redux.load must be one of"),
    ({"seed": -1}, "seed of mmlu_redux.load must be a non-negative integer; got -1"),
])
def test_bad_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        mr.convert(fixture_files(), **kwargs)


def test_bad_answer_cell_names_file_and_row(tmp_path):
    helm, redux = fixture_files()["anatomy"]
    bad = tmp_path / "mmlu_anatomy.csv"
    bad.write_text(redux.read_text().replace(";1;ok;", ";B;ok;", 1))
    with pytest.raises(ValueError, match=r"mmlu_anatomy.csv row 3: answer must be an option "
                                         r"index \(0, 1, ...\); got 'B'"):
        mr.convert({"anatomy": (helm, bad)})


# --------------------------------------------------------------------------- mirror
@pytest.fixture(scope="module")
def mirror_env():
    mirror = require_mirror(UPSTREAMS["mmlu_redux"])
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ENSEL_DATA_MIRROR", str(mirror))
        yield mirror


@pytest.fixture(scope="module")
def real(mirror_env):
    return load("mmlu_redux")


def _upstream_right_wrong() -> pd.Series:
    """Each model's accuracy recomputed from the raw files with the csv module alone: the HELM
    letter of the row with the same question and options against MMLU-Redux's verified gold."""
    right: dict[str, list[bool]] = {}
    for h_entry, r_entry in mr.subject_files().values():
        def rows(entry):
            raw = _fetch.fetch(entry).read_bytes()
            try:
                text = raw.decode("utf-8-sig")
            except UnicodeDecodeError:
                text = raw.decode("cp1252")
            sep = ";" if text.startswith("question;") else ","
            return list(csv.DictReader(io.StringIO(text), delimiter=sep))

        def key(r):
            return (" ".join(r["question"].split()),
                    tuple(" ".join(c.split()) for c in ast.literal_eval(r["choices"])))

        helm = {}
        for r in rows(h_entry):
            helm.setdefault(key(r), []).append(r)
        seen = set()
        for r in rows(r_entry):
            k = key(r)
            ok = r["error_type"].strip().lower() == "ok"
            if not ok or k in seen or len(helm.get(k, [])) != 1:
                continue
            seen.add(k)
            h = helm[k][0]
            gold = "ABCD"[int(r["answer"])]
            for model in h:
                if model not in ("question", "choices"):
                    right.setdefault(model, []).append(h[model].strip() == gold)
    return pd.Series({m: sum(v) / len(v) for m, v in right.items()})


def test_mirror_accuracy_equals_upstream_right_wrong(real):
    ours = mr.upstream_accuracy(real)
    theirs = _upstream_right_wrong()
    assert len(ours) == 10
    pd.testing.assert_series_equal(ours.sort_index(), theirs.sort_index(), check_names=False,
                                   rtol=0, atol=1e-12)


def test_mirror_shape_and_choices(real):
    d = real.attrs["dropped"]
    assert d["annotated"] == 5700  # 57 subjects x 100 questions
    assert (d["annotated"] - d["annotated_twice_differently"] - d["annotated_twice_same"]
            - d["not_in_helm"] - d["gold_not_verified"]) == d["kept"]
    assert d["kept"] > 5000
    assert real["item"].nunique() == 2 * d["kept"]
    assert not real.duplicated(["item", "model"]).any()
    assert (real.groupby("label")["item"].nunique() == d["kept"]).all()
    assert 0 < (real["answer"] == 0).mean() < 0.02  # a few unparsed answers are abstentions
    # the two near-identical columns, kept on purpose
    w = real.pivot(index="item", columns="model", values="answer")
    same = (w["writer_palmyra-x-v3"] == w["google_text-unicorn@001"]).mean()
    assert same > 0.99
    assert sorted({mr.family(m) for m in w.columns}) == [
        "anthropic", "google", "meta", "mistralai", "openai", "writer"]


def test_the_view_kept_in_the_data_folder_is_the_parsed_one(mirror_env, tmp_path, monkeypatch):
    monkeypatch.setenv("ENSEL_DATA_DIR", str(tmp_path))
    subjects = ["anatomy", "virology"]
    mr._view.cache_clear()
    parsed = mr.binary_view(subjects=subjects)
    kept = sorted(p.name for p in (tmp_path / "mmlu_redux").glob("view-*.parquet"))
    assert len(kept) == 3, kept
    mr._view.cache_clear()
    read = mr.binary_view(subjects=subjects)  # from the three Parquet files
    mr._view.cache_clear()
    for a, b in ((parsed.tidy, read.tidy), (parsed.questions, read.questions),
                 (parsed.predictions, read.predictions)):
        pd.testing.assert_frame_equal(a, b)
        assert a.attrs == b.attrs
    assert (parsed.dropped, parsed.options) == (read.dropped, read.options)
