"""Tests of ensel.aggregate.LogisticStacking: optimality conditions, Theorem E.1, properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit

from ensel.aggregate import AGGREGATORS, LogisticStacking, make_aggregator


def bsc(eps, n, seed):
    rng = np.random.default_rng(seed)
    y = rng.choice(np.array([-1, 1]), size=n)
    err = rng.random((n, len(eps))) < np.asarray(eps)
    return np.where(err, -y[:, None], y[:, None]), y


@pytest.mark.parametrize("intercept", [True, False])
def test_stationary_point_of_the_penalised_log_loss(intercept):
    X, y = bsc([0.2, 0.3, 0.35], 3000, 0)
    agg = LogisticStacking(l2=2.0, fit_intercept=intercept).fit(X, y)
    assert agg.fit_intercept_ is intercept and (intercept or agg.intercept_ == 0.0)
    Z = np.column_stack([np.ones(len(y)), X])
    beta = np.r_[agg.intercept_, agg.coef_]
    grad = Z.T @ (expit(Z @ beta) - (y + 1) / 2) + np.r_[0.0, 2.0 * agg.coef_]
    assert np.abs(grad[0 if intercept else 1:]).max() < 1e-6


def test_intercept_only_when_the_likelihood_ratio_test_supports_it():
    from ensel.aggregate._stacking import _intercept_critical

    # balanced labels, class-symmetric errors: no intercept
    X, y = bsc([0.2, 0.3, 0.35], 4000, 3)
    auto = LogisticStacking().fit(X, y)
    with_b = LogisticStacking(fit_intercept=True).fit(X, y)
    without = LogisticStacking(fit_intercept=False).fit(X, y)
    assert not auto.fit_intercept_ and np.allclose(auto.coef_, without.coef_)

    def nll(agg):
        p = agg.predict_proba(X)[:, 1]
        return -np.log(np.where(y == 1, p, 1 - p)).sum() + 0.5 * (agg.coef_ ** 2).sum()

    assert 2 * (nll(without) - nll(with_b)) < _intercept_critical()
    # 80 % positive labels: the intercept is kept
    rng = np.random.default_rng(4)
    y2 = np.where(rng.random(4000) < 0.8, 1, -1)
    X2 = np.where(rng.random((4000, 3)) < 0.7, y2[:, None], -y2[:, None])
    auto2 = LogisticStacking().fit(X2, y2)
    assert auto2.fit_intercept_ and auto2.intercept_ > 0.5


def test_independent_models_get_log_odds_weights():
    # Theorem E.1: with independent symmetric errors the log-odds vote is the population
    # logistic model, so the fitted weights converge to log(p / (1 - p)).
    eps = np.array([0.1, 0.25, 0.4])
    X, y = bsc(eps, 200_000, 1)
    agg = LogisticStacking().fit(X, y)
    assert agg.coef_ == pytest.approx(np.log((1 - eps) / eps), rel=0.03)
    assert abs(agg.intercept_) < 0.02


def test_separable_data_gives_finite_weights_and_right_answers():
    X = np.array([[1, 1], [1, -1], [-1, -1], [-1, 1]])
    y = np.array([1, 1, -1, -1])
    agg = LogisticStacking().fit(X, y)
    assert np.all(np.isfinite(agg.coef_))
    assert agg.predict(X).tolist() == y.tolist()


def test_ties_go_to_plus_one_and_probabilities():
    X = np.array([[1], [-1], [1], [-1]])
    y = np.array([1, 1, -1, -1])  # the answer carries nothing: log-odds 0 everywhere
    agg = LogisticStacking().fit(X, y)
    assert np.allclose(agg.decision_function(X), 0.0, atol=1e-9)
    assert agg.predict(np.array([[0], [1]])).tolist() == [1, 1]
    p = agg.predict_proba(X)
    assert p.shape == (4, 2) and np.allclose(p.sum(axis=1), 1.0)


def test_registered():
    assert AGGREGATORS["logistic"] is LogisticStacking
    assert isinstance(make_aggregator("logistic"), LogisticStacking)


def test_errors():
    X, y = bsc([0.2, 0.3], 100, 2)
    with pytest.raises(ValueError, match="not fitted yet"):
        LogisticStacking().predict(X)
    agg = LogisticStacking().fit(X, y)
    with pytest.raises(ValueError, match="must be of 2 columns"):
        agg.predict(X[:, :1])
    with pytest.raises(ValueError, match=r"l2 of LogisticStacking must be a real number"):
        LogisticStacking(l2=0).fit(X, y)


@st.composite
def answer_data(draw):
    n = draw(st.integers(4, 40))
    m = draw(st.integers(1, 5))
    X = np.array(draw(st.lists(st.lists(st.sampled_from([-1, 0, 1]), min_size=m, max_size=m),
                               min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n)))
    y[0], y[1] = -1, 1
    return X, y, draw(st.permutations(range(m)))


@given(answer_data())
@settings(deadline=None, max_examples=60)
def test_properties(data):
    X, y, perm = data
    agg = LogisticStacking().fit(X, y)
    pred = agg.predict(X)
    assert set(pred.tolist()) <= {-1, 1} and pred.dtype == np.int8
    assert np.array_equal(LogisticStacking().fit(X, y).coef_, agg.coef_)  # deterministic
    perm = list(perm)
    other = LogisticStacking().fit(X[:, perm], y)  # columns permuted -> weights permuted
    assert other.coef_ == pytest.approx(agg.coef_[perm], abs=1e-6)
    assert np.array_equal(pred == 1, agg.decision_function(X) >= 0)


# --------------------------------------------------------------------------- BackoffMAP

def _family_data(n=3000, seed=0):
    from ensel.copula import sample

    Sigma = np.full((5, 5), 0.4)
    np.fill_diagonal(Sigma, 1.0)
    X, y, _ = sample([-1.0, -0.9, -0.8, -0.7, -0.6], Sigma, n, random_state=seed)
    return X, y


def test_backoff_limits_are_map_and_logistic():
    from ensel.aggregate import BackoffMAP, MAPAggregator

    X, y = _family_data()
    Xt, _ = _family_data(seed=1)
    tiny = BackoffMAP(strength=1e-9).fit(X, y)
    table = MAPAggregator(alpha=0).fit(X, y)
    counts = table._smoothed_counts(Xt)
    seen = (counts.sum(axis=1) > 0) & (counts[:, 0] != counts[:, 1])
    assert np.array_equal(tiny.predict(Xt)[seen], table.predict(Xt)[seen])
    huge = BackoffMAP(strength=1e12).fit(X, y)
    assert np.array_equal(huge.predict(Xt), LogisticStacking().fit(X, y).predict(Xt))


def test_backoff_unseen_patterns_follow_the_logistic_model():
    from ensel.aggregate import BackoffMAP

    X, y = _family_data(n=200)
    agg = BackoffMAP().fit(X, y)
    grid = np.array(np.meshgrid(*[[-1, 1]] * 5)).reshape(5, -1).T
    counts = agg.table_._smoothed_counts(grid)
    unseen = counts.sum(axis=1) == 0
    assert unseen.any()
    assert np.allclose(agg.predict_proba(grid)[unseen], agg.logistic_.predict_proba(grid)[unseen])


def test_backoff_auto_strength_follows_the_evidence():
    from ensel.aggregate._stacking import STRENGTH_GRID, BackoffMAP

    # independent errors given the label: the logistic model is right, the counts add nothing
    X, y = bsc([0.2, 0.25, 0.3, 0.35], 5000, seed=1)
    agg = BackoffMAP().fit(X, y)
    assert agg.strength_ >= 64
    # the label is the product of two answers (an interaction no additive model sees)
    rng = np.random.default_rng(2)
    X2 = rng.choice(np.array([-1, 1]), size=(5000, 3))
    y2 = np.where(rng.random(5000) < 0.9, X2[:, 0] * X2[:, 1], -X2[:, 0] * X2[:, 1])
    agg2 = BackoffMAP().fit(X2, y2)
    assert agg2.strength_ in STRENGTH_GRID and agg2.strength_ <= 16
    assert (agg2.predict(X2) == X2[:, 0] * X2[:, 1]).mean() > 0.99
    assert BackoffMAP(strength=8).fit(X2, y2).strength_ == 8.0


def test_backoff_registered_and_errors():
    from ensel.aggregate import DEFAULT_AGGREGATOR, BackoffMAP

    assert AGGREGATORS["backoff"] is BackoffMAP and DEFAULT_AGGREGATOR == "backoff"
    X, y = _family_data(n=100)
    with pytest.raises(ValueError, match="not fitted yet"):
        BackoffMAP().predict(X)
    with pytest.raises(ValueError, match="strength of BackoffMAP must be a real number"):
        BackoffMAP(strength=-1).fit(X, y)


@given(answer_data())
@settings(deadline=None, max_examples=40)
def test_backoff_properties(data):
    from ensel.aggregate import BackoffMAP

    X, y, _ = data
    agg = BackoffMAP().fit(X, y)
    p = agg.predict_proba(X)
    assert np.all((p >= 0) & (p <= 1)) and np.allclose(p.sum(axis=1), 1.0)
    pred = agg.predict(X)
    assert set(pred.tolist()) <= {-1, 1}
    assert np.array_equal(pred, BackoffMAP().fit(X, y).predict(X))
    assert np.array_equal(pred == 1, p[:, 1] >= 0.5)


def test_newton_runs_blas_on_one_thread_and_restores_the_callers_setting(monkeypatch):
    # Newton's (k + 1) x n by n x (k + 1) products gain nothing from BLAS threads; the fit
    # limits them to one for its duration, nested and concurrent fits share the limit, and
    # the caller's setting comes back; the weights are the same on any number of threads
    threadpoolctl = pytest.importorskip("threadpoolctl")
    import concurrent.futures

    import ensel.aggregate._stacking as stacking

    ctl = threadpoolctl.ThreadpoolController()
    blas = ctl.select(user_api="blas")
    if not blas.lib_controllers:
        pytest.skip("no BLAS library that threadpoolctl can control")
    rng = np.random.default_rng(3)
    X = rng.choice(np.array([-1, 1], dtype=np.int8), size=(3000, 12))
    y = np.where(X[:, :5].sum(axis=1) + rng.normal(0, 1, 3000) > 0, 1, -1).astype(np.int8)
    inside = []
    real = stacking._newton

    def spy(*args, **kwargs):
        inside.append(max(c.num_threads for c in ctl.select(user_api="blas").lib_controllers))
        return real(*args, **kwargs)

    with blas.limit(limits=2):  # the caller's setting
        monkeypatch.setattr(stacking, "_newton", spy)
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            fits = list(pool.map(lambda _: LogisticStacking().fit(X, y), range(4)))
        after = [c.num_threads for c in ctl.select(user_api="blas").lib_controllers]
    assert inside and set(inside) == {1}
    assert after == [2] * len(after)
    monkeypatch.setattr(stacking, "_one_blas_thread", lambda: __import__("contextlib")
                        .nullcontext())
    with blas.limit(limits=2):
        free = LogisticStacking().fit(X, y)
    for f in fits:
        assert np.array_equal(f.coef_, free.coef_) and f.intercept_ == free.intercept_


@pytest.mark.parametrize("k", [10, 13, 16])
def test_backoff_strength_without_the_patterns_seen_once_is_the_same(k):
    # a pattern seen once adds log q to every strength's likelihood: the strength chosen
    # from the others is the one chosen from all the sums
    from ensel.aggregate._stacking import (
        _best_strength,
        _marginal_likelihood_strength,
        _pattern_groups,
    )
    from ensel.copula import sample

    X, y, _ = sample([-0.5] * k, np.eye(k) * 0.7 + 0.3, 3000, random_state=k)
    first, inv = _pattern_groups(X)
    model = LogisticStacking().fit(X, y)
    npos = np.bincount(inv, weights=(y == 1).astype(float))
    nneg = np.bincount(inv) - npos
    assert (npos + nneg == 1).sum() > 64  # the shortcut is taken
    q = np.clip(model.predict_proba(X[first])[:, 1], 1e-12, 1 - 1e-12)
    assert _marginal_likelihood_strength(X, y, model) == _best_strength(npos, nneg, q)[0]
