"""Tests of ensel.book.answers (the computations of the page "answers as they are")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ensel.book.answers import (
    FREE,
    aggregator_labels,
    aggregator_table,
    claim_cells,
    claim_table,
    crowdkit_table,
    interval_cells,
    label_free_table,
    llmbar_majority,
    page_views,
    paper_picks_agree,
    pool_table,
    same_questions,
    split_overlap,
    view_errors,
    view_sizes,
    views,
)
from ensel.data import answer_matrix
from ensel.pools import multiclass_pool


@pytest.fixture(scope="module")
def pool() -> pd.DataFrame:
    return pool_table(8, 400, 0.5, seed=3)


@pytest.fixture(scope="module")
def data(pool: pd.DataFrame) -> dict:
    return {"pool": views(pool, seed=0, synthetic=True)}


@pytest.fixture(scope="module")
def errors(data: dict) -> pd.DataFrame:
    return view_errors(data, ks=[2, 3], n_splits=3, seed=0)


def test_pool_table_holds_the_pools_answers(pool: pd.DataFrame) -> None:
    p = multiclass_pool(8, 400, n_options=4, share=0.5, family_size=5, random_state=3)
    m = answer_matrix(pool)
    assert m.A.shape == (400, 8) and m.options[0] == ("A", "B", "C", "D")
    np.testing.assert_array_equal(m.A, p.A)
    np.testing.assert_array_equal(m.gold, p.y)


def test_the_binary_view_asks_two_queries_about_each_native_question(data: dict) -> None:
    v = data["pool"]
    nat, binary, q = v.native[0], v.binary[0], v.questions[0]
    assert binary.A.shape == (2 * len(nat.items), nat.A.shape[1])
    assert set(q) == set(nat.items) and pd.Series(q).value_counts().eq(2).all()
    assert same_questions(v)
    assert binary.gold.sum() == len(nat.items)  # one positive query per question
    # a model says "yes" to the gold query exactly when its native answer is the gold
    yes = binary.A[binary.gold == 1]
    order = {it: i for i, it in enumerate(nat.items)}
    rows = [order[x] for x in q[binary.gold == 1]]
    np.testing.assert_array_equal(yes == 1, nat.A[rows] == nat.gold[rows, None])
    assert view_sizes(data).loc["pool", "binary queries"] == 800


def test_both_views_split_the_questions_alike(data: dict) -> None:
    ov = split_overlap(data["pool"], n_splits=4, seed=0)
    assert ov["native_only"].max() == 0 and ov["binary_only"].max() <= 1


def test_two_option_selectors_pick_the_papers_models_on_the_binary_view(data: dict) -> None:
    assert paper_picks_agree(data["pool"], 5)


def test_view_errors_runs_every_arm_on_both_views(errors: pd.DataFrame) -> None:
    assert set(errors["view"]) == {"native", "binary"}
    arms = set(zip(errors["selector"], errors["aggregator"], strict=True))
    assert ("greedy_mi", "pattern") in arms and ("score_mi", "ds" + FREE) in arms
    assert errors.groupby(["view", "selector", "aggregator", "k"]).size().eq(3).all()
    assert errors["error"].between(0, 1).all()


def test_claims_have_well_formed_intervals_from_every_split(errors: pd.DataFrame) -> None:
    claims = claim_table(errors)
    assert set(claims["selector"]) == {"greedy_mi", "score_mi"}
    assert (claims["ci_low"] <= claims["mean_diff"] + 1e-12).all()
    assert (claims["mean_diff"] <= claims["ci_high"] + 1e-12).all()
    assert (claims["n"] == 3).all()
    cells = claim_cells(claims)
    assert list(cells.columns.get_level_values(0)) == ["native"] * 2 + ["binary"] * 2
    assert cells.shape == (2, 4)


def test_interval_cells_format_and_order() -> None:
    t = pd.DataFrame({"row": ["b", "a"], "col": ["x", "x"], "mean_diff": [-0.0, 0.02],
                      "ci_low": [-0.01, 0.01], "ci_high": [0.01, 0.03],
                      "verdict": ["within noise", "contradicted"]})
    cells = interval_cells(t, index=["row"], columns=["col"])
    assert cells.index.tolist() == ["b", "a"]
    assert cells["x"].tolist() == ["+0.000 ± 0.010 ≈", "+0.020 ± 0.010 WORSE"]


def test_label_free_table_pairs_free_and_fitted(errors: pd.DataFrame) -> None:
    t = label_free_table(errors, k=5)
    assert len(t) == 2 * 2 * 2  # views x free fits x fitted baselines
    assert (t["k"] == 3).all()  # the largest budget run
    assert t["contrast"].iloc[0] == "DS, no gold − DS"


def test_the_aggregator_columns_read_the_one_registry(errors: pd.DataFrame,
                                                     monkeypatch) -> None:
    """The page's aggregator names were a copy of the registry's labels; now a label
    changed in :data:`ensel.aggregate.MULTICLASS_SPECS` is the page's too."""
    from dataclasses import replace

    from ensel.aggregate import MULTICLASS_SPECS

    assert aggregator_labels() == {"plurality": "PV", "wplurality": "W-PV",
                                   "pattern": "pattern MAP", "ds": "DS",
                                   "ds" + FREE: "DS, no gold",
                                   "family_ds" + FREE: "family DS, no gold"}
    assert list(aggregator_table(errors, k=5).columns) == list(aggregator_labels().values())
    monkeypatch.setitem(MULTICLASS_SPECS, "ds", replace(MULTICLASS_SPECS["ds"], label="EM"))
    assert "EM, no gold" in aggregator_table(errors, k=5).columns
    assert label_free_table(errors, k=5)["contrast"].iloc[0] == "EM, no gold − EM"


def test_the_result_does_not_depend_on_the_row_order(pool: pd.DataFrame,
                                                     errors: pd.DataFrame) -> None:
    shuffled = pool.sample(frac=1.0, random_state=1).reset_index(drop=True)
    again = view_errors({"pool": views(shuffled, seed=0)}, ks=[2, 3], n_splits=3, seed=0)
    key = ["view", "condition", "split", "selector", "aggregator", "k"]
    a, b = (e.set_index(key)["error"].sort_index() for e in (errors, again))
    pd.testing.assert_series_equal(a, b)


def test_dawid_skene_agrees_with_crowd_kit(data: dict) -> None:
    pytest.importorskip("crowdkit.aggregation")
    t = crowdkit_table(data)
    assert t.index.tolist() == ["pool"] and t.loc["pool", "crowd-kit s"] > 0
    assert abs(t.loc["pool", "difference"]) <= 3 * t.loc["pool", "se"] + 0.002
    assert t.loc["pool", "agree"] > 0.95


def test_llmbar_majority_explains_the_label_free_error() -> None:
    """On the real LLMBar (skipped without it): the plurality of judges errs on the
    adversarial items, DS follows it and ranks the judges against their gold accuracy."""
    from ensel.book.large_pools import available

    if not available(["llmbar"])[0]:
        pytest.skip("LLMBar is not available here")
    data, _ = page_views(["llmbar"], [], pool_models=4, pool_items=50)
    why = llmbar_majority(data["LLMBar"])
    assert 0.5 < why["adversarial"] < 1 and why["pv_adv"] >= 0.5
    assert why["agree_pv"] > 0.8 and why["rank"] < 0
    assert why["ds_natural"] < why["ds_adv"] / 2
    assert 0 < why["below_chance"] < 18
    assert why["ll_free"] > why["ll_gold"]  # the likelihood prefers the majority, not EM

