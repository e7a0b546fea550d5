"""The adaptive cascade."""

from __future__ import annotations

import numpy as np
import pytest

from ensel.aggregate import make_aggregator
from ensel.cascade import THRESHOLDS, Cascade
from ensel.pools import family_pool


@pytest.fixture(scope="module")
def data():
    p = family_pool(20, 3000, random_state=5)
    usd = np.exp(np.random.default_rng(6).uniform(np.log(1e-4), np.log(1e-2), 20))
    return p.X[:2400], p.y[:2400], p.X[2400:], p.y[2400:], usd


def test_threshold_one_asks_the_whole_order_and_equals_the_static_prefix(data) -> None:
    Xtr, ytr, Xte, yte, usd = data
    cas = Cascade(costs=usd, threshold=1.0, max_models=4).fit(Xtr, ytr)
    assert (cas.n_asked(Xte) == len(cas.order_)).all()
    static = make_aggregator("backoff").fit(Xtr[:, cas.order_], ytr)
    assert np.array_equal(cas.predict(Xte), static.predict(Xte[:, cas.order_]))
    assert cas.expected_cost(Xte) == pytest.approx(usd[cas.order_].sum())


def test_threshold_half_asks_one_model(data) -> None:
    Xtr, ytr, Xte, _, usd = data
    cas = Cascade(costs=usd, threshold=0.5).fit(Xtr, ytr)
    assert (cas.n_asked(Xte) == 1).all()
    assert cas.expected_cost(Xte) == pytest.approx(usd[cas.order_[0]])


def test_stops_exactly_where_the_posterior_clears_the_threshold(data) -> None:
    Xtr, ytr, Xte, _, usd = data
    cas = Cascade(costs=usd, threshold=0.9, max_models=5).fit(Xtr, ytr)
    asked = cas.n_asked(Xte[:200])
    for i in range(200):
        conf = [max(p, 1 - p) for p in (cas.aggregators_[t].predict_proba(
            Xte[i:i + 1, cas.order_[: t + 1]])[0, 1] for t in range(len(cas.order_)))]
        first = next((t + 1 for t, c in enumerate(conf) if c >= 0.9), len(conf))
        assert asked[i] == first


def test_budget_cuts_the_order_and_targets(data) -> None:
    Xtr, ytr, Xte, _, usd = data
    b = float(np.sort(usd)[:3].sum())
    cas = Cascade(costs=usd, budget=b, threshold=1.0).fit(Xtr, ytr)
    assert usd[cas.order_].sum() <= b + 1e-12
    auto = Cascade(costs=usd, target_cost=2e-3).fit(Xtr, ytr)
    assert set(auto.tuning_) == {float(t) for t in THRESHOLDS}
    cost, _ = auto.tuning_[auto.threshold_]
    assert cost <= 2e-3 or cost == min(c for c, _ in auto.tuning_.values())
    auto.set_target(target_error=0.0)  # unreachable: the most accurate threshold
    assert auto.tuning_[auto.threshold_][1] == min(e for _, e in auto.tuning_.values())


def _walk_query_by_query(cas: Cascade, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cascade's walk as it was before queries were grouped by answer pattern: every
    open query's answers are passed to the step's aggregator (the reference)."""
    Xo = X[:, cas.order_]
    n, T = Xo.shape
    p, asked, open_ = np.full(n, 0.5), np.zeros(n, dtype=np.int64), np.arange(n)
    for t in range(T):
        if open_.size == 0:
            break
        q = cas.aggregators_[t].predict_proba(Xo[open_, : t + 1])[:, 1]
        p[open_], asked[open_] = q, t + 1
        open_ = open_[~(np.maximum(q, 1.0 - q) >= cas.threshold_)]
    return p, asked


@pytest.mark.parametrize("threshold", [0.8, 0.95, 0.99, "auto"])
def test_walk_by_answer_pattern_equals_the_query_by_query_walk(data, threshold) -> None:
    # a seeded pool with abstentions in the queries, tiled so that patterns repeat
    Xtr, ytr, Xte, _, usd = data
    cas = Cascade(costs=usd, threshold=threshold, max_models=8).fit(Xtr, ytr)
    X = np.tile(Xte, (3, 1))
    X[np.random.default_rng(1).random(X.shape) < 0.05] = 0
    p_ref, asked_ref = _walk_query_by_query(cas, X)
    pred, asked = cas.predict_with_cost(X)
    assert np.array_equal(asked, asked_ref)
    assert np.array_equal(pred, np.where(p_ref >= 0.5, 1, -1))
    # the same posteriors; their last bit may depend on the batch a row is evaluated in
    np.testing.assert_allclose(cas.predict_proba(X)[:, 1], p_ref, rtol=0, atol=1e-12)
    assert 1 < asked.max() and asked.min() < len(cas.order_)  # the walk really stops early


def test_each_answer_pattern_is_evaluated_once_per_step(data, monkeypatch) -> None:
    Xtr, ytr, *_ = data
    cas = Cascade(threshold=0.99, max_models=6).fit(Xtr, ytr)
    big = np.tile(Xtr, (50, 1))  # 120,000 queries, at most 2,400 patterns
    rows = []
    for agg in cas.aggregators_:
        real = agg.predict_proba

        def counted(X, real=real):
            rows.append(len(X))
            return real(X)

        monkeypatch.setattr(agg, "predict_proba", counted)
    asked = cas.n_asked(big)
    Xo = Xtr[:, cas.order_]
    # step t sees one row per distinct answer pattern of the first t + 1 models among the
    # queries still open there
    expect = [len(np.unique(Xo[asked[: len(Xtr)] > t, : t + 1], axis=0))
              for t in range(len(rows))]
    assert rows == expect
    assert sum(rows) <= len(cas.order_) * len(Xtr) < len(big)


def test_unfitted_and_bad_threshold(data) -> None:
    Xtr, ytr, *_ = data
    with pytest.raises(ValueError, match="Cascade is not fitted"):
        Cascade().predict(Xtr)
    with pytest.raises(ValueError, match="threshold"):
        Cascade(threshold=0.2).fit(Xtr, ytr)


def test_budgeted_order_is_the_budgeted_subset_cheapest_first(data) -> None:
    from ensel.budget import BudgetedScoreMI

    Xtr, ytr, Xte, yte, usd = data
    b = 5e-3
    picks = BudgetedScoreMI(10, budget=b, costs=usd).fit(Xtr, ytr).selected_
    cas = Cascade(costs=usd, budget=b, order="budgeted", target_error="full").fit(Xtr, ytr)
    assert sorted(cas.order_) == sorted(picks)
    assert list(usd[cas.order_]) == sorted(usd[cas.order_])
    # "full": the cheapest threshold whose cross-fitted error matches asking them all
    full = cas.tuning_[1.0][1]
    cost, err = cas.tuning_[cas.threshold_]
    assert err <= full + 1e-12
    assert cost == min(c for c, e in cas.tuning_.values() if e <= full + 1e-12)
    assert cas.expected_cost(Xte) <= usd[cas.order_].sum() + 1e-12
    with pytest.raises(ValueError, match="order"):
        Cascade(costs=usd, order=[0, 0]).fit(Xtr, ytr)
