"""BudgetedScoreMI: selection within a dollar budget (see :mod:`ensel.budget`)."""


from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Iterator, Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np

from ensel._validation import (
    Interval,
    StrOptions,
    constraint_error,
)
from ensel.costs import check_budget, check_costs, within
from ensel.select._base import _BaseSelector
from ensel.select._engine import TIE_TOL

__all__ = ["BudgetedScoreMI"]

_LN2 = math.log(2.0)

#: The work shared by the fits on one training part (see :func:`shared_fits`).
_SHARED: contextvars.ContextVar[_Shared | None] = contextvars.ContextVar("ensel_shared_fits",
                                                                         default=None)


class _Shared:
    """What the fits on the same training answers can share (private): the greedy's gains
    after every prefix of picks (per ``n_bins``) and any other result keyed by what it was
    computed from (:meth:`get`). Results are exactly those of a fit without it."""

    def __init__(self, Xa: np.ndarray, ya: np.ndarray) -> None:
        self.Xa, self.ya = Xa, ya
        self.gains: dict[int, _Gains] = {}
        self.results: dict[tuple[Any, ...], Any] = {}

    def get(self, key: tuple[Any, ...], make: Any) -> Any:
        if key not in self.results:
            self.results[key] = make()
        return self.results[key]


@contextlib.contextmanager
def shared_fits(Xa: np.ndarray, ya: np.ndarray) -> Iterator[None]:
    """Within the block, :class:`BudgetedScoreMI` and :class:`ensel.cascade.Cascade` fitted on
    exactly ``Xa, ya`` reuse each other's work (the frontier fits both at every budget of a
    split); their results are the same as without it. One block per thread."""
    token = _SHARED.set(_Shared(np.asarray(Xa), np.asarray(ya)))
    try:
        yield
    finally:
        _SHARED.reset(token)


def _shared_for(Xa: np.ndarray, ya: np.ndarray) -> _Shared | None:
    """The active :class:`_Shared` if it was made for exactly ``Xa, ya``."""
    sh = _SHARED.get()
    if sh is None or sh.Xa.shape != Xa.shape or sh.ya.shape != ya.shape:
        return None
    if not np.array_equal(sh.ya, ya):
        return None
    # the same answer matrix (the frontier passes it on) needs no comparison of its cells
    return sh if sh.Xa is Xa or np.array_equal(sh.Xa, Xa) else None


def _gains_for(Xa: np.ndarray, ya: np.ndarray, n_bins: int) -> _Gains:
    sh = _shared_for(Xa, ya)
    if sh is None:
        return _Gains(Xa, ya, n_bins)
    if n_bins not in sh.gains:
        sh.gains[n_bins] = _Gains(Xa, ya, n_bins)
    return sh.gains[n_bins]


def _budget(budget: Any, c: np.ndarray, k: int) -> float:
    if budget is None:
        return float(np.sort(c)[:k].sum()) if np.all(c == c[0]) else math.inf
    return check_budget(budget, c)


class _Gains:
    """``I(Y; X_j | T_S)`` (debiased, bits) of every candidate for a growing ``S``."""

    def __init__(self, Xa: np.ndarray, ya: np.ndarray, n_bins: int) -> None:
        from ensel.aggregate import WeightedMajorityVote

        self.n = Xa.shape[0]
        self.Xa = Xa
        ftype = np.float32 if self.n < (1 << 24) else np.float64
        self.ftype = ftype
        self.B1 = np.ascontiguousarray(Xa == 1, dtype=ftype)
        self.B2 = np.ascontiguousarray(Xa == 0, dtype=ftype) if (Xa == 0).any() else None
        self.yb = (ya.astype(np.int64) + 1) // 2
        self.w = WeightedMajorityVote().fit(Xa, ya).weights_
        self.n_bins = n_bins
        self._after: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}

    def after(self, picks: Sequence[int]) -> np.ndarray:
        """The gain of every column given ``picks`` (the greedy's score of them, summed in
        their order), computed once per prefix."""
        key = tuple(int(j) for j in picks)
        if key not in self._after:
            if key:
                score = self._score(key[:-1]) + self.w[key[-1]] * self.Xa[:, key[-1]]
            else:
                score = np.zeros(self.n)
            self._after[key] = (score, self(score, not key, np.arange(self.Xa.shape[1])))
        return self._after[key][1]

    def _score(self, key: tuple[int, ...]) -> np.ndarray:
        self.after(key)
        return self._after[key][0]

    def __call__(self, score: np.ndarray, first: bool, cand: np.ndarray) -> np.ndarray:
        import scipy.sparse as sp

        from ensel.select._score_mi import _plugin_cmi_bits, score_bins

        n = self.n
        bins = np.zeros(n, dtype=np.int64) if first else score_bins(score, self.n_bins)
        G = int(bins.max()) + 1
        groups = bins * 2 + self.yb
        M = sp.csc_matrix((np.ones(n, dtype=self.ftype), groups, np.arange(n + 1)),
                          shape=(2 * G, n))
        total = np.bincount(groups, minlength=2 * G).astype(float)
        # all columns in one product (cheaper than copying the candidates' columns out)
        parts = [np.asarray(M @ self.B1, dtype=float)[:, cand]]
        if self.B2 is not None:
            parts.append(np.asarray(M @ self.B2, dtype=float)[:, cand])
        c0 = total[:, None] - sum(parts)
        cnt = np.stack([c0, *parts], axis=-1)
        cnt = cnt.reshape(G, 2, cand.size, -1).transpose(2, 0, 1, 3)
        gain = _plugin_cmi_bits(cnt)
        df = G * (cnt.shape[-1] - 1)
        return np.maximum(gain - df / (2.0 * n * _LN2), 0.0)


def _greedy(gains: _Gains, c: np.ndarray, budget: float, k: int, per_dollar: bool
            ) -> tuple[list[int], list[float]]:
    m = c.size
    remaining = np.ones(m, dtype=bool)
    spent = 0.0
    picks: list[int] = []
    got: list[float] = []
    while len(picks) < k:
        cand = np.flatnonzero(remaining & within(spent + c, budget))
        if cand.size == 0:
            break
        g = gains.after(picks)[cand]
        if not np.any(g > 0) and picks:
            break
        crit = g / c[cand] if per_dollar else g
        if not picks and not np.any(g > 0):  # nothing informative: the cheapest model
            crit = -c[cand]
        best = float(crit.max())
        pos = int(np.flatnonzero(crit >= best - TIE_TOL * max(1.0, abs(best)))[0])
        j = int(cand[pos])
        picks.append(j)
        got.append(float(g[pos]))
        remaining[j] = False
        spent += float(c[j])
    return picks, got


def _run_gains(gains: _Gains, picks: list[int]) -> list[float]:
    """The debiased gain of each of ``picks`` at its step, in their order."""
    return [float(gains.after(picks[:t])[j]) for t, j in enumerate(picks)]


def _cheapest_first(picks: Sequence[int], c: np.ndarray) -> list[int]:
    """``picks`` cheapest first (ties: in pick order): the order a cascade asks a static
    subset in (:class:`ensel.cascade.Cascade`, ``order="budgeted"``) and the column order of
    every fit of a subset on a training part, so that the fits on one part are shared."""
    rank = {int(j): r for r, j in enumerate(picks)}
    return sorted(rank, key=lambda j: (c[j], rank[j]))


def _posterior_shared(aggregator: str) -> bool:
    """Whether fits of ``aggregator`` can be shared between a prediction and a posterior:
    :class:`ensel.aggregate.BackoffMAP`, unseeded, predicts where its posterior is >= 1/2."""
    from ensel.aggregate import SPECS, BackoffMAP

    return aggregator in SPECS and SPECS[aggregator].estimator is BackoffMAP


def _fold_posterior(Xf: np.ndarray, yf: np.ndarray, Xt: np.ndarray,
                    aggregator: str) -> np.ndarray:
    """``P(Y = +1)`` on the rows ``Xt`` of ``aggregator`` fitted on ``Xf, yf`` (one fold of a
    cross-fit; the column alone, not a view keeping the whole posterior)."""
    from ensel.aggregate import make_aggregator

    agg = make_aggregator(aggregator, random_state=0).fit(np.ascontiguousarray(Xf), yf)
    return agg.predict_proba(np.ascontiguousarray(Xt))[:, 1].copy()


def _crossfit_error(Xa: np.ndarray, ya: np.ndarray, cols: list[int], aggregator: str,
                    n_folds: int = 2, seed: int = 0) -> float:
    """Error of ``aggregator`` on ``cols``, each fold predicted by a fit on the others.

    Within :func:`shared_fits` the back-off's fold posteriors are kept under the key of
    :meth:`ensel.cascade.Cascade.fit`'s tuning (the same folds for the same seed), so a
    cascade asking these columns in this order reuses them, and the other way round."""
    from ensel.aggregate import make_aggregator

    fold = np.random.default_rng(seed).permutation(len(ya)) % n_folds
    sh = _shared_for(Xa, ya) if _posterior_shared(aggregator) else None
    wrong = 0
    Xc = Xa[:, cols]  # the columns first: far fewer than the rows
    for f in range(n_folds):
        tr, te = fold != f, fold == f
        if len(np.unique(ya[tr])) < 2:
            return math.inf
        if sh is not None:
            p = sh.get(("fold", seed, n_folds, f, tuple(int(j) for j in cols), aggregator),
                       lambda tr=tr, te=te: _fold_posterior(Xc[tr], ya[tr], Xc[te],
                                                            aggregator))
            wrong += int(np.sum(np.where(p >= 0.5, 1, -1) != ya[te]))
            continue
        agg = make_aggregator(aggregator, random_state=seed).fit(Xc[tr], ya[tr])
        wrong += int(np.sum(np.asarray(agg.predict(Xc[te])) != ya[te]))
    return wrong / len(ya)


class BudgetedScoreMI(_BaseSelector):
    """Cost-aware greedy on the binned-score gain, best of cost-benefit and plain greedy.

    See the module text for the rule and its guarantee.

    Parameters
    ----------
    k : int, default=3
        Largest number of models (``1 <= k <= n_models``).
    budget : float, optional
        Dollars per query (``>=`` the cheapest model's price); default: no dollar limit
        (``k`` models).
    costs : array-like of shape (n_models,), optional
        Dollars per query of each column (positive, finite); default: 1 each.
    n_bins : int, default=16
        Largest number of quantile bins of the score (as :class:`ensel.select.ScoreMI`).
    compare : {"error", "gain"}, default="error"
        How the runs are compared: ``"gain"``, by the total gain ``F`` (Krause & Guestrin's
        best of two); ``"error"``, by the cross-fitted training error of ``aggregator``
        (two folds, seeded), with the accuracy fill (Top-k under the budget) as a third
        candidate (ties -> cheaper, then larger ``F``). See the module text for why.
    aggregator : str, default="backoff"
        The aggregator of ``compare="error"``.

    Attributes
    ----------
    selected_ : list of int
        Column indices in pick order (of the winning run).
    gains_ : numpy.ndarray
        Debiased gain (bits) of each pick at its step.
    cost_ : float
        Dollars per query of the selection.
    run_ : {"cost_benefit", "plain", "accuracy"}
        Which run won.
    total_gain_ : dict
        ``F`` of each run.
    cv_error_ : dict
        Cross-fitted training error of each run (``compare="error"``; else empty).
    scores_ : numpy.ndarray of shape (0, n_models)
        Not recorded (an empty array; the runs evaluate different candidate sets).
    """

    _parameter_constraints: dict[str, Any] = {
        "k": [Interval(Integral, 1, None)],
        "budget": [Interval(Real, 0, None, closed="neither"), None],
        "costs": ["array-like", None],
        "n_bins": [Interval(Integral, 2, None)],
        "compare": [StrOptions({"error", "gain"})],
        "aggregator": [str],
    }

    def __init__(self, k: int = 3, budget: float | None = None, costs: Any = None,
                 n_bins: int = 16, compare: str = "error",
                 aggregator: str = "backoff") -> None:
        self.k = k
        self.budget = budget
        self.costs = costs
        self.n_bins = n_bins
        self.compare = compare
        self.aggregator = aggregator

    def _path(self, Xa: np.ndarray, ya: np.ndarray,
              k: int) -> tuple[list[int], list[float], np.ndarray]:
        from ensel._validation import check_int

        n_bins = check_int(self.n_bins, "n_bins", low=2)
        c = check_costs(self.costs, Xa.shape[1])
        budget = _budget(self.budget, c, k)
        gains = _gains_for(Xa, ya, n_bins)
        runs = {name: _greedy(gains, c, budget, k, per_dollar=name == "cost_benefit")
                for name in ("plain", "cost_benefit")}
        totals = {name: float(sum(g)) for name, (_, g) in runs.items()}
        win = "cost_benefit" if totals["cost_benefit"] > totals["plain"] + 1e-12 else "plain"
        self.cv_error_ = {}
        if self.compare == "error":
            sh = _shared_for(Xa, ya)
            acc = _accuracy(Xa, ya) if sh is None else sh.get(
                ("accuracy",), lambda: _accuracy(Xa, ya))  # once per training part
            fill = _fill(np.lexsort((np.arange(c.size), -acc)), c, budget, k)
            runs["accuracy"] = (fill, _run_gains(gains, fill))
            totals["accuracy"] = float(sum(runs["accuracy"][1]))
            # each run's columns cheapest first: a cascade over the winner asks them so
            orders = {name: _cheapest_first(picks, c) for name, (picks, _) in runs.items()}
            self.cv_error_ = {
                name: _crossfit_error(Xa, ya, cols, self.aggregator) if sh is None
                else sh.get(("crossfit", tuple(cols), self.aggregator),
                            lambda p=cols: _crossfit_error(Xa, ya, p, self.aggregator))
                for name, cols in orders.items()}
            win = min(runs, key=lambda r: (self.cv_error_[r], float(c[runs[r][0]].sum()),
                                           -totals[r]))
        elif self.compare != "gain":
            raise constraint_error("compare", "'error' or 'gain'", self.compare)
        picks, got = runs[win]
        self.run_ = win
        self.total_gain_ = totals
        self.cost_ = float(c[picks].sum())
        self.budget_ = budget
        return picks, got, np.empty((0, Xa.shape[1]))


def _accuracy(Xa: np.ndarray, ya: np.ndarray) -> np.ndarray:
    """Training accuracy of every column (the accuracy fill's order)."""
    return (Xa == ya[:, None]).mean(axis=0)


def _fill(order: np.ndarray, c: np.ndarray, budget: float, k: int) -> list[int]:
    """The first columns of ``order`` that fit, each while the running cost is
    :func:`ensel.costs.within` ``budget``, at most ``k`` (the same comparison on Python
    floats: a thousand models per budget)."""
    from ensel.costs import COST_RTOL

    picks: list[int] = []
    spent = 0.0
    prices = np.asarray(c, dtype=float).tolist()
    limit = float(budget) * (1 + COST_RTOL)
    for j in np.asarray(order).tolist():
        if len(picks) >= k:
            break
        if spent + prices[j] <= limit:
            picks.append(int(j))
            spent += prices[j]
    return picks
