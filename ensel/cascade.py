"""An adaptive cascade: ask the next model only while the answer is still unsure.

A static ensemble pays for every model on every query. :class:`Cascade` asks models one at a
time in a fixed order and stops as soon as the posterior ``P(Y | answers so far)`` is
confident enough:

* **order** (learned on the training data): the cost-benefit greedy of
  :class:`ensel.budget.BudgetedScoreMI` without a dollar limit, i.e. repeatedly the model
  with the largest debiased gain ``I(Y; X_j | T_S)`` per dollar, up to ``max_models``
  models (a model with no positive gain left is never asked);
* **posterior** after ``t`` answers: the aggregator (default ``backoff``,
  :class:`ensel.aggregate.BackoffMAP`) fitted on the training data of the first ``t`` models
  of the order, evaluated on the answers seen so far;
* **stop** when ``max P(Y = y | answers) >= threshold``, when the next model would exceed
  the per-query ``budget``, or at the end of the order; the prediction is the posterior's
  MAP class at the stop (ties -> ``+1``);
* **threshold** ``"auto"``: tuned on the training data for a ``target_cost`` (the most
  accurate threshold whose expected cost is within it) or a ``target_error`` (the cheapest
  threshold that reaches it; the most accurate one when none does). The tuning posteriors
  are cross-fitted (``n_folds`` folds of the training items, seeded by ``random_state``), so
  the tuning does not believe the training data's own, over-confident posteriors.

Prediction is vectorised: at step ``t`` the queries still open are grouped by their answers
so far and the ``t``-th aggregator is evaluated once per answer pattern, so predicting ``N``
queries costs ``O(N * mean models asked)`` array steps plus one posterior per pattern.

The cost of a query is the sum of the prices of the models asked; :meth:`Cascade.expected_cost`
is its mean over the queries given, :meth:`Cascade.n_asked` the number asked per query.

Examples
--------
>>> from ensel.copula import sample
>>> Sigma = [[1, 0.3, 0.3], [0.3, 1, 0.3], [0.3, 0.3, 1]]
>>> X, y, _ = sample([-1.0, -0.9, -0.8], Sigma, 4000, random_state=0)
>>> cas = Cascade(costs=[1.0, 0.2, 0.1], threshold=0.9).fit(X, y)
>>> cas.order_
[2, 1, 0]
>>> cost = cas.expected_cost(X)
>>> bool(0.1 <= cost <= 1.3)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np

from ensel._estimator import AggregatorMixin
from ensel._validation import (
    Interval,
    Shown,
    StrOptions,
    check_X,
    check_X_y,
    constraint_error,
    validate_params,
)

__all__ = ["Cascade", "THRESHOLDS", "posterior_aggregators"]


@validate_params({})
def posterior_aggregators() -> list[str]:
    """Names of :data:`ensel.aggregate.AGGREGATORS` that give a posterior (``predict_proba``),
    which the cascade needs to decide when to stop (``mv`` and ``wmv`` only vote)."""
    from ensel.aggregate import SPECS

    return [name for name, spec in SPECS.items() if hasattr(spec.estimator, "predict_proba")]


def check_posterior_aggregator(name: Any, param: str = "aggregator",
                               func: str | None = None) -> str:
    """``name`` if it is one of :func:`posterior_aggregators`, else the one error naming it."""
    from ensel.aggregate import AGGREGATORS

    names = posterior_aggregators()
    if not isinstance(name, str) or name not in names:
        why = (" (it only votes: the cascade needs a posterior, predict_proba)"
               if isinstance(name, str) and name in AGGREGATORS else "")
        raise constraint_error(param, f"one of {', '.join(map(repr, names))}{why}", name,
                               func=func)
    return name

#: The thresholds ``threshold="auto"`` chooses from.
THRESHOLDS: np.ndarray = np.array([0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97,
                                   0.98, 0.99, 0.995, 0.999, 1.0])


def _walk(models: list[Any], X: np.ndarray, threshold: float, T: int
          ) -> tuple[np.ndarray, np.ndarray]:
    """Posterior ``P(Y = +1)`` at the stop and the number of models asked, per row.

    The posterior after ``t`` answers depends on the query only through those answers, so
    at each step the open queries are grouped by their answer pattern so far (each group
    numbered from its parent group and the new answer, :func:`ensel._kernels.code_groups`)
    and the ``t``-th aggregator is evaluated once per pattern, on one row of each group.
    """
    from ensel._kernels import code_groups

    n = X.shape[0]
    p = np.full(n, 0.5)
    asked = np.zeros(n, dtype=np.int64)
    open_ = np.arange(n)
    group = np.zeros(n, dtype=np.int64)  # pattern group of each open query
    n_groups = 1
    for t in range(T):
        if open_.size == 0:
            break
        key = group * 3 + (X[open_, t].astype(np.int64) + 1)  # answers are -1, 0, +1
        one, group = code_groups(key, 3 * n_groups)  # one query of each pattern so far
        n_groups = one.size
        q_pattern = models[t].predict_proba(X[open_[one], : t + 1])[:, 1]
        unsure = ~(np.maximum(q_pattern, 1.0 - q_pattern) >= threshold)[group]
        if t == T - 1:
            unsure[:] = False
        stop = ~unsure  # the queries that stop here: their posterior and count are final
        p[open_[stop]] = q_pattern[group[stop]]
        asked[open_[stop]] = t + 1
        open_, group = open_[unsure], group[unsure]
    return p, asked


class Cascade(AggregatorMixin):
    """Ask models in a learned order until the posterior clears a threshold.

    Parameters
    ----------
    costs : array-like of shape (n_models,), optional
        Dollars per query of each column (default 1 each: the cost is the number asked).
    budget : float, optional
        Largest dollars per query (the order is cut where its running cost exceeds it).
    threshold : float or "auto", default="auto"
        Stop when ``max_y P(Y = y | answers) >= threshold`` (in ``[0.5, 1]``); ``"auto"``
        tunes it (see ``target_cost``, ``target_error``; without either: the most accurate
        threshold, ties -> cheaper).
    target_cost, target_error : float or "full", optional
        What ``"auto"`` tunes for (at most one); ``target_error="full"``: the cross-fitted
        error of asking the whole order (the cheapest threshold that matches the static
        subset of the order).
    max_models : int, default=10
        Longest order.
    aggregator : str, default="backoff"
        Name of :data:`ensel.aggregate.AGGREGATORS` giving the posterior (needs
        ``predict_proba``).
    n_folds : int, default=2
        Folds of the cross-fitted tuning posteriors.
    random_state : int, default=0
        Seeds the folds.
    order : {"gain_per_dollar", "budgeted"} or list of int, default="gain_per_dollar"
        ``"gain_per_dollar"``: the cost-benefit greedy order (see the module text);
        ``"budgeted"``: the models :class:`ensel.budget.BudgetedScoreMI` picks within
        ``budget``, asked cheapest first (the static subset, asked adaptively); a list:
        these columns in this order.

    Attributes
    ----------
    order_ : list of int
        Columns in the order they are asked.
    threshold_ : float
    aggregators_ : list
        The fitted aggregator of each prefix of ``order_``.
    tuning_ : dict
        ``threshold -> (expected cost, error)`` of the cross-fitted tuning (``"auto"`` only).
    classes_ : numpy.ndarray, ``[-1, +1]``
    n_models_ : int
    """

    _parameter_constraints: dict[str, Any] = {
        "costs": ["array-like", None],
        "budget": [Interval(Real, 0, None, closed="neither"), None],
        "threshold": [Interval(Real, 0.5, 1, closed="both"), StrOptions({"auto"})],
        "target_cost": [Interval(Real, 0, None, closed="neither"), None],
        "target_error": [Interval(Real, 0, 1, closed="both"), StrOptions({"full"}), None],
        "max_models": [Interval(Integral, 1, None)],
        "aggregator": [str],
        "n_folds": [Interval(Integral, 2, None)],
        "random_state": ["random_state"],
        "order": [StrOptions({"gain_per_dollar", "budgeted"}), "array-like"],
    }

    def __init__(self, costs: Any = None, budget: float | None = None,
                 threshold: float | str = "auto", target_cost: float | None = None,
                 target_error: float | str | None = None, max_models: int = 10,
                 aggregator: str = "backoff", n_folds: int = 2, random_state: int = 0,
                 order: str | Sequence[int] = "gain_per_dollar") -> None:
        self.costs = costs
        self.order = order
        self.budget = budget
        self.threshold = threshold
        self.target_cost = target_cost
        self.target_error = target_error
        self.max_models = max_models
        self.aggregator = aggregator
        self.n_folds = n_folds
        self.random_state = random_state

    def _prefixes(self, X: np.ndarray, y: np.ndarray) -> list[Any]:
        from ensel.aggregate import make_aggregator
        from ensel.select._budgeted import _shared_for

        sh = _shared_for(X, y)

        def fit(cols: list[int]) -> Any:
            return make_aggregator(self.aggregator, random_state=0).fit(X[:, cols], y)

        return [fit(self.order_[: t + 1]) if sh is None
                else sh.get(("prefix", tuple(self.order_[: t + 1]), self.aggregator),
                            lambda t=t: fit(self.order_[: t + 1]))
                for t in range(len(self.order_))]

    @validate_params({"X": ["array-like"], "y": ["array-like"]})
    def fit(self, X: Any, y: Any) -> Cascade:
        """Learn the order, fit the prefix aggregators and tune the threshold."""
        from ensel._validation import check_int
        from ensel.costs import check_budget, check_costs, within
        from ensel.select._budgeted import _Gains, _greedy

        check_posterior_aggregator(self.aggregator)  # before any work: mv has no posterior
        Xa, ya = check_X_y(X, y, require_both_classes=True)
        m = Xa.shape[1]
        c = check_costs(self.costs, m)
        max_models = check_int(self.max_models, "max_models", low=1)
        if self.target_cost is not None and self.target_error is not None:
            raise constraint_error("target_error", "None when target_cost is given",
                                   self.target_error)
        budget = np.inf
        if self.budget is not None:
            budget = check_budget(self.budget, c)
        given = not isinstance(self.order, str)
        if given:
            order = [int(j) for j in np.asarray(self.order).ravel()]
            if not order or len(set(order)) != len(order) or min(order) < 0 \
                    or max(order) >= m:
                raise constraint_error("order", f"distinct column indices in [0, {m})",
                                       self.order)
        elif self.order not in ("gain_per_dollar", "budgeted"):
            raise constraint_error("order", "'gain_per_dollar', 'budgeted' or a list of "
                                   "column indices", self.order)
        if given:
            pass
        elif self.order == "budgeted":
            if self.budget is None:
                raise constraint_error("budget", "a number of dollars per query when "
                                       "order='budgeted'", None)
            from ensel.select._budgeted import BudgetedScoreMI, _cheapest_first

            picks = BudgetedScoreMI(min(max_models, m), budget=budget, costs=c).fit(
                Xa, ya).selected_
            order = _cheapest_first(picks, c)
        else:
            order, _ = _greedy(_Gains(Xa, ya, 16), c, np.inf, min(max_models, m),
                               per_dollar=True)
            run = np.cumsum(c[order])
            order = order[: max(1, int(np.sum(within(run, budget))))]
            if not within(c[order[0]], budget):  # the first pick alone is over budget
                order = [int(np.flatnonzero(c == c.min())[0])]
        self.order_ = [int(j) for j in order]
        self.costs_ = c
        self.aggregators_ = self._prefixes(Xa, ya)
        if isinstance(self.threshold, str):
            if self.threshold != "auto":
                raise constraint_error("threshold", "a number in [0.5, 1] or 'auto'",
                                       self.threshold)
            self.threshold_, self.tuning_ = self._tune(Xa, ya)
        else:
            t = float(self.threshold)
            if not 0.5 <= t <= 1.0:
                raise constraint_error("threshold", "a number in [0.5, 1] or 'auto'",
                                       self.threshold)
            self.threshold_, self.tuning_ = t, {}
        self.classes_ = np.array([-1, 1], dtype=np.int8)
        self.n_models_ = m
        return self

    def _tune(self, Xa: np.ndarray, ya: np.ndarray) -> tuple[float, dict[float, tuple]]:
        from ensel.select._budgeted import _fold_posterior, _shared_for

        sh = _shared_for(Xa, ya)
        n = len(ya)
        rng = np.random.default_rng(self.random_state)
        n_folds = max(2, int(self.n_folds))
        fold = rng.permutation(n) % n_folds
        T = len(self.order_)
        P = np.full((n, T), 0.5)  # cross-fitted posterior after each prefix
        Xo = Xa[:, self.order_]  # the order's columns, taken once
        for f in np.unique(fold):
            tr, te = fold != f, fold == f
            if len(np.unique(ya[tr])) < 2:
                continue
            parts: list[np.ndarray] = []  # the fold's rows, taken at the first fit

            def fold_proba(t: int, tr: np.ndarray = tr, te: np.ndarray = te,
                           parts: list[np.ndarray] = parts) -> np.ndarray:
                if not parts:
                    parts += [Xo[tr], ya[tr], Xo[te]]
                Xf, yf, Xt = parts
                return _fold_posterior(Xf[:, : t + 1], yf, Xt[:, : t + 1], self.aggregator)

            for t in range(T):
                cols = self.order_[: t + 1]
                P[te, t] = fold_proba(t) if sh is None else sh.get(
                    ("fold", self.random_state, n_folds, int(f), tuple(cols), self.aggregator),
                    lambda t=t: fold_proba(t))
        run = np.cumsum(self.costs_[self.order_])
        table: dict[float, tuple[float, float]] = {}
        conf = np.maximum(P, 1.0 - P)
        for thr in THRESHOLDS:
            sure = conf >= thr
            sure[:, -1] = True
            stop = sure.argmax(axis=1)
            p = P[np.arange(n), stop]
            err = float(np.mean(np.where(p >= 0.5, 1, -1) != ya))
            table[float(thr)] = (float(run[stop].mean()), err)
        return self._choose(table), table

    def _choose(self, table: dict[float, tuple[float, float]]) -> float:
        from ensel.costs import within

        items = sorted(table.items(), key=lambda kv: (kv[1][1], kv[1][0]))  # error, cost
        if self.target_cost is not None:
            ok = [kv for kv in items if within(kv[1][0], float(self.target_cost))]
            best = ok[0] if ok else min(table.items(), key=lambda kv: (kv[1][0], kv[1][1]))
        elif self.target_error is not None:
            target = (table[1.0][1] if isinstance(self.target_error, str)
                      and self.target_error == "full" else float(self.target_error))
            ok = [kv for kv in table.items() if kv[1][1] <= target + 1e-12]
            best = min(ok, key=lambda kv: kv[1][0]) if ok else items[0]
        else:
            best = items[0]
        return float(best[0])

    @validate_params({"target_cost": [Interval(Real, 0, None, closed="neither"), None],
                      "target_error": [Interval(Real, 0, 1, closed="both"),
                                       StrOptions({"full"}), None]})
    def set_target(self, *, target_cost: float | None = None,
                   target_error: float | str | None = None) -> Cascade:
        """Re-tune the threshold of a fitted ``threshold="auto"`` cascade for a new target,
        from the cross-fitted tuning table of :meth:`fit` (no refit)."""
        if not getattr(self, "tuning_", None):
            raise constraint_error("self", "a Cascade fitted with threshold='auto'",
                                   Shown("no tuning table"))
        if target_cost is not None and target_error is not None:
            raise constraint_error("target_error", "None when target_cost is given",
                                   target_error)
        self.target_cost, self.target_error = target_cost, target_error
        self.threshold_ = self._choose(self.tuning_)
        return self

    def _run(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        if not hasattr(self, "order_"):
            raise constraint_error("self", "a fitted Cascade (call fit(X, y) first)",
                                   Shown("an unfitted estimator"))
        m = X.shape[1] if hasattr(X, "shape") and len(X.shape) == 2 else None
        if m is not None and m != self.n_features_in_:
            raise constraint_error("X", f"of {self.n_features_in_} models (columns), as in fit",
                                   Shown(f"{m} models"))
        if isinstance(X, np.ndarray):  # validate only the columns the cascade may ask
            Xo = check_X(X[:, self.order_])
        else:
            Xa = check_X(X)
            if Xa.shape[1] != self.n_features_in_:
                raise constraint_error("X", f"of {self.n_features_in_} models (columns), as "
                                       "in fit", Shown(f"{Xa.shape[1]} models"))
            Xo = Xa[:, self.order_]
        return _walk(self.aggregators_, Xo, self.threshold_, len(self.order_))

    @validate_params({"X": ["array-like"]})
    def predict_proba(self, X: Any) -> np.ndarray:
        """Posterior at the stop; columns follow ``classes_ = [-1, +1]``."""
        p, _ = self._run(X)
        return np.column_stack([1.0 - p, p])

    @validate_params({"X": ["array-like"]})
    def predict(self, X: Any) -> np.ndarray:
        """The posterior's class at the stop (ties -> ``+1``)."""
        p, _ = self._run(X)
        return np.where(p >= 0.5, 1, -1).astype(np.int8)

    @validate_params({"X": ["array-like"]})
    def n_asked(self, X: Any) -> np.ndarray:
        """How many models are asked for each query."""
        return self._run(X)[1]

    @validate_params({"X": ["array-like"]})
    def query_costs(self, X: Any) -> np.ndarray:
        """Dollars spent on each query (the prices of the models asked)."""
        run = np.concatenate([[0.0], np.cumsum(self.costs_[self.order_])])
        return run[self.n_asked(X)]

    @validate_params({"X": ["array-like"]})
    def expected_cost(self, X: Any) -> float:
        """Mean dollars per query over the queries ``X``."""
        return float(self.query_costs(X).mean())

    @validate_params({"X": ["array-like"]})
    def predict_with_cost(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """Predictions and the number of models asked, in one pass."""
        p, asked = self._run(X)
        return np.where(p >= 0.5, 1, -1).astype(np.int8), asked
