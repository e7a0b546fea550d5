"""Dawid-Skene: the latent-class model of independent annotators, fitted by EM without labels.

Item ``i`` has a hidden class ``Y_i ~ pi``; model ``j`` answers option ``a`` with probability
``theta_j[c, a]`` when the class is ``c``, independently of the other models given the class
(Dawid and Skene, 1979). Abstentions carry no information and are left out of the
likelihood. Two forms:

* :class:`DawidSkene` -- a full ``K x K`` confusion matrix per model;
* :class:`OneCoinDawidSkene` -- one accuracy ``p_j`` per model, its wrong answers spread
  evenly over the ``K - 1`` other options (the model behind the log-odds weighted vote
  :class:`ensel.aggregate.WeightedPluralityVote`, here fitted without labels).

**EM.** The posteriors ``T[i, c] = P(Y_i = c | answers)`` start from the plurality vote's
shares (``init="vote"``, deterministic) or from Dirichlet(1) draws of ``random_state``
(``init="random"``). Each iteration re-estimates ``pi`` and the confusions from ``T`` (the
M-step, with ``alpha`` pseudo-counts in every cell: the MAP estimate under a Dirichlet prior,
so no probability is ever 0), then ``T`` from them (the E-step). **Stopping rule:** the
objective -- the log-likelihood of the answers plus the log prior, per item -- never
decreases under EM; iteration stops at the first step that raises it by less than ``tol``,
or after ``max_iter`` iterations (``converged_`` says which).

**Gold where there is some.** ``fit(X, y)`` with gold for some items (missing gold: ``-1``,
``None``, ``NaN``, ``""``) anchors those items: their ``T`` is the one-hot of their gold
throughout, the others are inferred. With gold for every item it is the supervised plug-in
estimate (one M-step). With no ``y`` it is the label-free model.

Each EM iteration is two sparse-times-dense products over the one-hot of the answers, built
once per fit (:func:`ensel.aggregate._multiclass.option_sums`, ``option_counts``): no
per-answer Python loop and no long-format table (``benchmarks/bench_dawid_skene.py``
compares it with crowd-kit's ``DawidSkene``).

References
----------
A. P. Dawid and A. M. Skene, "Maximum likelihood estimation of observer error-rates using
the EM algorithm", Applied Statistics 28(1), 1979.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np

from ensel._memo import Recent, content_key
from ensel._validation import Interval, StrOptions, check_random_state, validate_params
from ensel.aggregate._multiclass import (
    MulticlassAggregatorMixin,
    _softmax_with_sums,
    answer_indicators,
    masked_shares,
    one_hot,
    option_counts,
    option_sums,
    softmax_rows,
)

__all__ = ["DawidSkene", "OneCoinDawidSkene"]


#: The last few fits by content (see :meth:`_EM._fit_key`): the fitted attributes. The same
#: EM fit often comes twice in a row, e.g. an evaluation's label-free ``ds`` arm and the
#: independent first fit of :class:`ensel.aggregate.FamilyDawidSkene` on the same columns;
#: the second one reads the first's (copies: the same numbers, bit for bit).
_FITS: Recent[dict[str, Any]] = Recent(8)


class _EM(MulticlassAggregatorMixin):
    """The EM loop shared by the full and the one-coin model (they differ in the M-step)."""

    confusions_: np.ndarray
    prior_: np.ndarray

    _parameter_constraints: dict[str, Any] = {
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None)],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "init": [StrOptions(["vote", "random"])],
        "random_state": ["random_state", None],
    }

    def __init__(self, max_iter: int = 100, tol: float = 1e-7, alpha: float = 0.01,
                 init: str = "vote", random_state: int | np.random.Generator | None = None
                 ) -> None:
        self.max_iter = max_iter
        self.tol = tol
        self.alpha = alpha
        self.init = init
        self.random_state = random_state

    # the model: subclasses set the confusions from expected counts
    def _m_step(self, counts: np.ndarray) -> float:  # pragma: no cover - abstract
        """Set ``confusions_`` from ``counts[a, j, c]``; return the log prior term."""
        raise NotImplementedError

    def _log_joint(self, A: Any) -> np.ndarray:
        """``log pi_c + sum_j log theta_j[c, x_j]`` of each item and class (``A``: codes or
        their :func:`answer_indicators`)."""
        W = np.log(self.confusions_).transpose(2, 0, 1)  # W[a, j, c] = log theta_j[c, a]
        return np.log(self.prior_)[None, :] + option_sums(A, W)

    def _scores(self, A: np.ndarray) -> np.ndarray:
        return self._log_joint(A)

    def _initial_posteriors(self, O: Any, K: int, mask: np.ndarray | None = None
                            ) -> np.ndarray:
        if self.init == "random":
            T = check_random_state(self.random_state).dirichlet(np.ones(K), size=O.shape[0])
            return masked_shares(T, mask)
        m = O.shape[1] // K
        votes = option_sums(O, np.broadcast_to(np.eye(K)[:, None, :], (K, m, K)))
        if mask is not None:
            return masked_shares(votes, mask)
        tot = votes.sum(axis=1, keepdims=True)
        return np.where(tot > 0, votes / np.where(tot > 0, tot, 1.0), 1.0 / K)

    @validate_params({"X": ["array-like"], "y": ["array-like", None],
                      "n_options": ["array-like", None]})
    def fit(self, X: Any, y: Any = None, *, n_options: Any = None) -> _EM:
        """Fit by EM; without ``y`` (or with gold for some items only) the classes are inferred.

        Parameters
        ----------
        X : array-like of shape (n_items, n_models)
            Option labels (``-1`` / ``None`` / ``NaN`` / ``""`` = abstained).
        y : array-like of shape (n_items,), optional
            Gold labels; missing entries are inferred, given ones anchor their items.
        n_options : array-like of shape (n_items,), optional
            Each item's number of options (answers are the positions ``0..K_i-1``): an
            item's class is among its own options (its prior renormalised over them).

        Returns
        -------
        self
        """
        A, yc = self._fit_options(X, y)
        mask = self.option_mask(n_options, A, yc)
        key = self._fit_key(A, yc, mask)
        found = None if key is None else _FITS.get(key)
        if found is not None:  # the same fit made just before (see _FITS): its attributes
            for name, value in found.items():
                setattr(self, name, value.copy() if isinstance(value, np.ndarray) else value)
            return self
        self._fit_em(A, yc, mask)
        if key is not None:  # every fitted attribute (public, ending in "_")
            _FITS.put(key, {name: (value.copy() if isinstance(value, np.ndarray) else value)
                            for name, value in vars(self).items()
                            if name.endswith("_") and not name.startswith("_")})
        return self

    def _fit_key(self, A: np.ndarray, yc: np.ndarray | None, mask: np.ndarray | None
                 ) -> str | None:
        """The content key of this fit in :data:`_FITS` (``None``: not remembered, as for
        a random start drawn from a generator)."""
        seed = self.random_state if self.init == "random" else None
        if seed is not None and not isinstance(seed, (int, np.integer)):
            return None
        return content_key((type(self).__qualname__, self.max_iter, self.tol, self.alpha,
                            self.init, seed, self.classes_.tolist()), A, yc, mask)

    def _fit_em(self, A: np.ndarray, yc: np.ndarray | None, mask: np.ndarray | None = None
                ) -> Any:
        """The EM loop on validated option codes (``yc``: gold codes, ``-1`` = none;
        ``mask``: the classes each item offers, :meth:`option_mask`)."""
        K = len(self.classes_)
        anchored = (yc >= 0) if yc is not None else np.zeros(A.shape[0], dtype=bool)
        fixed = one_hot(yc, K) if yc is not None else None
        O = answer_indicators(A, K)  # once: every E- and M-step reads it
        Ot = O.T.tocsr()  # and its transpose, which every M-step's counts read
        T = self._initial_posteriors(O, K, mask)
        some = bool(anchored.any())  # items with gold: theirs stay one-hot
        if some:
            T[anchored] = fixed[anchored]  # type: ignore[index]
        free = ~anchored
        any_free = bool(free.any())
        history: list[float] = []
        self.converged_ = False
        for it in range(1, int(self.max_iter) + 1):
            counts = option_counts(O, T, K, transposed=Ot)
            self.prior_ = (T.sum(axis=0) + self.alpha) / (T.shape[0] + K * self.alpha)
            log_prior = self._m_step(counts) + self.alpha * float(np.log(self.prior_).sum())
            L = self._log_joint(O)
            if mask is not None:
                L = np.where(mask, L, -np.inf)
            T, top, sums = _softmax_with_sums(L)  # one pass: the posteriors and, below,
            # each free row's log-sum-exp (its top is finite: every item offers a class)
            if not any_free:
                ll = 0.0
            elif some:
                ll = float((top[free] + np.log(sums[free])).sum())
            else:  # every row free: the same numbers without selecting them
                ll = float((top + np.log(sums)).sum())
            if some:
                ll += float(L[anchored, yc[anchored]].sum())  # type: ignore[index]
            history.append((ll + log_prior) / A.shape[0])
            if some:
                T[anchored] = fixed[anchored]  # type: ignore[index]
            self.n_iter_ = it
            if not any_free or (it > 1 and history[-1] - history[-2] < self.tol):
                self.converged_ = True
                break
        self.log_likelihoods_ = np.asarray(history)
        self.posteriors_ = T
        self.labels_ = self.classes_[self._tied(T).argmax(axis=1)]
        return self

    @validate_params({"X": ["array-like"], "n_options": ["array-like", None]})
    def predict_proba(self, X: Any, *, n_options: Any = None) -> np.ndarray:
        """Posterior ``P(Y = c | answers)`` of each item under the fitted model, columns in
        ``classes_`` order (0 on a class an item does not offer, with ``n_options``)."""
        A, _, mask = self._read(X, n_options, "predict_proba")
        return softmax_rows(self._masked_scores(A, mask))


class DawidSkene(_EM):
    """Dawid-Skene with a full confusion matrix per model, fitted by EM (labels optional).

    Parameters
    ----------
    max_iter : int, default=100
        Most EM iterations.
    tol : float, default=1e-7
        Stop when an iteration raises the objective (log-likelihood plus log prior, per item)
        by less than this.
    alpha : float, default=0.01
        Pseudo-count added to every confusion cell and class count (``> 0``).
    init : {"vote", "random"}, default="vote"
        Starting posteriors: the plurality vote's shares, or Dirichlet(1) draws of
        ``random_state``.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of ``init="random"`` (unused by ``"vote"``).

    Attributes
    ----------
    confusions_ : numpy.ndarray of shape (n_models, n_classes, n_classes)
        ``confusions_[j, c, a] = P(model j answers a | class c)``.
    prior_ : numpy.ndarray of shape (n_classes,)
        Class probabilities.
    posteriors_ : numpy.ndarray of shape (n_items, n_classes)
        ``P(Y = c | answers)`` of the training items (one-hot where gold was given).
    labels_ : numpy.ndarray of shape (n_items,)
        The training items' most probable classes (ties: first in ``classes_``).
    log_likelihoods_ : numpy.ndarray
        The objective per item after each iteration (non-decreasing).
    n_iter_ : int
    converged_ : bool
        Whether the ``tol`` rule stopped EM (else ``max_iter`` did).
    classes_ : numpy.ndarray
    n_models_ : int

    Examples
    --------
    >>> from ensel.pools import multiclass_pool
    >>> pool = multiclass_pool(9, 2000, n_options=4, family_size=1, within=0.0,
    ...                        random_state=0)
    >>> ds = DawidSkene().fit(pool.A)  # no labels
    >>> bool((ds.labels_ == pool.y).mean() > 0.9), ds.converged_
    (True, True)
    """

    def _m_step(self, counts: np.ndarray) -> float:
        K = counts.shape[0]
        c = counts.transpose(1, 2, 0) + self.alpha  # (m, class, answer)
        self.confusions_ = c / c.sum(axis=2, keepdims=True)
        del K
        return self.alpha * float(np.log(self.confusions_).sum())


class OneCoinDawidSkene(_EM):
    """One-coin Dawid-Skene: one accuracy per model, wrong answers spread evenly (EM).

    ``theta_j[c, c] = p_j`` and ``theta_j[c, a] = (1 - p_j) / (K - 1)`` for ``a != c``; the
    posterior is the log-odds weighted plurality vote with weights
    ``log((K - 1) p_j / (1 - p_j))`` plus the log prior. Parameters as :class:`DawidSkene`.

    Attributes
    ----------
    accuracies_ : numpy.ndarray of shape (n_models,)
        ``p_j``.
    confusions_ : numpy.ndarray of shape (n_models, n_classes, n_classes)
        The confusion matrices the accuracies imply.
    prior_, posteriors_, labels_, log_likelihoods_, n_iter_, converged_, classes_, n_models_
        As in :class:`DawidSkene`.

    Examples
    --------
    >>> from ensel.pools import multiclass_pool
    >>> pool = multiclass_pool(9, 2000, n_options=4, family_size=1, within=0.0,
    ...                        random_state=0)
    >>> ds = OneCoinDawidSkene().fit(pool.A)
    >>> bool(abs(ds.accuracies_ - pool.accuracy).max() < 0.05)
    True
    """

    def _m_step(self, counts: np.ndarray) -> float:
        K = counts.shape[0]
        right = np.einsum("aja->j", counts)
        total = counts.sum(axis=(0, 2))
        p = (right + self.alpha) / (total + 2 * self.alpha)
        self.accuracies_ = p
        wrong = (1.0 - p) / max(K - 1, 1)
        eye = np.eye(K, dtype=bool)
        self.confusions_ = np.where(eye[None], p[:, None, None], wrong[:, None, None])
        return self.alpha * float((np.log(p) + np.log1p(-p)).sum())
