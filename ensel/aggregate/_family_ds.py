"""Dawid-Skene that discounts families of models sharing their errors: label-free.

Independent Dawid-Skene (:class:`ensel.aggregate.DawidSkene`) multiplies the models'
likelihoods as if they erred independently given the class, so ten models of one family that
repeat one wrong answer count as ten witnesses. :class:`FamilyDawidSkene` finds such
families without labels and counts each for what its votes are worth together:

1. **Errors that go together beyond what every pair shares.** Fit independent Dawid-Skene;
   take its labels as provisional truth and each model's errors against them (an abstention
   is an error). Their tetrachoric correlation (the copula's, :mod:`ensel.copula`: a
   family's latent dependence, whatever its members' error rates) minus its median over all
   pairs of models is the *excess* of each pair (:func:`excess`): a correlation every pair
   shares (one common trait of the items) singles out no family.
2. **Families.** Average-linkage clustering of the models on the excess, joining while the
   average excess is at least ``threshold``. A cluster is kept when its average excess,
   less what one common correlation explains, is beyond noise: errors against fitted
   labels are not errors against the truth, and where most models err together the
   labels are wrong and the most accurate models, right there, look wrong together.
   ``common_null`` simulates pools with no family, calibrated to the data (error
   rates, common correlation, share of wrong answers on one distractor), fits them the
   same way and measures the same excess; the cluster's average excess over that must pass
   :func:`search_z` standard errors of the average (:func:`tetrachoric_se`, the null's
   own noise added), Bonferroni over every pair of models searched, so that neither that
   artefact nor the largest of many noisy pairs makes a family. The families are found
   once, on the independent fit's labels.
3. **A family's votes are discounted by its design effect.** ``s`` votes of correlation
   ``r`` carry the information of ``s / (1 + (s - 1) r)`` independent ones (Kish's
   effective sample size, a statement about the observed 0/1 votes, so ``r`` is here the
   *phi* coefficient of the errors, again in excess of its median over all pairs): model
   ``j`` of family ``f`` enters the likelihood with the power
   ``w_j = 1 / (1 + sum_{k in f, k != j} max(r_jk, 0))`` (``1`` for a model in no family)::

       log P(Y = c | answers) = log pi_c + sum_j w_j log theta_j[c, x_j] + const

   and EM fits ``pi`` and the confusions under this tempered (composite) likelihood. Every
   EM step still raises its objective (the M-step is Dawid-Skene's, each model's term only
   scaled), so the EM stopping rule and attributes are those of :class:`DawidSkene`.
4. **Rounds to a fixed point.** The weights are measured again on the labels of the last
   fit and EM refitted, until no weight moves by more than :data:`WEIGHT_TOL` (the stopping
   rule of the rounds) or after ``n_rounds`` fits. Where the labels followed the family at
   first, each round's labels follow it less, its measured dependence grows and its weight
   falls; models that only *looked* dependent because they were right together against
   the first labels regain their weight (the fixed point of the dominant family sharing its
   wrong answers: the family near 0.22, the strongest independent models back near 1).

Without families it is exactly independent Dawid-Skene.

Measured (``benchmarks/bench_family_ds.py``: 20 seeded pools of 3,000 items per scenario, 4
options, no labels; paired difference in error against gold, family DS minus DS, +- its
standard error over the seeds; *before* = the families kept at 2 standard errors of their
raw excess, *now* = beyond the common-correlation null at :func:`search_z`; the null was
chosen on seeds 0-9, and seeds 1000-1019 are a second set it was not tuned on):

==============================  ======  =================  =================  =================
scenario                        DS      before, 0-19       now, 0-19          now, 1000-1019
==============================  ======  =================  =================  =================
dominant, wrong answers spread  0.0868  -0.0620 +- 0.0087  -0.0620 +- 0.0087  -0.0844 +- 0.0116
dominant, 90 % shared           0.1707  -0.0673 +- 0.0113  -0.0673 +- 0.0113  -0.0216 +- 0.0090
three families, 90 % shared     0.1099  -0.0019 +- 0.0013  -0.0019 +- 0.0013  -0.0018 +- 0.0010
independent, spread             0.0071  0 (no families)    0 (no families)    0 (no families)
independent, 90 % shared        0.0461  +0.0006 +- 0.0003  0 (no families)    0 (no families)
mild families, 30 % shared      0.0189  -0.0005 +- 0.0003  -0.0005 +- 0.0003  +0.0005 +- 0.0003
one common correlation 0.4      0.0896  +0.0022 +- 0.0007  +0.0005 +- 0.0005  +0.0002 +- 0.0002
==============================  ======  =================  =================  =================

(DS's error is on seeds 0-19; on 1000-1019 it is 0.1195, 0.2405, 0.1538, 0.0078, 0.0510,
0.0343, 0.0963.) So no scenario is worse beyond two standard errors on either set, and the
dominant family sharing its wrong answers stays better beyond noise on both (2.4 standard
errors on the second set, where the version before gave the same -0.0217 +- 0.0091 and
+0.0025 +- 0.0006 on one common correlation). One common correlation was worse before
because its most accurate models, right together where the independent fit's labels are
wrong, looked like a pair or three of a family (5 to 8 standard errors of raw excess); the
calibrated null explains about half of that, and the rest is the largest of 105 noisy
pairs, which the Bonferroni level absorbs. A third set (2000-2019): the same verdicts, one
common correlation +0.0008 +- 0.0005 and the dominant family sharing -0.0564 +- 0.0105.
**A residue remains there:** over the three sets (60 seeds) one common correlation is
+0.0005 +- 0.0002 (a quarter of the cost before, but beyond two standard errors when
pooled), and at 600 items (seeds 0-19) +0.0013 +- 0.0008 where the version before gave
+0.0034 +- 0.0007 (the dominant family sharing: -0.039 +- 0.009 both). The clustering
searches triples as well as pairs, more groups than the Bonferroni level counts, and at
600 items a pair of the most accurate models can pass it with little of its excess
explained by the null (a large-sample standard error, where the pair's joint errors are
a few dozen items). Tried against it: pairs of a family that share a model taken as
correlated (Olkin and Siotani's covariance of correlations at the common level): 3
families instead of 4 in 20 pools of 600 items, the error unchanged (+0.0013 +- 0.0008),
the dominant family's gain a little smaller (-0.036 +- 0.010): dropped. The standard
errors are not too small: the null pools' own spread over their pairs is 1.0-1.1 times
:func:`tetrachoric_se` at 600 and 3,000 items.

Measured while choosing (seeds 0-9): the null
alone at 2 standard errors left +0.0012 +- 0.0008 there; clustering on the excess
*over* the null (rather than testing with it) split the dominant family and lost most of
its gain (-0.021 +- 0.008 against -0.052 +- 0.015); one uncalibrated null pool (the
data's rates, median and share taken as measured against its labels) explained too little
(+0.0012 +- 0.0006).

Earlier, while choosing the version before (same scenarios, 3-8 seeds unless said):

* **A family as one voter** (its plurality answer and 4 levels of agreement, a full
  confusion over those per family in Dawid-Skene's EM): -0.098 +- 0.015 on the dominant
  family sharing its wrong answers, but +0.014 +- 0.004 on three families (three voters
  carry too little; the members' own information is lost): dropped.
* **Residual correlation of the one-hot answers** (an earlier detector) sees the shared
  wrong options of *every* model (the items' distractor), so independent models sharing
  90 % of their wrong answers joined families; the error indicators' correlation does not.
* **Raw phi or tetrachoric weights** (no median): tetrachoric -0.094 on the dominant family
  sharing, but +0.003 +- 0.001 on three families; raw phi +0.004 +- 0.003 on one common
  correlation. The median excess gives weights of 1 where every pair shares one
  correlation.
* **Families refound every round**: a discounted group's errors grow more correlated
  against the new labels whether or not it is a family (a positive feedback): one common
  correlation +0.0025 +- 0.0011; found once instead.
* **Posterior-weighted (soft) errors**, **a one-factor baseline** (``b_j b_k`` from the
  models outside a family) and **labels fitted without the family** did not remove the
  common-correlation artefact; **a baseline by accuracy** (a median regression of each
  pair's correlation on the probits of its two error rates, 8 seeds) did, but explained
  the dominant family away too (+0.008 +- 0.003 where it shares its wrong answers).

Tried before (previous version): a two-level latent-class model (each family a hidden
shared answer ``Z_f`` given the class) erred 0.210, 0.138 and 0.146 where independent
Dawid-Skene erred 0.186, 0.105 and 0.124 on three families (3 seeds): a discrete shared
state caps a family's evidence.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np

from ensel._validation import Interval, check_random_state, validate_params
from ensel.aggregate._dawid_skene import _EM, DawidSkene
from ensel.aggregate._multiclass import option_sums

__all__ = ["FamilyDawidSkene", "beyond_noise", "common_null", "error_correlation",
           "error_families", "excess", "search_z", "shared_wrong", "tetrachoric_se"]


#: The rounds stop when no model's weight moves by more than this.
WEIGHT_TOL = 1e-3

#: A family is kept when its average excess correlation, beyond what one common correlation
#: explains (``common_null``), is beyond noise at this family-wise level over every pair
#: of models searched (:func:`search_z`; Bonferroni, two-sided).
NOISE_LEVEL = 0.05

#: Pools simulated by ``common_null``: calibration steps, then pools averaged.
NULL_STEPS, NULL_POOLS = 4, 2


def error_correlation(A: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How the models' errors against ``labels`` go together: their tetrachoric correlation
    (:func:`ensel.copula.tetrachoric_matrix`) and their phi coefficient (the Pearson
    correlation of the 0/1 error indicators; a constant column gives 0); an abstention counts
    as an error. Both (m, m) with a unit diagonal.

    Examples
    --------
    >>> A = np.array([[0, 0, 1], [1, 1, 1], [0, 0, 0], [1, 1, 0]])
    >>> tet, phi = error_correlation(A, np.array([0, 0, 0, 0]))
    >>> phi.round(2).tolist()
    [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    from ensel.copula import tetrachoric_matrix

    E = (A != labels[:, None]).astype(np.int8)
    return tetrachoric_matrix(E), _phi(E)


def _phi(E: np.ndarray) -> np.ndarray:
    """The phi coefficients of :func:`error_correlation` from the 0/1 errors ``E``: the one
    half of it the rounds of :class:`FamilyDawidSkene` after the first need."""
    Ec = E - E.mean(axis=0)
    G = Ec.T @ Ec
    d = np.sqrt(np.diag(G))
    phi = np.where(np.outer(d, d) > 0, G / np.where(np.outer(d, d) > 0, np.outer(d, d), 1.0),
                   0.0)
    np.fill_diagonal(phi, 1.0)
    return phi


def _tetrachoric(A: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The tetrachoric half of :func:`error_correlation` (what ``common_null`` reads)."""
    from ensel.copula import tetrachoric_matrix

    return tetrachoric_matrix((A != labels[:, None]).astype(np.int8))


def excess(R: np.ndarray) -> tuple[np.ndarray, float]:
    """``R`` minus its median over all pairs of models, and that median: the dependence
    beyond the level every pair shares (which all models share, discounts none of them
    against another and says nothing about families)."""
    m = R.shape[0]
    base = float(np.median(R[np.triu_indices(m, 1)])) if m > 1 else 0.0
    return R - base, base


def tetrachoric_se(R: np.ndarray, E: np.ndarray) -> np.ndarray:
    """Standard error of each pair's tetrachoric correlation ``R`` of the 0/1 errors ``E``:
    the large-sample variance ``1 / (n phi2(tau_i, tau_j; r)^2 sum_ab 1 / p_ab)`` over the
    four cells ``p_ab`` of the pair's errors."""
    from ensel.copula import bivariate_normal_pdf, thresholds

    n = E.shape[0]
    Ef = E.astype(np.float64)
    p11 = Ef.T @ Ef / n
    p = np.diag(p11)
    p10, p01 = p[:, None] - p11, p[None, :] - p11
    p00 = 1.0 - p[:, None] - p[None, :] + p11
    tau = thresholds(p)
    dens = np.asarray(bivariate_normal_pdf(tau[:, None], tau[None, :], np.clip(R, -0.99, 0.99)))
    inv = sum(1.0 / np.maximum(q, 0.5 / n) for q in (p00, p01, p10, p11))
    return 1.0 / (np.sqrt(n * inv) * np.maximum(dens, 1e-12))


def beyond_noise(g: np.ndarray, ex: np.ndarray, se: np.ndarray, z: float) -> bool:
    """Whether the average excess of the family ``g`` is at least ``z`` standard errors of
    that average (its pairs taken as independent)."""
    iu = np.triu_indices(g.size, 1)
    e, s = ex[np.ix_(g, g)][iu], se[np.ix_(g, g)][iu]
    return bool(e.mean() >= z * np.sqrt((s ** 2).mean() / e.size))


def search_z(m: int, level: float = NOISE_LEVEL) -> float:
    """The z a pair's statistic must pass when every pair of ``m`` models was searched:
    Bonferroni's two-sided ``Phi^-1(1 - level / (2 * pairs))`` (``1.96`` for one pair,
    ``3.49`` for the 105 pairs of 15 models)."""
    from scipy.special import ndtri

    pairs = max(m * (m - 1) // 2, 1)
    return float(-ndtri(level / (2 * pairs)))


def shared_wrong(A: np.ndarray, labels: np.ndarray, k: int) -> float:
    """How often wrong answers go to the item's distractor: the ``share`` of
    :func:`ensel.pools.multiclass_pool` that makes two wrong answers (against ``labels``) of
    one item agree as often as they do, with ``k`` options (0 when ``k <= 2``)."""
    if k <= 2:
        return 0.0
    W = (A != labels[:, None]) & (A >= 0)
    agree = sum(float((c * (c - 1)).sum()) for c in
                ((W & (A == o)).sum(axis=1).astype(np.float64) for o in range(k)))
    w = W.sum(axis=1).astype(np.float64)
    pairs = float((w * (w - 1)).sum())
    q = agree / pairs if pairs > 0 else 1.0 / (k - 1)
    s = np.linspace(0.0, 1.0, 1001)
    u = (1.0 - s) / (k - 1)  # P(one given wrong option) beside the distractor's extra share
    return float(np.interp(q, (s + u) ** 2 + (k - 2) * u ** 2, s))


def _null_pool(eps: np.ndarray, rho: float, share: float, k: np.ndarray,
               rng: np.random.Generator) -> np.ndarray:
    """Answers of models erring at rates ``eps`` with one latent correlation ``rho`` (the
    equicorrelated Gaussian copula) and wrong answers as in :func:`ensel.pools.multiclass_pool`
    (``k``: each item's options)."""
    from ensel.copula import thresholds

    n, m = k.size, eps.size
    z = np.sqrt(rho) * rng.standard_normal((n, 1)) + np.sqrt(1 - rho) * rng.standard_normal((n, m))
    y = (rng.random(n) * k).astype(np.int64)
    d = (y + rng.integers(1, k)) % k
    uniform = (y[:, None] + rng.integers(1, k[:, None], size=(n, m))) % k[:, None]
    wrong = np.where(rng.random((n, m)) < share, d[:, None], uniform)
    return np.where(z < thresholds(np.clip(eps, 1e-4, 1 - 1e-4))[None, :], wrong, y[:, None])


def common_null(A: np.ndarray, labels: np.ndarray, k: np.ndarray, rng: np.random.Generator,
                *, correlation: np.ndarray | None = None, **ds: Any) -> np.ndarray:
    """The excess correlation (:func:`excess`) each pair of models shows against a fit's
    labels when there is no family at all: one common correlation, calibrated to the data.

    Errors measured against fitted labels are not errors against the truth: where most
    models err together the labels are wrong, and the models right there look wrong
    together, the more so the more accurate they are. Pools without families are simulated
    (:func:`_null_pool`) and fitted by :class:`~ensel.aggregate.DawidSkene` (``ds``: its
    parameters) as the data were; the error rates, the common correlation (the median) and
    the share of wrong answers on the distractor (:func:`shared_wrong`) are moved
    :data:`NULL_STEPS` times until the simulated pools, measured against their own fit,
    show those of the data; the excess of the :data:`NULL_POOLS` pools after that is
    averaged. ``k``: each item's options; ``correlation``: the data's tetrachoric
    correlation against ``labels`` (:func:`error_correlation`) when the caller has it."""
    E = A != labels[:, None]
    target_eps = E.mean(axis=0)
    if correlation is None:
        correlation = _tetrachoric(A, labels)
    target_rho = excess(correlation)[1]
    target_share = shared_wrong(A, labels, int(np.median(k)))
    eps, rho, share = target_eps.copy(), max(target_rho, 0.0), target_share
    null = []
    for step in range(NULL_STEPS + NULL_POOLS):
        S = _null_pool(eps, rho, share, k, rng)
        lab = DawidSkene(**ds).fit(S, n_options=k).labels_
        ex, base = excess(_tetrachoric(S, lab))
        if step >= NULL_STEPS:
            null.append(ex)
        eps = np.clip(eps + target_eps - (S != lab[:, None]).mean(axis=0), 1e-4, 1 - 1e-4)
        rho = float(np.clip(rho + target_rho - base, 0.0, 0.95))
        share = float(np.clip(share + target_share - shared_wrong(S, lab, int(np.median(k))),
                              0.0, 1.0))
    return np.mean(null, axis=0)


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
    threshold : float, default=0.15
        Excess tetrachoric correlation of the errors (over its median across all pairs;
        average linkage) at which models join a family, in ``(0, 1]``; a family so
        joined is then kept only beyond the common-correlation null (measured before that
        null, 6 seeds: 0.25 lost the dominant family sharing its wrong answers, -0.006 +-
        0.010 against DS, where 0.15 gave -0.041 +- 0.011 and 0.2 -0.040 +- 0.011; 20
        seeds at 0.2: -0.023 +- 0.004 there, and one common correlation still +0.0015 +-
        0.0005).
    n_rounds : int, default=20
        Most EM fits: the first with the families' weights measured on the independent
        fit's labels, each further one with the weights measured again on the last fit's
        labels, until no weight moves by more than 0.001 (``>= 1``; the families themselves
        are found once). Measured, 20 seeds, dominant family sharing its wrong answers:
        3 fits -0.035 +- 0.005, 5 fits -0.054 +- 0.008, 20 -0.067 +- 0.011 against DS (two
        seeds traced reached the fixed point in 11 fits); the other scenarios unchanged.
    max_iter, tol, alpha, init, random_state
        As in :class:`ensel.aggregate.DawidSkene` (they also fit the first, independent
        model that finds the families).

    Attributes
    ----------
    families_ : list of numpy.ndarray
        Model indices of each family of two or more models found on the independent fit's
        labels (a group that only looked like one there ends with weights near 1).
    correlation_ : numpy.ndarray of shape (n_models, n_models)
        Tetrachoric correlation of the models' errors against the independent fit's labels
        (the families were found in its excess over the median).
    null_excess_ : numpy.ndarray of shape (n_models, n_models)
        The excess each pair shows with no family (``common_null``), which a kept
        family's average excess passed beyond noise; zeros when no cluster was a candidate.
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
    >>> [g.tolist() for g in fds.families_]  # the second only looked like one at first
    [[0, 1, 2, 3, 4, 5], [9, 10, 11]]
    >>> fds.model_weights_.round(1).tolist()
    [0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    >>> float((fds.labels_ != pool.y).mean()), float((DawidSkene().fit(pool.A).labels_
    ...                                                != pool.y).mean())
    (0.036, 0.06766666666666667)
    """

    families_: list[np.ndarray]
    correlation_: np.ndarray
    null_excess_: np.ndarray
    model_weights_: np.ndarray

    _parameter_constraints: dict[str, Any] = {
        **_EM._parameter_constraints,
        "threshold": [Interval(Real, 0, 1, closed="right")],
        "n_rounds": [Interval(Integral, 1, None)],
    }

    def __init__(self, threshold: float = 0.15, n_rounds: int = 20, max_iter: int = 100,
                 tol: float = 1e-7, alpha: float = 0.01, init: str = "vote",
                 random_state: int | np.random.Generator | None = None) -> None:
        self.threshold = threshold
        self.n_rounds = n_rounds
        super().__init__(max_iter=max_iter, tol=tol, alpha=alpha, init=init,
                         random_state=random_state)

    def _families(self, A: np.ndarray, lab: np.ndarray, tet: np.ndarray,
                  n_options: Any) -> list[np.ndarray]:
        """Step 2: clusters of the excess correlation ``tet`` against the labels ``lab``,
        kept when beyond what one common correlation explains (``common_null``) by
        :func:`search_z` standard errors (the null's own noise included)."""
        self.correlation_ = tet
        ex, _ = excess(tet)
        groups = [g for g in error_families(ex, float(self.threshold)) if g.size >= 2]
        self.null_excess_ = np.zeros_like(tet)
        if not groups:
            return []
        k = (np.full(A.shape[0], len(self.classes_), dtype=np.int64) if n_options is None
             else np.asarray(n_options, dtype=np.int64))
        rng = check_random_state(0 if self.random_state is None else self.random_state)
        self.null_excess_ = common_null(A, lab, k, rng, correlation=tet,
                                        max_iter=self.max_iter, tol=self.tol,
                                        alpha=self.alpha, init=self.init)
        se = tetrachoric_se(tet, A != lab[:, None]) * np.sqrt(1.0 + 1.0 / NULL_POOLS)
        z = search_z(A.shape[1])
        return [g for g in groups if beyond_noise(g, ex - self.null_excess_, se, z)]

    def _m_step(self, counts: np.ndarray) -> float:
        c = counts.transpose(1, 2, 0) + self.alpha  # (m, class, answer)
        self.confusions_ = c / c.sum(axis=2, keepdims=True)
        return self.alpha * float((self.model_weights_[:, None, None]
                                   * np.log(self.confusions_)).sum())

    def _log_joint(self, A: Any) -> np.ndarray:
        W = np.log(self.confusions_).transpose(2, 0, 1) * self.model_weights_[None, :, None]
        return np.log(self.prior_)[None, :] + option_sums(A, W)

    @validate_params({"X": ["array-like"], "y": ["array-like", None],
                      "n_options": ["array-like", None]})
    def fit(self, X: Any, y: Any = None, *, n_options: Any = None) -> FamilyDawidSkene:
        """Find the families (from a first, independent fit) and fit the discounted model.

        Parameters
        ----------
        X : array-like of shape (n_items, n_models)
            Option labels (``-1`` / ``None`` / ``NaN`` / ``""`` = abstained).
        y : array-like of shape (n_items,), optional
            Gold labels; missing entries are inferred, given ones anchor their items.
        n_options : array-like of shape (n_items,), optional
            Each item's number of options, as in ``DawidSkene.fit``.

        Returns
        -------
        self
        """
        base = DawidSkene(max_iter=self.max_iter, tol=self.tol, alpha=self.alpha,
                          init=self.init, random_state=self.random_state
                          ).fit(X, y, n_options=n_options)
        A, yc = self._fit_options(X, y)
        mask = self.option_mask(n_options, A, yc)
        T = base.posteriors_
        self.families_ = []
        for r in range(int(self.n_rounds)):
            lab = self._tied(T).argmax(axis=1)
            if r == 0:  # the families: found once, from the independent fit's labels
                tet, phi = error_correlation(A, lab)
                self.families_ = self._families(A, lab, tet, n_options)
                if not self.families_:
                    break
            else:  # the weights only: the phi coefficients against the last fit's labels
                phi = _phi((A != lab[:, None]).astype(np.int8))
            w = np.ones(A.shape[1])
            ephi = excess(phi)[0]
            for g in self.families_:  # Kish: s votes of correlation r count s / (1 + (s-1) r)
                sub = np.clip(ephi[np.ix_(g, g)], 0.0, None)
                w[g] = 1.0 / (1.0 + sub.sum(axis=1) - sub.diagonal())
            if r > 0 and np.abs(w - self.model_weights_).max() < WEIGHT_TOL:
                break  # the weights are at their fixed point
            self.model_weights_ = w
            self._fit_em(A, yc, mask)
            T = self.posteriors_
        if not self.families_:  # exactly independent Dawid-Skene
            self.model_weights_ = np.ones(A.shape[1])
            for name in ("confusions_", "prior_", "posteriors_", "labels_",
                         "log_likelihoods_", "n_iter_", "converged_"):
                setattr(self, name, getattr(base, name))
        return self
