"""Tests of ensel.select: definitions, Theorem 4.1 under independence, ties, errors."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ensel import select
from ensel.info import pattern_codes, smoothed_mutual_information
from ensel.select import (
    MRMR,
    GreedyMI,
    Relevance,
    ThreeTermGreedy,
    TopK,
    exhaustive_search,
    greedy_mi,
    greedy_mi_exact,
    mrmr,
    relevance,
    three_term_greedy,
    top_k,
)

FUNCS = [top_k, relevance, mrmr, greedy_mi, three_term_greedy]
CLASSES = [TopK, Relevance, MRMR, GreedyMI, ThreeTermGreedy]
MI_FUNCS = [relevance, mrmr, greedy_mi, three_term_greedy]


def bsc_sample(eps, n, seed, abstain=0.0):
    """Independent binary symmetric channels with error rates ``eps`` (balanced Y)."""
    rng = np.random.default_rng(seed)
    y = rng.choice(np.array([-1, 1]), size=n)
    err = rng.random((n, len(eps))) < np.asarray(eps)
    X = np.where(err, -y[:, None], y[:, None])
    if abstain:
        X[rng.random(X.shape) < abstain] = 0
    return X, y


def bsc_law(eps):
    """Exact joint law of (Y, X_1..X_m) for independent BSCs; index 0 = -1, 1 = +1."""
    m = len(eps)
    p = np.zeros((2,) * (m + 1))
    for idx in itertools.product((0, 1), repeat=m + 1):
        y, xs = idx[0], idx[1:]
        p[idx] = 0.5 * np.prod([1 - e if x == y else e for x, e in zip(xs, eps, strict=True)])
    return p


# ---------------------------------------------------------------------------
# The vectorised selectors equal their definitions
# ---------------------------------------------------------------------------

def _column_codes(X, S):
    """Pattern code of X_S with per-column alphabets (2, or 3 if the column abstains)."""
    codes = np.zeros(X.shape[0], dtype=np.int64)
    w = 1
    for j in S:
        r = 3 if (X[:, j] == 0).any() else 2
        codes += np.where(X[:, j] == 0, 2, (X[:, j] + 1) // 2) * w
        w *= r
    return codes, w


def reference_greedy(X, y, k, criterion, alpha=1.0):
    """Literal greedy loop: every score from smoothed_mutual_information, one call at a time."""
    n, m = X.shape
    yc = (y + 1) // 2
    E = (X != y[:, None]).astype(np.int64)
    S, gains = [], []
    for _ in range(k):
        best = None
        for j in range(m):
            if j in S:
                continue
            cS, KS = _column_codes(X, S)
            cj, Kj = _column_codes(X, [j])
            cjS, KjS = _column_codes(X, [*S, j])
            rel = smoothed_mutual_information(yc, cj, size_a=2, size_b=Kj, alpha=alpha)
            red = smoothed_mutual_information(cj, cS, size_a=Kj, size_b=KS, alpha=alpha)
            if criterion == "greedy_mi":
                v = (smoothed_mutual_information(yc, cjS, size_a=2, size_b=KjS, alpha=alpha)
                     - smoothed_mutual_information(yc, cS, size_a=2, size_b=KS, alpha=alpha))
            elif criterion == "mrmr":
                v = rel - red
            elif criterion == "relevance":
                v = rel
            else:
                eS = np.zeros(n, dtype=np.int64)
                for t, s in enumerate(S):
                    eS += E[:, s] << t
                v = rel - red + smoothed_mutual_information(
                    E[:, j], eS, size_a=2, size_b=2 ** len(S), alpha=alpha)
            if best is None or v > best[0] + select.TIE_TOL:
                best = (v, j)
        S.append(best[1])
        gains.append(best[0])
    return S, gains


@pytest.mark.parametrize("abstain", [0.0, 0.04])
@pytest.mark.parametrize(
    ("cls", "criterion"),
    [(GreedyMI, "greedy_mi"), (MRMR, "mrmr"), (Relevance, "relevance"),
     (ThreeTermGreedy, "three_term")],
)
def test_selectors_equal_the_literal_definition(cls, criterion, abstain):
    X, y = bsc_sample([0.1, 0.3, 0.2, 0.35, 0.25, 0.4, 0.15], 400, seed=5, abstain=abstain)
    X[:, 3] = X[:, 0]  # a redundant copy makes redundancy matter
    if abstain:
        X[:, 1] = np.where(X[:, 1] == 0, 1, X[:, 1])  # one clean column among abstaining ones
    for alpha in (1.0, 0.5):
        expected, gains = reference_greedy(X, y, 6, criterion, alpha=alpha)
        sel = cls(6, alpha=alpha).fit(X, y)
        assert sel.selected_ == expected
        np.testing.assert_allclose(sel.gains_, gains, atol=1e-12)


def test_count_blocks_do_not_change_results(monkeypatch):
    X, y = bsc_sample([0.1, 0.3, 0.2, 0.35, 0.25, 0.4], 500, seed=2, abstain=0.03)
    before = [GreedyMI(5).fit(X, y), ThreeTermGreedy(5).fit(X, y)]
    monkeypatch.setattr(select._engine, "_MAX_CELLS", 50)  # one column per block
    after = [GreedyMI(5).fit(X, y), ThreeTermGreedy(5).fit(X, y)]
    for a, b in zip(before, after, strict=True):
        assert a.selected_ == b.selected_
        np.testing.assert_allclose(a.scores_, b.scores_, atol=1e-13, equal_nan=True)


def test_greedy_mi_with_huge_pattern_alphabet():
    # k = m = 14 on 60 items: 2^14 patterns, far more than items
    X, y = bsc_sample(np.linspace(0.1, 0.4, 14), 60, seed=4)
    expected, gains = reference_greedy(X, y, 14, "greedy_mi")
    sel = GreedyMI(14).fit(X, y)
    assert sel.selected_ == expected
    np.testing.assert_allclose(sel.gains_, gains, atol=1e-12)


def test_top_k_is_accuracy_order_and_abstention_is_wrong():
    y = np.array([1, 1, -1, -1])
    X = np.array([[1, 0, 1], [1, 0, 1], [1, 0, -1], [-1, 0, -1]])
    sel = TopK(3).fit(X, y)
    assert sel.selected_ == [2, 0, 1]
    np.testing.assert_allclose(sel.gains_, [1.0, 0.75, 0.0])


def test_first_greedy_pick_is_most_relevant_and_scores_shape():
    X, y = bsc_sample([0.3, 0.1, 0.2, 0.4], 300, seed=0)
    g = GreedyMI(3).fit(X, y)
    r = Relevance(3).fit(X, y)
    assert g.selected_[0] == r.selected_[0] == 1
    np.testing.assert_allclose(g.scores_[0], r.scores_[0], atol=1e-14)
    assert g.scores_.shape == (3, 4)
    assert np.isnan(g.scores_[1, g.selected_[0]])
    assert g.gains_[0] == pytest.approx(np.nanmax(g.scores_[0]))


# ---------------------------------------------------------------------------
# Theorem 4.1: under independence, greedy MI = top-k by accuracy
# ---------------------------------------------------------------------------

@given(st.permutations(range(5)), st.integers(1, 5))
@settings(deadline=None, max_examples=30)
def test_exact_greedy_mi_picks_top_k_under_independent_bsc(order, k):
    eps = 0.1 + 0.07 * np.array(order, dtype=float)  # distinct error rates
    p = bsc_law(eps)
    expected = [int(j) for j in np.argsort(eps, kind="stable")[:k]]
    assert greedy_mi_exact(p, k) == expected


def test_top_k_set_maximises_exact_mi_under_independence():
    from ensel.info import mutual_information_table

    eps = [0.3, 0.12, 0.25, 0.4, 0.18]
    p = bsc_law(eps)
    k = 3
    mi = {S: mutual_information_table(p, 0, [1 + j for j in S])
          for S in itertools.combinations(range(5), k)}
    best = max(mi, key=mi.get)
    assert sorted(best) == sorted(np.argsort(eps)[:k].tolist())


def test_sample_greedy_mi_matches_top_k_under_independence():
    eps = [0.3, 0.1, 0.25, 0.4, 0.2, 0.35, 0.15]
    X, y = bsc_sample(eps, 40_000, seed=11)
    expected = [int(j) for j in np.argsort(eps)[:4]]
    assert greedy_mi(X, y, 4) == expected
    assert top_k(X, y, 4) == expected


def test_greedy_mi_exact_ties_and_errors():
    p = bsc_law([0.2, 0.2, 0.1])
    assert greedy_mi_exact(p, 3) == [2, 0, 1]
    with pytest.raises(ValueError, match="k of greedy_mi_exact must be an integer "
                       "in \\[1, 3\\].*got 4, which exceeds"):
        greedy_mi_exact(p, 4)
    with pytest.raises(ValueError, match="at least one per model"):
        greedy_mi_exact([0.5, 0.5], 1)


def test_greedy_mi_avoids_a_redundant_copy_that_top_k_takes():
    # the diversity mechanism of the paper: a copy of the best model adds nothing
    X, y = bsc_sample([0.1, 0.2, 0.3], 20_000, seed=3)
    X = np.column_stack([X[:, 0], X[:, 0], X[:, 1], X[:, 2]])  # column 1 duplicates 0
    fix = np.flatnonzero(X[:, 1] != y)[:20]
    X[fix, 1] = y[fix]  # make the copy marginally *more* accurate
    assert top_k(X, y, 2) == [1, 0]
    assert greedy_mi(X, y, 2)[1] == 2
    assert mrmr(X, y, 2)[1] != 0


# ---------------------------------------------------------------------------
# Output shape, ties, classes
# ---------------------------------------------------------------------------

@st.composite
def answer_data(draw):
    n = draw(st.integers(4, 30))
    m = draw(st.integers(1, 6))
    vals = st.sampled_from([-1, 1, 0]) if draw(st.booleans()) else st.sampled_from([-1, 1])
    X = np.array(draw(st.lists(st.lists(vals, min_size=m, max_size=m), min_size=n,
                               max_size=n)))
    if not (X == -1).any():  # keep X in the {-1, 0, +1} coding
        X[0, 0] = -1
    y = np.array(draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n)))
    y[0], y[1] = -1, 1
    k = draw(st.integers(1, m))
    return X, y, k


@given(answer_data())
@settings(deadline=None, max_examples=40)
def test_selectors_return_k_distinct_valid_indices(data):
    X, y, k = data
    for f, cls in zip(FUNCS, CLASSES, strict=True):
        picks = f(X, y, k)
        assert len(picks) == k == len(set(picks))
        assert all(isinstance(j, int) and 0 <= j < X.shape[1] for j in picks)
        assert cls(k).fit(X, y).selected_ == picks


def test_ties_go_to_the_lowest_index():
    X, y = bsc_sample([0.2], 200, seed=1)
    same = np.repeat(X, 5, axis=1)
    for f in FUNCS:
        assert f(same, y, 3) == [0, 1, 2]
    mirrored = np.column_stack([X[:, 0], -X[:, 0], X[:, 0]])
    assert relevance(mirrored, y, 2) == [0, 1]  # I(Y; X) = I(Y; -X)
    assert top_k(mirrored, y, 2) == [0, 2]


def test_transform_and_dataframes():
    X, y = bsc_sample([0.3, 0.1, 0.2], 300, seed=0)
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    sel = GreedyMI(2).fit(df, pd.Series(y))
    assert sel.selected_names_ == ["b", "c"]
    out = sel.transform(df)
    assert list(out.columns) == ["b", "c"]
    np.testing.assert_array_equal(sel.transform(X), X[:, [1, 2]])
    np.testing.assert_array_equal(sel.fit_transform(X, y), X[:, [1, 2]])
    assert repr(sel) == "GreedyMI(k=2, alpha=1.0)"
    assert sel.get_params() == {"k": 2, "alpha": 1.0}
    with pytest.raises(ValueError, match="X of GreedyMI.transform must be of 3 models"):
        sel.transform(X[:, :2])
    with pytest.raises(ValueError, match="this MRMR is not fitted yet"):
        MRMR(2).transform(X)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

X0, Y0 = bsc_sample([0.2, 0.3, 0.4], 20, seed=0)


@pytest.mark.parametrize("f", FUNCS)
def test_budget_errors(f):
    name = f.__name__
    with pytest.raises(ValueError, match=f"k of {name} must be an integer in \\[1, 3\\].*; got 4, "
                       "which exceeds the number of models m=3"):
        f(X0, Y0, 4)
    with pytest.raises(ValueError, match=f"k of {name} must be an int in \\[1, inf\\); got 0"):
        f(X0, Y0, 0)
    with pytest.raises(TypeError, match=f"k of {name} must be an int in .*; got 1.5"):
        f(X0, Y0, 1.5)


@pytest.mark.parametrize("f", FUNCS)
def test_value_and_shape_errors(f):
    bad = X0.copy()
    bad[2, 1] = 2
    with pytest.raises(ValueError, match=r"X has value 2 at position \(2, 1\)"):
        f(bad, Y0, 1)
    with pytest.raises(ValueError, match="y has 19 labels but X has 20 rows"):
        f(X0, Y0[:-1], 1)
    with pytest.raises(ValueError, match="must be 2-dimensional"):
        f(X0[:, 0], Y0, 1)
    y_bad = Y0.copy()
    y_bad[3] = 0
    with pytest.raises(ValueError, match=r"y has value 0 at position \(3,\)"):
        f(X0, y_bad, 1)


@pytest.mark.parametrize("f", MI_FUNCS)
def test_one_class_labels_rejected_by_information_selectors(f):
    with pytest.raises(ValueError, match="y of .* must be labels of both classes .*; got only"
                                         " the label \\+1"):
        f(X0, np.ones(20, dtype=int), 1)


def test_top_k_accepts_one_class_labels():
    assert top_k(X0, np.ones(20, dtype=int), 1) == [int(np.argmax((X0 == 1).sum(axis=0)))]


def test_alpha_must_be_positive():
    with pytest.raises(ValueError, match=r"alpha of .* must be a real number in \(0, inf\)"):
        greedy_mi(X0, Y0, 1, alpha=0)


# ---------------------------------------------------------------------------
# Exhaustive search
# ---------------------------------------------------------------------------

class SignOfSum:
    """Minimal aggregator: sign of the vote sum, ties -> +1 (for testing)."""

    def fit(self, X, y):
        self.fitted_ = True
        return self

    def predict(self, X):
        return np.where(np.asarray(X).sum(axis=1) >= 0, 1, -1)


def test_exhaustive_mi_is_the_brute_force_maximum():
    X, y = bsc_sample([0.3, 0.1, 0.25, 0.4, 0.2], 300, seed=8)
    X[:, 4] = X[:, 1]
    yc = (y + 1) // 2
    scores = {}
    for S in itertools.combinations(range(5), 3):
        codes, size = pattern_codes(X, S)
        scores[S] = smoothed_mutual_information(yc, codes, size_a=2, size_b=size)
    best = max(scores.values())
    first = next(S for S in scores if scores[S] >= best - select.TIE_TOL)
    subset, score = exhaustive_search(X, y, 3, return_score=True)
    assert subset == list(first)
    assert score == pytest.approx(best)


def test_exhaustive_with_aggregator_and_validation_set():
    X, y = bsc_sample([0.3, 0.1, 0.25, 0.4, 0.2], 400, seed=9)
    Xv, yv = bsc_sample([0.3, 0.1, 0.25, 0.4, 0.2], 400, seed=10)
    errors = {S: float(np.mean(SignOfSum().predict(Xv[:, S]) != yv))
              for S in itertools.combinations(range(5), 3)}
    best = min(errors.values())
    subset, err = exhaustive_search(X, y, 3, objective=SignOfSum(), X_val=Xv, y_val=yv,
                                    return_score=True)
    assert err == best and errors[tuple(subset)] == best
    # a callable scorer is maximised on the training data
    assert exhaustive_search(X, y, 2, objective=lambda XS, yy: float(XS.sum())) == list(
        max(itertools.combinations(range(5), 2), key=lambda S: X[:, S].sum()))


def test_exhaustive_with_map_aggregator():
    pytest.importorskip("ensel.aggregate")
    X, y = bsc_sample([0.3, 0.1, 0.25, 0.4], 500, seed=12)
    subset, err = exhaustive_search(X, y, 3, objective="map", return_score=True)
    assert len(subset) == 3 and 0.0 <= err <= 0.5


def test_exhaustive_errors():
    with pytest.raises(ValueError, match=r"max_subsets of exhaustive_search must be "
                       r"at least the C\(3, 2\) = 3 subsets"):
        exhaustive_search(X0, Y0, 2, max_subsets=2)
    with pytest.raises(ValueError, match="y_val of exhaustive_search must be given "
                       "together with X_val"):
        exhaustive_search(X0, Y0, 2, objective=SignOfSum(), X_val=X0)
    with pytest.raises(ValueError, match="X_val of exhaustive_search must be None "
                       "unless objective is an aggregator"):
        exhaustive_search(X0, Y0, 2, X_val=X0, y_val=Y0)
    with pytest.raises(ValueError, match="objective of exhaustive_search must be"):
        exhaustive_search(X0, Y0, 2, objective="accuracy")
    with pytest.raises(ValueError, match="X_val of exhaustive_search must be of 3 "
                       "models.*; got 2 models"):
        exhaustive_search(X0, Y0, 2, objective=SignOfSum(), X_val=X0[:, :2], y_val=Y0)
    with pytest.raises(ValueError, match="got only the label"):
        exhaustive_search(X0, -np.ones(20, dtype=int), 2)
