"""Tests for ensel.aggregate: MAP, majority vote and log-odds weighted vote."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import ensel.aggregate as agg
from ensel.aggregate import MajorityVote, MAPAggregator, WeightedMajorityVote


def _independent(acc, n, seed):
    """Independent models with the given accuracies, balanced-ish labels."""
    rng = np.random.default_rng(seed)
    acc = np.asarray(acc)
    y = np.where(rng.random(n) < 0.5, 1, -1).astype(np.int8)
    correct = rng.random((n, acc.size)) < acc
    X = np.where(correct, y[:, None], -y[:, None]).astype(np.int8)
    return X, y


# ----------------------------------------------------------------------------- MAP


def test_map_hand_made_count_table_and_paper_index():
    # pattern index = sum_j (x_j + 1)/2 * 2^(j-1): column 0 is the least significant bit
    rows = {  # pattern -> (n_neg, n_pos)
        (-1, -1): (5, 1),   # code 0 -> -1
        (+1, -1): (2, 2),   # code 1 -> tie -> +1
        (-1, +1): (1, 3),   # code 2 -> +1
        # (+1, +1) unseen  -> code 3 -> (1, 1) smoothed -> +1
    }
    X, y = [], []
    for pat, (nn, npos) in rows.items():
        X += [pat] * (nn + npos)
        y += [-1] * nn + [1] * npos
    m = MAPAggregator().fit(np.array(X), np.array(y))
    np.testing.assert_array_equal(m.counts_, [[5, 1], [2, 2], [1, 3], [0, 0]])
    assert m.size_ == 4 and m.base_ == 2 and m.n_models_ == 2 and m.patterns_ is None
    np.testing.assert_array_equal(m.classes_, [-1, 1])
    test = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]])
    np.testing.assert_array_equal(m.predict(test), [-1, 1, 1, 1])
    proba = m.predict_proba(test)
    np.testing.assert_allclose(proba[:, 1], [2 / 8, 3 / 6, 4 / 6, 1 / 2])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_map_alpha_changes_decision_and_zero_alpha_unseen():
    X = np.array([[1]] * 3 + [[-1]] * 2)
    y = np.array([-1, -1, 1, 1, -1])
    # pattern +1: 2 neg, 1 pos; pattern -1: 1 neg, 1 pos
    assert MAPAggregator(alpha=0).fit(X, y).predict([[1], [-1]]).tolist() == [-1, 1]
    X2 = np.array([[1, 1], [1, 1], [-1, -1]])
    y2 = np.array([1, 1, -1])
    m = MAPAggregator(alpha=0.0).fit(X2, y2)
    np.testing.assert_allclose(m.predict_proba([[1, -1]]), [[0.5, 0.5]])
    assert m.predict([[1, -1]]).tolist() == [1]


def test_map_k1_is_the_model_or_its_flip():
    X, y = _independent([0.8], 5000, 0)
    np.testing.assert_array_equal(MAPAggregator().fit(X, y).predict(X), X[:, 0])
    X, y = _independent([0.2], 5000, 1)
    np.testing.assert_array_equal(MAPAggregator().fit(X, y).predict(X), -X[:, 0])


def test_map_ties_go_to_plus_one():
    X = np.array([[1], [1], [-1], [-1]])
    y = np.array([1, -1, 1, -1])
    m = MAPAggregator().fit(X, y)
    assert m.predict([[1], [-1]]).tolist() == [1, 1]
    np.testing.assert_allclose(m.predict_proba([[1]]), [[0.5, 0.5]])


def test_map_abstentions_base3_and_unseen_abstention():
    X = np.array([[0, 1], [0, 1], [1, 1], [-1, 0], [-1, 0]])
    y = np.array([-1, -1, 1, 1, 1])
    m = MAPAggregator().fit(X, y)
    assert m.base_ == 3 and m.size_ == 9
    # digits -1 -> 0, +1 -> 1, 0 -> 2; code = d0 + 3 d1
    assert m.counts_[2 + 3 * 1].tolist() == [2, 0]
    assert m.counts_[0 + 3 * 2].tolist() == [0, 2]
    np.testing.assert_array_equal(m.predict(X), [-1, -1, 1, 1, 1])
    # trained without abstentions: a test row with one is an unseen pattern
    X2 = np.array([[1, 1], [-1, -1], [-1, -1]])
    m2 = MAPAggregator().fit(X2, [1, -1, -1])
    assert m2.base_ == 2
    np.testing.assert_array_equal(m2.predict([[-1, 0], [-1, -1]]), [1, -1])
    np.testing.assert_allclose(m2.predict_proba([[0, -1]]), [[0.5, 0.5]])


def test_map_sparse_table_matches_dense(monkeypatch):
    X, y = _independent([0.7, 0.6, 0.8, 0.65, 0.75, 0.7], 3000, 3)
    X[::17, 2] = 0
    Xt, _ = _independent([0.7, 0.6, 0.8, 0.65, 0.75, 0.7], 500, 4)
    Xt[::13, 4] = 0
    dense = MAPAggregator().fit(X, y)
    monkeypatch.setattr(agg._paper, "DENSE_MAX_PATTERNS", 10)
    sparse = MAPAggregator().fit(X, y)
    assert sparse.patterns_ is not None and dense.patterns_ is None
    assert sparse.counts_.shape[0] == sparse.patterns_.size < sparse.size_
    np.testing.assert_array_equal(sparse.predict(Xt), dense.predict(Xt))
    np.testing.assert_allclose(sparse.predict_proba(Xt), dense.predict_proba(Xt))


@settings(deadline=None, max_examples=40)
@given(
    data=arrays(np.int8, st.tuples(st.integers(2, 40), st.integers(1, 4)),
                elements=st.sampled_from([-1, 0, 1])),
    ybits=st.lists(st.booleans(), min_size=40, max_size=40),
    alpha=st.sampled_from([0.0, 0.5, 1.0, 2.0]),
)
def test_map_matches_brute_force_counting(data, ybits, alpha):
    n = data.shape[0]
    y = np.where(np.array(ybits[:n]), 1, -1)
    y[0], y[1] = 1, -1  # both classes
    m = MAPAggregator(alpha=alpha).fit(data, y)
    proba = m.predict_proba(data)
    pred = m.predict(data)
    for i, row in enumerate(data):
        same = (data == row).all(axis=1)
        pos = np.sum(same & (y == 1)) + alpha
        neg = np.sum(same & (y == -1)) + alpha
        assert pred[i] == (1 if pos >= neg else -1)
        assert proba[i, 1] == pytest.approx(pos / (pos + neg))
    # predict_proba consistent with predict
    np.testing.assert_array_equal(pred, np.where(proba[:, 1] >= proba[:, 0], 1, -1))


def test_map_errors():
    X = np.array([[1, -1], [-1, 1]])
    with pytest.raises(ValueError, match="only the label"):
        MAPAggregator().fit(X, [1, 1])
    m = MAPAggregator().fit(X, [1, -1])
    with pytest.raises(ValueError, match="X of MAPAggregator.predict must be of 2 columns .*; "
                       "got 3 columns"):
        m.predict(np.ones((2, 3)))
    with pytest.raises(ValueError, match="this MAPAggregator is not fitted yet"):
        MAPAggregator().predict(X)
    with pytest.raises(ValueError, match=r"alpha of MAPAggregator must be a real number in "
                       r"\[0, inf\); got -1"):
        MAPAggregator(alpha=-1).fit(X, [1, -1])
    with pytest.raises(ValueError, match="value 2"):
        MAPAggregator().fit([[1, 2], [1, 1]], [1, -1])
    with pytest.raises(ValueError, match="y has 3 labels but X has 2 rows"):
        MAPAggregator().fit(X, [1, -1, 1])


# ----------------------------------------------------------------------------- majority vote


def test_majority_vote_basic_and_abstentions():
    X = np.array([[1, 1, -1], [-1, -1, 1], [1, 0, 0], [0, -1, 0], [1, 1, 1]])
    mv = MajorityVote(random_state=0).fit(X)
    assert mv.n_models_ == 3
    np.testing.assert_array_equal(mv.predict(X), [1, -1, 1, -1, 1])
    np.testing.assert_array_equal(mv.decision_function(X), [1, -1, 1, -1, 3])


def _tie_patterns(m: int) -> np.ndarray:
    """Every answer pattern of ``m`` models whose votes tie (``sum == 0``), abstentions too."""
    grid = np.array(list(itertools.product((-1, 0, 1), repeat=m)), dtype=np.int8)
    return grid[grid.sum(axis=1) == 0]


def test_majority_vote_ties_seeded_and_reproducible():
    X = _tie_patterns(8)  # 1107 distinct tied rows
    a = MajorityVote(random_state=7).fit(X).predict(X)
    b = MajorityVote(random_state=7).fit(X).predict(X)
    c = MajorityVote(random_state=8).fit(X).predict(X)
    np.testing.assert_array_equal(a, b)  # an int seed: the same coins at every fit
    assert (a != c).any()
    # a fair coin over distinct patterns: |share - 1/2| within 4 sd of Binomial(1107, 1/2)
    assert abs((a == 1).mean() - 0.5) < 4 * np.sqrt(0.25 / len(X))
    mv = MajorityVote(random_state=3).fit(X)
    np.testing.assert_array_equal(mv.predict(X), mv.predict(X))  # same coins every call
    gen = np.random.default_rng(3)
    g1, g2 = MajorityVote(random_state=gen).fit(X), MajorityVote(random_state=gen).fit(X)
    assert g1.tie_seed_ != g2.tie_seed_  # a Generator is advanced once per fit ...
    np.testing.assert_array_equal(g1.predict(X), g1.predict(X))  # ... never per predict
    fresh = MajorityVote().fit(X)  # None: entropy drawn at fit, then fixed
    np.testing.assert_array_equal(fresh.predict(X), fresh.predict(X[::-1])[::-1])


def test_majority_vote_identical_tied_patterns_share_their_coin():
    X = np.tile(np.array([[1, -1], [0, 0], [-1, 1]], dtype=np.int8), (300, 1))
    for seed in range(20):
        pred = MajorityVote(random_state=seed).fit(X).predict(X).reshape(300, 3)
        assert (pred == pred[0]).all()  # one coin per pattern under one seed


def test_majority_vote_tie_coin_is_fair_over_seeds():
    # the fixed seeds 0..1999: each tied pattern's share of +1 is Binomial(2000, 1/2) / 2000
    # for a fair coin; 4.5 sd (0.05) bounds all 29 patterns together with probability
    # > 0.9998 (union bound), and the seeds are fixed, so the test is deterministic
    X = _tie_patterns(6)[::5]  # 29 of the 141 tied patterns of 6 models
    assert len(X) == 29 and (X == 0).all(axis=1).any()  # the all-abstained row is one
    seeds = range(2000)
    plus = np.mean([MajorityVote(random_state=s).fit(X).predict(X) == 1 for s in seeds], axis=0)
    assert np.abs(plus - 0.5).max() < 4.5 * np.sqrt(0.25 / len(seeds))


def test_majority_vote_odd_k_never_random():
    X, _ = _independent([0.6, 0.7, 0.8], 2000, 5)
    preds = {tuple(MajorityVote(random_state=s).fit(X).predict(X)) for s in range(5)}
    assert len(preds) == 1
    np.testing.assert_array_equal(np.array(preds.pop()), np.sign(X.sum(axis=1)))


def test_majority_vote_errors():
    mv = MajorityVote().fit(np.ones((3, 2)))
    with pytest.raises(ValueError, match="X of MajorityVote.predict must be of 2 columns"):
        mv.predict(np.ones((3, 3)))
    with pytest.raises(ValueError, match="random_state of MajorityVote must be an int, a numpy "
                       "Generator or None; got 'a'"):
        MajorityVote(random_state="a").fit(np.ones((3, 2)))
    with pytest.raises(ValueError, match="2-dimensional"):
        MajorityVote().fit(np.ones(3))


# ----------------------------------------------------------------------------- weighted vote


def test_wmv_weights_are_log_odds_of_training_accuracy():
    X = np.array([[1, 1, 0], [1, -1, 1], [-1, -1, -1], [-1, 1, 1]])
    y = np.array([1, 1, -1, 1])
    w = WeightedMajorityVote().fit(X, y)
    # each column is right on 3 of 4 items; the abstention in column 2 is not correct
    np.testing.assert_allclose(w.accuracies_, [3 / 4, 3 / 4, 3 / 4])
    np.testing.assert_allclose(w.weights_, np.log(3.0) * np.ones(3))
    np.testing.assert_allclose(w.decision_function(X), np.log(3.0) * np.array([2, 1, -3, 1]))


def test_wmv_weights_finite_at_accuracy_zero_and_one():
    y = np.array([1, -1, 1, -1, 1, -1, 1, 1])
    X = np.column_stack([y, -y, y])
    X[0, 2] = -y[0]
    w = WeightedMajorityVote().fit(X, y)
    n = len(y)
    np.testing.assert_allclose(w.accuracies_, [1.0, 0.0, 7 / 8])
    assert np.all(np.isfinite(w.weights_))
    np.testing.assert_allclose(w.weights_[:2], [np.log(n + 1), -np.log(n + 1)])
    np.testing.assert_allclose(w.weights_[2], np.log(7.0))
    # the always-wrong model is flipped, so every prediction is right
    np.testing.assert_array_equal(w.predict(X), y)
    w2 = WeightedMajorityVote(eps=0.2).fit(X, y)
    np.testing.assert_allclose(w2.weights_, [np.log(4.0), -np.log(4.0), np.log(4.0)])


def test_wmv_tie_goes_to_plus_one():
    X = np.array([[1, -1], [-1, 1], [1, 1], [-1, -1]])
    y = np.array([1, 1, 1, -1])
    w = WeightedMajorityVote().fit(X, y)
    assert w.weights_[0] == w.weights_[1] == pytest.approx(np.log(3.0))
    assert w.predict([[1, -1], [-1, 1], [0, 0]]).tolist() == [1, 1, 1]


def test_wmv_equals_map_and_exact_llr_under_independence():
    acc = np.array([0.6, 0.7, 0.8, 0.9])
    w_true = np.log(acc / (1 - acc))
    patterns = np.array(list(itertools.product([-1, 1], repeat=acc.size)))
    llr = patterns @ w_true  # exact log-likelihood ratio log P(x|+1)/P(x|-1)
    assert np.min(np.abs(llr)) > 0.1  # no pattern near the decision boundary
    exact = np.where(llr > 0, 1, -1)
    X, y = _independent(acc, 200_000, 11)
    wmv = WeightedMajorityVote().fit(X, y)
    mp = MAPAggregator().fit(X, y)
    np.testing.assert_array_equal(wmv.predict(patterns), exact)
    np.testing.assert_array_equal(mp.predict(patterns), exact)
    np.testing.assert_allclose(wmv.accuracies_, acc, atol=0.005)


def test_wmv_errors():
    X = np.array([[1, -1], [-1, 1]])
    with pytest.raises(ValueError, match="only the label"):
        WeightedMajorityVote().fit(X, [-1, -1])
    with pytest.raises(ValueError, match=r"eps of WeightedMajorityVote must be a real number "
                       r"in \(0, 0.5\) or None; got 0.7"):
        WeightedMajorityVote(eps=0.7).fit(X, [1, -1])
    w = WeightedMajorityVote().fit(X, [1, -1])
    with pytest.raises(ValueError, match="X of WeightedMajorityVote.predict must be of 2 "
                       "columns .*; got 1 columns"):
        w.predict(np.ones((2, 1)))
    with pytest.raises(ValueError, match="this WeightedMajorityVote is not fitted "
                       "yet"):
        WeightedMajorityVote().predict(X)


def test_predictions_are_int8_pm1():
    X, y = _independent([0.6, 0.7], 100, 2)
    for est in (MAPAggregator(), MajorityVote(random_state=0), WeightedMajorityVote()):
        p = est.fit(X, y).predict(X)
        assert p.dtype == np.int8 and p.shape == (100,)
        assert set(np.unique(p)) <= {-1, 1}


# ---------------------------------------------------------------- ties count half an error
@pytest.mark.parametrize("name", sorted(agg.AGGREGATORS))
def test_a_tied_row_counts_half_an_error(name):
    # two models; training makes every aggregator undecided on the disagreement rows:
    # each disagreement pattern once with each label, the agreement rows decided
    X = np.array([[1, 1], [-1, -1], [1, -1], [1, -1], [-1, 1], [-1, 1]] * 5)
    y = np.array([1, -1, 1, -1, 1, -1] * 5)
    model = agg.make_aggregator(name, random_state=0).fit(X, y)
    Xt = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]])
    ties = model._ties(Xt)
    if name in ("mv", "map", "backoff"):  # vote sum 0 / counts equal / posterior 1/2
        assert ties.tolist() == [False, True, True, False]
    # whatever the tied rows' labels, each counts 0.5: here (0 + 0.5 + 0.5 + 0) / 4
    for yt in ([1, 1, 1, -1], [1, -1, -1, -1], [1, 1, -1, -1]):
        want = (0.5 * ties + (~ties) * (model.predict(Xt) != np.array(yt))).mean()
        assert agg.heldout_error(model, Xt, yt) == pytest.approx(want, abs=0)
    if name == "mv":
        assert agg.heldout_error(model, Xt, [1, 1, 1, -1]) == 0.25


def test_half_tie_error_counts_and_all_abstaining_row_is_a_tie():
    assert agg.half_tie_error([1, 1, -1], [1, -1, -1]) == pytest.approx(1 / 3)
    assert agg.half_tie_error([1, 1, -1], [1, -1, -1], [False, True, False]) == pytest.approx(
        0.5 / 3)
    mv = MajorityVote(random_state=0).fit(np.array([[1, 1, 1]]), [1])
    assert mv._ties(np.array([[0, 0, 0], [1, 0, -1], [1, 0, 0]])).tolist() == [True, True,
                                                                                False]
    assert agg.heldout_error(mv, np.array([[0, 0, 0]]), [-1]) == 0.5


def test_majority_vote_error_is_the_same_under_every_tie_seed():
    rng = np.random.default_rng(3)
    X = rng.choice(np.array([-1, 1], dtype=np.int8), size=(400, 4))
    y = np.where(rng.random(400) < 0.5, 1, -1)
    errs, coin = set(), set()
    for seed in range(8):
        mv = MajorityVote(random_state=seed).fit(X, y)
        errs.add(agg.heldout_error(mv, X, y))
        coin.add(float(np.mean(mv.predict(X) != y)))
    assert len(errs) == 1  # no coin in the evaluation
    assert len(coin) > 1  # while predict's coin does move the plain error
