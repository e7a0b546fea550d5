"""Regularised logistic stacking and the MAP table backing off to it: ensel's aggregators.

The paper's MAP rule (:class:`ensel.aggregate.MAPAggregator`) is a plug-in table over the
``2^k`` answer patterns of the ensemble. It is the best rule when every pattern is seen
often, and it breaks when they are not: with ``k = 20`` models and a few thousand training
items most test patterns were never seen, and an unseen pattern is answered ``+1`` whatever
the models say. The log-odds weighted vote (:class:`ensel.aggregate.WeightedMajorityVote`)
needs only ``k`` accuracies, but its weights ignore that correlated models repeat each
other's mistakes.

:class:`LogisticStacking` fits the weights jointly: an L2-penalised logistic regression of
the label on the answers,

``P(Y = +1 | x) = sigmoid(b + sum_j beta_j x_j)``,

minimising the log-loss plus ``(l2 / 2) * ||beta||^2`` (the intercept ``b`` is not
penalised) by Newton's method. It has ``k + 1`` parameters whatever the number of
patterns, is the weighted vote with weights fitted to the data (two copies of one model
share one weight instead of counting twice), and with independent errors given the label it
is the correctly specified model of Theorem E.1 (the log-odds weights are then its
population solution). Abstentions (``0``) add nothing to the sum, as in the weighted vote.
The intercept ``b`` is the one class-asymmetric term (a class prior, or errors more frequent
on one class); it is used only when a likelihood-ratio test (1 df, level 0.01) supports it,
as the weighted vote assumes it away: on two-model ensembles of simulated 300-model pools a
free intercept let both disagreement patterns go to one class and erred 0.0777 and 0.0920
where following the more accurate model erred 0.0758 and 0.0889; with the test, 0.0758 and
0.0889 (on a third pool it cost 0.0012 at k = 2: 0.0614 against 0.0602; at k = 20 it moved
the error by at most 0.0005 on the four pools tried).

Where patterns *are* frequent the table sees what an additive model cannot (interactions
between models, class-asymmetric errors such as MMLU-Pro's binary view, where a wrong
option is rarely chosen but the right one often is). :class:`BackoffMAP`, ensel's default
aggregator, keeps both: each pattern's counts, shrunk towards the logistic model's
probability with the weight of ``c`` items, so a frequent pattern is decided by its counts
and a rare or unseen one by the model. ``c`` is chosen on the training data by empirical
Bayes: the value (a power of two up to 4,096, or infinite: the model alone) that maximises
the Beta-binomial marginal likelihood of the patterns' counts. Where the answers interact
the counts depart from the model and ``c`` is small; where the additive model fits, the
counts carry only noise around it and ``c`` is large.

Why this design (measured, see ``notebooks/large_pools.py``): on seeded family-structured
copula pools of 50, 300 and 1,000 models (budgets 2-20), on the paper-calibrated stand-ins
and on MMLU-Pro we compared MAP, the weighted vote, logistic stacking and MAP tables backing
off to a calibrated weighted vote or to logistic stacking with prior strengths 2, 8 and 32.
Logistic stacking beat the weighted vote on the stand-ins by 2-3 points from k = 6 on and
stayed within a few tenths of a point of it on the pools, while MAP's error grew to
0.1-0.3 at k = 20; but on MMLU-Pro at k = 4-5 ``score_mi`` with stacking was worse than
Top-k with MAP beyond the noise (0.126 against 0.121, "contradicted"), and with the same
picks MAP beat stacking (0.119 against 0.122 at k = 4). The back-off to logistic stacking
with strength 8 was within 0.001 of the better of MAP and stacking at every budget on
MMLU-Pro and within 0.002 on the stand-ins (the back-off to the weighted vote was unstable:
0.13 where MAP and the vote erred 0.10 and 0.06), and equals stacking on the large pools,
where almost every test pattern is rare. A fixed ``c = 8`` still let the table decide the
two disagreement patterns of a two-model ensemble from their counts, a noisy choice: on the
300-model pool at k = 2 it erred 0.0967 where the logistic model (which follows the more
accurate model there) erred 0.0948; the marginal-likelihood ``c`` gives 0.0948 there, is
within 0.002 of the fixed ``c = 8`` either way on MMLU-Pro, equal on the MMLU and IMDB
stand-ins and up to 0.003 lower on MEDMCQA (k = 6-12).

Examples
--------
>>> import numpy as np
>>> from ensel.copula import sample
>>> # two copies of one model (0, 1) and an independent weaker one (2)
>>> Sigma = [[1, 0.99, 0], [0.99, 1, 0], [0, 0, 1]]
>>> X, y, _ = sample([-0.84, -0.84, -0.67], Sigma, 20000, random_state=0)
>>> from ensel.aggregate import WeightedMajorityVote
>>> [round(float(w), 2) for w in WeightedMajorityVote().fit(X, y).weights_]
[1.38, 1.38, 1.08]
>>> agg = LogisticStacking().fit(X, y)
>>> [round(float(b), 2) for b in agg.coef_]  # the copies share one weight
[0.66, 0.78, 1.09]
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from functools import cache
from numbers import Integral, Real
from typing import Any

import numpy as np

from ensel._errors import check_is_fitted
from ensel._estimator import AggregatorMixin
from ensel._kernels import code_groups
from ensel._validation import (
    Interval,
    Shown,
    StrOptions,
    check_X,
    check_X_y,
    constraint_error,
    validate_params,
)
from ensel.aggregate._paper import MAPAggregator
from ensel.info import MAX_PATTERN_SIZE, pattern_codes

__all__ = ["BackoffMAP", "LogisticStacking", "STRENGTH_GRID"]

#: Prior strengths (pseudo-items) :class:`BackoffMAP` chooses from when ``strength="auto"``,
#: besides ``inf`` (the logistic model alone).
STRENGTH_GRID: np.ndarray = 2.0 ** np.arange(0, 13)


def _codes(Xa: np.ndarray) -> tuple[np.ndarray, int, int] | None:
    """``(codes, size, base)`` of the rows' answer patterns (:func:`ensel.info.pattern_codes`,
    base 3 exactly when an answer abstains), or ``None`` beyond its int64 alphabet."""
    base = 3 if (Xa == 0).any() else 2
    if float(base) ** Xa.shape[1] > MAX_PATTERN_SIZE:
        return None
    codes, size = pattern_codes(Xa, base=base)
    return codes, size, base


def _pattern_groups(Xa: np.ndarray, coded: tuple[np.ndarray, int, int] | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """One row of each distinct answer pattern and each row's pattern group (numbered in
    code order), from the one answer-digit coder (:func:`_codes`, given as ``coded`` when
    the caller has it; :func:`ensel._kernels.code_groups`; rows compared whole beyond its
    int64 alphabet)."""
    coded = _codes(Xa) if coded is None else coded
    if coded is not None:
        return code_groups(coded[0], coded[1])
    _, first, inv = np.unique(Xa, axis=0, return_index=True, return_inverse=True)
    return first, inv.ravel()


def _marginal_likelihood_strength(Xa: np.ndarray, ya: np.ndarray, model: LogisticStacking,
                                  groups: tuple[np.ndarray, np.ndarray] | None = None
                                  ) -> float:
    """Empirical-Bayes prior strength: the ``c`` of ``STRENGTH_GRID`` or ``inf`` that
    maximises the Beta-binomial marginal likelihood of the training patterns' counts.

    Each seen pattern ``x`` with counts ``(n_+, n_-)`` has the prior ``Beta(c q, c (1 - q))``,
    ``q = model``'s ``P(Y = +1 | x)``; ``c = inf`` is the binomial likelihood under ``q``.
    Ties go to the largest strength (the fewer effective parameters). ``groups``: the
    rows' :func:`_pattern_groups`, when the caller has them.
    """
    first, inv = _pattern_groups(Xa) if groups is None else groups
    pats = Xa[first]
    npos = np.bincount(inv, weights=(ya == 1).astype(float), minlength=len(pats))
    nneg = np.bincount(inv, minlength=len(pats)) - npos
    q = np.clip(model.predict_proba(pats)[:, 1], 1e-12, 1.0 - 1e-12)
    once = npos + nneg == 1
    if once.sum() > 64:
        # a pattern seen once adds log q (or log(1 - q)) to every strength's likelihood and
        # to the binomial one (B(a + 1, b) / B(a, b) = a / (a + b) = q): it cannot change
        # which is largest, so the others decide unless two come within the rounding of
        # the terms left out (then every pattern is summed, as below)
        many = ~once
        best, gap = _best_strength(npos[many], nneg[many], q[many])
        if gap > 1e-12 * (STRENGTH_GRID[-1] + 1.0) * (once.sum() + 1.0):
            return best
    return _best_strength(npos, nneg, q)[0]


def _best_strength(npos: np.ndarray, nneg: np.ndarray, q: np.ndarray) -> tuple[float, float]:
    """The strength of :func:`_marginal_likelihood_strength` from the patterns' counts
    ``npos, nneg`` and model probabilities ``q``, and the margin of that choice (the
    smallest difference between the chosen log-likelihood and another's)."""
    from scipy.special import betaln, xlogy

    a, b = np.outer(STRENGTH_GRID, q), np.outer(STRENGTH_GRID, 1.0 - q)
    ll = (betaln(npos + a, nneg + b) - betaln(a, b)).sum(axis=1)
    ll_inf = float((xlogy(npos, q) + xlogy(nneg, 1.0 - q)).sum())
    best = int(np.flatnonzero(ll >= ll.max())[-1])
    gap = float(np.min(np.abs(np.r_[np.delete(ll, best), ll_inf] - ll[best])))
    return (float(STRENGTH_GRID[best]) if ll[best] > ll_inf else float("inf")), gap


# Chi-square (1 df) quantile at level 0.01: the likelihood-ratio statistic an intercept
#: needs when ``LogisticStacking(fit_intercept="auto")`` (the level of ScoreMI's test).
@cache
def _intercept_critical() -> float:
    from scipy.special import chdtri  # not at import: scipy.special slows every start-up

    return float(chdtri(1, 0.01))


_BLAS_LOCK = threading.Lock()
_BLAS_STATE: dict[str, Any] = {"depth": 0, "limiter": None, "controller": None,
                               "release": None}


def _blas_set(change: Any) -> Any:
    """Run ``change`` (a threadpoolctl limit or restore) from whichever thread: threadpoolctl
    lets only one "controlling" thread set OpenBLAS's process-wide pool and ignores the
    others, so that role is released before and after (the caller's own limits still
    apply from its thread)."""
    release = _BLAS_STATE["release"]
    if release is not None:
        release(force=True)
    try:
        return change()
    finally:
        if release is not None:
            release(force=True)


@contextlib.contextmanager
def _one_blas_thread() -> Iterator[None]:
    """BLAS on one thread within the block (threadpoolctl; nothing when it is missing).

    Newton's products are ``(k + 1) x n`` by ``n x (k + 1)`` with ``k`` a few tens: a
    second BLAS thread only adds its start-up and, on a busy machine, its spinning (a
    20-model fit on 16,000 items took 2.5 s on two threads under load, 0.13 s on one).
    The result is the same on any number of threads (each entry of the product is summed
    in the same order). Nested and concurrent blocks (``--jobs``) share one limit: the
    first to enter sets it, the last to leave restores the setting found on entry."""
    with _BLAS_LOCK:
        if _BLAS_STATE["depth"] == 0:
            if _BLAS_STATE["controller"] is None:
                try:
                    import threadpoolctl
                except ImportError:  # it comes with scikit-learn (the dev and book extras)
                    _BLAS_STATE["controller"] = False
                else:
                    _BLAS_STATE["controller"] = threadpoolctl.ThreadpoolController()
                    _BLAS_STATE["release"] = getattr(getattr(
                        threadpoolctl, "OpenBLASController", None), "clear_controlling_thread",
                        None)
            ctl = _BLAS_STATE["controller"]
            _BLAS_STATE["limiter"] = (_blas_set(lambda: ctl.limit(limits=1, user_api="blas"))
                                      if ctl else None)
        _BLAS_STATE["depth"] += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS_STATE["depth"] -= 1
            if _BLAS_STATE["depth"] == 0 and _BLAS_STATE["limiter"] is not None:
                _blas_set(_BLAS_STATE["limiter"].restore_original_limits)
                _BLAS_STATE["limiter"] = None


def _newton(Z: np.ndarray, t: np.ndarray, w: np.ndarray, pen: np.ndarray, beta: np.ndarray,
            max_iter: int, tol: float) -> tuple[np.ndarray, float, int]:
    """Minimise the penalised log-loss of ``sigmoid(Z beta)`` (row ``i`` counted ``w_i``
    times) by Newton's method with step halving; returns ``(beta, objective, iterations)``."""
    from scipy.special import expit, log_expit

    # t is 0 or 1, so t log s(eta) + (1 - t) log s(-eta) is log s(+-eta), the same number
    # (the other term is a zero): one logarithm per row instead of two
    sign = np.where(t == 1, 1.0, -1.0)

    def objective(b: np.ndarray) -> tuple[float, np.ndarray]:
        eta = Z @ b  # kept: the next step's linear predictor when b is accepted
        return float(-(w * log_expit(sign * eta)).sum() + 0.5 * (pen * b * b).sum()), eta

    f, eta = objective(beta)
    n_iter = 0
    eye = 1e-12 * np.eye(Z.shape[1])
    diag = np.diag(pen)
    for _ in range(max_iter):
        n_iter += 1
        p = expit(eta)
        g = Z.T @ (w * (p - t)) + pen * beta
        H = (Z * (w * p * (1 - p))[:, None]).T @ Z + diag + eye
        step = np.linalg.solve(H, g)
        size = 1.0
        while True:  # step halving: the penalised log-loss never increases
            cand = beta - size * step
            fc, eta_c = objective(cand)
            if fc <= f or size < 1e-8:
                break
            size /= 2.0
        change = float(np.max(np.abs(cand - beta)))
        beta, f, eta = cand, fc, eta_c
        if change < tol:
            break
    return beta, f, n_iter


def _design(Xa: np.ndarray, use: bool, l2: float) -> tuple[np.ndarray, np.ndarray]:
    """Newton's design matrix (a column for the intercept, 0 when unused, then the
    answers) and the penalty of each coefficient (the intercept's: none when used, else 1,
    so its coefficient stays 0)."""
    Z = np.empty((Xa.shape[0], Xa.shape[1] + 1))
    Z[:, 0] = 1.0 if use else 0.0
    Z[:, 1:] = Xa
    pen = np.full(Xa.shape[1] + 1, l2)
    pen[0] = 0.0 if use else 1.0
    return Z, pen


def _start(use: bool, k: int, p0: float) -> np.ndarray:
    """Newton's start: weights 0 and the intercept (when used) at the class prior ``p0``."""
    beta0 = np.zeros(k + 1)
    if use:
        beta0[0] = np.log(p0) - np.log1p(-p0)
    return beta0


class LogisticStacking(AggregatorMixin):
    """L2-penalised logistic regression of the label on the models' answers.

    Parameters
    ----------
    l2 : float, default=1.0
        Penalty ``(l2 / 2) * ||beta||^2`` on the answer weights (``> 0``; the intercept is
        free). It keeps the weights finite when a model is always right or the training
        patterns separate the labels; 1.0 is one pseudo-observation's worth of shrinkage.
    max_iter : int, default=100
        Newton iterations (each with step halving on the penalised log-loss).
    tol : float, default=1e-10
        Stop when the largest parameter change is below ``tol``.
    fit_intercept : bool or "auto", default="auto"
        Fit the intercept ``b`` (``True``), fix it at 0 (``False``), or fit both and keep the
        intercept when twice the drop of the penalised log-loss reaches the chi-square
        (1 df) quantile at level 0.01 (``"auto"``).

    Attributes
    ----------
    coef_ : numpy.ndarray of shape (n_models,)
        Weights ``beta_j`` of the answers.
    intercept_ : float
        The intercept ``b`` (0 when not used).
    fit_intercept_ : bool
        Whether the intercept was used.
    n_iter_ : int
        Newton iterations used.
    n_models_ : int
        Number of columns seen in ``fit``.
    classes_ : numpy.ndarray, ``[-1, 1]``
        Column order of :meth:`predict_proba`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1], [1, -1], [-1, -1], [-1, 1], [1, 1], [-1, -1]])
    >>> y = np.array([1, 1, -1, -1, 1, -1])
    >>> agg = LogisticStacking().fit(X, y)
    >>> agg.predict(X).tolist()
    [1, 1, -1, -1, 1, -1]
    >>> bool(agg.coef_[0] > agg.coef_[1])
    True
    """

    _parameter_constraints: dict[str, Any] = {
        "l2": [Interval(Real, 0, None, closed="neither")],  # the L2 penalty
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean", StrOptions(["auto"])],
    }

    def __init__(self, l2: float = 1.0, max_iter: int = 100, tol: float = 1e-10,
                 fit_intercept: bool | str = "auto") -> None:
        self.l2 = l2
        self.max_iter = max_iter
        self.tol = tol
        self.fit_intercept = fit_intercept

    @validate_params({"X": ["array-like"], "y": ["array-like"]})
    def fit(self, X: Any, y: Any) -> LogisticStacking:
        """Fit the intercept (when used) and the answer weights.

        Parameters
        ----------
        X : array-like of shape (n_items, k)
            Answers of the selected models (``{-1, 0, +1}``).
        y : array-like of shape (n_items,)
            Labels: any two values (``-1``/``+1``, ``0``/``1``, strings, booleans), both

            present; they become ``classes_``, which :meth:`predict` returns.

        Returns
        -------
        self
        """
        Xa, ya = check_X_y(X, y, require_both_classes=True)
        return self._fit_groups(Xa, ya, _pattern_groups(Xa)[1])

    def _fit_groups(self, Xa: np.ndarray, ya: np.ndarray, inv: np.ndarray) -> LogisticStacking:
        """:meth:`fit` on validated answers whose pattern groups ``inv`` are known."""
        l2, max_iter, tol = float(self.l2), int(self.max_iter), float(self.tol)
        k = Xa.shape[1]
        t = (ya.astype(float) + 1.0) / 2.0
        p0 = float(np.clip(t.mean(), 1e-12, 1 - 1e-12))
        # the log-loss depends on the rows only through each (pattern, label) count: fit on
        # the distinct pairs, each weighted by its count (the same objective, far fewer rows)
        n_pat = int(inv.max()) + 1
        rows, pair = code_groups(2 * inv + (ya == 1), 2 * n_pat)
        w = np.bincount(pair).astype(float)
        Xa, t = Xa[rows], t[rows]
        fits: dict[bool, tuple[np.ndarray, float, int]] = {}
        with _one_blas_thread():  # one limit for both fits
            for use in ([True, False] if self.fit_intercept == "auto"
                        else [bool(self.fit_intercept)]):
                Z, pen = _design(Xa, use, l2)
                fits[use] = _newton(Z, t, w, pen, _start(use, k, p0), max_iter, tol)
        if len(fits) == 2:  # likelihood-ratio test of the intercept, 1 df
            stat = 2.0 * (fits[False][1] - fits[True][1])
            use = bool(stat >= _intercept_critical())
        else:
            use = next(iter(fits))
        beta, _, n_iter = fits[use]
        self.fit_intercept_ = use
        self.intercept_ = float(beta[0]) if use else 0.0
        self.coef_ = beta[1:].copy()
        self.n_iter_ = n_iter
        self.n_models_ = k
        self.classes_ = np.array([-1, 1], dtype=np.int8)
        return self

    def _check_fitted(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "coef_")
        Xa = check_X(X)
        if Xa.shape[1] != self.n_models_:
            raise constraint_error(
                "X", f"of {self.n_models_} columns (models), the selected models of fit in the "
                "same order", Shown(f"{Xa.shape[1]} columns"))
        return Xa

    def decision_function(self, X: Any) -> np.ndarray:
        """Log-odds ``b + sum_j beta_j x_j`` of ``Y = +1`` for each row."""
        Xa = self._check_fitted(X)
        return self.intercept_ + Xa.astype(np.float64) @ self.coef_

    def predict_proba(self, X: Any) -> np.ndarray:
        """``P(Y = y | x)``; columns follow ``classes_ = [-1, +1]``."""
        from scipy.special import expit

        p = expit(self.decision_function(X))
        return np.column_stack([1.0 - p, p])

    def predict(self, X: Any) -> np.ndarray:
        """``+1`` where the log-odds are ``>= 0`` (ties -> ``+1``, as MAP), else ``-1``."""
        return np.where(self.decision_function(X) >= 0, 1, -1).astype(np.int8)

    def _predict_ties(self, X: Any) -> tuple[Any, np.ndarray]:
        """``(predict(X), _ties(X))`` from one :meth:`decision_function`."""
        d = self.decision_function(X)
        return self._labels_of(np.where(d >= 0, 1, -1).astype(np.int8)), d == 0


class BackoffMAP(AggregatorMixin):
    """The MAP pattern table where patterns are frequent, logistic stacking where they are rare.

    Each answer pattern ``x`` gets the posterior mean of a Beta prior centred on the
    logistic-stacking probability ``q(x)`` (:class:`LogisticStacking`) with strength ``c``,
    updated by the pattern's training counts::

        P(Y = +1 | x) = (n_+(x) + c q(x)) / (n_+(x) + n_-(x) + c)

    and predicts ``+1`` when this is ``>= 1/2`` (ties -> ``+1``, as MAP). A pattern seen far
    more than ``c`` times is decided by its counts, as the paper's MAP rule
    (:class:`ensel.aggregate.MAPAggregator`) decides it; an unseen pattern by the logistic
    model instead of the MAP rule's fixed ``+1``. Counts come from
    ``MAPAggregator(alpha=0)`` (the same pattern codes, abstentions included).

    Why (measured, see ``notebooks/large_pools.py``): logistic stacking alone is the best
    rule on large ensembles, but on the real MMLU-Pro answers at k = 3-5 the MAP table, which
    sees interactions between the models (the binary view's errors are class-asymmetric),
    is better (0.119 against 0.122 with the same picks at k = 4); the back-off was within
    about 0.001 of the better of the two at every budget on MMLU-Pro (0.002 on the
    stand-ins), and equals logistic stacking where, as in the large pools, almost every test
    pattern is rare. ``strength="auto"`` chooses ``c`` by the Beta-binomial marginal
    likelihood of the training counts (see the module text).

    Parameters
    ----------
    strength : float or "auto", default="auto"
        Prior strength ``c`` in pseudo-items (``> 0``), or ``"auto"``: the ``c`` of
        ``STRENGTH_GRID`` (or ``inf``) with the largest marginal likelihood.
    l2 : float, default=1.0
        Penalty of the logistic model (see :class:`LogisticStacking`).

    Attributes
    ----------
    logistic_ : LogisticStacking
        The fitted prior model.
    table_ : ensel.aggregate.MAPAggregator
        The fitted pattern counts (``alpha = 0``).
    strength_ : float
        The prior strength used (``inf``: the logistic model alone).
    n_models_ : int
    classes_ : numpy.ndarray, ``[-1, 1]``

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 1]] * 20 + [[1, -1]] * 20 + [[-1, -1]] * 20)
    >>> y = np.array([1] * 20 + [-1] * 12 + [1] * 8 + [-1] * 20)
    >>> agg = BackoffMAP().fit(X, y)
    >>> agg.strength_  # the marginal likelihood's prior strength, in items
    16.0
    >>> agg.predict([[1, -1]]).tolist()  # seen 20 times, 12 of them negative: counts decide
    [-1]
    >>> agg.predict([[-1, 1]]).tolist() == agg.logistic_.predict([[-1, 1]]).tolist()  # unseen
    True
    """

    _parameter_constraints: dict[str, Any] = {
        # the prior strength in pseudo-items, or 'auto'
        "strength": [Interval(Real, 0, None, closed="neither"), StrOptions(["auto"])],
        "l2": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, strength: float | str = "auto", l2: float = 1.0) -> None:
        self.strength = strength
        self.l2 = l2

    @validate_params({"X": ["array-like"], "y": ["array-like"]})
    def fit(self, X: Any, y: Any) -> BackoffMAP:
        """Fit the logistic prior and count the training patterns.

        Parameters
        ----------
        X : array-like of shape (n_items, k)
            Answers of the selected models (``{-1, 0, +1}``).
        y : array-like of shape (n_items,)
            Labels: any two values (``-1``/``+1``, ``0``/``1``, strings, booleans), both

            present; they become ``classes_``, which :meth:`predict` returns.

        Returns
        -------
        self
        """
        auto = isinstance(self.strength, str)
        Xa, ya = check_X_y(X, y, require_both_classes=True)
        coded = _codes(Xa)  # one coding for the table, the logistic fit and the strength
        groups = _pattern_groups(Xa, coded)
        self.logistic_ = LogisticStacking(l2=self.l2)._fit_groups(Xa, ya, groups[1])
        self.logistic_._record_fit(Xa, None)  # what its fit records of validated answers
        if coded is None:
            self.table_ = MAPAggregator(alpha=0.0).fit(Xa, ya)
        else:  # MAPAggregator(alpha=0).fit(Xa, ya) on the codes at hand: what its fit
            # computes and records of validated answers (the logistic model's record)
            self.table_ = MAPAggregator(alpha=0.0)._fit_codes(*coded, ya, Xa.shape[1])
            self.table_._zero_one_ = self.logistic_._zero_one_
        self.strength_ = (_marginal_likelihood_strength(Xa, ya, self.logistic_, groups) if auto
                          else float(self.strength))
        self.n_models_ = Xa.shape[1]
        self.classes_ = np.array([-1, 1], dtype=np.int8)
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Posterior ``P(Y = y | x)``; columns follow ``classes_ = [-1, +1]``."""
        check_is_fitted(self, "logistic_")
        c = self.strength_
        q = self.logistic_.predict_proba(X)[:, 1]
        if np.isinf(c):  # the counts carry no evidence against the logistic model
            return np.column_stack([1.0 - q, q])
        counts = self.table_._smoothed_counts(X)  # raw (alpha = 0) counts (n_-, n_+)
        p = (counts[:, 1] + c * q) / (counts.sum(axis=1) + c)
        return np.column_stack([1.0 - p, p])

    def predict(self, X: Any) -> np.ndarray:
        """``+1`` where ``P(Y = +1 | x) >= 1/2`` (ties -> ``+1``), else ``-1``."""
        return np.where(self.predict_proba(X)[:, 1] >= 0.5, 1, -1).astype(np.int8)

    def _predict_ties(self, X: Any) -> tuple[Any, np.ndarray]:
        """``(predict(X), _ties(X))`` from one :meth:`predict_proba`."""
        p = self.predict_proba(X)[:, 1]
        return self._labels_of(np.where(p >= 0.5, 1, -1).astype(np.int8)), p == 0.5


#: Answer values of the single-column fits, in this order (:func:`_single_column_posteriors`).
_VALUES = (-1, 1, 0)


def _single_column_posteriors(Xtr: np.ndarray, ytr: np.ndarray, Xte: np.ndarray
                              ) -> tuple[np.ndarray, np.ndarray]:
    """``BackoffMAP()`` fitted on each column of ``Xtr`` alone, every column at once.

    A column alone has at most three answer patterns (``-1, +1, 0``), so its logistic fits
    (with and without the intercept), their likelihood-ratio test, the marginal-likelihood
    strength and the posterior of each pattern are a few numbers per column: Newton's method
    runs on all the columns' ``2 x 2`` systems together instead of one Python fit per column
    (the frontier fits every model alone on every split).

    ``Xtr, ytr``: checked answers and ``-1/+1`` labels with both classes; ``Xte``: the
    answers the posteriors are wanted for (only to know which patterns matter).

    Returns ``(p, sure)``: ``p[j, v]`` is ``P(Y = +1 | x_j = _VALUES[v])`` of the fit on
    column ``j``; ``sure[j]`` is ``False`` where one of the fit's decisions (the intercept's
    test, the prior strength, a test pattern's posterior against 1/2) is within float noise
    of a tie, so that a column whose rounding could differ from ``BackoffMAP().fit`` on it
    alone (another summation order) is refitted by it; elsewhere the two decide alike. (An
    abstention's posterior without the intercept is 1/2 exactly in both, a true tie.)
    """
    from scipy.special import betaln, expit, xlogy

    t1 = ytr == 1
    n, m = Xtr.shape
    # counts of each (answer, label) cell: npos[v], nneg[v] of shape (m,)
    npos = np.empty((3, m))
    ntot = np.empty((3, m))
    for i, v in enumerate(_VALUES[:2]):
        eq = Xtr == v
        ntot[i] = np.count_nonzero(eq, axis=0)
        npos[i] = np.count_nonzero(eq & t1[:, None], axis=0)
    ntot[2] = n - ntot[0] - ntot[1]
    npos[2] = np.count_nonzero(t1) - npos[0] - npos[1]
    nneg = ntot - npos
    z = np.array(_VALUES, dtype=float)[:, None]  # (3, 1): the answer of each pattern
    p0 = float(np.clip(t1.mean(), 1e-12, 1 - 1e-12))
    l2 = 1.0
    fits = {}
    for use in (True, False):
        b0 = np.full(m, np.log(p0) - np.log1p(-p0) if use else 0.0)
        b1 = np.zeros(m)
        fits[use] = _newton_single(z, npos, nneg, b0, b1, use, l2)
    stat = 2.0 * (fits[False][2] - fits[True][2])
    crit = _intercept_critical()
    use_b = stat >= crit
    b0 = np.where(use_b, fits[True][0], 0.0)
    b1 = np.where(use_b, fits[True][1], fits[False][1])
    q = np.clip(expit(b0 + z * b1), 1e-12, 1.0 - 1e-12)  # (3, m)
    a = STRENGTH_GRID[:, None, None] * q
    b = STRENGTH_GRID[:, None, None] * (1.0 - q)
    ll = (betaln(npos + a, nneg + b) - betaln(a, b)).sum(axis=1)  # (grid, m)
    ll_inf = (xlogy(npos, q) + xlogy(nneg, 1.0 - q)).sum(axis=0)
    top = ll.max(axis=0)
    best = len(STRENGTH_GRID) - 1 - np.argmax((ll >= top)[::-1], axis=0)
    strength = np.where(ll[best, np.arange(m)] > ll_inf, STRENGTH_GRID[best], np.inf)
    c = np.where(np.isinf(strength), 0.0, strength)
    with np.errstate(invalid="ignore", divide="ignore"):  # an unseen pattern alone: q
        p = np.where(np.isinf(strength), q, (npos + c * q) / (ntot + c))  # (3, m)
    # where a decision is within float noise of a tie (or exactly at it). Newton's step
    # halving stops within about sqrt(rounding of the objective / curvature) of the optimum,
    # which moves each q by far less than dq = 1e-6 in either fit; the log-likelihoods move
    # by at most dq * sum_v n_v / (q_v (1 - q_v)) (the bound of their derivative in q)
    dq = 1e-6
    tie = np.abs(stat - crit) <= 1e-9 * (1.0 + np.abs(fits[True][2]) + np.abs(fits[False][2]))
    scale = dq * (ntot / (q * (1.0 - q))).sum(axis=0) + 1e-9 * np.abs(top)
    tie |= ((top - ll <= 2 * scale) & (ll < top)).any(axis=0) | (np.sum(ll == top, axis=0) > 1)
    tie |= np.abs(ll[best, np.arange(m)] - ll_inf) <= 2 * scale
    asked = np.stack([(Xte == v).any(axis=0) for v in _VALUES])
    # an abstention without the intercept has q = 1/2 exactly, as in BackoffMAP's own fit
    exact = (z == 0) & ~use_b
    tie |= (asked & ~exact & (np.abs(p - 0.5) <= dq)).any(axis=0)
    return p.T.copy(), ~tie


def _newton_single(z: np.ndarray, npos: np.ndarray, nneg: np.ndarray, b0: np.ndarray,
                   b1: np.ndarray, use: bool, l2: float, max_iter: int = 100,
                   tol: float = 1e-10) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_newton` of :meth:`LogisticStacking.fit` on every column alone at once (see
    :func:`_single_column_posteriors`): the penalised log-loss of ``sigmoid(b0 + b1 z)``
    (``b0`` fixed at 0 unless ``use``) over the cells of counts ``npos, nneg`` (shape
    ``(3, m)``), each column stopping on its own; returns ``(b0, b1, objective)``."""
    from scipy.special import expit, log_expit

    def objective(c0: np.ndarray, c1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        eta = c0 + z * c1
        f = -(npos * log_expit(eta) + nneg * log_expit(-eta)).sum(axis=0)
        return f + 0.5 * l2 * c1 * c1, eta

    f, eta = objective(b0, b1)
    active = np.ones(b0.size, dtype=bool)
    eye = 1e-12
    for _ in range(max_iter):
        if not active.any():
            break
        p = expit(eta)
        r = npos * (p - 1.0) + nneg * p  # w (p - t) summed over the two labels
        s = (npos + nneg) * p * (1.0 - p)
        g1 = (r * z).sum(axis=0) + l2 * b1
        h11 = (s * z * z).sum(axis=0) + l2 + eye
        if use:
            g0 = r.sum(axis=0)
            h00 = s.sum(axis=0) + eye
            h01 = (s * z).sum(axis=0)
            det = h00 * h11 - h01 * h01
            s0 = (h11 * g0 - h01 * g1) / det
            s1 = (h00 * g1 - h01 * g0) / det
        else:
            s0 = np.zeros_like(b0)
            s1 = g1 / h11
        s0, s1 = np.where(active, s0, 0.0), np.where(active, s1, 0.0)
        size = np.ones_like(b0)
        while True:  # step halving, column by column
            c0, c1 = b0 - size * s0, b1 - size * s1
            fc, eta_c = objective(c0, c1)
            done = (fc <= f) | (size < 1e-8)
            if done.all():
                break
            size = np.where(done, size, size / 2.0)
        change = np.maximum(np.abs(c0 - b0), np.abs(c1 - b1))
        b0, b1, f, eta = c0, c1, fc, eta_c
        active &= ~(change < tol)
    return b0, b1, f
