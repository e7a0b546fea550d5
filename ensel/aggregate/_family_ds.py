"""Dawid-Skene that discounts families of models sharing their errors: label-free.

Independent Dawid-Skene (:class:`ensel.aggregate.DawidSkene`) multiplies the models'
likelihoods as if they erred independently given the class, so ten models of one family that
repeat one wrong answer count as ten witnesses. :class:`FamilyDawidSkene` finds such
families without labels and counts each for what its votes are worth together:

1. **Agreement beyond what accuracy explains.** Fit independent Dawid-Skene; take its labels
   ``c_i`` as provisional truth. Model ``j``'s *residual* on item ``i`` is its one-hot answer
   minus what its confusion matrix expects for the class, ``1[x_ij = a] - theta_j[c_i, a]``
   (zero where it abstained). The residual correlation ``r_jk`` of two models is their
   agreement beyond their accuracies: 0 for independent errors, large for models that pick
   the same wrong option (it sees shared wrong options, not only shared errors).
2. **Families.** Average-linkage clustering of the models on ``r``, joining while the average
   residual correlation is at least ``threshold``.
3. **A family's votes are discounted by its design effect.** ``s`` equally correlated votes
   carry the information of ``s / (1 + (s - 1) r)`` independent ones (Kish's effective sample
   size), so model ``j`` of family ``f`` enters the likelihood with the power
   ``w_j = 1 / (1 + sum_{k in f, k != j} r_jk)`` (``1`` for a model in no family)::

       log P(Y = c | answers) = log pi_c + sum_j w_j log theta_j[c, x_j] + const

   and EM fits ``pi`` and the confusions under this tempered (composite) likelihood. Every
   EM step still raises its objective (the M-step is Dawid-Skene's, each model's term only
   scaled), so the stopping rule and attributes are those of :class:`DawidSkene`.

Without families (independent errors, or correlations under ``threshold``) it is exactly
independent Dawid-Skene. The labels of step 1 are refitted ``n_rounds`` times (families,
weights and EM again from the new labels).

Measured (``benchmarks/bench_family_ds.py``: 20 seeded pools of 3,000 items per scenario, 4
options; paired difference in error against gold, family DS minus DS, +- its standard
error): a dominant family of 8 correlated models among 6 independent ones, wrong answers
spread, -0.062 +- 0.009 (0.087 -> 0.025); three families of 5 sharing 90 % of their wrong
answers, -0.005 +- 0.002; independent models sharing 90 %, -0.004 +- 0.002; and within noise
elsewhere: the dominant family sharing 90 % (-0.001 +- 0.002), independent models (exactly
0), mild families (-0.0001 +- 0.0003), one common correlation of 0.4 (-0.001 +- 0.002).
Where the dominant family shares its wrong answers, the first fit's labels follow the family,
so its residual correlation is underestimated (0.18 against 0.55 against the gold) and the
discount is too weak. Measuring a family's residuals against the labels of the *other*
models fixed that case (-0.049 +- 0.004) but made three equal families worse (+0.006 +-
0.001) and one common correlation much worse (+0.090 +- 0.022): not used.

Tried first and dropped: a two-level latent-class model (each family a hidden shared answer
``Z_f`` given the class, members answering given ``Z_f``). It found the families, but on
three equal families sharing 90 % of their wrong options it erred 0.210, 0.138 and 0.146
where independent Dawid-Skene erred 0.186, 0.105 and 0.124 (3 seeds, 15 models, 3,000
items): a discrete shared state caps a family's evidence, so the members' own information
was lost.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np

from ensel._validation import Interval, validate_params
from ensel.aggregate._dawid_skene import _EM, DawidSkene
from ensel.aggregate._multiclass import option_sums

__all__ = ["FamilyDawidSkene", "residual_correlation", "error_families"]


def residual_correlation(A: np.ndarray, labels: np.ndarray, confusions: np.ndarray
                         ) -> np.ndarray:
    """Correlation of the models' answer residuals ``1[x_j = a] - theta_j[c, a]`` given the
    provisional classes ``labels`` (abstentions: residual 0); (m, m), unit diagonal."""
    n, m = A.shape
    K = confusions.shape[1]
    G = np.zeros((m, m))
    answered = (A >= 0).astype(np.float64)
    for a in range(K):
        R = (A == a).astype(np.float64) - confusions[:, labels, a].T * answered
        G += R.T @ R
    d = np.sqrt(np.clip(np.diag(G), 1e-300, None))
    C = G / d[:, None] / d[None, :]
    np.fill_diagonal(C, 1.0)
    return C


def error_families(C: np.ndarray, threshold: float) -> list[np.ndarray]:
    """Groups of models by average-linkage clustering of the correlation ``C``, joined while
    the average correlation is ``>= threshold``; singletons included, each group's models in
    increasing order, groups ordered by first model."""
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    m = C.shape[0]
    if m < 2:
        return [np.arange(m)]
    D = np.clip(1.0 - C, 0.0, 2.0)
    np.fill_diagonal(D, 0.0)
    ids = fcluster(linkage(squareform(D, checks=False), method="average"),
                   t=1.0 - threshold, criterion="distance")
    return sorted((np.flatnonzero(ids == g) for g in np.unique(ids)), key=lambda g: int(g[0]))


class FamilyDawidSkene(_EM):
    """Dawid-Skene with each family of correlated models discounted to its effective size.

    Parameters
    ----------
    threshold : float, default=0.1
        Residual correlation (average linkage) at which models join a family, in ``(0, 1]``
        (measured, 5 seeds: 0.2 left the dominant family sharing 90 % of its wrong answers
        worse than independent DS, +0.020 +- 0.007, where 0.1 is within noise).
    n_rounds : int, default=3
        Times the families and weights are re-estimated from the latest fit's labels
        (``>= 1``; measured: 1 round gave -0.049 where 3 gave -0.073 on the dominant family
        with spread wrong answers, 5 seeds, and no scenario was worse beyond noise).
    max_iter, tol, alpha, init, random_state
        As in :class:`ensel.aggregate.DawidSkene` (they also fit the first, independent
        model that finds the families).

    Attributes
    ----------
    families_ : list of numpy.ndarray
        Model indices of each family of two or more models.
    correlation_ : numpy.ndarray of shape (n_models, n_models)
        Residual correlation of the models' answers given the first fit's labels.
    model_weights_ : numpy.ndarray of shape (n_models,)
        The power ``w_j`` of each model's likelihood (``1`` outside a family).
    confusions_, prior_, posteriors_, labels_, log_likelihoods_, n_iter_, converged_
        As in :class:`ensel.aggregate.DawidSkene`.
    classes_, n_models_
        As in :class:`ensel.aggregate.DawidSkene`.

    Examples
    --------
    >>> from ensel.pools import multiclass_pool
    >>> pool = multiclass_pool(12, 3000, family_size=[6, 1, 1, 1, 1, 1, 1], within=0.7,
    ...                        share=0.0, random_state=0)
    >>> fds = FamilyDawidSkene().fit(pool.A)
    >>> [g.tolist() for g in fds.families_]
    [[0, 1, 2, 3, 4, 5]]
    """

    _parameter_constraints: dict[str, Any] = {
        **_EM._parameter_constraints,
        "threshold": [Interval(Real, 0, 1, closed="right")],
        "n_rounds": [Interval(Integral, 1, None)],
    }

    def __init__(self, threshold: float = 0.1, n_rounds: int = 3, max_iter: int = 100,
                 tol: float = 1e-7, alpha: float = 0.01, init: str = "vote",
                 random_state: int | np.random.Generator | None = None) -> None:
        self.threshold = threshold
        self.n_rounds = n_rounds
        super().__init__(max_iter=max_iter, tol=tol, alpha=alpha, init=init,
                         random_state=random_state)

    def _m_step(self, counts: np.ndarray) -> float:
        c = counts.transpose(1, 2, 0) + self.alpha  # (m, class, answer)
        self.confusions_ = c / c.sum(axis=2, keepdims=True)
        return self.alpha * float((self.model_weights_[:, None, None]
                                   * np.log(self.confusions_)).sum())

    def _log_joint(self, A: Any) -> np.ndarray:
        W = np.log(self.confusions_).transpose(2, 0, 1) * self.model_weights_[None, :, None]
        return np.log(self.prior_)[None, :] + option_sums(A, W)

    @validate_params({"X": ["array-like"], "y": ["array-like", None]})
    def fit(self, X: Any, y: Any = None) -> FamilyDawidSkene:
        """Find the families (from a first, independent fit) and fit the discounted model.

        Parameters
        ----------
        X : array-like of shape (n_items, n_models)
            Option labels (``-1`` / ``None`` / ``NaN`` / ``""`` = abstained).
        y : array-like of shape (n_items,), optional
            Gold labels; missing entries are inferred, given ones anchor their items.

        Returns
        -------
        self
        """
        base = DawidSkene(max_iter=self.max_iter, tol=self.tol, alpha=self.alpha,
                          init=self.init, random_state=self.random_state).fit(X, y)
        A, yc = self._fit_options(X, y)
        fit: _EM = base
        for _ in range(int(self.n_rounds)):
            lab = fit._tied(fit.posteriors_).argmax(axis=1)
            self.correlation_ = residual_correlation(A, lab, fit.confusions_)
            self.families_ = [g for g in error_families(self.correlation_, float(self.threshold))
                              if g.size >= 2]
            w = np.ones(A.shape[1])
            for g in self.families_:
                sub = self.correlation_[np.ix_(g, g)]
                w[g] = 1.0 / (1.0 + np.clip(sub.sum(axis=1) - 1.0, 0.0, None))
            self.model_weights_ = w
            if not self.families_:  # exactly independent Dawid-Skene
                for name in ("confusions_", "prior_", "posteriors_", "labels_",
                             "log_likelihoods_", "n_iter_", "converged_"):
                    setattr(self, name, getattr(base, name))
                return self
            self._fit_em(A, yc)
            fit = self
        return self
