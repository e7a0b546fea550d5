"""``choose_with_labels``: the ensemble chosen with a handful of gold labels (private module;
the public names are re-exported by :mod:`ensel.fewlabels`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

import numpy as np

from ensel._errors import UsageError
from ensel._memo import Recent, content_key
from ensel._validation import Interval, Shown, StrOptions, constraint_error, validate_params
from ensel.data import OptionMatrix
from ensel.fewlabels._gold import Pool, _read_pool, read_pool
from ensel.fewlabels._model import (
    Draws,
    LabelModel,
    Predictor,
    draw_errors,
    fit_label_model,
    point_errors,
)

__all__ = ["AGGREGATORS", "DECIDE_LEVEL", "INTERVAL_LEVEL", "MAX_K", "TOLERANCE",
           "FewLabelChoice", "choose_with_labels"]

#: The aggregators of a few-label ensemble: the label-free model restricted to the chosen
#: models (``ds``, ``ds1``, ``family_ds``, :data:`ensel.aggregate.MULTICLASS_SPECS`), or the
#: plurality vote of the chosen models (its label model is ``ds``).
AGGREGATORS = ("ds", "ds1", "family_ds", "plurality")
#: Nominal coverage of :attr:`FewLabelChoice.interval`.
INTERVAL_LEVEL = 0.95
#: Share of the draws in which the choice must be at most the runner-up's error plus
#: :data:`TOLERANCE` for :attr:`FewLabelChoice.decided`.
DECIDE_LEVEL = 0.95
#: Errors closer than this (absolute) are equivalent choices.
TOLERANCE = 0.005
#: Largest ensemble ``k="auto"`` considers.
MAX_K = 10


@dataclass(frozen=True)
class FewLabelChoice:
    """The ensemble chosen with few gold labels, its estimated error and how sure it is.

    Attributes
    ----------
    models : tuple of int
        Column indices of the chosen models, in pick order.
    names : tuple
        Their names (the OptionMatrix's ``models``, the DataFrame's columns, else ``m0``..).
    aggregator : str
        How the ensemble answers (:data:`AGGREGATORS`).
    error : float
        Estimated error of the ensemble on the population of items (a tie among ``t``
        options counts ``1 - 1/t``), from labelled and unlabelled items together.
    interval : tuple of float
        ``(lo, hi)``, the central :data:`INTERVAL_LEVEL` interval of the error's draws: of
        the error on the population of such items (an error measured on ``n`` held-out
        items adds its own binomial noise: ``interval_on``).
    n_labels, n_unlabelled : int
        Items with and without gold.
    decided : bool or None
        In at least :data:`DECIDE_LEVEL` of the draws the choice errs at most the
        runner-up's error plus :data:`TOLERANCE`: the labels separate them beyond noise.
        ``None`` when there is no other candidate (``k`` is the number of models): nothing
        to decide between.
    runner_up : tuple of int
        The best other candidate ensemble (column indices); empty when there is none.
    labels_needed : int or None
        Estimated labels more, drawn at random, until ``decided`` (``0`` when it is; ``None``
        when labelling every remaining item would not be expected to decide, or when there
        is no runner-up).
    reason : str
        One sentence that says the above.
    win_rate : float or None
        The share of draws in which the choice is within the tolerance of the runner-up
        (``None`` without a runner-up).
    method : str
        The selector that proposed the candidates.
    k : int
        The size of the choice.
    """

    models: tuple[int, ...]
    names: tuple[Any, ...]
    aggregator: str
    error: float
    interval: tuple[float, float]
    n_labels: int
    n_unlabelled: int
    decided: bool | None
    runner_up: tuple[int, ...]
    labels_needed: int | None
    reason: str
    win_rate: float | None = 0.0
    method: str = ""
    k: int = 0
    _predictor: Predictor | None = field(default=None, repr=False, compare=False)
    _binary: bool = field(default=True, repr=False, compare=False)
    _n_models: int = field(default=0, repr=False, compare=False)
    _draws: np.ndarray | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The choice as plain JSON-ready values."""
        return {"models": list(self.models), "names": [str(n) for n in self.names],
                "aggregator": self.aggregator, "error": self.error,
                "interval": list(self.interval), "n_labels": self.n_labels,
                "n_unlabelled": self.n_unlabelled, "decided": self.decided,
                "runner_up": list(self.runner_up), "labels_needed": self.labels_needed,
                "reason": self.reason, "win_rate": self.win_rate, "method": self.method,
                "k": self.k}

    def interval_on(self, n_items: int) -> tuple[float, float]:
        """The central :data:`INTERVAL_LEVEL` interval of the error *measured* on
        ``n_items`` new items: :attr:`interval` (of the population error) widened by the
        sampling noise of ``n_items`` items (per draw ``e``, normal with sd
        ``sqrt(e (1 - e) / n_items)``, an upper bound when ties count fractions). The
        interval to hold a held-out error against."""
        from scipy.stats import norm

        if isinstance(n_items, bool) or not isinstance(n_items, Integral) or n_items < 1:
            raise constraint_error("n_items", "an int >= 1", n_items,
                                   func="FewLabelChoice.interval_on")
        if self._draws is None:  # pragma: no cover - built by choose_with_labels
            raise UsageError("this FewLabelChoice was not made by choose_with_labels")
        e = np.clip(self._draws, 0.0, 1.0)
        sd = np.sqrt(e * (1.0 - e) / int(n_items))
        z = norm.ppf((np.arange(40) + 0.5) / 40)  # the normal by 40 equal-mass nodes
        a = (1 - INTERVAL_LEVEL) / 2
        lo, hi = np.quantile((e[:, None] + sd[:, None] * z[None, :]).ravel(), [a, 1 - a])
        return max(float(lo), 0.0), min(float(hi), 1.0)

    def _scores(self, A: Any, pool: Pool | None = None) -> tuple[np.ndarray, Pool]:
        """The choice's scores of the items of ``A`` (``pool``: ``A`` already read)."""
        if self._predictor is None:  # pragma: no cover - built by choose_with_labels
            raise UsageError("this FewLabelChoice was not made by choose_with_labels")
        if pool is None:
            y = None if not self._binary else np.zeros(np.shape(A)[0])
            pool = _read_pool(A, y, "FewLabelChoice.predict")  # the rows in the caller's order
        if pool.A.shape[1] != self._n_models:
            raise constraint_error("A", f"the answers of the {self._n_models} models of the "
                                   "choice's data, in the same order", Shown(
                                       f"{pool.A.shape[1]} models"),
                                   func="FewLabelChoice.predict")
        return self._predictor.scores(pool.A, self.models, pool.n_options), pool

    def predict(self, A: Any) -> np.ndarray:
        """The ensemble's answer to each item of ``A`` (answers of all the models of the
        data it was chosen on): ``+1``/``-1`` for binary answers, the option code for an
        OptionMatrix; a tie goes to the first tied option."""
        S, pool = self._scores(A)
        top = self._predictor.classes[S.argmax(axis=1)]  # type: ignore[union-attr]
        return np.where(top == 1, 1, -1).astype(np.int8) if pool.binary else top

    def heldout_error(self, A: Any, y: Any = None) -> float:
        """The ensemble's error on items with gold (``y`` as for :func:`choose_with_labels`;
        an OptionMatrix's own gold by default), a tie among ``t`` options ``1 - 1/t``."""
        pool = _read_pool(A, y, "FewLabelChoice.heldout_error")  # read once: answers and gold
        S, _ = self._scores(A, pool)
        lab = np.flatnonzero(pool.labelled)
        if lab.size == 0:
            raise constraint_error("y", "gold for at least one item", Shown("none"),
                                   func="FewLabelChoice.heldout_error")
        tied = S >= S.max(axis=1, keepdims=True) - 1e-9
        cls = self._predictor.classes  # type: ignore[union-attr]
        hit = (tied[lab] & (cls[None, :] == pool.gold[lab, None])).any(axis=1)
        return float(np.mean(1.0 - hit / tied[lab].sum(axis=1)))


def _imputed(pool: Pool, model: LabelModel) -> np.ndarray:
    """Gold where there is some, else the label model's most probable option (codes)."""
    return model.predictor.classes[model.T.argmax(axis=1)]


def _selector(pool: Pool, method: str, k: int, y: np.ndarray) -> Any:
    from ensel.select import MULTICLASS_SELECTORS, SELECTORS

    reg = SELECTORS if pool.binary else MULTICLASS_SELECTORS
    if method not in reg or method == "budgeted":
        view = "binary answers" if pool.binary else "option labels"
        raise constraint_error("method", f"a selector of {view}: one of "
                               f"{', '.join(n for n in reg if n != 'budgeted')}", method,
                               func="choose_with_labels")
    if pool.binary:
        X = np.where(pool.A < 0, 0, 2 * pool.A - 1).astype(np.int8)
        return reg[method](k).fit(X, pool.y_labels(y))
    return reg[method](k).fit(pool.A, y)


def _swaps(path: list[int], scores: np.ndarray, size: int) -> list[tuple[int, ...]]:
    """The choice with its pick ``t`` replaced by the best other candidate at step ``t``."""
    S = path[:size]
    out = []
    for t in range(size):
        row = np.array(scores[t], dtype=float)
        row[S] = np.nan
        if np.all(np.isnan(row)):
            continue
        alt = int(np.nanargmax(row))
        out.append(tuple(S[:t] + [alt] + S[t + 1:]))
    return out


@dataclass(frozen=True)
class _Analysis:
    """What ``choose_with_labels`` and ``label_next`` share."""

    pool: Pool
    model: LabelModel
    candidates: list[tuple[int, ...]]
    tieds: list[np.ndarray]
    draws: Draws
    choice: int
    runner: int  # the choice itself when there is no other candidate
    method: str
    aggregator: str


#: The last few analyses by content (``ensel._memo``). ``label_next``'s
#: ``"decisive"`` order analyses the labels it has exactly as ``choose_with_labels`` does
#: with the same labels and parameters, so a labelling loop that also reports the choice at
#: each step made every analysis twice; the second now reads the first (seeded throughout:
#: the same analysis, read-only to its callers).
_ANALYSES: Recent[_Analysis] = Recent(16)


def analyse(A: Any, y: Any, *, k: Any, method: str, aggregator: str, n_draws: int,
            seed: int, func: str) -> _Analysis:
    """Fit, propose candidates, draw their errors, pick the choice and its runner-up (the
    same analysis made just before is read back, :data:`_ANALYSES`)."""
    pool = read_pool(A, y, func)
    n_lab = int(pool.labelled.sum())
    if n_lab == 0:
        raise UsageError(
            f"{func} needs at least one gold label: the selector {method!r} estimates the "
            "information of the answers about the gold, and without any gold the label-free "
            "model's labels are only the models' consensus. Label a few items first "
            "(label_next(..., strategy='disagreement') or 'random' rank them without gold; "
            "`ensel label-next DATA --strategy disagreement`)")
    m = pool.A.shape[1]
    if k != "auto" and int(k) > m:
        raise constraint_error("k", f"at most the number of models ({m})", k, func=func)
    # the content: the pool (codes, gold, options, names) and the parameters
    key = content_key((k, method, aggregator, n_draws, seed),
                      (pool.binary, pool.models, pool.items, pool.options),
                      pool.A, pool.gold, pool.n_options)
    found = _ANALYSES.get(key)
    if found is None:
        found = _analyse(pool, k=k, method=method, aggregator=aggregator, n_draws=n_draws,
                         seed=seed)
        _ANALYSES.put(key, found)
    return found


def _analyse(pool: Pool, *, k: Any, method: str, aggregator: str, n_draws: int,
             seed: int) -> _Analysis:
    """:func:`analyse` on a read and checked pool."""
    m = pool.A.shape[1]
    name = "ds" if aggregator == "plurality" else aggregator
    model = fit_label_model(pool, name, aggregator, seed)
    y_imp = _imputed(pool, model)
    size = min(MAX_K, m) if k == "auto" else int(k)
    sel = _selector(pool, method, size, y_imp)
    path = [int(j) for j in sel.selected_]
    rng = np.random.default_rng(seed)
    tied: dict[tuple[int, ...], np.ndarray] = {}  # each candidate's ties, made once
    if k == "auto":
        cands = [tuple(path[:s]) for s in range(1, size + 1)]
        tied = {c: model.ties(c) for c in cands}
        # the size by the label model's part alone: the labelled items' own noise would
        # pick the size they flatter, and the rectifier of the choice would be optimistic
        mean = point_errors(model, [tied[c] for c in cands])
        size = int(np.flatnonzero(mean <= mean.min() + 1e-12)[0]) + 1
    else:
        cands = [tuple(path)]
    cands = list(dict.fromkeys([*cands, *_swaps(path, sel.scores_, size)]))
    tieds = [tied[c] if c in tied else model.ties(c) for c in cands]
    draws = draw_errors(model, tieds, n_draws, rng)
    choice = cands.index(tuple(path[:size]))
    mean = draws.errors.mean(axis=1)
    others = [c for c in range(len(cands)) if c != choice]
    runner = min(others, key=lambda c: (mean[c], c)) if others else choice
    return _Analysis(pool, model, cands, tieds, draws, choice, runner, method, aggregator)


def _labels_needed(an: _Analysis, diff: np.ndarray, mu: float, n_lab: int,
                   n_un: int) -> int | None:
    """Labels more, at random, until ``decided``, from the draws' spread: the variance of
    the difference with the runner-up splits into the sampling of the items (the variance
    over the items of the difference of the expected errors, over their number: kept as
    it is) and the rest, the labels' (the calibration and the rectifier), which shrinks as
    ``n_lab / (n_lab + more)``; ``None`` when even every remaining label would not be
    expected to decide."""
    from scipy.stats import norm

    if mu >= TOLERANCE:
        return None
    z = float(norm.ppf(DECIDE_LEVEL))
    Q = an.model.Q
    f = [1.0 - (an.tieds[c] * Q).sum(axis=1) / an.tieds[c].sum(axis=1)
         for c in (an.choice, an.runner)]
    var_items = float(np.var(f[0] - f[1])) / Q.shape[0]
    var_labels = max(float(np.var(diff)) - var_items, 0.0)
    room = ((TOLERANCE - mu) / z) ** 2 - var_items  # what the labels' part may still add
    if room <= 0 or var_labels == 0:
        return None
    more = math.ceil(n_lab * (var_labels / room - 1.0))
    return max(more, 1) if more <= n_un else None


def _verdict(an: _Analysis) -> FewLabelChoice:
    """The choice of ``an`` with its interval and, when it has a runner-up, whether the
    labels separate them (:func:`_rivalry`); without one (every candidate is the choice:
    ``k`` models of ``k``) ``decided``, ``labels_needed`` and ``win_rate`` are ``None`` and
    ``runner_up`` is empty."""
    pool, d = an.pool, an.draws.errors
    n_lab = int(pool.labelled.sum())
    n_un = pool.A.shape[0] - n_lab
    err = d[an.choice]
    lo, hi = (float(q) for q in np.quantile(err, [(1 - INTERVAL_LEVEL) / 2,
                                                   (1 + INTERVAL_LEVEL) / 2]))
    S = an.candidates[an.choice]
    names = tuple(pool.models[j] for j in S)
    head = (f"with {n_lab:,} labels and {n_un:,} unlabelled items, "
            f"({', '.join(map(str, names))}) errs {float(err.mean()):.3f} [{lo:.3f}, {hi:.3f}]")
    R: tuple[int, ...] = ()
    if an.runner == an.choice:
        decided, needed, win = None, None, None
        reason = (f"nothing to decide: {head}; every model is in the choice (k = {len(S)}), "
                  "so there is no other ensemble of that size to weigh it against")
    else:
        decided, needed, win, reason = _rivalry(an, err, head, n_lab, n_un)
        R = an.candidates[an.runner]
    return FewLabelChoice(
        models=tuple(S), names=names, aggregator=an.aggregator, error=float(err.mean()),
        interval=(lo, hi), n_labels=n_lab, n_unlabelled=n_un, decided=decided,
        runner_up=tuple(R), labels_needed=needed, reason=reason, win_rate=win,
        method=an.method, k=len(S), _predictor=an.model.predictor, _binary=pool.binary,
        _n_models=pool.A.shape[1], _draws=err.copy())


def _rivalry(an: _Analysis, err: np.ndarray, head: str, n_lab: int,
             n_un: int) -> tuple[bool, int | None, float, str]:
    """``decided``, ``labels_needed``, ``win_rate`` and the reason of a choice against its
    runner-up."""
    d = an.draws.errors
    diff = err - d[an.runner]
    win = float(np.mean(diff <= TOLERANCE))
    decided = win >= DECIDE_LEVEL
    mu = float(diff.mean())
    needed: int | None = 0
    if not decided:
        needed = _labels_needed(an, diff, mu, n_lab, n_un)
    rshown = ", ".join(str(an.pool.models[j]) for j in an.candidates[an.runner])
    head += (f" and is within {TOLERANCE} of the runner-up ({rshown}) or better in "
             f"{win:.0%} of {d.shape[1]} draws")
    if decided:
        reason = f"decided: {head}"
    elif mu >= TOLERANCE:
        reason = (f"not decided: {head}; the runner-up's estimated error is the lower, so "
                  "more labels are not expected to decide for the choice")
    elif needed is None:
        reason = (f"not decided: {head}; labelling every remaining item is not expected to "
                  "separate them (they are within noise of each other)")
    else:
        reason = (f"not decided: {head}; about {needed:,} more labels at random (fewer "
                  "chosen by label_next) should separate them")
    return decided, needed, win, reason


_K = [StrOptions(["auto"]), Interval(Integral, 1, None)]
_METHOD = [str]
_AGG = [StrOptions(AGGREGATORS)]


@validate_params({"A": ["array-like", OptionMatrix],
                  "y": ["array-like", None], "k": _K, "method": _METHOD, "aggregator": _AGG,
                  "n_draws": [Interval(Integral, 20, None)], "seed": [Interval(Integral, 0, None)]})
def choose_with_labels(A: Any, y: Any = None, *, k: int | str = "auto",
                       method: str = "score_mi", aggregator: str = "ds", n_draws: int = 200,
                       seed: int = 0) -> FewLabelChoice:
    """Choose an ensemble with a handful of gold labels and many unlabelled items.

    The label-free model (:class:`ensel.aggregate.DawidSkene`, or the ``aggregator``'s own
    Dawid-Skene variant) is fitted on every item, the gold anchoring its items; the selector
    ``method`` runs on the gold where there is some and the model's most probable option
    elsewhere, and proposes candidates (its pick path; the choice with one pick swapped for
    the next best). Each candidate's error is prediction-powered: its expected error over
    every item under the model's posterior recalibrated by the labels, plus the mean over
    the labelled items of its gold error minus that expected error (unbiased when the
    labels are a random sample of the items); its answers and the posterior on an item
    come from Dawid-Skene tables fitted on the other half of the items (cross-fitted).
    ``n_draws`` Bayesian-bootstrap draws (seeded) of the labelled items and of the items give
    the interval of the population error, which widens as labels get fewer, and the share of
    draws in which the choice is within :data:`TOLERANCE` of the runner-up or better.
    ``k="auto"`` takes the size by the label model's part of the error alone, so that the
    noise of the few labelled items does not pick the size they flatter.

    Parameters
    ----------
    A : OptionMatrix or array-like of shape (n_items, n_models)
        :class:`ensel.data.OptionMatrix` (option codes), or binary answers ``{-1, +1}``
        (``0`` = abstained; a DataFrame's columns name the models).
    y : array-like, optional
        Gold with gaps: for binary answers ``+1``/``-1`` (``0`` or ``NaN`` = none); for an
        OptionMatrix option codes or labels (``-1``/``NaN``/blank = none), default its own
        ``gold``. A pandas Series indexed by item names is aligned by name.
    k : int or "auto", default="auto"
        Ensemble size; ``"auto"`` takes the size of the selector's path (up to
        :data:`MAX_K`) with the lowest estimated error.
    method : str, default="score_mi"
        A selector of :data:`ensel.select.SELECTORS` (binary) or
        :data:`ensel.select.MULTICLASS_SELECTORS` (options).
    aggregator : {"ds", "ds1", "family_ds", "plurality"}, default="ds"
        How the ensemble answers (:data:`AGGREGATORS`).
    n_draws : int, default=200
        Bootstrap draws (``>= 20``).
    seed : int, default=0

    Returns
    -------
    FewLabelChoice

    Examples
    --------
    >>> from ensel.pools import family_pool
    >>> pool = family_pool(8, 2000, family_size=2, random_state=0)
    >>> y = np.zeros(2000)
    >>> y[:50] = pool.y[:50]
    >>> c = choose_with_labels(pool.X, y, k=3, seed=0)
    >>> c.k, c.n_labels, c.interval[0] <= c.error <= c.interval[1]
    (3, 50, True)
    """
    an = analyse(A, y, k=k, method=method, aggregator=aggregator, n_draws=n_draws, seed=seed,
                 func="choose_with_labels")
    return _verdict(an)
