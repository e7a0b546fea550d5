"""Top-k and Greedy MI on multiple-choice answers, and their held-out evaluation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from ensel._errors import UsageError
from ensel.aggregate import DawidSkene, PluralityVote, heldout_error, make_aggregator
from ensel.copula import sample_equicorrelated
from ensel.data import OptionMatrix
from ensel.experiment import (
    PAPER_AGGREGATORS,
    PAPER_SELECTORS,
    RESULT_COLUMNS,
    _mv_seed,
    heldout_errors,
    split_indices,
)
from ensel.info import smoothed_mutual_information
from ensel.pools import multiclass_pool
from ensel.protocol import Protocol
from ensel.select import (
    MULTICLASS_SELECTORS,
    MULTICLASS_SPECS,
    SPECS,
    GreedyMI,
    MulticlassGreedyMI,
    MulticlassScoreMI,
    MulticlassTopK,
    ScoreMI,
    TopK,
)

# shared wrong options, correlated correctness, some abstentions
POOL = multiclass_pool(12, 3000, n_options=4, share=0.6, abstain=(0.0, 0.1), random_state=5)
LETTERS = np.array(list("ABCD"), dtype=object)


def _letters(A: np.ndarray) -> np.ndarray:
    return np.where(A >= 0, LETTERS[np.maximum(A, 0)], None)


def _accuracy(A: np.ndarray, y: np.ndarray) -> np.ndarray:
    has = y >= 0
    return np.array([np.mean(A[has, j] == y[has]) for j in range(A.shape[1])])


def test_registry_beside_the_binary_one() -> None:
    assert list(MULTICLASS_SELECTORS) == ["topk", "greedy_mi", "score_mi"]
    assert set(MULTICLASS_SPECS) <= set(SPECS)  # the same criteria under the same names
    assert MULTICLASS_SELECTORS["topk"] is MulticlassTopK
    assert MULTICLASS_SELECTORS["greedy_mi"] is MulticlassGreedyMI
    assert MULTICLASS_SELECTORS["score_mi"] is MulticlassScoreMI


def test_topk_picks_the_most_accurate() -> None:
    acc = _accuracy(POOL.A, POOL.y)
    sel = MulticlassTopK(5).fit(POOL.A, POOL.y)
    order = sorted(range(acc.size), key=lambda j: (-acc[j], j))[:5]
    assert sel.selected_ == order
    np.testing.assert_allclose(sel.gains_, acc[order])
    assert sel.classes_.tolist() == [0, 1, 2, 3]
    assert np.isnan(sel.scores_[1, order[0]]) and sel.scores_.shape == (5, 12)


def test_items_without_gold_are_left_out() -> None:
    y = POOL.y.astype(np.int64).copy()
    y[::3] = -1
    acc = _accuracy(POOL.A, y)
    sel = MulticlassTopK(3).fit(POOL.A, y)
    np.testing.assert_allclose(sel.gains_, np.sort(acc)[::-1][:3])
    g = MulticlassGreedyMI(3).fit(POOL.A, y)
    ref = MulticlassGreedyMI(3).fit(POOL.A[y >= 0], y[y >= 0])
    assert g.selected_ == ref.selected_
    np.testing.assert_array_equal(g.gains_, ref.gains_)


def _mi_with(y: np.ndarray, A: np.ndarray, cols: list[int]) -> float:
    """Smoothed I(Y; X_cols) with the nominal product alphabet, counted independently."""
    K = 4
    codes, size = np.zeros(len(y), dtype=np.int64), 1
    for j in cols:
        radix = K + 1 if (A[:, j] < 0).any() else K
        codes = codes * radix + np.where(A[:, j] < 0, K, A[:, j])
        size *= radix
    _, codes = np.unique(codes, return_inverse=True)
    # relabelled codes: the nominal size stays the product alphabet
    return smoothed_mutual_information(y, codes.reshape(-1), size_a=K, size_b=size)


def test_greedy_mi_first_pick_is_the_most_informative() -> None:
    sel = MulticlassGreedyMI(3).fit(POOL.A, POOL.y)
    mi = np.array([_mi_with(POOL.y, POOL.A, [j]) for j in range(12)])
    assert sel.selected_[0] == int(np.argmax(mi))
    np.testing.assert_allclose(sel.gains_[0], mi.max(), rtol=1e-12)
    # the second pick maximises I(Y; X_S, X_j) (counted the slow way)
    s0 = sel.selected_[0]
    joint = {j: _mi_with(POOL.y, POOL.A, [s0, j]) for j in range(12) if j != s0}
    assert sel.selected_[1] == max(joint, key=lambda j: (joint[j], -j))
    np.testing.assert_allclose(sel.gains_[1], joint[sel.selected_[1]] - mi.max(), rtol=1e-9)


def test_greedy_mi_sees_a_copy_that_topk_keeps() -> None:
    """Model 1 copies model 0 answer for answer (same wrong options): Greedy MI learns nothing
    from it and takes the weaker independent model; Top-k takes the copy."""
    rng = np.random.default_rng(0)
    n = 4000
    y = rng.integers(0, 4, n)

    def model(acc: float) -> np.ndarray:
        right = rng.random(n) < acc
        return np.where(right, y, (y + rng.integers(1, 4, n)) % 4)

    a = model(0.8)
    A = np.column_stack([a, a, model(0.7)])
    assert MulticlassTopK(2).fit(A, y).selected_ == [0, 1]
    assert MulticlassGreedyMI(2).fit(A, y).selected_ == [0, 2]
    sel = MulticlassScoreMI(2).fit(A, y)  # the copy's gain is 0: a supported departure
    assert sel.selected_ == [0, 2] and sel.fallback_ == [False, False]
    assert sel.scores_[1, 1] == pytest.approx(0.0, abs=1e-12)


def test_binary_labels_give_the_binary_selectors() -> None:
    """With K = 2 (codes 0/1, -1 abstained) the picks, gains and scores are the binary ones."""
    X, y, _ = sample_equicorrelated(0.7, 0.3, 6, 2000, random_state=0)
    X = X.copy()
    X[np.random.default_rng(1).random(X.shape) < 0.05] = 0
    A = np.where(X == 0, -1, (X > 0).astype(int))
    yc = (y > 0).astype(int)
    g, h = GreedyMI(5).fit(X, y), MulticlassGreedyMI(5).fit(A, yc)
    assert g.selected_ == h.selected_
    np.testing.assert_allclose(h.gains_, g.gains_, atol=1e-12)
    np.testing.assert_allclose(h.scores_, g.scores_, atol=1e-12)
    assert TopK(6).fit(X, y).selected_ == MulticlassTopK(6).fit(A, yc).selected_
    # ScoreMI's statistic (winner, margin) partitions the items as the binary score does
    # while at most two models are picked: the same first two steps
    b, o = ScoreMI(4).fit(X, y), MulticlassScoreMI(4).fit(A, yc)
    assert b.selected_[:2] == o.selected_[:2] and b.fallback_[:2] == o.fallback_[:2]
    np.testing.assert_allclose(o.gains_[:2], b.gains_[:2], atol=1e-12)
    np.testing.assert_allclose(o.thresholds_[:2], b.thresholds_[:2], rtol=1e-12)


@pytest.mark.parametrize("cls", [MulticlassTopK, MulticlassGreedyMI, MulticlassScoreMI])
def test_row_order_does_not_matter(cls) -> None:
    perm = np.random.default_rng(7).permutation(POOL.A.shape[0])
    a, b = cls(4).fit(POOL.A, POOL.y), cls(4).fit(POOL.A[perm], POOL.y[perm])
    assert a.selected_ == b.selected_
    np.testing.assert_allclose(a.gains_, b.gains_, rtol=1e-12)
    np.testing.assert_allclose(a.scores_, b.scores_, rtol=1e-12)


@pytest.mark.parametrize("cls", [MulticlassTopK, MulticlassGreedyMI, MulticlassScoreMI])
def test_string_labels_and_dataframes(cls) -> None:
    names = [f"m{j}" for j in range(12)]
    df = pd.DataFrame(_letters(POOL.A), columns=names)
    gold = LETTERS[POOL.y]
    sel = cls(3).fit(df, gold)
    ref = cls(3).fit(POOL.A, POOL.y)
    assert sel.selected_ == ref.selected_
    np.testing.assert_allclose(sel.gains_, ref.gains_, rtol=1e-12)
    assert sel.classes_.tolist() == ["A", "B", "C", "D"]
    assert sel.selected_names_ == [names[j] for j in ref.selected_]
    out = sel.transform(df)
    assert list(out.columns) == sel.selected_names_ and out.iloc[0, 0] in set("ABCD") | {None}
    assert sel.get_feature_names_out().tolist() == sel.selected_names_
    # deterministic, and clone()/get_params as scikit-learn expects
    again = clone(sel).fit(df, gold)
    assert again.selected_ == sel.selected_ and again.get_params() == sel.get_params()


def test_option_codes_are_never_read_as_binary_answers() -> None:
    """Codes 0..3 are options here; the binary selectors refuse them rather than misread."""
    with pytest.raises(ValueError, match="X"):
        TopK(2).fit(POOL.A, POOL.y)
    # two options 0/1: the binary rule would read 0 as an abstention, this one as option 0
    A = np.array([[0, 1], [1, 1], [0, 0], [1, 0]])
    y = np.array([0, 1, 0, 1])
    assert MulticlassTopK(1).fit(A, y).gains_.tolist() == [1.0]


@pytest.mark.parametrize("make, y, match", [
    (lambda: MulticlassTopK(2), None, "y"),
    (lambda: MulticlassTopK(2), np.full(3000, -1), "y"),
    (lambda: MulticlassGreedyMI(2), np.zeros(3000, dtype=int), "2 distinct options"),
    (lambda: MulticlassTopK(13), POOL.y, "k"),
    (lambda: MulticlassGreedyMI(2, alpha=0.0), POOL.y, "alpha"),
    (lambda: MulticlassScoreMI(2), np.zeros(3000, dtype=int), "2 distinct options"),
    (lambda: MulticlassScoreMI(2, n_bins=1), POOL.y, "n_bins"),
    (lambda: MulticlassTopK(2), POOL.y[:10], "labels"),
])
def test_bad_input(make, y, match) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        make().fit(POOL.A, y)


def test_bad_answers_named() -> None:
    X = POOL.A.astype(float)
    X[4, 2] = 0.5
    with pytest.raises(ValueError, match=r"0\.5 in column 2, row 4"):
        MulticlassTopK(2).fit(X, POOL.y)
    sel = MulticlassTopK(2).fit(POOL.A, POOL.y)
    bad = POOL.A.copy()
    bad[0, 1] = 7  # an option never seen at fit
    with pytest.raises(ValueError, match="classes seen at fit"):
        sel.transform(bad)
    with pytest.raises(ValueError, match="12 models"):
        sel.transform(POOL.A[:, :5])


# --------------------------------------------------------------------------- held-out
def _matrix(pool, gold: np.ndarray | None = None) -> OptionMatrix:
    n, m = pool.A.shape
    return OptionMatrix(pool.A.astype(np.int16),
                        (pool.y if gold is None else gold).astype(np.int16),
                        [tuple("ABCD")] * n, [f"q{i}" for i in range(n)],
                        [f"m{j}" for j in range(m)], condition="c")


EVAL = multiclass_pool(10, 1500, n_options=4, share=0.8, random_state=2)
PR = Protocol(n_splits=2, seed=3)


def test_heldout_label_free_ds_and_plurality_on_the_same_splits() -> None:
    om = _matrix(EVAL)
    kw = dict(ks=[1, 3, 5], protocol=PR, condition="c", aggregators=["plurality", "ds"],
              label_free=True)
    res = heldout_errors(om, **kw)
    assert list(res.columns[:5]) == [c for c in RESULT_COLUMNS if c != "condition"]
    assert len(res) == 2 * len(MULTICLASS_SELECTORS) * 3 * 2
    pd.testing.assert_frame_equal(res, heldout_errors(om, **kw))  # deterministic
    by = res.set_index(["split", "selector", "k", "aggregator"])
    # one split, one selection for both aggregators
    for _, part in by.groupby(level=[0, 1, 2]):
        assert part["selected"].nunique() == 1 and part["n_test"].nunique() == 1
    assert (res["n_test"] == 300).all()
    # equals a hand loop on split 1
    tr, te = split_indices(1500, condition="c", split=1, seed=3, item_ids=om.items)
    seed = _mv_seed(3, "c", 1)
    for sel_name, cls in MULTICLASS_SELECTORS.items():
        picks = cls(5).fit(om.A[tr], om.gold[tr]).selected_
        for k in (1, 3, 5):
            cols = picks[:k]
            assert by.loc[(1, sel_name, k, "ds"), "selected"] == "|".join(
                om.models[j] for j in cols)
            ds = DawidSkene(random_state=seed).fit(om.A[tr][:, cols])
            pv = PluralityVote().fit(om.A[tr][:, cols])
            for name, model in (("ds", ds), ("plurality", pv)):
                want = float(np.mean(model.tie_error(om.A[te][:, cols], om.gold[te])))
                assert by.loc[(1, sel_name, k, name), "error"] == pytest.approx(want, abs=1e-15)


def test_heldout_missing_gold_and_gold_fitted_aggregators() -> None:
    gold = EVAL.y.astype(np.int64).copy()
    gold[::4] = -1
    om = _matrix(EVAL, gold)
    res = heldout_errors(om, ks=[2], protocol=PR, condition="c",
                         selectors=["greedy_mi"], aggregators=["wplurality"])
    tr, te = split_indices(1500, condition="c", split=0, seed=3, item_ids=om.items)
    assert res.loc[res.split == 0, "n_test"].item() == int((gold[te] >= 0).sum())
    cols = MulticlassGreedyMI(2).fit(om.A[tr], om.gold[tr]).selected_
    model = make_aggregator("wplurality").fit(om.A[tr][:, cols], om.gold[tr])
    want = heldout_error(model, om.A[te][:, cols], om.gold[te])
    assert res.loc[res.split == 0, "error"].item() == pytest.approx(want, abs=1e-15)
    acc = _accuracy(om.A[tr], om.gold[tr])
    assert res.loc[res.split == 0, "selected_accuracy"].item() == pytest.approx(acc[cols].mean())


def test_heldout_defaults_follow_the_input_kind() -> None:
    res = heldout_errors(_matrix(EVAL), ks=[2], protocol=Protocol(n_splits=1))
    assert sorted(res["selector"].unique()) == sorted(MULTICLASS_SELECTORS)
    X, y, _ = sample_equicorrelated(0.7, 0.3, 4, 500, random_state=0)
    res = heldout_errors(X, y, ks=[2], protocol=Protocol(n_splits=1))
    assert sorted(res["selector"].unique()) == sorted(PAPER_SELECTORS)
    assert sorted(res["aggregator"].unique()) == sorted(PAPER_AGGREGATORS)


@pytest.mark.parametrize("kw, match", [
    (dict(y=EVAL.y), "y"),
    (dict(exhaustive=True), "exhaustive"),
    (dict(selectors=["mrmr"]), "selectors"),
    (dict(aggregators=["map"]), "aggregators"),
    (dict(aggregators=["wplurality"], label_free=True), "label-free"),
    (dict(label_free="yes"), "label_free"),
])
def test_heldout_bad_input(kw, match) -> None:
    with pytest.raises((ValueError, TypeError, UsageError), match=match):
        heldout_errors(_matrix(EVAL), ks=[2], protocol=Protocol(n_splits=1), **kw)


def test_heldout_binary_needs_labels() -> None:
    X, _, _ = sample_equicorrelated(0.7, 0.3, 4, 200, random_state=0)
    with pytest.raises(ValueError, match="OptionMatrix"):
        heldout_errors(X, ks=[2], protocol=Protocol(n_splits=1))


def test_score_mi_first_pick_and_fallback_to_accuracy() -> None:
    """The first gain is the plug-in I(Y; X_j); every fallback pick is the most accurate
    remaining model, and the picks are nested."""
    sel = MulticlassScoreMI(6).fit(POOL.A, POOL.y)
    acc = _accuracy(POOL.A, POOL.y)
    p = pd.crosstab(POOL.y, pd.Series(POOL.A[:, sel.selected_[0]])).to_numpy() / len(POOL.y)
    px, py = p.sum(axis=0), p.sum(axis=1)
    nz = p > 0
    mi = float((p[nz] * np.log2(p[nz] / np.outer(py, px)[nz])).sum())
    assert sel.gains_[0] == pytest.approx(mi, rel=1e-9)
    assert sel.gains_[0] == pytest.approx(np.nanmax(sel.scores_[0]), rel=1e-12)
    left = set(range(12))
    for j, fell in zip(sel.selected_, sel.fallback_, strict=True):
        if fell:
            assert acc[j] == max(acc[i] for i in left)
        left.discard(j)
    assert MulticlassScoreMI(3).fit(POOL.A, POOL.y).selected_ == sel.selected_[:3]


def test_heldout_option_never_seen_in_training() -> None:
    """An option that only the test part of a split holds: an answer the aggregator never saw
    counts as no answer, a gold it never saw as an error (no crash, no silent skip)."""
    om = _matrix(EVAL)
    tr, te = split_indices(1500, condition="c", split=0, seed=3, item_ids=om.items)
    A, gold = om.A.copy(), om.gold.copy()
    A[te[:5], :] = 4  # every model answers a fifth option on five test items
    gold[te[5]] = 4  # and one test item has it as gold
    options = [tuple("ABCDE") if i in set(te[:6].tolist()) else o
               for i, o in enumerate(om.options)]  # those items offer the fifth option
    om = OptionMatrix(A, gold, options, om.items, om.models, condition="c")
    res = heldout_errors(om, ks=[3], protocol=PR, condition="c", selectors=["topk"],
                         aggregators=["plurality"], label_free=True)
    cols = MulticlassTopK(3).fit(A[tr], gold[tr]).selected_
    pv = PluralityVote().fit(A[tr][:, cols])
    assert 4 not in pv.classes_
    Ae = np.where(A[te][:, cols] == 4, -1, A[te][:, cols])
    want = pv.tie_error(Ae, np.where(gold[te] == 4, 0, gold[te]))
    want[5] = 1.0
    assert res.loc[res.split == 0, "error"].item() == pytest.approx(float(np.mean(want)))
    assert res.loc[res.split == 1, "error"].notna().item()  # there the option is in training
