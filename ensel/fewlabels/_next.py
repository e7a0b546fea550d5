"""``label_next``: which unlabelled items to label next (private module; the public name is
re-exported by :mod:`ensel.fewlabels`)."""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd

from ensel._validation import Interval, StrOptions, constraint_error, validate_params
from ensel.data import OptionMatrix
from ensel.fewlabels._choose import _AGG, _K, TOLERANCE, _Analysis, _verdict, analyse
from ensel.fewlabels._gold import Pool, read_pool
from ensel.fewlabels._model import calibrated

__all__ = ["STRATEGIES", "label_next"]

#: The orders of :func:`label_next`: ``decisive`` (what decides the choice), and the
#: baselines ``disagreement`` (most divided models first) and ``random`` (seeded).
STRATEGIES = ("decisive", "disagreement", "random")


def _frame(pool: Pool, rows: list[int], scores: list[float], reasons: list[str]
           ) -> pd.DataFrame:
    return pd.DataFrame({"item": [pool.items[i] for i in rows],
                         "score": np.asarray(scores, dtype=float), "reason": reasons})


def _vote_counts(pool: Pool) -> np.ndarray:
    """``(n, K)``: how many models chose each option code of each item."""
    K = int(max(pool.n_options.max(initial=2), pool.A.max(initial=0) + 1))
    counts = np.zeros((pool.A.shape[0], K))
    for j in range(pool.A.shape[1]):
        a = pool.A[:, j]
        ok = a >= 0
        counts[np.flatnonzero(ok), a[ok]] += 1.0
    return counts


def _split_text(pool: Pool, i: int, counts: np.ndarray) -> str:
    total = int(counts.sum())
    if total == 0:
        return "no model answered"
    order = np.argsort(-counts, kind="stable")[:3]
    split = ", ".join(f"{int(counts[o])} say {pool.label_of(i, int(o))}" for o in order
                      if counts[o] > 0)
    return f"the {total} answers split: {split}"


def _disagreement(pool: Pool, free: np.ndarray, n: int) -> pd.DataFrame:
    counts = _vote_counts(pool)
    tot = counts.sum(axis=1, keepdims=True)
    p = counts / np.maximum(tot, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.where(p > 0, p * np.log2(p), 0.0).sum(axis=1)
    order = np.argsort(-h[free], kind="stable")[:n]
    rows = [int(free[o]) for o in order]
    return _frame(pool, rows, [float(h[i]) for i in rows],
                  [_split_text(pool, i, counts[i]) for i in rows])


def _random(pool: Pool, free: np.ndarray, n: int, seed: int) -> pd.DataFrame:
    u = np.random.default_rng(seed).random(free.size)
    order = np.argsort(-u, kind="stable")[:n]
    return _frame(pool, [int(free[o]) for o in order], [float(u[o]) for o in order],
                  [f"random order (seed {seed})"] * len(order))


def _variance_of_difference(an: _Analysis, P: np.ndarray, c: int) -> np.ndarray:
    """Per item, the variance (under the posterior ``P``) of the difference between the
    choice's error and candidate ``c``'s: 0 where they answer alike."""
    tc, tch = an.tieds[c], an.tieds[an.choice]
    delta = tc / tc.sum(axis=1, keepdims=True) - tch / tch.sum(axis=1, keepdims=True)
    mean = (P * delta).sum(axis=1)
    return np.maximum((P * delta ** 2).sum(axis=1) - mean ** 2, 0.0)


def _calibrated_by_bin(an: _Analysis) -> np.ndarray:
    """The label model's posteriors at each bin's fitted temperature."""
    P = an.model.Q.copy()
    k = an.model.allowed.sum(axis=1, keepdims=True)
    for b, (tau, eps) in enumerate(zip(an.draws.tau, an.draws.noise_fit, strict=True)):
        rows = an.draws.bins == b
        P[rows] = (1 - eps) * calibrated(an.model.Q[rows], float(tau)) \
            + eps * an.model.allowed[rows] / k[rows]
    return P


def _answer(an: _Analysis, c: int, i: int) -> str:
    t = an.tieds[c][i]
    classes = an.model.predictor.classes
    return "/".join(an.pool.label_of(i, int(classes[j])) for j in np.flatnonzero(t))


def _decisive(an: _Analysis, free: np.ndarray, n: int) -> pd.DataFrame:
    d = an.draws.errors
    P = _calibrated_by_bin(an)
    others = [c for c in range(len(an.candidates)) if c != an.choice]
    threat = {c: float(np.mean(d[c] <= d[an.choice] + TOLERANCE)) for c in others}
    parts = np.vstack([threat[c] * _variance_of_difference(an, P, c) for c in others]) \
        if others else np.zeros((1, P.shape[0]))
    base = parts.sum(axis=0)
    top_c = np.asarray(others)[parts.argmax(axis=0)] if others else None
    value = base[free] + 1e-9 * (1.0 - P[free].max(axis=1))  # ties: the least sure first
    order = np.argsort(-value, kind="stable")[:n]
    rows = [int(free[o]) for o in order]
    return _frame(an.pool, rows, [float(value[o]) for o in order],
                  [_reason(an, P, i, base[i], top_c) for i in rows])


def _reason(an: _Analysis, Pc: np.ndarray, i: int, base: float, top_c: np.ndarray | None
            ) -> str:
    P = Pc[i]
    classes = an.model.predictor.classes
    best = np.argsort(-P, kind="stable")[:2]
    belief = ", ".join(f"P({an.pool.label_of(i, int(classes[b]))}) = {P[b]:.2f}"
                       for b in best if P[b] > 0)
    if base <= 0 or top_c is None:
        return f"the candidates answer alike here; the label model is least sure ({belief})"
    c = int(top_c[i])
    members = ", ".join(str(an.pool.models[j]) for j in an.candidates[c])
    return (f"the choice answers {_answer(an, an.choice, i)} and ({members}) answers "
            f"{_answer(an, c, i)}; the label model is unsure ({belief})")


@validate_params({"A": ["array-like", OptionMatrix], "y": ["array-like", None],
                  "n": [Interval(Integral, 1, None)], "k": _K, "method": [str],
                  "aggregator": _AGG, "seed": [Interval(Integral, 0, None)],
                  "strategy": [StrOptions(STRATEGIES)], "n_draws": [Interval(Integral, 20, None)]})
def label_next(A: Any, y: Any = None, n: int = 10, *, k: int | str = "auto",
               method: str = "score_mi", aggregator: str = "ds", seed: int = 0,
               strategy: str = "decisive", n_draws: int = 200) -> pd.DataFrame:
    """The ``n`` unlabelled items whose gold would most help decide the choice.

    ``"decisive"`` ranks an unlabelled item by the expected reduction in the uncertainty
    of the choice of :func:`choose_with_labels` (same ``k``, ``method``, ``aggregator``,
    ``seed``): the variance, under the label-free model's calibrated posterior, of the
    difference between the choice's error and each rival candidate's on the item (zero
    where they answer alike: its gold would not tell them apart), weighted by how often that
    rival is within the tolerance of the choice in the draws. Its gold removes that variance
    from the difference and tells the calibration the most. It needs at least one gold label
    (as :func:`choose_with_labels`). The baselines: ``"disagreement"`` ranks by
    the entropy of the models' answers (no gold needed), ``"random"`` by a seeded draw.

    Parameters
    ----------
    A, y, k, method, aggregator, seed, n_draws
        As in :func:`choose_with_labels`.
    n : int, default=10
        Items to return, at most the number of unlabelled items.
    strategy : {"decisive", "disagreement", "random"}, default="decisive"

    Returns
    -------
    pandas.DataFrame
        Columns ``item`` (the item's name), ``score`` (the strategy's, higher first) and
        ``reason`` (one sentence), ``n`` rows in labelling order. With ``"decisive"``,
        ``attrs["choice"]`` is the current choice (:meth:`FewLabelChoice.to_dict`).

    Examples
    --------
    >>> from ensel.pools import family_pool
    >>> pool = family_pool(6, 1000, family_size=2, random_state=0)
    >>> y = np.zeros(1000)
    >>> y[:20] = pool.y[:20]
    >>> label_next(pool.X, y, 3, k=2).columns.tolist()
    ['item', 'score', 'reason']
    """
    func = "label_next"
    pool = read_pool(A, y, func)
    free = np.flatnonzero(~pool.labelled)
    if n > free.size:
        raise constraint_error("n", f"at most the number of unlabelled items ({free.size:,} "
                               f"of {pool.A.shape[0]:,})", n, func=func)
    if strategy == "random":
        return _random(pool, free, n, seed)
    if strategy == "disagreement":
        return _disagreement(pool, free, n)
    an = analyse(A, y, k=k, method=method, aggregator=aggregator, n_draws=n_draws, seed=seed,
                 func=func)
    out = _decisive(an, free, n)
    out.attrs["choice"] = _verdict(an).to_dict()
    return out

