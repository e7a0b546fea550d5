"""Tests of the MMLU-Pro loader and its binary conversion (run on the mirrored upstream files)."""

from __future__ import annotations

import re
import time

import numpy as np
import pandas as pd
import pytest
from conftest import REPO, require_mirror
from hypothesis import given, settings
from hypothesis import strategies as st

from ensel.datasets import mmlu_pro as mp


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """Point ENSEL_DATA_MIRROR at the shared mirror and ENSEL_DATA_DIR at a fresh folder."""
    mirror = require_mirror()
    cache = tmp_path_factory.mktemp("ensel-data")
    with pytest.MonkeyPatch.context() as mpatch:
        mpatch.setenv("ENSEL_DATA_MIRROR", str(mirror))
        mpatch.setenv("ENSEL_DATA_DIR", str(cache))
        yield cache


@pytest.fixture(scope="module")
def view(env):
    start = time.perf_counter()
    v = mp.binary_view()
    print(f"\nbinary_view on the default pool, cold cache: {time.perf_counter() - start:.2f} s")
    return v


# --------------------------------------------------------------------------- structure
def test_default_view_shape_and_labels(view):
    tidy, queries = view.tidy, view.queries
    assert list(tidy.columns) == ["item", "model", "condition", "answer", "label"]
    assert view.models == list(mp.DEFAULT_POOL) and len(view.models) == 13
    n_q = view.dropped["kept"]
    assert n_q == queries["question_id"].nunique() == len(queries) // 2
    assert len(tidy) == 2 * n_q * 13
    assert (tidy["label"] == 1).sum() == (tidy["label"] == -1).sum()
    assert set(tidy["answer"].unique()) <= {-1, 0, 1}
    assert (tidy["condition"] == "5shot-cot").all()
    assert not tidy.duplicated(["item", "model"]).any()
    per_q = queries.groupby("question_id")
    assert (per_q.size() == 2).all()
    assert (per_q["label"].sum() == 0).all()  # one positive, one negative each
    pos, neg = queries[queries.label == 1], queries[queries.label == -1]
    assert (pos["option"] == pos["gold"]).all()
    assert (neg["option"] != neg["gold"]).all()
    assert queries["src"].str.startswith("ori_mmlu").all()
    # what was dropped adds up (6810 original-MMLU questions in MMLU-Pro)
    d = view.dropped
    assert d["in_subset"] == 6810
    assert (
        d["in_subset"]
        - d["inconsistent_across_files"]
        - d["not_answered_by_all"]
        - d["fewer_than_2_options_or_bad_key"]
        == d["kept"]
    )
    assert d["inconsistent_across_files"] > 0  # the revised answer keys are caught


def test_answer_semantics_hand_checked(view):
    # Question 70 (ori_mmlu-business_ethics): gold I; seed 0 draws D as the wrong option.
    # Qwen1.5-7B-Chat's pred is D, so it says False to "70:I" and True to "70:D".
    t = view.tidy.set_index(["item", "model"])["answer"]
    assert t[("70:I", "Qwen1.5-7B-Chat")] == -1
    assert t[("70:D", "Qwen1.5-7B-Chat")] == 1
    q = view.queries.set_index("item")
    assert q.loc["70:I", "label"] == 1 and q.loc["70:D", "label"] == -1
    # Yi-6B predicts H on question 70: wrong on the positive query, and right on the negative
    # query unless the drawn distractor is H (seed 4 draws H).
    assert mp.LETTERS[mp.negative_options([70], [8], [9], seed=4)[0]] == "H"
    both = mp.load(models=["Yi-6B", "Qwen1.5-7B-Chat"], subset=["business"], seed=4)
    b = both.set_index(["item", "model"])["answer"]
    assert b[("70:I", "Yi-6B")] == -1 and b[("70:H", "Yi-6B")] == 1
    assert b[("70:H", "Qwen1.5-7B-Chat")] == -1


def test_null_pred_treatment(view):
    # Qwen1.5-7B-Chat has no parsed letter for question 133 (gold J).
    pr = view.predictions.set_index(["model", "question_id"])
    assert pd.isna(pr.loc[("Qwen1.5-7B-Chat", 133), "pred"])
    t = view.tidy[view.tidy["item"].str.startswith("133:")]
    t = t[t.model == "Qwen1.5-7B-Chat"]
    assert len(t) == 2 and (t["answer"] == 0).all()
    n_null = view.predictions["pred"].isna().groupby(view.predictions["model"]).sum()
    n_zero = (view.tidy["answer"] == 0).groupby(view.tidy["model"]).sum()
    assert (n_zero == 2 * n_null.reindex(n_zero.index)).all()
    false = mp.load(null_pred="false")
    f = false[false["item"].str.startswith("133:") & (false.model == "Qwen1.5-7B-Chat")]
    assert (f["answer"] == -1).all()
    assert set(false["answer"].unique()) == {-1, 1}
    # elsewhere identical
    same = view.tidy["answer"] != 0
    assert (false.loc[same, "answer"].to_numpy() == view.tidy.loc[same, "answer"].to_numpy()).all()


# --------------------------------------------------------------------------- the seeded draw
def test_negative_option_seeded(view):
    again = mp.load()
    pd.testing.assert_frame_equal(again, view.tidy, check_like=False)
    other = mp.load(seed=1)
    assert (other["item"] != view.tidy["item"]).any()
    neg0 = view.queries.loc[view.queries.label == -1].set_index("question_id")["option"]
    v1 = mp.binary_view(seed=1)
    neg1 = v1.queries.loc[v1.queries.label == -1].set_index("question_id")["option"]
    frac_same = float((neg0 == neg1.reindex(neg0.index)).mean())
    assert 0.0 < frac_same < 0.3  # ~1/(n_options-1) agree by chance
    # the draw depends on the question only: same in another pool/subset
    health = mp.binary_view(subset="health", models=["gpt4o", "Yi-34B"])
    nh = health.queries.loc[health.queries.label == -1].set_index("question_id")["option"]
    common = nh.index.intersection(neg0.index)
    assert len(common) > 700
    assert (nh.loc[common] == neg0.loc[common]).all()


@settings(deadline=None, max_examples=40)
@given(
    st.lists(
        st.tuples(st.integers(0, 10**6), st.integers(2, 10), st.integers(0, 9)),
        min_size=1,
        max_size=20,
    ),
    st.integers(0, 2**31),
)
def test_negative_options_property(rows, seed):
    qid = [r[0] for r in rows]
    n = [r[1] for r in rows]
    gold = [r[2] % r[1] for r in rows]
    out = mp.negative_options(qid, gold, n, seed=seed)
    assert ((out >= 0) & (out < np.array(n))).all()
    assert (out != np.array(gold)).all()
    np.testing.assert_array_equal(out, mp.negative_options(qid, gold, n, seed=seed))
    # each draw depends on its own question only
    for i in range(len(rows)):
        assert (
            mp.negative_options(qid[i : i + 1], gold[i : i + 1], n[i : i + 1], seed=seed)[0]
            == out[i]
        )


def test_negative_options_uniform():
    n = 10
    out = mp.negative_options(np.arange(9000), np.full(9000, 3), np.full(9000, n), seed=0)
    counts = np.bincount(out, minlength=n)
    assert counts[3] == 0
    assert np.all(np.abs(counts[np.arange(n) != 3] - 1000) < 150)


def test_negative_options_errors():
    with pytest.raises(ValueError, match=r"seed of .* must be an int in \[0, inf\); got"):
        mp.negative_options([1], [0], [4], seed=-1)
    with pytest.raises(ValueError, match="at least 2 options"):
        mp.negative_options([1], [0], [1])
    with pytest.raises(ValueError, match=r"answer_index must lie in \[0, n_options\)"):
        mp.negative_options([1], [4], [4])
    with pytest.raises(ValueError, match="equally long"):
        mp.negative_options([1, 2], [0], [4])


# --------------------------------------------------------------------------- options
def test_subsets(view):
    health = mp.binary_view(subset="health")
    assert (health.queries["category"] == "health").all()
    assert health.dropped["in_subset"] == 818
    anatomy = mp.load(subset=["anatomy"], models=["gpt4o", "Yi-34B"])
    assert anatomy.attrs["dropped"]["in_subset"] == 79
    ids = anatomy["item"].str.split(":").str[0].astype(int).unique()
    cats = view.queries.drop_duplicates("question_id").set_index("question_id")["src"]
    assert set(cats.reindex(ids).dropna()) == {"ori_mmlu-anatomy"}
    both = mp.load(subset=["biology", "ori_mmlu-virology"], models=["gpt4o"])
    assert both.attrs["dropped"]["in_subset"] > 700
    everything = mp.load(subset="all", models=["gpt4o", "Yi-34B"])
    assert everything["item"].nunique() == 2 * everything.attrs["dropped"]["kept"]
    # five questions have a single option in these files: no wrong option to ask about
    assert everything.attrs["dropped"]["fewer_than_2_options_or_bad_key"] == 5
    assert everything.attrs["dropped"]["kept"] == 12032 - 5
    with pytest.raises(ValueError, match=r"unknown subset name\(s\) \['astrology'\]"):
        mp.load(subset=["astrology"])
    with pytest.raises(ValueError, match="subset must name at least one"):
        mp.load(subset=[])


def test_model_pools_and_intersection(env):
    pool = mp.available_models()
    assert len(pool) == 30 and "gpt4o" in pool
    v = mp.binary_view(models="all", subset="all")
    # DeepSeek-Coder-V2's file lacks ~1700 questions: the intersection drops them
    assert v.dropped["not_answered_by_all"] > 1500
    assert v.dropped["inconsistent_across_files"] >= 30  # revised keys/options in newer files
    assert v.tidy["model"].nunique() == 30
    counts = v.tidy.groupby("model").size()
    assert (counts == 2 * v.dropped["kept"]).all()


def test_bad_options(env):
    with pytest.raises(ValueError, match=r"unknown MMLU-Pro model\(s\) \['gpt-5'\]"):
        mp.load(models=["gpt-5"])
    with pytest.raises(ValueError, match="duplicates"):
        mp.load(models=["gpt4o", "gpt4o"])
    with pytest.raises(ValueError, match="null_pred of .* must be one of"):
        mp.load(null_pred="skip")
    with pytest.raises(ValueError, match=r"seed of .* must be an int in \[0, inf\); got"):
        mp.load(seed=-3)
    with pytest.raises(ValueError, match="at least one model"):
        mp.load(models=[])


def test_parquet_cache(env, view):
    first = mp.load()  # this test may be the module's first to call load() (xdist order)
    files = sorted(p.name for p in (env / "mmlu_pro").glob("binary-*.parquet"))
    assert files  # load() wrote its converted tables
    n_before = len(list((env / "mmlu_pro").glob("binary-*.parquet")))
    start = time.perf_counter()
    second = mp.load()
    print(f"\nload() from the Parquet cache: {time.perf_counter() - start:.3f} s")
    pd.testing.assert_frame_equal(first, second)
    assert second.attrs["dropped"] == view.dropped
    assert len(list((env / "mmlu_pro").glob("binary-*.parquet"))) == n_before
    assert not list((env / "mmlu_pro").glob(".*.tmp"))


# --------------------------------------------------------------------------- summaries
def test_model_summary_relations(view):
    s = mp.model_summary(view)
    assert list(s.index) == view.models
    for col in ["mc_accuracy", "binary_accuracy", "error_pos", "error_neg", "null_rate"]:
        assert s[col].between(0, 1).all()
    # positive query wrong iff pred != gold (abstention = error)
    np.testing.assert_allclose(s["error_pos"], 1 - s["mc_accuracy"])
    # negative query wrong iff pred == drawn distractor, or abstained
    np.testing.assert_allclose(s["error_neg"], s["picked_negative"] + s["null_rate"])
    np.testing.assert_allclose(s["binary_accuracy"], 1 - (s["error_pos"] + s["error_neg"]) / 2)
    assert (s["error_pos"] > s["error_neg"]).all()  # label-dependent errors
    assert s.loc["gpt4o", "mc_accuracy"] > s.loc["Qwen1.5-7B-Chat", "mc_accuracy"] + 0.3


def test_models_table_matches_registry_and_names():
    table = mp.models_table()
    assert sorted(table["model"], key=str.lower) == mp.available_models()
    assert set(mp.DEFAULT_POOL) <= set(table["model"])
    assert set(table["tuning"]) <= {"instruct", "base", "unknown"}
    pool = table.set_index("model").loc[list(mp.DEFAULT_POOL)]
    assert pool["provider"].nunique() >= 6
    for _, row in table.iterrows():
        m = re.search(r"(?<![x\d])(\d+)[bB](?![a-zA-Z])", row["model"])
        if m:  # a size in the name must be the recorded size
            assert row["params_b"] == float(m.group(1)), row["model"]
        else:
            assert pd.isna(row["params_b"]), row["model"]
        if re.search(r"instruct|chat", row["model"], re.I):
            assert row["tuning"] == "instruct", row["model"]


@pytest.mark.notebooks
def test_card_renders_instructions_without_data(tmp_path, monkeypatch):
    """Without the data, the card's run is one note on how to get it (nothing computed)."""
    from ensel.book.runner import execute_run, load_runs

    empty_mirror, empty_cache = tmp_path / "mirror", tmp_path / "cache"
    empty_mirror.mkdir()
    empty_cache.mkdir()
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(empty_mirror))
    monkeypatch.setenv("ENSEL_DATA_DIR", str(empty_cache))
    (run,) = [r for r in load_runs(REPO / "notebooks" / "runs.yml")
              if r.output == "mmlu_pro_card"]
    text = execute_run(run, out_dir=tmp_path / "out", root=REPO).read_text()
    assert "python -m ensel.datasets fetch mmlu_pro" in text
    assert "ENSEL_DATA_MIRROR" in text
    assert not any(empty_cache.rglob("*.parquet"))
