"""Contracts users rely on, as Hypothesis properties (issue 28, item 1).

* label relabelling: fitted on any two labels, ``classes_`` are those labels and ``predict``
  returns them, exactly where the -1/+1 fit predicts -1/+1;
* column permutation with names: a DataFrame with fit's columns in another order is refused;
  fitted and predicted on the same permutation, the predictions do not change;
* batch splitting: predicting rows in any batches equals predicting them at once (the reading
  of 0/1 answers is fixed at fit; majority vote's tie coin is a function of the fitted seed
  and the row, so a row alone, in a batch or in another row order gets one label);
* helpers refuse repeated or out-of-range model indices;
* ``set_output(transform="pandas")`` and ``NotFittedError``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import Pipeline

from ensel._errors import UsageError
from ensel.aggregate import AGGREGATORS, MajorityVote
from ensel.copula import sample
from ensel.select import SELECTORS, GreedyMI, marginal_gains

SIGMA = np.eye(5)
SIGMA[0, 1] = SIGMA[1, 0] = 0.6
X, Y, _ = sample([-0.9, -0.8, -0.6, -0.5, -0.4], SIGMA, 400, random_state=5)
X, Y = np.asarray(X), np.asarray(Y)
AGGS = sorted(AGGREGATORS)
PROPERTY = settings(max_examples=20, deadline=None)


def _agg(name: str):
    cls = AGGREGATORS[name]
    return cls(random_state=0) if cls is MajorityVote else cls()


LABELS = st.sampled_from([(0, 1), (False, True), ("no", "yes"), (1, 2), ("B", "A"),
                          (-3.5, 7.0)])


@PROPERTY
@given(name=st.sampled_from(AGGS), labels=LABELS)
def test_any_two_labels_are_classes_and_predictions(name, labels) -> None:
    neg, pos = sorted(labels)
    y = np.where(Y > 0, pos, neg)
    ref = _agg(name).fit(X, Y).predict(X)
    est = _agg(name).fit(X, y)
    assert list(est.classes_) == [neg, pos]
    np.testing.assert_array_equal(est.predict(X), np.where(ref > 0, pos, neg))
    assert est.score(X, y) == pytest.approx(_agg(name).fit(X, Y).score(X, Y))


def test_cross_val_score_scores_zero_one_labels_as_plus_minus_one() -> None:
    pipe = Pipeline([("s", GreedyMI(k=3)), ("m", AGGREGATORS["map"]())])
    a = cross_val_score(pipe, X, (Y > 0).astype(int), scoring="accuracy")
    b = cross_val_score(pipe, X, Y, scoring="accuracy")
    np.testing.assert_allclose(a, b)
    assert a.mean() > 0.75


@PROPERTY
@given(name=st.sampled_from(AGGS + ["select:" + s for s in sorted(SELECTORS)]),
       perm=st.permutations(range(5)))
def test_columns_in_another_order_are_refused(name, perm) -> None:
    df = pd.DataFrame(X, columns=[f"m{j}" for j in range(5)])
    if name.startswith("select:"):
        est, method = SELECTORS[name[7:]](k=2), "transform"
    else:
        est, method = _agg(name), "predict"
    est.fit(df, Y)
    assert list(est.feature_names_in_) == list(df.columns)
    shuffled = df.iloc[:, list(perm)]
    if list(perm) == sorted(perm):
        getattr(est, method)(shuffled)
    else:
        with pytest.raises(UsageError, match="in another order"):
            getattr(est, method)(shuffled)
    out = getattr(est, method)(shuffled[list(est.feature_names_in_)])
    assert len(out) == len(df)


@PROPERTY
@given(name=st.sampled_from(["map", "mv", "wmv"]), perm=st.permutations(range(5)))
def test_fit_and_predict_on_one_permutation_predict_alike(name, perm) -> None:
    df = pd.DataFrame(X, columns=[f"m{j}" for j in range(5)])
    shuffled = df.iloc[:, list(perm)]
    np.testing.assert_array_equal(_agg(name).fit(shuffled, Y).predict(shuffled),
                                  _agg(name).fit(df, Y).predict(df))


@PROPERTY
@given(name=st.sampled_from(AGGS),
       cuts=st.lists(st.integers(1, 399), max_size=4, unique=True), abstain=st.booleans())
def test_batches_predict_as_the_whole(name, cuts, abstain) -> None:
    Xf = X.copy()
    if abstain:
        Xf[::7, 2] = 0  # fit sees -1/0/+1: a batch of 0/+1 rows keeps 0 = abstained
    est = _agg(name).fit(Xf, Y)
    whole = est.predict(Xf)
    parts = np.split(np.arange(len(Xf)), sorted(cuts))
    np.testing.assert_array_equal(np.concatenate([est.predict(Xf[p]) for p in parts]), whole)
    for i in range(0, len(Xf), 37):
        assert est.predict(Xf[i:i + 1])[0] == whole[i]
    for method in ("predict_proba", "decision_function"):  # the scores too, where there are
        if hasattr(est, method):
            score = getattr(est, method)
            np.testing.assert_allclose(np.concatenate([score(Xf[p]) for p in parts]),
                                       score(Xf), rtol=1e-12, atol=1e-12)


def test_majority_vote_ties_do_not_depend_on_the_batch() -> None:
    Xe = X[:, :4]  # an even pool: ties happen
    est = MajorityVote(random_state=0).fit(Xe, Y)
    whole = est.predict(Xe)
    assert (Xe.sum(axis=1) == 0).sum() > 50
    alone = np.concatenate([est.predict(Xe[i:i + 1]) for i in range(len(Xe))])
    np.testing.assert_array_equal(alone, whole)


#: Answer matrices of an even number of models with many ties (and abstentions).
TIED = st.integers(1, 3).flatmap(lambda half: st.lists(
    st.lists(st.sampled_from([-1, 0, 1]), min_size=2 * half, max_size=2 * half),
    min_size=1, max_size=40).map(lambda rows: np.array(rows, dtype=np.int8)))


@PROPERTY
@given(Xt=TIED, seed=st.integers(0, 2**32 - 1))
def test_majority_vote_row_alone_equals_row_in_batch(Xt, seed) -> None:
    est = MajorityVote(random_state=seed).fit(Xt)
    whole = est.predict(Xt)
    alone = [est.predict(Xt[i:i + 1])[0] for i in range(len(Xt))]
    np.testing.assert_array_equal(alone, whole)
    wide = Xt.astype(np.int64)  # the coin reads values, not bytes
    np.testing.assert_array_equal([est.predict(wide[i:i + 1])[0] for i in range(len(Xt))], whole)
    np.testing.assert_array_equal(MajorityVote(random_state=seed).fit(Xt).predict(Xt), whole)


@PROPERTY
@given(Xt=TIED, seed=st.integers(0, 2**32 - 1), data=st.data())
def test_majority_vote_permuting_rows_permutes_predictions(Xt, seed, data) -> None:
    perm = np.array(data.draw(st.permutations(range(len(Xt)))), dtype=np.intp)
    est = MajorityVote(random_state=seed).fit(Xt)
    np.testing.assert_array_equal(est.predict(Xt[perm]), est.predict(Xt)[perm])
    # and a fit on the permuted rows draws the same seed: the same labels
    np.testing.assert_array_equal(MajorityVote(random_state=seed).fit(Xt[perm]).predict(Xt),
                                  est.predict(Xt))


@given(picks=st.lists(st.integers(-3, 8), min_size=1, max_size=6))
@settings(max_examples=40, deadline=None)
def test_helpers_refuse_repeated_or_out_of_range_indices(picks) -> None:
    ok = len(set(picks)) == len(picks) and all(0 <= p < 5 for p in picks)
    if ok:
        assert len(marginal_gains(X, Y, picks)) == len(picks)
    else:
        with pytest.raises(ValueError, match="picks of marginal_gains must be"):
            marginal_gains(X, Y, picks)


@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_set_output_pandas(name) -> None:
    sel = SELECTORS[name](k=2).set_output(transform="pandas").fit(X, Y)
    out = sel.transform(X)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == list(sel.get_feature_names_out())
    np.testing.assert_array_equal(out.to_numpy(), X[:, sel.selected_])
    assert isinstance(sel.set_output(transform="default").transform(X), np.ndarray)
    with pytest.raises(ValueError, match="transform of"):
        sel.set_output(transform="polars")


@pytest.mark.parametrize("name", AGGS)
def test_unfitted_aggregators_raise_sklearns_not_fitted_before_reading_x(name) -> None:
    with pytest.raises(NotFittedError, match="is not fitted yet"):
        _agg(name).predict(np.full((2, 5), 0.37))  # not answers: the fit check comes first


@pytest.mark.parametrize("batch", [[[1, 0, 0, 0]], [[1, -1, 0, 0]], [[0, 1, 1, 0], [1, 1, 0, 0]]])
def test_transform_keeps_a_dataframe_whatever_its_values(batch) -> None:
    """A batch of only 0/1 answers is re-read as fit read them; the output stays a DataFrame
    with the picked columns (a trial found an ndarray for such a batch)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.choice([-1, 1], (60, 4)), columns=list("abcd"))
    sel = GreedyMI(k=2).fit(X, rng.choice([-1, 1], 60))
    out = sel.transform(pd.DataFrame(batch, columns=list("abcd"), index=range(5, 5 + len(batch))))
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == [list("abcd")[j] for j in sel.selected_]
    assert list(out.index) == list(range(5, 5 + len(batch)))
    assert out.to_numpy().tolist() == np.asarray(batch)[:, sel.selected_].tolist()
