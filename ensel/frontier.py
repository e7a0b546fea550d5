"""The cost-error frontier: held-out error against dollars per query, method by method.

:func:`frontier_errors` runs the protocol's random splits (:func:`ensel.experiment.split_indices`,
the same seeds as :func:`ensel.experiment.evaluate`) and, on each split and for each budget
``B`` of a grid, fits on the training part and scores on the test part:

* ``budgeted`` -- :class:`ensel.budget.BudgetedScoreMI` within ``B``;
* ``topk_budget``, ``cheapest_first``, ``best_single`` -- the baselines of
  :func:`ensel.budget.budget_baselines` within ``B``;
* ``cascade`` -- :class:`ensel.cascade.Cascade` with ``order="budgeted"``: the models
  budgeted selection picks within ``B``, asked cheapest first, stopping once the posterior
  clears the cheapest threshold whose cross-fitted training error matches asking them all
  (``target_error="full"``); its cost is the mean over the test queries of the prices of
  the models it asked.

Every static subset is aggregated by the same aggregator (default ``backoff``) fitted on the
training part; a static subset's cost per query is the sum of its prices. Each split also has
the zero-cost point (answer the training part's majority class without asking any model).

:func:`frontier_summary` turns these rows into the frontier document: per method the mean
error and cost at each budget with 95 % intervals (the overlap-corrected interval of
:func:`ensel.stats.paired_interval` over the ``conditions x splits`` evaluations), the
**non-decreasing convex hull** of quality ``1 - error`` against cost (RouterBench's: the
upper convex hull of the Pareto points, flat after the last one) and the **area under it**
per unit of cost over ``[0, B_max]`` (the mean quality the method reaches across the range,
RouterBench's AIQ) with its interval and paired difference to Top-k under budget; the table
of the cost at which each method first reaches the best single model's error and the error
each method reaches at the best single model's cost; whether budgeted selection is worse
than Top-k under the same budget at any budget (paired differences with verdicts); and the
cascade's cost against the static subset of the same error.

JSON schema ``ensel.frontier/2`` (:func:`frontier_summary`; ``/1`` had no ``models`` and
``in_splits`` per point, no ``buy_list``, ``equivalence`` nor ``model_table``, and cost
intervals not clipped to the budget)::

    {"schema": "ensel.frontier/2", "n_items": int, "n_models": int, "models": [str],
     "dropped_models": [str], "aggregator": str, "budgets": [float],
     "evaluation": {"n_splits": int, "n_evaluations": int, "test_fraction": float,
                    "seed": int, "confidence": float},
     "methods": {name: {"points": [{"budget": float, "error": float, "error_low": float,
                                    "error_high": float, "cost": float, "cost_low": float,
                                    "cost_high": float, "n_models": float,
                                    "models": [str], "in_splits": int}],
                        "hull": [[cost, error]], "aiq": float, "aiq_low": float,
                        "aiq_high": float}},
     "aiq_vs_topk": {name: {"difference": float, "low": float, "high": float,
                            "verdict": str}},   # claim: AIQ greater than Top-k's
     "best_single": {"model": str, "usd_per_query": float, "error": float},
     "reach": {name: {"cost_to_best_single_error": float | null, "low": ..., "high": ...,
                      "reached_in": int, "error_at_best_single_cost": float,
                      "low_e": float, "high_e": float}},
     "budgeted_vs_topk": [{"budget": float, "difference": float, "low": float,
                           "high": float, "verdict": str}],
     "cascade_vs_static": null | {"cascade_budget": float, "cascade_error": float,
                                  "cascade_error_low": float, "cascade_error_high": float,
                                  "cascade_cost": float, "ratio": float | null,
                                  "low": float | null, "high": float | null,
                                  "matched_in": int, "n_evaluations": int,
                                  "static_best_error": float, "static_best_cost": float,
                                  "cascade_reaches_static_best_in": int},
     "buy_list": [{"budget": float, "best": {...}, "choice": {...}, "test": {...},
                   "why_not_cheaper": str | null, "n_candidates": int}],
     "equivalence": {"margin": float, "rule": str},
     "model_table": [{"model": str, "accuracy": float, "coverage": float,
                      "accuracy_answered": float | null, "usd_per_query": float}]}

A point's ``models`` are the models its method picked on most evaluations (``in_splits``
of them; the cascade's: its order). ``buy_list`` is :func:`ensel.budget.buy_list` at every
budget: the cheapest choice as good as the best within it (the cascade among the
candidates, so it is recommended only where it beats every static choice at the same
error). Cost intervals are clipped to what is possible, ``[cheapest price, budget]``: every
method picks its models within the budget (the cascade asks a subset of budgeted
selection's) and asks at least one model.

``ratio`` is the cascade's cost per query over the cost of the cheapest static (budgeted)
subset with at most the cascade's error, at the cascade's most accurate target (geometric
mean over the evaluations where such a subset exists: ``matched_in``).

The figure: :func:`draw_frontier` draws one document on matplotlib axes (the book's panels),
:func:`frontier_figure` makes the whole figure and writes it as PNG or HTML (``ensel
frontier -o``); matplotlib is imported only there.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd

from ensel._errors import UsageError
from ensel._validation import Interval, validate_params
from ensel.budget import mean_interval as _interval
from ensel.costs import within
from ensel.protocol import PAPER_PROTOCOL, Protocol

__all__ = ["SCHEMA", "METHODS", "budget_grid", "best_single_price", "frontier_errors",
           "frontier_summary", "convex_hull", "hull_aiq", "draw_frontier", "frontier_alt",
           "frontier_figure"]

SCHEMA = "ensel.frontier/2"
#: Methods of the frontier, in the order they are drawn.
METHODS = ("budgeted", "topk_budget", "cheapest_first", "best_single", "cascade")
_RESULT_COLUMNS = ["condition", "split", "method", "budget", "error", "cost", "n_models",
                   "selected", "n_test"]


@validate_params({"usd": ["array-like"], "n_budgets": [Interval(Integral, 1, None)],
                  "max_models": [Interval(Integral, 1, None)], "include": ["array-like"]})
def budget_grid(usd: Any, n_budgets: int = 20, *, max_models: int = 20,
                include: Any = ()) -> np.ndarray:
    """``n_budgets`` budgets (dollars per query), geometric from the cheapest price to the
    price of the ``max_models`` most expensive models together (every model when fewer),
    and the prices in ``include`` (e.g. the best single model's, so that the frontier has a
    point at exactly its cost).

    Examples
    --------
    >>> budget_grid([1.0, 2.0, 4.0], 3).tolist()
    [1.0, 2.6457513110645907, 7.0]
    """
    from ensel.costs import check_costs

    c = np.sort(check_costs(usd, int(np.size(usd)), name="usd"))  # NaN/<= 0: no grid
    lo = float(c[0])
    hi = float(c[::-1][:max_models].sum())
    extra = [float(v) for v in np.atleast_1d(include) if lo <= float(v) <= hi]
    if n_budgets < 2 or hi <= lo:
        return np.unique([lo, *extra])
    return np.unique(np.r_[np.geomspace(lo, hi, int(n_budgets)), extra])


@validate_params({"data": ["sequence"], "usd": ["array-like"]})
def best_single_price(data: Sequence[Any], usd: Any) -> float:
    """Price of the most accurate model over all the conditions' items (ties -> cheaper)."""
    X = np.concatenate([d.X for d in data])
    y = np.concatenate([d.y for d in data])
    acc = (X == y[:, None]).mean(axis=0)
    from ensel.costs import check_costs

    c = check_costs(usd, X.shape[1], name="usd")
    return float(c[np.lexsort((c, -acc))[0]])


def _majority_error(ytr: np.ndarray, yte: np.ndarray) -> float:
    guess = 1 if (ytr == 1).mean() >= 0.5 else -1
    return float(np.mean(yte != guess))


@validate_params({"data": ["sequence"], "usd": ["array-like"], "budgets": ["array-like"],
                  "methods": ["sequence"], "aggregator": [str], "protocol": [Protocol],
                  "max_models": [Interval(Integral, 1, None)], "names": ["sequence", None],
                  "n_jobs": "no_validation", "singles": [Real, None],
                  "processes": ["boolean"]})
def frontier_errors(data: Sequence[Any], usd: Any, budgets: Any, *,
                    methods: Sequence[str] = METHODS, aggregator: str = "backoff",
                    protocol: Protocol = PAPER_PROTOCOL, max_models: int = 20,
                    names: Sequence[str] | None = None, n_jobs: int | None = None,
                    singles: float | None = None, processes: bool = False) -> pd.DataFrame:
    """Held-out error and cost per query of each method at each budget, per split.

    Parameters
    ----------
    data : list of ensel.experiment.ConditionData
        The conditions (:func:`ensel.experiment.condition_data`), all with the same models.
    usd : array-like of shape (n_models,)
        Dollars per query of each model, in the order of the data's models.
    budgets : array-like of float
        Dollars per query (each at least the cheapest price).
    methods : sequence of str, default=METHODS
    aggregator : str, default="backoff"
    protocol : ensel.protocol.Protocol, default=PAPER_PROTOCOL
        Its ``n_splits``, ``test_fraction`` and ``seed`` make the splits
        (:func:`ensel.experiment.split_indices`).
    max_models : int, default=20
        Largest number of models of a static subset and of the cascade's order.
    names : sequence of str, optional
        Model names for ``selected`` (default: the condition's models).
    n_jobs : int, optional
        Threads over the (condition, split) evaluations (``-1``: one per core); the rows
        are the same whatever ``n_jobs``.
    singles : float, optional
        Also every model alone whose price is within ``singles`` dollars per query, as the
        rows of :func:`ensel.budget.single_model_errors` (method ``"single"``: the buy
        list's candidates, :func:`frontier_summary`); the best single model and every
        one-model subset reuse these fits (one fit per model and split).
    processes : bool, default=False
        Run the ``n_jobs`` workers as forked processes instead of threads (where the
        platform forks; else threads): the fits' Python steps then run on every core, not
        one at a time under the interpreter's lock. Each worker holds one split's fits
        (about 0.2 GB for 1,000 models x 16,000 training items); the rows are the same.

    Returns
    -------
    pandas.DataFrame
        Columns ``condition, split, method, budget, error, cost, n_models, selected,
        n_test``; method ``"none"`` (budget 0) is the zero-cost majority-class guess.
    """
    from ensel.aggregate import half_tie_error
    from ensel.aggregate._stacking import _one_blas_thread
    from ensel.budget import BudgetedScoreMI, picks_within, single_rows, subset_error
    from ensel.cascade import Cascade
    from ensel.costs import check_budget, check_costs
    from ensel.experiment import _jobs, _map_in_order, _mv_seed, split_indices
    from ensel.select._budgeted import _cheapest_first, shared_fits

    c = np.asarray(usd, dtype=float)
    bb = [check_budget(b, c, name="budget") for b in np.atleast_1d(budgets)]
    unknown = [mm for mm in methods if mm not in METHODS]
    if unknown:
        raise UsageError(f"methods: unknown method {unknown[0]!r}; known: {', '.join(METHODS)}")
    for d in data:
        check_costs(c, d.X.shape[1], name="usd")
    if "cascade" in methods:  # before any split runs
        from ensel.cascade import check_posterior_aggregator

        check_posterior_aggregator(aggregator, func="frontier_errors (with the cascade)")
    seed, test_fraction = protocol.seed, protocol.test_fraction
    tasks = [(d, s) for d in data for s in range(protocol.n_splits)]

    def one(task: tuple[Any, int]) -> list[tuple[Any, ...]]:
        d, s = task
        model_names = list(names) if names is not None else list(d.models)
        tr, te = split_indices(len(d.y), condition=d.condition, split=s, seed=seed,
                               test_fraction=test_fraction, item_ids=d.items)
        Xtr, ytr, Xte, yte = d.X[tr], d.y[tr], d.X[te], d.y[te]
        mv = _mv_seed(seed, d.condition, s)
        n_te = len(te)
        rows: list[tuple[Any, ...]] = [(d.condition, s, "none", 0.0,
                                        _majority_error(ytr, yte), 0.0, 0, "", n_te)]
        # held-out error of each subset fitted on this split, by its sorted columns
        cache: dict[tuple[int, ...], float] = {}
        if singles is not None:
            rows += single_rows(d, s, (Xtr, ytr, Xte, yte), c, singles, aggregator, mv,
                                model_names, cache)
        with shared_fits(Xtr, ytr):  # the budgets' fits share their greedy and prefix fits
            rows += budgets_of_split(d, s, Xtr, ytr, Xte, yte, mv, n_te, model_names, cache)
        return rows

    def budgets_of_split(d: Any, s: int, Xtr: np.ndarray, ytr: np.ndarray, Xte: np.ndarray,
                         yte: np.ndarray, mv: int, n_te: int, model_names: list[str],
                         cache: dict[tuple[int, ...], float]) -> list[tuple[Any, ...]]:
        m = d.X.shape[1]
        rows: list[tuple[Any, ...]] = []
        # each cascade's row values by its order: budgets with the same subset share its
        # fit, and the fitted cascade (its prefixes' count tables, tens of MB for 20
        # models) is not kept once scored
        cascades: dict[tuple[int, ...], tuple[float, float, float, str]] = {}
        for b in bb:
            picks = picks_within(Xtr, ytr, c, b, min(max_models, m), methods)
            for name, cols in picks.items():
                key = tuple(sorted(cols))
                if key not in cache:  # fitted cheapest first, as the cascade asks them
                    cache[key] = subset_error((Xtr, ytr, Xte, yte), _cheapest_first(cols, c),
                                              aggregator, mv, share=name == "budgeted"
                                              and "cascade" in methods)
                rows.append((d.condition, s, name, b, cache[key], float(c[cols].sum()),
                             len(cols), "|".join(model_names[j] for j in cols), n_te))
            if "cascade" in methods:
                # the budgeted subset (picked above on the same training part, or now),
                # asked cheapest first
                sub = picks.get("budgeted") or BudgetedScoreMI(
                    min(max_models, m), budget=b, costs=c).fit(Xtr, ytr).selected_
                order = tuple(_cheapest_first(sub, c))
                if order not in cascades:
                    cas = Cascade(costs=c, order=list(order), target_error="full",
                                  max_models=max_models, aggregator=aggregator,
                                  random_state=seed).fit(Xtr, ytr)
                    p, asked = cas._run(Xte)  # the posterior at the stop; 1/2 is a tie
                    err = half_tie_error(yte, np.where(p >= 0.5, 1, -1), p == 0.5)
                    run = np.concatenate([[0.0], np.cumsum(c[cas.order_])])
                    cascades[order] = (err, float(run[asked].mean()),
                                       float(asked.mean()),
                                       "|".join(model_names[j] for j in cas.order_))
                    del cas
                err, cost, n_asked, who = cascades[order]
                rows.append((d.condition, s, "cascade", b, err, cost, n_asked, who, n_te))
        return rows

    # BLAS on one thread for the whole sweep (the fits' products are small): set once here,
    # not around each of its thousands of fits (the same numbers on any number of threads)
    with _one_blas_thread():
        parts = (_map_forked(one, tasks, _jobs(n_jobs)) if processes
                 else _map_in_order(one, tasks, _jobs(n_jobs)))
    return pd.DataFrame([r for part in parts for r in part], columns=_RESULT_COLUMNS)


def _map_forked(func: Any, tasks: Sequence[Any], n_jobs: int) -> list[Any]:
    """``[func(t) for t in tasks]`` on up to ``n_jobs`` processes: this one and forked
    children (the closure and the data are inherited, not pickled; each child sends its
    results back through a pipe and exits). The results come back in the order of
    ``tasks``; a child that fails has its tasks run here. Threads
    (:func:`ensel.experiment._map_in_order`) where the platform does not fork."""
    import pickle

    from ensel.experiment import _map_in_order

    k = min(n_jobs, len(tasks))
    if k <= 1 or not hasattr(os, "fork"):
        return _map_in_order(func, tasks, n_jobs)
    share = [list(range(w, len(tasks), k)) for w in range(k)]  # round robin
    children = []
    parent = os.getpid()
    for idx in share[1:]:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: compute, send, leave without the parent's exit handlers
            code = 1
            try:
                os.close(r)
                import signal

                for sig in (signal.SIGINT, signal.SIGTERM):
                    signal.signal(sig, signal.SIG_DFL)
                _die_with(parent)
                data = pickle.dumps([func(tasks[i]) for i in idx], protocol=5)
                with os.fdopen(w, "wb") as pipe:
                    pipe.write(data)
                code = 0
            finally:
                os._exit(code)
        os.close(w)
        children.append((pid, r, idx))
    out: list[Any] = [None] * len(tasks)
    try:
        for i in share[0]:
            out[i] = func(tasks[i])
    except BaseException:  # stopped or failed here: the children stop too
        import signal

        for pid, _, _ in children:
            os.kill(pid, signal.SIGTERM)
        raise
    finally:
        got = {}
        for pid, r, _ in children:
            with os.fdopen(r, "rb") as f:
                data = f.read()
            _, status = os.waitpid(pid, 0)
            if status == 0 and data:
                got[pid] = pickle.loads(data)
    for pid, _, idx in children:
        for i, part in zip(idx, got.get(pid) or [func(tasks[i]) for i in idx], strict=True):
            out[i] = part
    return out


def _die_with(parent: int) -> None:
    """In a forked child: be sent SIGTERM when ``parent`` ends, even by SIGKILL (Linux's
    ``PR_SET_PDEATHSIG``; elsewhere the child ends when its tasks do), and end now if it
    already has."""
    import signal

    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)
        except (OSError, AttributeError):  # no prctl in this libc: as elsewhere
            pass
    if os.getppid() != parent:  # the parent ended before the signal was asked for
        os._exit(1)


@validate_params({"cost": ["array-like"], "error": ["array-like"]})
def convex_hull(cost: Any, error: Any) -> np.ndarray:
    """RouterBench's non-decreasing convex hull of quality against cost, as ``(cost, error)``.

    The Pareto points (each cheaper point strictly worse), then the upper convex hull of
    quality ``1 - error``; returns the hull's vertices sorted by cost.

    Examples
    --------
    >>> convex_hull([0, 1, 2, 3], [0.5, 0.2, 0.19, 0.3]).tolist()
    [[0.0, 0.5], [1.0, 0.2], [2.0, 0.19]]
    """
    c, e = _points(cost, error)
    q = -e  # quality up to a constant: 1 - error
    order = np.lexsort((-q, c))
    pts: list[tuple[float, float]] = []
    for i in order:
        if not pts or q[i] > pts[-1][1] + 1e-15:
            if pts and c[i] == pts[-1][0]:
                pts[-1] = (float(c[i]), float(q[i]))
            else:
                pts.append((float(c[i]), float(q[i])))
    hull: list[tuple[float, float]] = []
    for p in pts:
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1) >= 0:  # not a right turn
                hull.pop()
            else:
                break
        hull.append(p)
    return np.array([[x, -y] for x, y in hull]).reshape(-1, 2)


@validate_params({"cost": ["array-like"], "error": ["array-like"], "c_max": ["real"]})
def hull_aiq(cost: Any, error: Any, c_max: float) -> float:
    """Mean quality ``1 - error`` under the hull over costs ``[0, c_max]`` (flat after its
    last vertex; the hull must start at cost 0)."""
    h = convex_hull(cost, error)
    x, q = h[:, 0], 1.0 - h[:, 1]
    if x[0] > 0:
        raise UsageError("hull_aiq: the points must include a zero-cost point")
    keep = x <= c_max
    xs, qs = list(x[keep]), list(q[keep])
    if x[-1] > c_max:  # interpolate at c_max
        j = int(np.searchsorted(x, c_max))
        qs.append(float(np.interp(c_max, x[j - 1: j + 1], q[j - 1: j + 1])))
        xs.append(c_max)
    elif xs[-1] < c_max:
        xs.append(c_max)
        qs.append(qs[-1])
    return float(np.trapezoid(qs, xs) / c_max) if c_max > 0 else float(qs[0])


def _points(cost: Any, error: Any) -> tuple[np.ndarray, np.ndarray]:
    """Costs (finite, ``>= 0``) and errors (in ``[0, 1]``) of the same length, as floats: a
    NaN would drop out of the hull's comparisons silently."""
    from ensel._validation import Shown, constraint_error

    c = np.asarray(cost, dtype=float).ravel()
    e = np.asarray(error, dtype=float).ravel()
    if c.shape != e.shape or c.size == 0:
        raise constraint_error("cost", f"as long as error ({e.size} points), non-empty",
                               Shown(f"{c.size} points"))
    for name, v, ok, want in (("cost", c, np.isfinite(c) & (c >= 0), "finite dollars >= 0"),
                              ("error", e, np.isfinite(e) & (e >= 0) & (e <= 1),
                               "finite errors in [0, 1]")):
        if not ok.all():
            j = int(np.flatnonzero(~ok)[0])
            raise constraint_error(name, want, Shown(f"{float(v[j])!r} at point {j}"))
    return c, e


def _diff(d: np.ndarray, test_fraction: float, confidence: float,
          direction: str = "less") -> dict[str, Any]:
    """Mean paired difference, interval and verdict (``direction``: the claimed sign)."""
    from ensel.stats import paired_interval, verdict

    if d.size < 2 or np.all(d == d[0]):
        v = float(d.mean()) if d.size else 0.0
        return {"difference": v, "low": v, "high": v, "verdict": verdict(v, v, direction)}
    r = paired_interval(d, n_train=1 - test_fraction, n_test=test_fraction,
                        confidence=confidence, direction=direction)
    return {"difference": r.mean, "low": r.low, "high": r.high, "verdict": r.verdict}


@validate_params({"results": [pd.DataFrame], "usd": ["array-like"], "models": ["sequence"],
                  "protocol": [Protocol], "confidence": "no_validation", "aggregator": [str],
                  "dropped": ["sequence"],
                  "margin": [Interval(Real, 0, 1, closed="neither"), None],
                  "model_table": [list, None]})
def frontier_summary(results: pd.DataFrame, *, usd: Any, models: Sequence[str],
                     protocol: Protocol = PAPER_PROTOCOL, confidence: float = 0.95,
                     aggregator: str = "backoff", dropped: Sequence[str] = (),
                     margin: float | None = None,
                     model_table: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The frontier document (schema ``ensel.frontier/2``, see the module text).

    ``protocol``: the one :func:`frontier_errors` ran (its ``test_fraction`` makes the
    overlap-corrected intervals, its ``seed`` is recorded; the number of splits is read from
    ``results``). ``results``: the rows of :func:`frontier_errors`; its rows of every model alone
    (``singles=``, method ``"single"``) and any rows of another method than
    :data:`METHODS` (e.g. the report's cost-blind recommendation, ``"cost_blind"``, on the
    same evaluations) are candidates of the buy list only; ``margin``:
    the buy list's equivalence margin (default
    :data:`ensel.budget.EQUIVALENCE_MARGIN`); ``model_table``: the rows of
    :func:`ensel.evidence.model_table` carried into the document.
    """
    from ensel.budget import EQUIVALENCE_MARGIN, EQUIVALENCE_RULE, buy_list

    test_fraction, seed = protocol.test_fraction, protocol.seed
    c = np.asarray(usd, dtype=float)
    alone = ~results["method"].isin([*METHODS, "none"])  # candidates of the buy list only
    singles = results[alone] if alone.any() else None
    res = results[~alone].sort_values(["condition", "split", "method", "budget"],
                                      kind="stable")
    keys = res[["condition", "split"]].drop_duplicates().itertuples(index=False)
    evals = [tuple(k) for k in keys]
    budgets = sorted(float(b) for b in res.loc[res["method"] != "none", "budget"].unique())
    b_max = max(budgets)
    methods = [m for m in METHODS if (res["method"] == m).any()]
    none = res[res["method"] == "none"].set_index(["condition", "split"])
    doc_methods: dict[str, Any] = {}
    aiq_per: dict[str, np.ndarray] = {}
    for name in methods:
        r = res[res["method"] == name]
        points = []
        for b in budgets:
            at = r[r["budget"] == b].sort_values(["condition", "split"])
            e = _interval(at["error"].to_numpy(), test_fraction, confidence)
            # a subset picked within b costs at most b (the cascade asks such a subset) and
            # at least the cheapest model (every choice asks one)
            cc = _interval(at["cost"].to_numpy(), test_fraction, confidence,
                           clip=(float(c.min()), b))
            sets = at["selected"].astype(str)
            top = sets.mode().iloc[0] if len(sets) else ""
            points.append({"budget": b, "error": e[0], "error_low": e[1], "error_high": e[2],
                           "cost": cc[0], "cost_low": cc[1], "cost_high": cc[2],
                           "n_models": float(at["n_models"].mean()),
                           "models": top.split("|") if top else [],
                           "in_splits": int((sets == top).sum())})
        aiqs = []
        for cond, split in evals:
            one = r[(r["condition"] == cond) & (r["split"] == split)]
            z = none.loc[(cond, split)]
            aiqs.append(hull_aiq(np.r_[0.0, one["cost"].to_numpy()],
                                 np.r_[float(z["error"]), one["error"].to_numpy()], b_max))
        aiq_per[name] = np.asarray(aiqs)
        a = _interval(aiq_per[name], test_fraction, confidence)
        mean_cost = np.r_[0.0, [p["cost"] for p in points]]
        mean_err = np.r_[float(none["error"].mean()), [p["error"] for p in points]]
        doc_methods[name] = {"points": points,
                             "hull": convex_hull(mean_cost, mean_err).tolist(),
                             "aiq": a[0], "aiq_low": a[1], "aiq_high": a[2]}
    aiq_vs = {}
    if "topk_budget" in aiq_per:
        for name in methods:
            if name != "topk_budget":
                aiq_vs[name] = _diff(aiq_per[name] - aiq_per["topk_budget"], test_fraction,
                                     confidence, direction="greater")
    # the best single model: the most accurate one affordable at the largest budget
    bs = res[(res["method"] == "best_single") & (res["budget"] == b_max)]
    best_name = bs["selected"].mode().iloc[0] if len(bs) else None
    reach: dict[str, Any] = {}
    best_doc = None
    if best_name is not None:
        j = list(models).index(best_name)
        c_star = float(c[j])
        e_star = bs.sort_values(["condition", "split"])["error"].to_numpy()
        best_doc = {"model": best_name, "usd_per_query": c_star, "error": float(e_star.mean())}
        for name in methods:
            r = res[res["method"] == name]
            costs_reached, errs_at = [], []
            for i, (cond, split) in enumerate(evals):
                one = r[(r["condition"] == cond) & (r["split"] == split)].sort_values("budget")
                ok = one[one["error"] <= e_star[i] + 1e-12]
                costs_reached.append(float(ok["cost"].iloc[0]) if len(ok) else math.nan)
                upto = one[within(one["budget"].to_numpy(), c_star)]
                errs_at.append(float(upto["error"].iloc[-1]) if len(upto) else math.nan)
            cr = np.asarray(costs_reached)
            got = cr[np.isfinite(cr)]
            # reached at one of the budgets: it costs at least the cheapest model, at most
            # the largest budget (an interval past either is impossible)
            ci = (_interval(got, test_fraction, confidence, clip=(float(c.min()), b_max))
                  if got.size else (None,) * 3)
            ea = np.asarray(errs_at)
            ei = (_interval(ea, test_fraction, confidence) if np.all(np.isfinite(ea))
                  else (None,) * 3)
            reach[name] = {"cost_to_best_single_error": ci[0], "low": ci[1], "high": ci[2],
                           "reached_in": int(got.size), "n_evaluations": len(evals),
                           "error_at_best_single_cost": ei[0], "low_e": ei[1],
                           "high_e": ei[2]}
    vs_topk = []
    if "budgeted" in methods and "topk_budget" in methods:
        for b in budgets:
            a = res[(res["method"] == "budgeted") & (res["budget"] == b)].sort_values(
                ["condition", "split"])["error"].to_numpy()
            t = res[(res["method"] == "topk_budget") & (res["budget"] == b)].sort_values(
                ["condition", "split"])["error"].to_numpy()
            vs_topk.append({"budget": b, **_diff(a - t, test_fraction, confidence)})
    cascade_doc = None
    if "cascade" in methods and "budgeted" in methods:
        cascade_doc = _cascade_vs_static(res, evals, doc_methods, test_fraction, confidence)
    delta = EQUIVALENCE_MARGIN if margin is None else float(margin)
    pool = res if singles is None else pd.concat([res, singles], ignore_index=True)
    buys = buy_list(pool, budgets, margin=delta, test_fraction=test_fraction,
                    min_cost=float(c.min()))
    return {
        "schema": SCHEMA,
        "n_models": len(models),
        "models": list(models),
        "usd_per_query": [float(x) for x in c],
        "dropped_models": list(dropped),
        "aggregator": aggregator,
        "budgets": budgets,
        "evaluation": {"n_splits": int(res["split"].nunique()), "n_evaluations": len(evals),
                       "test_fraction": float(test_fraction), "seed": int(seed),
                       "confidence": float(confidence)},
        "methods": doc_methods,
        "aiq_vs_topk": aiq_vs,
        "best_single": best_doc,
        "reach": reach,
        "budgeted_vs_topk": vs_topk,
        "cascade_vs_static": cascade_doc,
        "buy_list": buys,
        "equivalence": {"margin": delta, "rule": EQUIVALENCE_RULE.format(margin=delta)},
        "model_table": list(model_table or []),
    }


def _cascade_vs_static(res: pd.DataFrame, evals: list[tuple[Any, ...]],
                       doc_methods: dict[str, Any], test_fraction: float,
                       confidence: float) -> dict[str, Any]:
    """The cascade's cost against the static (budgeted) subset of the same error.

    At the cascade's most accurate target (lowest mean error over the evaluations), on each
    evaluation: the cheapest budgeted static subset whose error is at most the cascade's
    there; the ratio cascade cost / static cost, its geometric mean over the evaluations
    where such a subset exists and the interval of the mean log ratio. Also whether the
    cascade reaches the error of the most accurate static subset at all.
    """
    cas_pts = doc_methods["cascade"]["points"]
    c_best = min(cas_pts, key=lambda p: (p["error"], p["cost"]))
    s_best = min(doc_methods["budgeted"]["points"], key=lambda p: (p["error"], p["cost"]))
    cas = res[(res["method"] == "cascade") & (res["budget"] == c_best["budget"])]
    cas = cas.set_index(["condition", "split"])
    static = res[res["method"] == "budgeted"]
    ratios, reach_best = [], 0
    s_at = static[static["budget"] == s_best["budget"]].set_index(["condition", "split"])
    for cond, split in evals:
        e, cost = float(cas.loc[(cond, split), "error"]), float(cas.loc[(cond, split), "cost"])
        one = static[(static["condition"] == cond) & (static["split"] == split)]
        ok = one[one["error"] <= e + 1e-12].sort_values("cost")
        ratios.append(cost / float(ok["cost"].iloc[0]) if len(ok) else math.nan)
        c_all = res[(res["method"] == "cascade") & (res["condition"] == cond)
                    & (res["split"] == split)]
        reach_best += bool((c_all["error"] <= float(s_at.loc[(cond, split), "error"])
                            + 1e-12).any())
    rr = np.asarray(ratios)
    got = rr[np.isfinite(rr)]
    li = (_interval(np.log(got), test_fraction, confidence, clip=None) if got.size >= 1
          else None)
    return {"cascade_budget": c_best["budget"], "cascade_error": c_best["error"],
            "cascade_error_low": c_best["error_low"], "cascade_error_high": c_best["error_high"],
            "cascade_cost": c_best["cost"],
            "ratio": float(math.exp(li[0])) if li else None,
            "low": float(math.exp(li[1])) if li else None,
            "high": float(math.exp(li[2])) if li else None,
            "matched_in": int(got.size), "n_evaluations": len(evals),
            "static_best_error": s_best["error"], "static_best_cost": s_best["cost"],
            "cascade_reaches_static_best_in": int(reach_best)}


#: How each method is drawn (marker, line style, marker size): overlapping curves stay
#: apart by their markers (hollow, of different sizes) and their line styles.
_STYLES = {"budgeted": ("o", "-", 9), "topk_budget": ("s", "--", 7),
           "cheapest_first": ("^", ":", 7), "best_single": ("D", "-.", 5),
           "cascade": ("v", (0, (5, 1, 1, 1)), 5)}


def point_sets(doc: dict[str, Any]) -> list[list[str]]:
    """The distinct model sets of the document's points, numbered from 1 in order of cost
    (the figure marks each point with its set's number; the key lists them)."""
    pts = sorted(((p["cost"], tuple(p["models"])) for m in doc["methods"].values()
                  for p in m["points"]), key=lambda t: t[0])
    out: list[list[str]] = []
    for _, ms in pts:
        if sorted(ms) not in [sorted(o) for o in out]:  # a set, whatever the pick order
            out.append(list(ms))
    return out


@validate_params({"ax": "no_validation", "doc": [dict], "aiq_in_label": ["boolean"],
                  "numbers": ["boolean"]})
def draw_frontier(ax: Any, doc: dict[str, Any], *, aiq_in_label: bool = True,
                  numbers: bool = False) -> None:
    """Draw one frontier document on ``ax``: each method's mean (cost, error) points (hollow
    markers of its own shape and size) and its hull as straight segments between the hull's
    vertices, on a log cost axis (the zero-cost guess is left out); a method whose points
    are another's is labelled so. With ``numbers``, each point carries the number of its
    model set (``point_sets``)."""
    from ensel.budget import METHOD_WORDS

    sets = point_sets(doc) if numbers else []
    seen: dict[tuple[Any, ...], str] = {}
    marked: set[tuple[float, float, int]] = set()
    for i, (name, mdoc) in enumerate(doc["methods"].items()):
        marker, ls, ms = _STYLES.get(name, ("o", "-", 6))
        x = [p["cost"] for p in mdoc["points"]]
        y = [p["error"] for p in mdoc["points"]]
        words = METHOD_WORDS.get(name, name)
        key = tuple((round(a, 12), round(b, 12)) for a, b in zip(x, y, strict=True))
        same = seen.setdefault(key, words)
        hull_key = ("hull", *(tuple(np.round(v, 12)) for v in mdoc["hull"]))
        same_hull = seen.setdefault(hull_key, words)
        label = words + (f" (AIQ {mdoc['aiq']:.3f})" if aiq_in_label else "")
        if same != words:
            label += f" = {same}"
        elif same_hull != words:
            label += f" (hull = {same_hull}'s)"
        ax.plot(x, y, linestyle="none", marker=marker, ms=ms, mfc="none", mew=1.2,
                color=f"C{i}", alpha=0.9)
        h = np.asarray(mdoc["hull"])
        h = h[h[:, 0] > 0] if len(h) else h  # without the zero-cost guess (log axis)
        hx, hy = (h[:, 0], h[:, 1]) if len(h) else (x[:1], y[:1])
        ax.plot(hx, hy, linestyle=ls, marker=marker, ms=ms, mfc="none", mew=1.2,
                color=f"C{i}", label=label, lw=1.3)
        if numbers:
            for p in mdoc["points"]:
                n = [sorted(o) for o in sets].index(sorted(p["models"])) + 1
                spot = (round(p["cost"], 12), round(p["error"], 12), n)
                if spot in marked:
                    continue
                marked.add(spot)
                ax.annotate(str(n), (p["cost"], p["error"]), xytext=(4, 3 + 6 * (i % 3)),
                            textcoords="offset points", fontsize=6, color=f"C{i}")
    ax.set_xscale("log")
    ax.set_xlabel("cost per query (USD, log scale; hulls: straight segments between "
                  "their vertices)")
    ax.set_ylabel("held-out error")


@validate_params({"doc": [dict], "source": [str, None]})
def frontier_alt(doc: dict[str, Any], source: str | None = None) -> str:
    """What the frontier figure of ``doc`` shows, in one sentence (its ``alt`` text)."""
    from ensel.budget import METHOD_WORDS

    b = doc["budgets"]
    on = f" on {source}" if source else ""
    words = ", ".join(METHOD_WORDS.get(m, m) for m in doc["methods"])
    return (f"Held-out error against cost per query (USD, log scale, {b[0]:.3g} to "
            f"{b[-1]:.3g}){on} for {words}: each method's mean points and its convex hull.")


def _key_lines(doc: dict[str, Any], width: int = 110) -> list[str]:
    lines = []
    for n, ms in enumerate(point_sets(doc), start=1):
        text = f"{n}: " + (", ".join(ms) if ms else "(none)")
        lines.append(text if len(text) <= width else text[: width - 3] + "...")
    return lines


@validate_params({"doc": [dict], "path": [str, os.PathLike, None]})
def frontier_figure(doc: dict[str, Any], path: str | None = None) -> Any:
    """Error against cost per query, one line per method with its hull; saved to ``path``
    (``.png``, or ``.html`` with the PNG embedded) when given. Needs matplotlib (the
    ``notebooks`` or ``book`` extra). A figure written to a file is made without pyplot, so
    it neither needs a display nor changes the caller's backend."""
    import json

    keys = _key_lines(doc)
    in_png = not (path and str(path).endswith(".html"))  # the HTML lists the key as text
    height = 4.8 + (0.13 * len(keys) + 0.3 if in_png else 0.0)
    if path:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(8, height))
        ax = fig.subplots()
    else:
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(8, height))
    draw_frontier(ax, doc, numbers=True)
    ax.legend(fontsize=7)
    ax.set_title("held-out error against cost per query; each point numbered by its models",
                 fontsize=9)
    if in_png:
        frac = (0.13 * len(keys) + 0.3) / height
        fig.text(0.01, frac - 0.02, "models at each point:\n" + "\n".join(keys),
                 fontsize=6, va="top", family="monospace")
        fig.tight_layout(rect=(0, frac, 1, 1))
    else:
        fig.tight_layout()
    if path:
        if str(path).endswith(".html"):  # the reports' page (ensel._html), its data below
            from ensel._html import esc, figure_html, page

            with open(path, "w", encoding="utf-8") as f:
                items = "".join(f"<li>{esc(k.split(': ', 1)[1])}</li>" for k in keys)
                alt = (frontier_alt(doc) + " Each point is numbered by its set of models, "
                       "listed below.")
                f.write(page("ensel frontier", "<h1>Cost-error frontier</h1>"
                             + figure_html(fig, alt, dpi=120)
                             + f"<p>Models at each point:</p><ol>{items}</ol>"
                             + f"<pre>{esc(json.dumps(doc, indent=1), quote=False)}</pre>"))
        else:
            fig.savefig(path, dpi=120)
    return fig
