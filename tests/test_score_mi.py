"""Tests of ScoreMI (ensel.select): the estimator against its definition, fallback, properties."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ensel.aggregate import AGGREGATORS, DEFAULT_AGGREGATOR, WeightedMajorityVote
from ensel.copula import sample, sample_equicorrelated
from ensel.experiment import heldout_errors
from ensel.info import conditional_mutual_information_table
from ensel.select import (
    DEFAULT_REASON,
    DEFAULT_SELECTOR,
    SELECTORS,
    ScoreMI,
    greedy_mi,
    score_bins,
    score_mi,
)


def _pool(m=8, n=3000, seed=0):
    acc = np.linspace(0.6, 0.85, m)
    return sample_equicorrelated(acc, 0.3, m, n, random_state=seed)[:2]


def _plugin_cmi(y, x, t):
    """Plug-in I(Y; X | T) in bits from an empirical table (independent of the module)."""
    _, yi = np.unique(y, return_inverse=True)
    _, xi = np.unique(x, return_inverse=True)
    _, ti = np.unique(t, return_inverse=True)
    p = np.zeros((yi.max() + 1, xi.max() + 1, ti.max() + 1))
    np.add.at(p, (yi, xi, ti), 1.0)
    return conditional_mutual_information_table(p / p.sum(), 0, 1, [2])


@pytest.mark.parametrize("abstain", [0.0, 0.05])
def test_gains_equal_definition(abstain):
    X, y = _pool()
    if abstain:
        X = X.copy()
        X[np.random.default_rng(1).random(X.shape) < abstain] = 0
    sel = ScoreMI(5, n_bins=6).fit(X, y)
    w = WeightedMajorityVote().fit(X, y).weights_
    score = np.zeros(len(y))
    for t, j in enumerate(sel.selected_):
        T = score_bins(score, 6) if t else np.zeros(len(y), dtype=int)
        for c in range(X.shape[1]):
            if c in sel.selected_[:t]:
                assert np.isnan(sel.scores_[t, c])
            else:
                assert sel.scores_[t, c] == pytest.approx(_plugin_cmi(y, X[:, c], T), abs=1e-9)
        score = score + w[j] * X[:, j]


def test_score_bins_exact_values_then_quantiles():
    s = np.array([0.0, 1.0, 1.0, 2.0, 2.0, 2.0])
    assert score_bins(s, 3).tolist() == [0, 1, 1, 2, 2, 2]
    codes = score_bins(np.arange(100.0), 4)
    assert np.bincount(codes).tolist() == [25, 25, 25, 25]


def test_first_picks_match_greedy_mi_when_patterns_are_filled():
    X, y = _pool(n=20000)
    assert score_mi(X, y, 2) == greedy_mi(X, y, 2)


def test_copy_of_a_pick_is_not_picked_while_an_independent_model_exists():
    Sigma = np.eye(4)
    Sigma[0, 1] = Sigma[1, 0] = 0.999
    X, y, _ = sample([-1.2, -1.2, -0.6, -0.5], Sigma, 20000, random_state=3)
    sel = ScoreMI(3).fit(X, y)
    assert sel.selected_[0] in (0, 1)
    assert set(sel.selected_[1:]) == {2, 3}


def test_fallback_to_accuracy_order_when_no_gain_is_supported():
    rng = np.random.default_rng(0)
    n = 4000
    y = rng.choice([-1, 1], n)
    strong = np.where(rng.random(n) < 0.9, y, -y)
    # coin flips independent of the label, with different (chance-level) agreement rates
    noise = np.where(rng.random((n, 4)) < 0.5, 1, -1)
    X = np.column_stack([strong, noise])
    sel = ScoreMI(5).fit(X, y)
    assert sel.selected_[0] == 0
    assert sel.fallback_ == [False, True, True, True, True]
    acc = (X == y[:, None]).mean(axis=0)
    rest = sel.selected_[1:]
    assert list(acc[rest]) == sorted(acc[rest], reverse=True)
    assert np.all(sel.gains_[1:] < sel.thresholds_[1:])


def test_leaves_the_accuracy_order_only_for_a_gain_beyond_it():
    from ensel.pools import family_pool

    pool = family_pool(100, 2000, random_state=5)
    X, y = pool.X, pool.y
    sel = ScoreMI(12).fit(X, y)
    correct = (X == y[:, None]).sum(axis=0)
    left = np.ones(X.shape[1], dtype=bool)
    for t, j in enumerate(sel.selected_):
        cand = np.flatnonzero(left)
        acc_pick = int(cand[np.argmax(correct[cand])])  # lowest index among the most accurate
        if sel.fallback_[t] or j == acc_pick:
            assert j == acc_pick
        else:  # a departure needs a gain beyond the accuracy order's by the test's margin
            margin = sel.scores_[t, j] - sel.scores_[t, acc_pick]
            assert margin >= sel.thresholds_[t]
            assert sel.scores_[t, j] == np.nanmax(sel.scores_[t])
        left[j] = False
    assert not all(sel.fallback_) and any(sel.fallback_)  # both branches exercised


def test_registered_and_defaults():
    assert SELECTORS["score_mi"] is ScoreMI
    assert DEFAULT_SELECTOR in SELECTORS and DEFAULT_AGGREGATOR in AGGREGATORS
    assert DEFAULT_SELECTOR in DEFAULT_REASON and DEFAULT_AGGREGATOR in DEFAULT_REASON
    X, y = _pool(n=600)
    from ensel.protocol import Protocol

    res = heldout_errors(X, y, ks=[1, 3], protocol=Protocol(n_splits=2), selectors=["score_mi"],
                         aggregators=["logistic"])
    assert len(res) == 4 and res["error"].between(0, 1).all()


def test_dataframe_names():
    X, y = _pool(n=800)
    df = pd.DataFrame(X, columns=[f"m{j}" for j in range(X.shape[1])])
    sel = ScoreMI(3).fit(df, y)
    assert sel.selected_names_ == [f"m{j}" for j in sel.selected_]
    assert sel.transform(df).shape == (800, 3)


@st.composite
def answer_data(draw):
    n = draw(st.integers(6, 40))
    m = draw(st.integers(1, 6))
    vals = st.sampled_from([-1, 1, 0]) if draw(st.booleans()) else st.sampled_from([-1, 1])
    X = np.array(draw(st.lists(st.lists(vals, min_size=m, max_size=m), min_size=n,
                               max_size=n)))
    y = np.array(draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n)))
    y[0], y[1] = -1, 1
    return X, y, draw(st.integers(1, m))


@given(answer_data())
@settings(deadline=None, max_examples=60)
def test_properties_valid_unique_deterministic_nested(data):
    X, y, k = data
    sel = ScoreMI(k).fit(X, y)
    picks = sel.selected_
    assert len(picks) == k == len(set(picks))
    assert all(0 <= j < X.shape[1] for j in picks)
    assert ScoreMI(k).fit(X, y).selected_ == picks
    assert ScoreMI(X.shape[1]).fit(X, y).selected_[:k] == picks
    assert np.all(np.isfinite(sel.gains_)) and np.all(sel.gains_ >= 0)


@given(st.permutations(range(6)), st.integers(1, 6))
@settings(deadline=None, max_examples=30)
def test_invariant_to_column_order(perm, k):
    # distinct accuracies and strong signal: no ties, so the order of columns cannot matter
    X, y = _pool(m=6, n=4000, seed=5)
    base = score_mi(X, y, k)
    perm = list(perm)
    got = score_mi(X[:, perm], y, k)
    assert [perm[j] for j in got] == base
