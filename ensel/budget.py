"""Selection under a budget in dollars per query: cost-aware greedy with the best-of-two rule.

The paper's budget is ``k`` calls per query; users pay per query, and the models of one pool
differ in price by 10-100x. :class:`BudgetedScoreMI` picks the subset ``S`` with
``sum_{j in S} c_j <= B`` (``c_j`` = dollars per query of model ``j``, ``B`` = budget) that
maximises ensel's default gain, the conditional information ``I(Y; X_j | T_S)`` of
:class:`ensel.select.ScoreMI` (``T_S`` = binned weighted-vote score of ``S``):

* **cost-benefit greedy**: repeatedly add the affordable candidate with the largest gain per
  dollar;
* **plain greedy**: repeatedly add the affordable candidate with the largest gain;
* return the run with the larger total gain ``F(S) = sum of the gains at pick time`` (the
  chain-rule estimate of ``I(Y; X_S)``).

For a monotone submodular ``F`` the better of the two runs is within a constant factor
``(1 - 1/e) / 2`` of the best subset within budget (Krause & Guestrin 2005; Leskovec et al.
2007, "Cost-effective outbreak detection", CELF); the cost-benefit run alone can be
arbitrarily bad (one cheap useless model first), the plain run alone too (one expensive
model eating the budget). ``F`` is submodular for conditionally independent errors
(Theorem D.1's setting); on real answers it is an estimate, so the guarantee is a guide.

**Comparing the runs** (``compare="error"``, the default): the total gain ``F`` is an
information quantity, not an error rate, and on small subsets they disagree: two
mid-accuracy models carry more bits together than the best model plus a weak one, but a
two-model ensemble errs about as its better member. Comparing the runs by ``F``, budgeted
selection erred more than Top-k under the same budget beyond the noise at 3 of 72 budgets
of the budgets page (seeded pools of 50 and 1,000 models; at most +0.0225). The default
therefore compares the two greedy runs and the accuracy fill (Top-k under the budget) by
the cross-fitted (two folds, seeded) training error of the aggregator and keeps the lowest;
``compare="gain"`` is the plain best of two by ``F``.

Gains are the plug-in estimate minus its null mean ``df / (2 n ln 2)`` bits (``df`` = bins x
(answer values - 1); the G-statistic's expectation when ``X_j`` adds nothing), clipped at 0,
so that a cheap model's estimation bias is not mistaken for information per dollar; a run
stops when no affordable candidate has a positive gain or ``k`` models are picked.

Baselines under the same budget (:func:`budget_baselines`): **Top-k by accuracy** (the
accuracy order, skipping models that no longer fit), **cheapest first** (ascending price,
ties by accuracy) and the **best single model within budget**.

With no prices (``costs=None``) every model costs 1 and ``budget=None`` means ``k`` models,
so ``BudgetedScoreMI(k)`` is a registered selector like the others (the protocol's loop
calls every selector with ``k`` alone).

References
----------
A. Krause and C. Guestrin (2005), "A Note on the Budgeted Maximization of Submodular
Functions", CMU-CALD-05-103. J. Leskovec, A. Krause, C. Guestrin, C. Faloutsos,
J. VanBriesen, N. Glance (2007), "Cost-effective Outbreak Detection in Networks", KDD.

Examples
--------
>>> from ensel.copula import sample
>>> Sigma = [[1, 0.9, 0, 0], [0.9, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
>>> X, y, _ = sample([-0.84, -0.81, -0.67, -0.6], Sigma, 5000, random_state=0)
>>> sel = BudgetedScoreMI(k=4, budget=1.2, costs=[1.0, 1.0, 0.1, 0.1]).fit(X, y)
>>> sel.selected_, round(sel.cost_, 2)
([2, 3, 0], 1.2)
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np

from ensel._validation import Interval, check_X_y, validate_params
from ensel.costs import check_costs
from ensel.select._budgeted import BudgetedScoreMI, _fill

__all__ = ["BudgetedScoreMI", "budgeted_selection", "budget_baselines", "BASELINES"]

#: Names of the baselines under a dollar budget, as :func:`budget_baselines` returns them.
BASELINES = ("topk_budget", "cheapest_first", "best_single")


@validate_params({"X": ["array-like"], "y": ["array-like"], "costs": ["array-like"],
                  "budget": "no_validation", "k": [Interval(Integral, 1, None), None],
                  "n_bins": [Interval(Integral, 2, None)]})
def budgeted_selection(X: Any, y: Any, costs: Any, budget: float, *, k: int | None = None,
                       n_bins: int = 16) -> list[int]:
    """Column indices picked by :class:`BudgetedScoreMI` (``k``: at most all models)."""
    Xa, ya = check_X_y(X, y, require_both_classes=True)
    kk = Xa.shape[1] if k is None else k
    return BudgetedScoreMI(kk, budget=budget, costs=costs, n_bins=n_bins).fit(Xa, ya).selected_


@validate_params({"X": ["array-like"], "y": ["array-like"], "costs": ["array-like"],
                  "budget": "no_validation", "k": [Interval(Integral, 1, None), None]})
def budget_baselines(X: Any, y: Any, costs: Any, budget: float, *,
                     k: int | None = None) -> dict[str, list[int]]:
    """The baselines under a dollar budget, each a list of column indices.

    ``topk_budget``: the accuracy order (training accuracy, ties -> lowest index), skipping
    a model once it no longer fits; ``cheapest_first``: ascending price (ties -> higher
    accuracy, then lowest index) while it fits; ``best_single``: the most accurate model
    whose price is within the budget.
    """
    Xa, ya = check_X_y(X, y)
    m = Xa.shape[1]
    c = check_costs(costs, m)
    from ensel.costs import check_budget

    b = check_budget(budget, c)
    kk = m if k is None else int(k)
    acc = (Xa == ya[:, None]).mean(axis=0)
    by_acc = np.lexsort((np.arange(m), -acc))
    by_price = np.lexsort((np.arange(m), -acc, c))
    fits = by_acc[c[by_acc] <= b + 1e-12]
    return {"topk_budget": _fill(by_acc, c, b, kk),
            "cheapest_first": _fill(by_price, c, b, kk),
            "best_single": [int(fits[0])]}

