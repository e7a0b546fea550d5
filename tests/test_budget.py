"""Selection within a dollar budget and its baselines."""

from __future__ import annotations

import numpy as np
import pytest

from ensel.budget import BudgetedScoreMI, budget_baselines, budgeted_selection
from ensel.costs import PriceError
from ensel.pools import family_pool
from ensel.select import SELECTORS, ScoreMI


@pytest.fixture(scope="module")
def pool():
    p = family_pool(30, 2000, random_state=3)
    usd = np.exp(np.random.default_rng(4).uniform(np.log(1e-4), np.log(1e-2), 30))
    return p.X, p.y, usd


def test_registered_and_unit_costs_behave_like_k_picks(pool) -> None:
    X, y, _ = pool
    assert SELECTORS["budgeted"] is BudgetedScoreMI
    sel = BudgetedScoreMI(4).fit(X, y)
    assert len(sel.selected_) <= 4 and sel.cost_ == len(sel.selected_)
    # unit costs: both greedy runs are the same run, whose first pick is score_mi's
    gain = BudgetedScoreMI(4, compare="gain").fit(X, y)
    assert gain.selected_[0] == ScoreMI(1).fit(X, y).selected_[0]


@pytest.mark.parametrize("budget", [2e-4, 1e-3, 5e-3, 2e-2])
def test_selection_stays_within_budget_and_is_best_of_two(pool, budget: float) -> None:
    X, y, usd = pool
    sel = BudgetedScoreMI(30, budget=budget, costs=usd, compare="gain").fit(X, y)
    assert sel.cost_ <= budget + 1e-12
    assert sel.cost_ == pytest.approx(usd[sel.selected_].sum())
    t = sel.total_gain_
    assert sum(sel.gains_) == pytest.approx(max(t.values()))
    assert sel.run_ == ("cost_benefit" if t["cost_benefit"] > t["plain"] + 1e-12 else "plain")
    # the default compares the runs and the accuracy fill by cross-fitted error
    err = BudgetedScoreMI(30, budget=budget, costs=usd).fit(X, y)
    assert set(err.cv_error_) == {"plain", "cost_benefit", "accuracy"}
    assert err.cv_error_[err.run_] == min(err.cv_error_.values())
    assert err.cost_ <= budget + 1e-12
    assert budgeted_selection(X, y, usd, budget) == err.selected_
    if err.run_ == "accuracy":
        assert err.selected_ == budget_baselines(X, y, usd, budget)["topk_budget"]


def test_cost_benefit_beats_one_expensive_model() -> None:
    # model 0: slightly more accurate but 10x the price of 1 and 2 together; with the budget
    # of model 0, the cost-benefit run buys the two independent cheap models
    from ensel.copula import sample

    X, y, _ = sample([-1.0, -0.9, -0.9], np.eye(3), 20000, random_state=0)
    sel = BudgetedScoreMI(3, budget=1.0, costs=[1.0, 0.05, 0.05], compare="gain").fit(X, y)
    assert sorted(sel.selected_) == [1, 2]
    assert sel.run_ == "cost_benefit"


def test_baselines(pool) -> None:
    X, y, usd = pool
    b = 3e-3
    base = budget_baselines(X, y, usd, b)
    acc = (X == y[:, None]).mean(axis=0)
    for name, cols in base.items():
        assert usd[cols].sum() <= b + 1e-12, name
    assert base["best_single"][0] == int(np.argmax(np.where(usd <= b, acc, -1)))
    assert base["topk_budget"][0] == base["best_single"][0]
    cf = base["cheapest_first"]
    assert list(usd[cf]) == sorted(usd[cf])


def test_bad_costs_and_budget(pool) -> None:
    X, y, usd = pool
    with pytest.raises(ValueError, match="costs"):
        BudgetedScoreMI(3, budget=1.0, costs=usd[:3]).fit(X, y)
    bad = usd.copy()
    bad[5] = -1
    with pytest.raises(ValueError, match="for model 5"):
        BudgetedScoreMI(3, budget=1.0, costs=bad).fit(X, y)
    with pytest.raises(PriceError, match="below the cheapest"):
        BudgetedScoreMI(3, budget=usd.min() / 2, costs=usd).fit(X, y)


@pytest.mark.parametrize("seed", range(6))
def test_every_model_alone_at_once_is_each_fitted_alone(seed: int) -> None:
    # alone_errors fits the back-off on every column at once (one batched Newton); a
    # column whose decisions are within float noise of a tie is refitted alone: the
    # errors are exactly subset_error's, abstentions, constant and perfect columns included
    from ensel.budget import alone_errors, subset_error

    rng = np.random.default_rng(seed)
    n, m = [(40, 25), (120, 30), (900, 20), (3000, 12), (60, 40), (400, 30)][seed]
    y = rng.choice([-1, 1], n)
    X = np.where(rng.random((n, m)) < rng.uniform(0.3, 1.0, m), y[:, None],
                 -y[:, None]).astype(np.int8)
    if seed % 2:
        X[rng.random((n, m)) < 0.1] = 0
    X[:, 0], X[:, 1] = 1, y
    ntr = int(0.8 * n)
    split = (X[:ntr], y[:ntr], X[ntr:], y[ntr:])
    fast = alone_errors(split, list(range(m)), "backoff", 0)
    assert fast == {(j,): subset_error(split, [j], "backoff", 0) for j in range(m)}
