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

The buy list: the cheapest choice as good as the best
-----------------------------------------------------
A user pays for a choice of models, so more money must buy a lower error. Every
recommendation of the cost commands (``ensel select --budget-usd``, ``ensel frontier``,
``ensel cascade``) goes through one rule, :func:`cheapest_as_good`:

* the **candidates** within a budget ``B`` are every choice the methods make at every budget
  up to ``B`` (budgeted selection, Top-k under the budget, cheapest first, the best single
  model, and the cascade where it runs) and every model alone whose price is within ``B``
  (:func:`single_model_errors`): smaller sets and single models included; the user's
  report (:mod:`ensel.report`) adds its cost-blind recommendation, scored on the same
  splits, so that it never buys dearer than a choice it shows as good;
* the **best** is the candidate of lowest mean held-out error (ties: the cheaper);
* **the equivalence rule** (:func:`as_good`): a candidate is *as good as* the best when its
  mean paired held-out error excess over the best (the same splits) is at most one
  standard error of that excess (Nadeau & Bengio's overlap-corrected one, as every interval
  of ensel; the one-standard-error rule of ``-k auto``, :func:`ensel.experiment.one_se_k`)
  or at most the margin :data:`EQUIVALENCE_MARGIN` (half a point of error, 0.005: a
  difference this small is not worth paying for even when it is measured precisely);
* the **choice** is the cheapest candidate (mean cost per query; ties: the lower error) as
  good as the best. A cheaper candidate that is not chosen is named with the reason, in one
  line, with its excess error and interval (:func:`why_not_cheaper`).

So a dearer choice is recommended only when it buys a lower error beyond the noise and the
margin; the mean error alone never decides, since on few or small splits the lowest mean
is often noise.

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

from numbers import Integral, Real
from typing import Any

import numpy as np

from ensel._validation import Interval, check_X_y, validate_params
from ensel.costs import check_costs, cost_levels, within
from ensel.protocol import PAPER_PROTOCOL, Protocol
from ensel.select._budgeted import BudgetedScoreMI, _fill

__all__ = ["BudgetedScoreMI", "budgeted_selection", "budget_baselines", "BASELINES",
           "EQUIVALENCE_MARGIN", "EQUIVALENCE_RULE", "as_good", "cheapest_as_good",
           "why_not_cheaper", "buy_list", "deployed_models", "single_model_errors",
           "METHOD_WORDS", "mean_interval", "picks_within", "PICK_METHODS"]

#: What each choice of the cost commands is, in words.
METHOD_WORDS = {"single": "the model alone", "budgeted": "budgeted selection",
                "topk_budget": "Top-k under the budget", "cheapest_first": "cheapest first",
                "best_single": "best single model", "cascade": "cascade",
                "cost_blind": "the cost-blind recommendation"}

#: A number strictly between 0 and 1 (a margin, a test share, a confidence).
_UNIT = Interval(Real, 0, 1, closed="neither")

#: Names of the baselines under a dollar budget, as :func:`budget_baselines` returns them.
BASELINES = ("topk_budget", "cheapest_first", "best_single")

#: The equivalence margin of the buy list, in held-out error (half a point): a cheaper
#: choice whose mean error excess over the best is at most this (or at most one standard
#: error of it) is as good (see the module text).
EQUIVALENCE_MARGIN = 0.005

#: The rule in one sentence, as the commands print it (``{margin}``: the margin used).
EQUIVALENCE_RULE = ("the cheapest choice whose mean held-out error exceeds the best's by at "
                    "most one standard error of the paired difference (same splits, "
                    "overlap-corrected) or at most {margin:g} is recommended")


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
    from ensel.select._budgeted import _accuracy, _shared_for

    sh = _shared_for(Xa, ya)  # the frontier's budgets share one training part's accuracies
    acc = _accuracy(Xa, ya) if sh is None else sh.get(("accuracy",),
                                                      lambda: _accuracy(Xa, ya))
    by_acc = np.lexsort((np.arange(m), -acc))
    by_price = np.lexsort((np.arange(m), -acc, c))
    fits = by_acc[within(c[by_acc], b)]
    return {"topk_budget": _fill(by_acc, c, b, kk),
            "cheapest_first": _fill(by_price, c, b, kk),
            "best_single": [int(fits[0])]}



@validate_params({"values": ["array-like"], "test_fraction": [_UNIT],
                  "confidence": [_UNIT],
                  "clip": [tuple, None]})
def mean_interval(values: Any, test_fraction: float = PAPER_PROTOCOL.test_fraction,
                  confidence: float = 0.95, clip: tuple[float, float] | None = (0.0, 1.0),
                  ) -> tuple[float, float, float]:
    """Mean and overlap-corrected interval of per-evaluation values (errors, costs, areas),
    clipped to ``clip`` (what is possible; ``None``: not clipped); no spread gives the mean
    three times."""
    return _mean_interval(values, test_fraction, confidence, clip)


def _paired() -> Any:
    """:func:`ensel.stats.paired_interval` without its argument checks, for the loops over
    candidates and budgets whose differences are checked here (finite, at least two)."""
    from ensel.stats import paired_interval

    return getattr(paired_interval, "__wrapped__", paired_interval)


def _mean_interval(values: Any, test_fraction: float, confidence: float,
                   clip: tuple[float, float] | None) -> tuple[float, float, float]:
    """:func:`mean_interval` on checked arguments."""
    v = np.asarray(values, dtype=float)
    if v.size < 2 or np.all(v == v[0]):
        return float(v.mean()), float(v.mean()), float(v.mean())
    if not np.all(np.isfinite(v)):  # the checked function's own message
        from ensel.stats import paired_interval

        paired_interval(v, n_train=1 - test_fraction, n_test=test_fraction)
    r = _paired()(v, n_train=1 - test_fraction, n_test=test_fraction,
                  confidence=confidence)
    lo, hi = r.low, r.high
    if clip is not None:
        lo, hi = max(lo, clip[0]), min(hi, clip[1])
    return float(r.mean), float(lo), float(hi)


@validate_params({"errors": ["array-like"], "best": ["array-like"], "margin": [_UNIT],
                  "test_fraction": [_UNIT]})
def as_good(errors: Any, best: Any, *, margin: float = EQUIVALENCE_MARGIN,
            test_fraction: float = PAPER_PROTOCOL.test_fraction) -> dict[str, Any]:
    """Whether a candidate is as good as the best, by the equivalence rule (module text).

    Parameters
    ----------
    errors, best : array-like of float
        Held-out errors of the candidate and of the best, one per evaluation (the same
        conditions and splits in the same order).
    margin : float, default=EQUIVALENCE_MARGIN
    test_fraction : float, default=0.2
        Test share of each split (for the overlap correction).

    Returns
    -------
    dict
        ``difference`` (mean of ``errors - best``), ``se`` (its overlap-corrected standard
        error), ``low``, ``high`` (its 95 % interval) and ``as_good`` (``difference <=
        max(se, margin)``).

    Examples
    --------
    >>> as_good([0.101, 0.102, 0.100, 0.103, 0.101], [0.100, 0.100, 0.101, 0.101, 0.100])
    ... # doctest: +ELLIPSIS
    {'difference': 0.001, 'se': ..., 'low': ..., 'high': ..., 'as_good': True}
    >>> as_good([0.15, 0.16, 0.15, 0.16], [0.10, 0.11, 0.10, 0.11])["as_good"]
    False
    """
    return _as_good(errors, best, margin, test_fraction)


def _as_good(errors: Any, best: Any, margin: float, test_fraction: float) -> dict[str, Any]:
    """:func:`as_good` on checked arguments (the buy list calls it for every candidate at
    every budget)."""
    d = np.asarray(errors, dtype=float) - np.asarray(best, dtype=float)
    if d.size < 2 or np.all(d == d[0]):  # no spread: the difference is what it is
        mean = float(d.mean()) if d.size else 0.0
        se, low, high = 0.0, mean, mean
    else:
        if not np.all(np.isfinite(d)):  # the checked function's own message
            from ensel.stats import paired_interval

            paired_interval(d, n_train=1 - test_fraction, n_test=test_fraction)
        r = _paired()(d, n_train=1 - test_fraction, n_test=test_fraction)
        mean, se, low, high = r.mean, r.se, r.low, r.high
    mean = round(float(mean), 12)
    return {"difference": mean, "se": float(se), "low": float(low), "high": float(high),
            "as_good": bool(mean <= max(float(se), float(margin)) + 1e-12)}


@validate_params({"candidates": [list], "margin": [_UNIT], "test_fraction": [_UNIT]})
def cheapest_as_good(candidates: list[dict[str, Any]], *, margin: float = EQUIVALENCE_MARGIN,
                     test_fraction: float = PAPER_PROTOCOL.test_fraction) -> dict[str, Any]:
    """The best candidate and the cheapest one as good as it (the buy list's rule).

    Parameters
    ----------
    candidates : list of dict
        Each with ``errors`` (one held-out error per evaluation, the same evaluations in the
        same order for every candidate) and ``cost`` (mean dollars per query); other keys
        are carried along.
    margin, test_fraction
        As in :func:`as_good`.

    Returns
    -------
    dict
        ``best`` and ``choice`` (indices into ``candidates``), ``tests`` (for each
        candidate, :func:`as_good` against the best) and ``cheaper`` (the most accurate of
        the candidates cheaper than the choice, not chosen because not as good; ``None``
        when the choice is the cheapest).
    """
    if not candidates:
        raise ValueError("cheapest_as_good: no candidate")
    mean = [float(np.mean(c["errors"])) for c in candidates]
    return _cheapest(candidates, mean, lambda i, b: _as_good(
        candidates[i]["errors"], candidates[b]["errors"], margin, test_fraction))


def _cheapest(candidates: list[dict[str, Any]], mean: list[float],
              test: Any, good: Any = None) -> dict[str, Any]:
    """:func:`cheapest_as_good` given each candidate's mean error and ``test(i, best)``, the
    :func:`as_good` of candidate ``i`` against candidate ``best`` (the buy list remembers
    these across its budgets: the same pair gives the same test).

    ``good(best)`` (:func:`_as_good_all`), when given, decides ``as_good`` for every
    candidate at once; ``test`` is then asked only where it is unsure and for the choice and
    the cheaper candidate, and ``tests`` holds only those (a dict by candidate)."""
    cost = cost_levels([c["cost"] for c in candidates])  # no float-noise savings
    n = len(candidates)
    best = min(range(n), key=lambda i: (round(mean[i], 12), cost[i], i))
    tests: Any
    if good is None:
        tests = [dict(test(i, best)) for i in range(n)]
        tests[best]["as_good"] = True
        ok = [i for i in range(n) if tests[i]["as_good"]]
    else:
        flags = good(best)
        tests = {}

        def at(i: int) -> dict[str, Any]:
            if i not in tests:
                tests[i] = dict(test(i, best))
            return tests[i]

        at(best)["as_good"] = True
        ok = [i for i in range(n) if i == best or flags[i] == 1
              or (flags[i] < 0 and at(i)["as_good"])]
    choice = min(ok, key=lambda i: (cost[i], round(mean[i], 12), i))
    cheaper = [i for i in range(n) if cost[i] < cost[choice]]
    weaker = min(cheaper, key=lambda i: (round(mean[i], 12), cost[i], i)) if cheaper else None
    if good is not None:  # the tests the buy list shows
        at(choice)
        if weaker is not None:
            at(weaker)
    return {"best": best, "choice": choice, "tests": tests, "cheaper": weaker}


@validate_params({"found": [dict], "names": [list], "margin": [_UNIT]})
def why_not_cheaper(found: dict[str, Any], names: list[str], *,
                    margin: float = EQUIVALENCE_MARGIN) -> str | None:
    """One line saying why the strongest cheaper candidate of :func:`cheapest_as_good` is
    not the choice (``None`` when the choice is the cheapest); ``names``: one label per
    candidate."""
    i = found["cheaper"]
    if i is None:
        return None
    t = found["tests"][i]
    return (f"not the cheaper {names[i]}: it errs {t['difference']:+.4f} "
            f"[{t['low']:+.4f}, {t['high']:+.4f}] more than the best, beyond one standard "
            f"error ({t['se']:.4f}) and the margin {margin:g}")


#: Methods of the frontier that are static subsets (the cascade asks adaptively); "single"
#: is one model alone (:func:`single_model_errors`).
_STATIC = ("budgeted", "topk_budget", "cheapest_first", "best_single", "single")


@validate_params({"data": ["sequence"], "usd": ["array-like"], "budget": [Real],
                  "aggregator": [str], "protocol": [Protocol]})
def single_model_errors(data: Any, usd: Any, budget: float, *, aggregator: str = "backoff",
                        protocol: Protocol = PAPER_PROTOCOL) -> Any:
    """Held-out error of every model alone whose price is within ``budget``, on the splits
    of :func:`ensel.frontier.frontier_errors` (the same ``protocol``, the same aggregator),
    as its rows: method ``"single"``, ``budget`` and ``cost`` the model's price.

    :func:`ensel.frontier.frontier_errors` with ``singles=budget`` gives the same rows from
    the fits of its own splits (its best single model reuses them)."""
    import pandas as pd

    from ensel.experiment import _mv_seed, split_indices

    c = np.asarray(usd, dtype=float)
    rows = []
    seed = protocol.seed
    for d in data:
        for s in range(protocol.n_splits):
            tr, te = split_indices(len(d.y), condition=d.condition, split=s, seed=seed,
                                   test_fraction=protocol.test_fraction, item_ids=d.items)
            rows += single_rows(d, s, (d.X[tr], d.y[tr], d.X[te], d.y[te]), c, budget,
                                aggregator, _mv_seed(seed, d.condition, s), list(d.models), {})
    return pd.DataFrame(rows, columns=["condition", "split", "method", "budget", "error",
                                       "cost", "n_models", "selected", "n_test"])


def subset_error(split: tuple[np.ndarray, ...], cols: list[int], aggregator: str,
                 random_state: int, share: bool = False) -> float:
    """Held-out error of ``aggregator`` on the columns ``cols``: fitted on the training part
    of ``split`` (``X_train, y_train, X_test, y_test``), scored on its test part.

    ``share``: within :func:`ensel.select._budgeted.shared_fits` on the training part, keep
    the back-off's fit as the prefix ``cols`` of a cascade (:class:`ensel.cascade.Cascade`
    asking these columns in this order reuses it)."""
    from ensel.aggregate import BackoffMAP, half_tie_error, heldout_error, make_aggregator
    from ensel.select._budgeted import _posterior_shared, _shared_for

    Xtr, ytr, Xte, yte = split
    sh = _shared_for(Xtr, ytr) if share and _posterior_shared(aggregator) else None
    if sh is not None:  # the cascade's own prefix fit (its seed: the back-off has none)
        agg = sh.get(("prefix", tuple(int(j) for j in cols), aggregator),
                     lambda: make_aggregator(aggregator, random_state=0).fit(Xtr[:, cols], ytr))
    else:
        agg = make_aggregator(aggregator, random_state=random_state).fit(Xtr[:, cols], ytr)
    if type(agg) is BackoffMAP and np.array_equal(agg.classes_, [-1, 1]):
        # heldout_error's predict and ties from one posterior (the back-off predicts +1
        # where it is >= 1/2, a tie where it is exactly 1/2)
        p = agg.predict_proba(Xte[:, cols])[:, 1]
        return half_tie_error(yte, np.where(p >= 0.5, 1, -1), p == 0.5)
    return heldout_error(agg, Xte[:, cols], yte)


def alone_errors(split: tuple[np.ndarray, ...], cols: list[int], aggregator: str,
                 random_state: int) -> dict[tuple[int, ...], float]:
    """:func:`subset_error` of each of ``cols`` alone, keyed by its one-column subset.

    With the default aggregator (``backoff``) on ``-1/+1`` labels every column is fitted at
    once (:func:`ensel.aggregate._stacking._single_column_posteriors`) and its error counted
    from its test part's answers per pattern; a column whose fit is within float noise of a
    tie is fitted alone by :func:`subset_error`, so the errors are exactly its."""
    Xtr, ytr, Xte, yte = split
    if aggregator != "backoff" or len(cols) < 2 or not np.array_equal(
            np.unique(ytr), [-1, 1]) or not np.isin(yte, [-1, 1]).all():
        return {(j,): subset_error(split, [j], aggregator, random_state) for j in cols}
    from ensel.aggregate._stacking import _VALUES, _single_column_posteriors

    whole = len(cols) == Xtr.shape[1] and cols == list(range(len(cols)))
    Xs_tr, Xs_te = (Xtr, Xte) if whole else (Xtr[:, cols], Xte[:, cols])
    p, sure = _single_column_posteriors(Xs_tr, ytr, Xs_te)
    wrong = np.zeros(len(cols))
    pos_te = (yte == 1)[:, None]
    for i, v in enumerate(_VALUES):
        eq = Xs_te == v
        pos = np.count_nonzero(eq & pos_te, axis=0)
        neg = np.count_nonzero(eq, axis=0) - pos
        # +1 where P(Y = +1) >= 1/2; exactly 1/2 is a tie, half an error
        wrong += np.where(p[:, i] == 0.5, 0.5 * (pos + neg),
                          np.where(p[:, i] >= 0.5, neg, pos))
    errors = wrong / len(yte)  # half_tie_error's mean (its sum is exact: halves)
    return {(j,): float(errors[i]) if sure[i] else
            subset_error(split, [j], aggregator, random_state) for i, j in enumerate(cols)}


def single_rows(d: Any, s: int, split: tuple[np.ndarray, ...], c: np.ndarray, budget: float,
                aggregator: str, random_state: int, names: list[str],
                found: dict[tuple[int, ...], float]) -> list[tuple[Any, ...]]:
    """The rows of :func:`single_model_errors` of one condition ``d`` and split ``s``; each
    model's error is taken from ``found`` (keyed by its one-column subset) or computed by
    :func:`subset_error` and kept there, so that a frontier's fits of the same subset on the
    same split are made once."""
    rows = []
    fit = [int(j) for j in np.flatnonzero(within(c, budget)) if (int(j),) not in found]
    found.update(alone_errors(split, fit, aggregator, random_state))
    for j in np.flatnonzero(within(c, budget)):
        key = (int(j),)
        rows.append((d.condition, s, "single", float(c[j]), found[key], float(c[j]), 1,
                     names[j], len(split[3])))
    return rows


@validate_params({"results": "no_validation", "budgets": ["array-like", None], "margin": [_UNIT],
                  "test_fraction": [_UNIT], "min_cost": [Interval(Real, 0, None)]})
def buy_list(results: Any, budgets: Any = None, *, margin: float = EQUIVALENCE_MARGIN,
             test_fraction: float = PAPER_PROTOCOL.test_fraction,
             min_cost: float = 0.0) -> list[dict[str, Any]]:
    """For each budget: the best choice within it and the cheapest choice as good.

    Parameters
    ----------
    results : pandas.DataFrame
        Rows of :func:`ensel.frontier.frontier_errors` (any of its methods; the zero-cost
        guess ``"none"`` is left out).
    budgets : array-like of float, optional
        The budgets to answer (default: every budget of ``results``); each is answered from
        the candidates at every budget up to it.
    margin, test_fraction
        As in :func:`as_good`.
    min_cost : float, default=0
        The cheapest model's price: no choice costs less (it asks at least one model), so
        cost intervals are clipped to ``[min_cost, budget]``.

    Returns
    -------
    list of dict
        One per budget: ``budget``, ``best`` and ``choice`` (each a candidate: ``method``,
        ``at_budget`` (the budget it was picked at), ``error``, ``error_low``,
        ``error_high``, ``cost``, ``cost_low``, ``cost_high``, ``models`` (the models it
        picked on most splits) and ``in_splits`` (on how many of the evaluations)),
        ``test`` (:func:`as_good` of the choice against the best), ``why_not_cheaper``
        (one line or ``None``) and ``n_candidates``.
    """
    res = results[results["method"] != "none"].sort_values(
        ["method", "budget", "condition", "split"], kind="stable")
    grid = sorted(float(b) for b in res["budget"].unique())
    asked = grid if budgets is None else sorted(float(b) for b in np.atleast_1d(budgets))
    order = {m: i for i, m in enumerate(("single", *_STATIC, "cascade"))}
    cands: list[dict[str, Any]] = []
    seen: dict[tuple[Any, ...], int] = {}
    # one candidate per method and budget; each model alone is its own candidate (the rows
    # of each, in the table's order, grouped in plain Python: a thousand models alone)
    methods, sel = res["method"].tolist(), res["selected"].astype(str).tolist()
    errors, costs = res["error"].to_numpy(dtype=float), res["cost"].to_numpy(dtype=float)
    groups: dict[tuple[Any, float, str], list[int]] = {}
    for r, (method, b) in enumerate(zip(methods, res["budget"].to_numpy(), strict=True)):
        groups.setdefault((method, b, sel[r] if method == "single" else ""), []).append(r)
    for method, b, who in sorted(groups, key=lambda k: (k[1], order.get(k[0], 99), k[2])):
        rows = groups[method, b, who]
        e, c, sets = errors[rows], costs[rows], [sel[r] for r in rows]
        if method == "cascade" and not any("|" in x for x in sets):
            continue  # a cascade of one model is that model alone
        key = (method == "cascade", tuple(sets), tuple(np.round(e, 12)), tuple(c))
        if key in seen:  # the same choice, found by another method or at a larger budget
            continue
        seen[key] = len(cands)
        top, in_splits = _most_common(sets)
        # the mean cost as _mean_interval gives it; the intervals only for the choices shown
        cands.append({"method": str(method), "at_budget": float(b), "errors": e, "costs": c,
                      "cost": float(c.mean()), "models": top.split("|") if top else [],
                      "in_splits": in_splits, "n_evaluations": int(len(e))})
    out = []
    means = [float(np.mean(cd["errors"])) for cd in cands]
    tested: dict[tuple[int, int], dict[str, Any]] = {}  # (candidate, best) -> as_good

    def test(i: int, best: int) -> dict[str, Any]:
        if (i, best) not in tested:
            tested[i, best] = _as_good(cands[i]["errors"], cands[best]["errors"], margin,
                                       test_fraction)
        return tested[i, best]

    good = _as_good_all([cd["errors"] for cd in cands], margin, test_fraction)
    shown: dict[int, dict[str, Any]] = {}

    def public(i: int) -> dict[str, Any]:
        """Candidate ``i`` as the buy list shows it, with its intervals."""
        if i not in shown:
            cd = cands[i]
            ei = _mean_interval(cd["errors"], test_fraction, 0.95, (0.0, 1.0))
            # every choice picked within b costs at most b (the cascade asks such a subset)
            ci = _mean_interval(cd["costs"], test_fraction, 0.95,
                                (float(min_cost), cd["at_budget"]))
            shown[i] = {"method": cd["method"], "at_budget": cd["at_budget"], "cost": ci[0],
                        "cost_low": ci[1], "cost_high": ci[2], "error": ei[0],
                        "error_low": ei[1], "error_high": ei[2], "models": cd["models"],
                        "in_splits": cd["in_splits"], "n_evaluations": cd["n_evaluations"]}
        return shown[i]

    at = np.array([cd["at_budget"] for cd in cands], dtype=float)
    for b in asked:
        idx = [int(i) for i in np.flatnonzero(within(at, b))]
        if not idx:
            continue
        sub = [cands[i] for i in idx]
        found = _cheapest(sub, [means[i] for i in idx],
                          lambda i, best, idx=idx: test(idx[i], idx[best]),
                          None if good is None else
                          lambda best, idx=idx: good(idx[best])[idx])
        # why_not_cheaper reads the label of the cheaper candidate only
        names = [_label(cd) if i == found["cheaper"] else "" for i, cd in enumerate(sub)]
        out.append({"budget": float(b), "best": public(idx[found["best"]]),
                    "choice": public(idx[found["choice"]]),
                    "test": found["tests"][found["choice"]],
                    "why_not_cheaper": why_not_cheaper(found, names, margin=margin),
                    "n_candidates": len(sub)})
    return out


def _as_good_all(errors: list[np.ndarray], margin: float, test_fraction: float) -> Any:
    """``good(best)``: for every candidate at once, whether :func:`_as_good` against
    candidate ``best`` holds (1), fails (0) or is within float noise of its boundary (-1:
    ask :func:`_as_good` itself); ``None`` when the candidates have different numbers of
    evaluations. The same differences, means and standard errors as :func:`_as_good`
    (summed along another axis: a difference in the last bits, never 1e-9)."""
    if len({len(e) for e in errors}) != 1:
        return None
    E = np.vstack(errors)
    J = E.shape[1]
    ratio = test_fraction / (1.0 - test_fraction)
    memo: dict[int, np.ndarray] = {}

    def good(best: int) -> np.ndarray:
        if best not in memo:
            d = E - E[best]
            mean = d.mean(axis=1) if J else np.zeros(len(d))
            spread = (d != d[:, :1]).any(axis=1) if J >= 2 else np.zeros(len(d), bool)
            with np.errstate(invalid="ignore"):
                sd = d.std(axis=1, ddof=1) if J >= 2 else np.zeros(len(d))
            se = np.where(spread, np.sqrt(sd * sd * (1.0 / max(J, 1) + ratio)), 0.0)
            gap = np.round(mean, 12) - (np.maximum(se, margin) + 1e-12)
            sure = np.isfinite(gap) & (np.abs(gap) > 1e-9)
            memo[best] = np.where(sure, (gap <= 0).astype(np.int8), np.int8(-1))
        return memo[best]

    return good


def _most_common(sets: list[str]) -> tuple[str, int]:
    """The most frequent of the strings ``sets`` (ties: the first in sorted order, as
    ``pandas.Series.mode``) and how often it occurs."""
    if all(v == sets[0] for v in sets):  # the same choice on every evaluation
        return sets[0], len(sets)
    from collections import Counter

    counts = Counter(sets)
    most = max(counts.values())
    top = min(v for v, n in counts.items() if n == most)
    return top, most


def _label(cd: dict[str, Any]) -> str:
    """A candidate in a few words: its models (or the cascade's order) and cost."""
    ms = cd["models"]
    shown = ", ".join(ms[:3]) + (f" and {len(ms) - 3} more" if len(ms) > 3 else "")
    what = "cascade " if cd["method"] == "cascade" else ""
    return f"{what}{shown} ({cd['cost']:.4g} USD per query)"


@validate_params({"X": ["array-like"], "y": ["array-like"], "costs": ["array-like"],
                  "method": [str], "budget": [Real], "k": [Interval(Integral, 1, None), None]})
def deployed_models(X: Any, y: Any, costs: Any, method: str, budget: float, *,
                    k: int | None = None) -> list[int]:
    """The columns ``method`` (one of ``budgeted``, ``topk_budget``, ``cheapest_first``,
    ``best_single``) picks within ``budget`` on ``X, y`` (all the data: what a user
    deploys); ``k`` caps their number (default: every model)."""
    Xa, ya = check_X_y(X, y, require_both_classes=True)
    if method not in ("budgeted", *BASELINES):
        raise ValueError(f"method: one of budgeted, {', '.join(BASELINES)}; got {method!r}")
    kk = Xa.shape[1] if k is None else int(k)
    return [int(j) for j in picks_within(Xa, ya, costs, budget, kk, (method,))[method]]


#: The methods that pick a static subset within a dollar budget, in the order they run.
PICK_METHODS = ("budgeted", *BASELINES)


@validate_params({"X": ["array-like"], "y": ["array-like"], "costs": ["array-like"],
                  "budget": [Real], "k": [Interval(Integral, 1, None)],
                  "methods": ["sequence"]})
def picks_within(X: np.ndarray, y: np.ndarray, costs: Any, budget: float, k: int,
                 methods: Any = PICK_METHODS) -> dict[str, list[int]]:
    """The one place that turns a dollar budget into choices: the columns each of
    ``methods`` (of :data:`PICK_METHODS`) picks within ``budget`` on ``X, y`` (checked
    answers), at most ``k`` of them; the evidence of ``ensel select --budget-usd``
    (:func:`ensel.evidence.budget_evidence`), the frontier's sweep and
    :func:`deployed_models` all call it."""
    out: dict[str, list[int]] = {}
    if "budgeted" in methods:
        out["budgeted"] = BudgetedScoreMI(k, budget=budget, costs=costs).fit(X, y).selected_
    if any(name in methods for name in BASELINES):
        base = budget_baselines(X, y, costs, budget, k=k)
        out.update({name: base[name] for name in BASELINES if name in methods})
    return out
