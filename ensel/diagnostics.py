"""Checks of the paper's modelling assumptions on real answers.

The paper (Section 3) models the errors ``E_j = 1(X_j != Y)`` of ``m`` models with a
Gaussian copula, ``E_j = 1(Z_j < tau_j)`` with ``Z ~ N(0, Sigma)``, **independent of the
label** ``Y``; Theorem 4.3 adds the label-dependence correction
``Lambda_j(S) = I(E_j; Y | E_S) - I(E_j; Y)`` for data where that fails, and Theorem 4.4
predicts an error floor from a one-factor (equicorrelated) summary of the pool. On data
*generated* by the copula these assumptions hold by construction; this module measures how
well they describe real answers:

* higher-order fit -- the number of models wrong at once and every triple joint error
  probability ``P(E_i, E_j, E_l)``, data vs the fitted copula vs independent errors with the
  same marginals, with a parametric-bootstrap reference for "as close as a sample from the
  copula itself would be" (:func:`higher_order_fit`);
* label invariance -- per-model error rates given ``Y = +1`` and ``Y = -1`` with a test and
  a (question-clustered) bootstrap interval (:func:`label_error_table`), the terms of
  Theorem 4.3 along a selection path (:func:`decomposition_path`) and held-out errors of
  selectors (:func:`heldout_curves`);
* a copula fitted per label vs the pooled one (:func:`per_label_copula_fit`);
* the one-factor summary of Theorem 4.4 next to real curves (:func:`one_factor_summary`,
  :func:`subset_one_factor`, :func:`one_factor_curves`);

Error convention as in :mod:`ensel.copula`: an abstention counts as an error.

Why one module of this size: every check here starts from the same objects (the 0/1 error
matrix of real answers, a fitted copula, a parametric-bootstrap reference drawn from it) and
the modelling page reads them side by side; split, the pieces would pass those around.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd
from scipy import special, stats

from ensel import theory as _theory
from ensel._kernels import answer_digits, label_bits
from ensel._validation import (
    Interval,
    Shown,
    StrOptions,
    check_distribution,
    check_errors,
    check_int,
    check_options,
    check_probabilities,
    check_random_state,
    check_X_y,
    constraint_error,
    validate_params,
)
from ensel.aggregate import MajorityVote, MAPAggregator, heldout_error
from ensel.copula import (
    GaussianCopula,
    average_correlation,
    pairwise_joint_errors,
    simultaneous_error_distribution,
)
from ensel.experiment import heldout_errors
from ensel.info import (
    decomposition_terms,
    decomposition_terms_exact,
    smoothed_mutual_information,
)
from ensel.protocol import PAPER_PROTOCOL

__all__ = [
    "AGGREGATORS",
    "HigherOrderFit",
    "LabelCopulaFit",
    "OneFactorSummary",
    "copula_heldout_curves",
    "decomposition_path",
    "empirical_joint_table",
    "expected_negative_error_rate",
    "heldout_curves",
    "higher_order_fit",
    "independent_count_distribution",
    "independent_triple_joint_errors",
    "label_error_table",
    "one_factor_curves",
    "one_factor_summary",
    "per_label_copula_fit",
    "subset_one_factor",
    "summarise_curves",
    "total_variation",
    "triple_indices",
    "triple_joint_errors",
]

#: Aggregators of the held-out curves by default (plug-in MAP and majority vote).
AGGREGATORS: tuple[str, ...] = ("map", "mv")
#: Declared constraints of the public functions (checked by ``validate_params``).
_ARR = ["array-like"]
_POS = [Interval(Integral, 1, None)]
_RS = ["random_state", None]
_EPS = [Interval(Real, 0, 0.5, closed="neither")]
_NAMES = ["sequence", None]


# --------------------------------------------------------------------------- validation


def _errors_2d(E: Any, name: str = "E") -> np.ndarray:
    Ea = check_errors(E, name=name)
    if Ea.ndim != 2:
        raise constraint_error(name, "2-dimensional (n_items, n_models)",
                               Shown(f"shape {Ea.shape}"))
    return Ea


def _names(E: Any, m: int, names: Sequence[Hashable] | None) -> list[Any]:
    if names is None:
        names = list(E.columns) if isinstance(E, pd.DataFrame) else list(range(m))
    names = list(names)
    if len(names) != m:
        raise constraint_error("names", f"{m} names, one per model", Shown(f"{len(names)}"))
    return names


# --------------------------------------------------------------------------- distributions


@validate_params({"p": _ARR, "q": _ARR})
def total_variation(p: Any, q: Any) -> float:
    """Total variation distance ``0.5 * sum |p - q|`` of two distributions on the same cells.

    Parameters
    ----------
    p, q : array-like of shape (n_cells,)
        Probability vectors (non-negative, summing to 1).

    Returns
    -------
    float
        In ``[0, 1]``.
    """
    a = check_distribution(p, "p")
    b = check_distribution(q, "q")
    if a.shape != b.shape:
        raise constraint_error("q", f"of the same length as p ({a.size})",
                               Shown(f"length {b.size}"))
    return float(0.5 * np.abs(a - b).sum())


@validate_params({"error_rates": _ARR})
def independent_count_distribution(error_rates: Any) -> np.ndarray:
    """Law of the number of errors for independent errors (Poisson-binomial), exact.

    Parameters
    ----------
    error_rates : array-like of shape (m,)
        ``P(E_j = 1)`` of each model.

    Returns
    -------
    numpy.ndarray of shape (m + 1,)
        Entry ``c`` is ``P(sum_j E_j = c)`` when the ``E_j`` are independent.
    """
    rates = check_probabilities(error_rates, "error_rates")
    pmf = np.array([1.0])
    for r in rates:
        pmf = np.convolve(pmf, [1.0 - r, r])
    return pmf


@validate_params({"m": [Interval(Integral, 0, None)]})
def triple_indices(m: int) -> np.ndarray:
    """All triples ``i < j < l`` of ``range(m)`` in lexicographic order, shape (C(m,3), 3)."""
    m = check_int(m, "m", low=3)
    i, j, k = np.meshgrid(np.arange(m), np.arange(m), np.arange(m), indexing="ij")
    keep = (i < j) & (j < k)
    return np.column_stack([i[keep], j[keep], k[keep]])


@validate_params({"E": _ARR})
def triple_joint_errors(E: Any) -> np.ndarray:
    """Empirical ``P(E_i = 1, E_j = 1, E_l = 1)`` for every triple ``i < j < l``.

    Parameters
    ----------
    E : array-like of shape (n_items, n_models)
        0/1 error indicators (``m >= 3``).

    Returns
    -------
    numpy.ndarray of shape (C(m, 3),)
        In :func:`triple_indices` order.
    """
    Ea = _errors_2d(E)
    n, m = Ea.shape
    T = triple_indices(m)
    # each model's errors as bits, 64 items a word: a triple's joint count is the number of
    # bits set in the AND of its three rows (exact integers, as a float product gives them)
    packed = np.packbits(Ea.T.astype(bool), axis=1)
    W = np.ascontiguousarray(np.pad(packed, ((0, 0), (0, -packed.shape[1] % 8))))
    W = W.view(np.uint64)
    out = np.empty(len(T))
    for i in range(m - 2):
        rows = np.flatnonzero(T[:, 0] == i)
        both = W[i] & W[T[rows, 1]] & W[T[rows, 2]]
        out[rows] = np.bitwise_count(both).sum(axis=1, dtype=np.int64) / n
    return out


@validate_params({"error_rates": _ARR})
def independent_triple_joint_errors(error_rates: Any) -> np.ndarray:
    """``eps_i eps_j eps_l`` for every triple (independent errors), :func:`triple_indices` order."""
    rates = check_probabilities(error_rates, "error_rates")
    T = triple_indices(rates.size)
    return rates[T].prod(axis=1)


# --------------------------------------------------------------------------- higher-order fit


def _triple_table(T: np.ndarray, names: Sequence[Any]) -> dict[str, list[Any]]:
    return {"model_i": [names[i] for i in T[:, 0]], "model_j": [names[j] for j in T[:, 1]],
            "model_l": [names[k] for k in T[:, 2]]}


@dataclass(frozen=True)
class HigherOrderFit:
    """Data vs Gaussian copula vs independent errors, beyond the pairs the fit targets.

    Attributes
    ----------
    counts : pandas.DataFrame
        One row per ``n_errors`` in ``0..m``: ``empirical``, ``copula`` (Monte Carlo from the
        fitted copula), ``independent`` (exact Poisson-binomial with the same marginals) and
        ``z`` = ``(empirical - copula) / sqrt(copula (1 - copula) / n)``, the miss in units of
        the sampling standard error of ``n`` items.
    triples : pandas.DataFrame
        One row per triple: ``model_i, model_j, model_l, empirical, copula, independent``.
    tv_copula, tv_independent : float
        Total variation between the data's and each model's count distribution.
    triple_mae_copula, triple_mae_independent : float
        Mean absolute error over all triple joint error probabilities.
    reference_tv, reference_triple_mae : numpy.ndarray
        The same two statistics for data sets of ``n`` items drawn **from the fitted copula
        itself**, each refitted and compared with a fresh Monte Carlo sample of its refit
        (parametric bootstrap): what a perfect copula model would show.
    copula : GaussianCopula
        The fit to the data.
    n_items, n_samples : int
    """

    counts: pd.DataFrame
    triples: pd.DataFrame
    tv_copula: float
    tv_independent: float
    triple_mae_copula: float
    triple_mae_independent: float
    reference_tv: np.ndarray
    reference_triple_mae: np.ndarray
    copula: GaussianCopula
    n_items: int
    n_samples: int


def _reference(cop: GaussianCopula, n: int, n_samples: int, n_reference: int, eps: float,
               rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    tvs = np.empty(n_reference)
    maes = np.empty(n_reference)
    for r in range(n_reference):
        Er = cop.sample_errors(n, random_state=rng)
        refit = GaussianCopula(eps=eps).fit(Er)
        Es = refit.sample_errors(n_samples, random_state=rng)
        tvs[r] = total_variation(simultaneous_error_distribution(Er),
                                 simultaneous_error_distribution(Es))
        maes[r] = float(np.abs(triple_joint_errors(Er) - triple_joint_errors(Es)).mean())
    return tvs, maes


@validate_params({"E": _ARR, "n_samples": _POS, "n_reference": [Interval(Integral, 0, None)],
                  "random_state": _RS, "eps": _EPS, "names": _NAMES})
def higher_order_fit(E: Any, *, n_samples: int = 200_000, n_reference: int = 20,
                     random_state: int | np.random.Generator | None = None,
                     eps: float = 1e-6, names: Sequence[Hashable] | None = None
                     ) -> HigherOrderFit:
    """Fit the Gaussian copula and compare higher-order error statistics three ways.

    Parameters
    ----------
    E : array-like or pandas.DataFrame of shape (n_items, n_models)
        0/1 error indicators (``m >= 3``); DataFrame columns name the models.
    n_samples : int, default=200_000
        Monte Carlo sample size from the fitted copula.
    n_reference : int, default=20
        Parametric-bootstrap replicates for the reference (``0`` skips it).
    random_state : int, numpy.random.Generator or None
        Seed of every sample.
    eps : float, default=1e-6
        Clamp of the copula fit (see :class:`ensel.copula.GaussianCopula`).
    names : sequence, optional
        Model names (default: DataFrame columns or column indices).

    Returns
    -------
    HigherOrderFit
    """
    Ea = _errors_2d(E)
    n, m = Ea.shape
    if m < 3:
        raise constraint_error("E", "of at least 3 models (columns) for triples",
                               Shown(f"{m} models"))
    nm = _names(E, m, names)
    n_samples = check_int(n_samples, "n_samples", low=1)
    n_reference = check_int(n_reference, "n_reference", low=0)
    rng = check_random_state(random_state)
    cop = GaussianCopula(eps=eps).fit(Ea)
    Es = cop.sample_errors(n_samples, random_state=rng)
    emp = simultaneous_error_distribution(Ea)
    syn = simultaneous_error_distribution(Es)
    ind = independent_count_distribution(cop.error_rates_)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (emp - syn) / np.sqrt(syn * (1.0 - syn) / n)
    counts = pd.DataFrame({"n_errors": np.arange(m + 1), "empirical": emp, "copula": syn,
                           "independent": ind, "z": z})
    T = triple_indices(m)
    t_emp = triple_joint_errors(Ea)
    t_cop = triple_joint_errors(Es)
    t_ind = independent_triple_joint_errors(cop.error_rates_)
    triples = pd.DataFrame({**_triple_table(T, nm), "empirical": t_emp, "copula": t_cop,
                            "independent": t_ind})
    ref_tv, ref_mae = _reference(cop, n, n_samples, n_reference, eps, rng)
    return HigherOrderFit(
        counts=counts, triples=triples,
        tv_copula=total_variation(emp, syn), tv_independent=total_variation(emp, ind),
        triple_mae_copula=float(np.abs(t_emp - t_cop).mean()),
        triple_mae_independent=float(np.abs(t_emp - t_ind).mean()),
        reference_tv=ref_tv, reference_triple_mae=ref_mae, copula=cop,
        n_items=n, n_samples=n_samples)


# --------------------------------------------------------------------------- label invariance


def _group_codes(groups: Any, n: int) -> np.ndarray:
    g = np.asarray(groups.to_numpy() if hasattr(groups, "to_numpy") else groups)
    if g.ndim != 1 or g.shape[0] != n:
        raise constraint_error("groups", f"1-dimensional with one entry per item ({n})",
                               Shown(f"shape {g.shape}"))
    codes, _ = pd.factorize(g)
    if (codes < 0).any():
        raise constraint_error("groups", "free of missing values",
                               Shown(f"a missing value at position {int(np.argmax(codes < 0))}"))
    return codes


def _chi2_p(err_pos: int, n_pos: int, err_neg: int, n_neg: int) -> tuple[float, float, float]:
    table = np.array([[err_pos, n_pos - err_pos], [err_neg, n_neg - err_neg]], dtype=float)
    if (table.sum(axis=0) == 0).any():  # a constant error column: no evidence either way
        return 0.0, 1.0, 0.0
    chi2, p, _, _ = stats.chi2_contingency(table, correction=False)
    # one degree of freedom: p = 2 Phi(-sqrt(chi2)); log_ndtr stays finite where p underflows
    log10_p = (np.log(2.0) + special.log_ndtr(-np.sqrt(chi2))) / np.log(10.0)
    return float(chi2), float(p), float(log10_p)


@validate_params({"X": _ARR, "y": _ARR, "groups": [*_ARR, None], "n_boot": _POS,
                  "confidence": [Interval(Real, 0, 1, closed="neither")], "random_state": _RS,
                  "names": _NAMES})
def label_error_table(X: Any, y: Any, *, groups: Any = None, n_boot: int = 1000,
                      confidence: float = 0.95,
                      random_state: int | np.random.Generator | None = None,
                      names: Sequence[Hashable] | None = None) -> pd.DataFrame:
    """Per-model error rates given ``Y = +1`` and ``Y = -1``, with a test of independence.

    Parameters
    ----------
    X : array-like or pandas.DataFrame of shape (n_items, n_models)
        Answers in ``{-1, 0, +1}`` (an abstention is an error).
    y : array-like of shape (n_items,)
        Labels in ``{-1, +1}``; both classes must be present.
    groups : array-like of shape (n_items,), optional
        Cluster of each item (e.g. the multiple-choice question a binary query came from).
        The bootstrap then resamples whole groups, which keeps dependent items together,
        and the table reports per model how many groups have an error on a negative item
        but none on a positive one (``neg_without_pos``).
    n_boot : int, default=1000
        Bootstrap replicates of the difference of error rates.
    confidence : float, default=0.95
        Level of the percentile interval.
    random_state : int, numpy.random.Generator or None
        Seed of the bootstrap.
    names : sequence, optional
        Model names (default: DataFrame columns or column indices).

    Returns
    -------
    pandas.DataFrame
        Indexed by model: ``error_pos``, ``error_neg``, ``difference`` (pos - neg),
        ``ci_low``, ``ci_high`` (bootstrap percentile interval of the difference), ``chi2`` and
        ``p_value`` (Pearson chi-square test of independence of ``E_j`` and ``Y`` on the 2x2
        table, no continuity correction; it treats items as independent), ``log10_p``
        (``log10`` of the p-value, finite where ``p_value`` underflows to 0),
        ``mi_error_label`` (smoothed ``I(E_j; Y)`` in bits, 0 under label invariance), ``n_pos``,
        ``n_neg`` and, with ``groups``, ``neg_without_pos``.
    """
    Xa, ya = check_X_y(X, y, require_both_classes=True)
    n, m = Xa.shape
    nm = _names(X, m, names)
    n_boot = check_int(n_boot, "n_boot", low=1)
    rng = check_random_state(random_state)
    E = (Xa != ya[:, None]).astype(np.float64)
    pos = ya == 1
    codes = _group_codes(groups, n) if groups is not None else np.arange(n)
    G = int(codes.max()) + 1
    # per-group sums: errors on positives / negatives and their counts
    Ep = np.zeros((G, m))
    En = np.zeros((G, m))
    np.add.at(Ep, codes[pos], E[pos])
    np.add.at(En, codes[~pos], E[~pos])
    Np = np.bincount(codes[pos], minlength=G).astype(float)
    Nn = np.bincount(codes[~pos], minlength=G).astype(float)
    W = rng.multinomial(G, np.full(G, 1.0 / G), size=n_boot).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        boot = (W @ Ep) / (W @ Np)[:, None] - (W @ En) / (W @ Nn)[:, None]
    boot = boot[np.isfinite(boot).all(axis=1)]
    a = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(boot, [a, 1.0 - a], axis=0)
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    err_pos = E[pos].sum(axis=0)
    err_neg = E[~pos].sum(axis=0)
    tests = [_chi2_p(int(err_pos[j]), n_pos, int(err_neg[j]), n_neg) for j in range(m)]
    yc = label_bits(ya)
    mi = [smoothed_mutual_information(E[:, j].astype(np.int64), yc, size_a=2, size_b=2)
          for j in range(m)]
    out = pd.DataFrame({
        "error_pos": err_pos / n_pos, "error_neg": err_neg / n_neg,
        "difference": err_pos / n_pos - err_neg / n_neg,
        "ci_low": lo, "ci_high": hi,
        "chi2": [t[0] for t in tests], "p_value": [t[1] for t in tests],
        "log10_p": [t[2] for t in tests],
        "mi_error_label": mi, "n_pos": n_pos, "n_neg": n_neg,
    }, index=pd.Index(nm, name="model"))
    if groups is not None:
        out["neg_without_pos"] = ((En > 0) & (Ep == 0)).sum(axis=0).astype(int)
    return out


@validate_params({"wrong": _ARR, "abstained": _ARR, "n_options": _ARR})
def expected_negative_error_rate(wrong: Any, abstained: Any, n_options: Any) -> float:
    """Negative-query error rate if a model's wrong picks were uniform over the distractors.

    In the paper's binary conversion a negative query asks about one random wrong option;
    the model errs on it iff it picked that option (or abstained, counted as an error).
    If a wrong pick is uniform over the ``n_options - 1`` wrong options, the chance of
    hitting the queried one is ``1 / (n_options - 1)``.

    Parameters
    ----------
    wrong : array-like of bool, shape (n_questions,)
        The model picked a wrong option (not abstained).
    abstained : array-like of bool, shape (n_questions,)
        The model gave no answer.
    n_options : array-like of int, shape (n_questions,)
        Number of options of each question (``>= 2``).

    Returns
    -------
    float
        ``mean(abstained + wrong / (n_options - 1))``.
    """
    w = np.asarray(wrong, dtype=bool)
    a = np.asarray(abstained, dtype=bool)
    k = np.asarray(n_options)
    if not (w.ndim == a.ndim == k.ndim == 1) or not (w.shape == a.shape == k.shape):
        raise constraint_error("wrong, abstained, n_options", "1-dimensional of equal length",
                               Shown(f"shapes {w.shape}, {a.shape}, {k.shape}"))
    if w.size == 0:
        raise constraint_error("wrong", "non-empty (at least one question)", Shown("none"))
    if (k < 2).any():
        raise constraint_error("n_options", "at least 2 for every question", int(k.min()))
    if (w & a).any():
        raise constraint_error("abstained", "False where wrong is True (a question cannot be "
                               "both)", Shown(f"both at question {int(np.argmax(w & a))}"))
    return float(np.mean(a + w / (k - 1.0)))


@validate_params({"X": _ARR, "y": _ARR})
def empirical_joint_table(X: Any, y: Any) -> np.ndarray:
    """Empirical joint law of ``(Y, X_1, ..., X_m)`` as a probability table.

    Parameters
    ----------
    X : array-like of shape (n_items, n_models)
        Answers in ``{-1, +1}`` (no abstentions), ``m <= 20``.
    y : array-like of shape (n_items,)
        Labels in ``{-1, +1}``.

    Returns
    -------
    numpy.ndarray of shape (2,) * (m + 1)
        Axis 0 is ``Y``, axis ``1 + j`` is model ``j``; index 0 = ``-1``, 1 = ``+1`` (the
        layout of :func:`ensel.info.decomposition_terms_exact`).
    """
    Xa, ya = check_X_y(X, y)
    m = Xa.shape[1]
    if (Xa == 0).any():
        j = int(np.argmax((Xa == 0).any(axis=0)))
        raise constraint_error("X", "answers in {-1, +1} (map abstentions first, e.g. to -1)",
                               Shown(f"an abstention (0) in column {j}"))
    if m > 20:
        raise constraint_error("X", "of at most 20 models (the joint table has 2^(m+1) cells)",
                               Shown(f"{m} models"))
    bits = np.column_stack([label_bits(ya), answer_digits(Xa)])  # no abstention: 0/1
    # C order: axis 0 (Y) is the most significant digit
    weights = 1 << np.arange(m, -1, -1, dtype=np.int64)
    counts = np.bincount(bits @ weights, minlength=1 << (m + 1))
    return (counts / Xa.shape[0]).reshape((2,) * (m + 1))


@validate_params({"X": _ARR, "y": _ARR, "order": ["iterable"],
                  "estimator": [StrOptions(["smoothed", "plugin"])],
                  "alpha": [Interval(Real, 0, None, closed="neither")], "names": _NAMES})
def decomposition_path(X: Any, y: Any, order: Sequence[int], *, estimator: str = "smoothed",
                       alpha: float = 1.0,
                       names: Sequence[Hashable] | None = None) -> pd.DataFrame:
    """Theorem 4.3 terms of each pick along a selection order.

    Row ``t`` holds the terms for candidate ``order[t]`` given ``S = order[:t]``.

    Parameters
    ----------
    X, y : answers and labels
    order : sequence of int
        Column indices in pick order (distinct).
    estimator : {"smoothed", "plugin"}, default="smoothed"
        ``"smoothed"``: the paper's add-``alpha`` estimators
        (:func:`ensel.info.decomposition_terms`). ``"plugin"``: the exact terms of the
        empirical joint law (:func:`empirical_joint_table` and
        :func:`ensel.info.decomposition_terms_exact`); needs answers in ``{-1, +1}`` and
        makes the identity of Theorem 4.3 exact, so ``correction`` is exactly the gap
        between ``delta`` and Eq. (10).
    alpha : float, default=1.0
        Laplace pseudo-count (``"smoothed"`` only).
    names : sequence, optional
        Model names.

    Returns
    -------
    pandas.DataFrame
        Columns ``step`` (1-based), ``model``, ``relevance``, ``redundancy``,
        ``error_correlation``, ``correction`` (``Lambda_j(S)``), ``delta``
        (``I(Y; X_j | X_S)``), ``three_term`` (Eq. (10)) and ``residual``
        (``delta - three_term - correction``; 0 for exact laws without abstentions).
    """
    Xa, ya = check_X_y(X, y, require_both_classes=True)
    m = Xa.shape[1]
    nm = _names(X, m, names)
    order = [int(j) for j in order]
    if len(set(order)) != len(order):
        raise constraint_error("order", "distinct models (no repeats)", order)
    if any(j < 0 or j >= m for j in order):
        raise constraint_error("order", f"column indices in [0, {m - 1}]", order)
    table = empirical_joint_table(Xa, ya) if estimator == "plugin" else None
    rows = []
    for t, j in enumerate(order):
        if table is None:
            d = decomposition_terms(Xa, ya, j, order[:t], alpha=alpha)
        else:
            d = decomposition_terms_exact(table, j, order[:t])
        rows.append({"step": t + 1, "model": nm[j], "relevance": d.relevance,
                     "redundancy": d.redundancy, "error_correlation": d.error_correlation,
                     "correction": d.correction, "delta": d.delta,
                     "three_term": d.three_term,
                     "residual": d.delta - d.three_term - d.correction})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- held-out curves


@validate_params({"X": _ARR, "y": _ARR, "selectors": ["iterable"], "aggregators": ["iterable"],
                  "ks": ["iterable", None], "n_splits": _POS,
                  "test_fraction": [Interval(Real, 0, 1, closed="neither")],
                  "seed": [Interval(Integral, 0, None)], "condition": [Hashable]})
def heldout_curves(X: Any, y: Any, *, selectors: Sequence[str] = ("topk", "greedy_mi"),
                   aggregators: Sequence[str] = AGGREGATORS, ks: Sequence[int] | None = None,
                   n_splits: int = PAPER_PROTOCOL.n_splits,
                   test_fraction: float = PAPER_PROTOCOL.test_fraction,
                   seed: int = PAPER_PROTOCOL.seed,
                   condition: Hashable = "all") -> pd.DataFrame:
    """Held-out error of nested selections on seeded train/test splits.

    A view of :func:`ensel.experiment.heldout_errors` (the one held-out loop: the same
    splits and the same error, a tie counting half, as :func:`ensel.experiment.evaluate`)
    with the column indices of the picks in ``selected``.

    Parameters
    ----------
    X, y : answers and labels (both classes present)
    selectors : sequence of str
        Names in :data:`ensel.select.SELECTORS`.
    aggregators : sequence of str
        ``"map"`` (plug-in MAP, add-one) and/or ``"mv"`` (majority vote, seeded ties).
    ks : sequence of int, optional
        Budgets (default ``1..m``).
    n_splits : int, default=5
    test_fraction : float, default=0.2
    seed : int, default=0
    condition : hashable, default="all"
        Enters the split seed (as in :func:`ensel.experiment.evaluate`).

    Returns
    -------
    pandas.DataFrame
        Columns ``split, selector, aggregator, k, error, selected`` (``selected`` is the
        ``'|'``-joined column indices of the first ``k`` picks).
    """
    Xa, ya = check_X_y(X, y, require_both_classes=True)
    from ensel.protocol import Protocol

    errs = heldout_errors(Xa, ya, ks=ks, protocol=Protocol(n_splits=n_splits,
                                                           test_fraction=test_fraction,
                                                           seed=seed),
                          condition=condition, selectors=selectors, aggregators=aggregators)
    return errs[["split", "selector", "aggregator", "k", "error", "selected"]]


@validate_params({"curves": [pd.DataFrame]})
def summarise_curves(curves: pd.DataFrame) -> pd.DataFrame:
    """Mean, std (ddof=1), standard error and count of ``error`` per selector, aggregator, k."""
    need = {"selector", "aggregator", "k", "error"}
    if not need <= set(curves.columns):
        raise constraint_error("curves", f"a table with columns {sorted(need)}",
                               Shown(f"columns {list(curves.columns)}"))
    g = curves.groupby(["selector", "aggregator", "k"], sort=True)["error"]
    out = g.agg(mean="mean", std="std", n="count").reset_index()
    out["std"] = out["std"].fillna(0.0)
    out["se"] = out["std"] / np.sqrt(out["n"])
    return out


def _copula_sample(copulas: GaussianCopula | dict[int, GaussianCopula], n: int,
                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    y = rng.permutation(np.where(np.arange(n) < (n + 1) // 2, 1, -1).astype(np.int8))
    if isinstance(copulas, GaussianCopula):
        E = copulas.sample_errors(n, random_state=rng)
    else:
        E = np.empty((n, copulas[1].n_models_), dtype=np.int8)
        for lab in (1, -1):
            rows = np.flatnonzero(y == lab)
            E[rows] = copulas[lab].sample_errors(rows.size, random_state=rng)
    return (y[:, None] * (1 - 2 * E)).astype(np.int8), y


@validate_params({"copulas": [GaussianCopula, dict], "orders": [dict],
                  "n_train": [Interval(Integral, 2, None)], "n_test": _POS,
                  "ks": ["iterable", None], "aggregators": ["iterable"], "n_reps": _POS,
                  "random_state": _RS})
def copula_heldout_curves(copulas: GaussianCopula | dict[int, GaussianCopula],
                          orders: dict[str, Sequence[int]], *, n_train: int,
                          n_test: int = 100_000, ks: Sequence[int] | None = None,
                          aggregators: Sequence[str] = AGGREGATORS, n_reps: int = 1,
                          random_state: int | np.random.Generator | None = None) -> pd.DataFrame:
    """Held-out error the copula model predicts for fixed selection orders.

    Draws a balanced training set of ``n_train`` items and a test set of ``n_test`` items
    from the model, fits each aggregator on the training set (so the prediction includes
    the estimation error of a MAP table fitted on as many items as the real data) and
    scores it on the test set (a tie counting as half an error,
    :func:`ensel.aggregate.heldout_error`).

    Parameters
    ----------
    copulas : GaussianCopula or dict
        A fitted copula (errors independent of the label) or ``{1: copula, -1: copula}``
        (errors drawn from the copula of the item's label).
    orders : dict
        Name -> column indices in pick order.
    n_train, n_test : int
        Sample sizes.
    ks : sequence of int, optional
        Budgets (default ``1..len(order)``).
    aggregators : sequence of str
        ``"map"`` and/or ``"mv"``.
    n_reps : int, default=1
        Independent repetitions (fresh train and test sets).
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    pandas.DataFrame
        Columns ``rep, selector, aggregator, k, error``.
    """
    if not isinstance(copulas, GaussianCopula) and set(copulas) != {1, -1}:
        raise constraint_error("copulas", "a GaussianCopula or a dict with keys 1 and -1",
                               Shown(f"keys {sorted(copulas)}"))
    for c in [copulas] if isinstance(copulas, GaussianCopula) else copulas.values():
        if not hasattr(c, "Sigma_"):
            raise constraint_error("copulas", "fitted (call GaussianCopula().fit(E) first)",
                                   Shown("an unfitted GaussianCopula"))
    if isinstance(copulas, GaussianCopula):
        m = copulas.n_models_
    else:
        m = copulas[1].n_models_
        if copulas[-1].n_models_ != m:
            raise constraint_error("copulas", "two per-label copulas of the same models",
                                   Shown(f"{m} and {copulas[-1].n_models_} models"))
    n_train = check_int(n_train, "n_train", low=2)
    n_test = check_int(n_test, "n_test", low=1)
    n_reps = check_int(n_reps, "n_reps", low=1)
    check_options(aggregators, "aggregators", list(AGGREGATORS))
    for name, order in orders.items():
        if len(set(order)) != len(order) or any(j < 0 or j >= m for j in order):
            raise constraint_error(f"orders[{name!r}]",
                                   f"distinct column indices in [0, {m - 1}]", order)
    rng = check_random_state(random_state)
    rows = []
    for rep in range(n_reps):
        Xtr, ytr = _copula_sample(copulas, n_train, rng)
        Xte, yte = _copula_sample(copulas, n_test, rng)
        for name, order in orders.items():
            kk = list(range(1, len(order) + 1)) if ks is None else [int(k) for k in ks]
            for k in kk:
                cols = list(order[:k])
                for a in aggregators:
                    agg = (MAPAggregator(alpha=1.0) if a == "map"
                           else MajorityVote(random_state=rng))
                    agg.fit(Xtr[:, cols], ytr)
                    rows.append({"rep": rep, "selector": name, "aggregator": a, "k": k,
                                 "error": heldout_error(agg, Xte[:, cols], yte)})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- per-label copula


@dataclass(frozen=True)
class LabelCopulaFit:
    """A copula fitted per label vs the pooled, label-blind one.

    Attributes
    ----------
    counts : pandas.DataFrame
        One row per (``label``, ``n_errors``): ``empirical`` (among items with that label),
        ``pooled`` (the pooled copula, the same law for both labels) and ``per_label``.
    summary : pandas.DataFrame
        Indexed by label: ``n``, ``tv_pooled``, ``tv_per_label`` (total variation of the
        count distribution), ``reference_tv`` (mean over a parametric bootstrap of the
        per-label copula: the distance a perfect model would show at this ``n``),
        ``pair_mae_pooled``, ``pair_mae_per_label`` (mean absolute error of the pairwise
        joint error probabilities given the label), ``triple_mae_pooled``,
        ``triple_mae_per_label``.
    tv_overall_pooled, tv_overall_mixture : float
        Total variation between the count distribution of **all** items and, respectively,
        the pooled copula's and the label-frequency mixture of the per-label copulas'.
    pooled : GaussianCopula
    per_label : dict
        ``{-1: GaussianCopula, 1: GaussianCopula}``.
    """

    counts: pd.DataFrame
    summary: pd.DataFrame
    tv_overall_pooled: float
    tv_overall_mixture: float
    pooled: GaussianCopula
    per_label: dict[int, GaussianCopula]


@validate_params({"E": _ARR, "y": _ARR, "n_samples": _POS,
                  "n_reference": [Interval(Integral, 0, None)], "random_state": _RS,
                  "eps": _EPS})
def per_label_copula_fit(E: Any, y: Any, *, n_samples: int = 200_000, n_reference: int = 10,
                         random_state: int | np.random.Generator | None = None,
                         eps: float = 1e-6) -> LabelCopulaFit:
    """Fit one Gaussian copula per label and compare it with the pooled copula.

    Parameters
    ----------
    E : array-like of shape (n_items, n_models)
        0/1 error indicators (``m >= 3``).
    y : array-like of shape (n_items,)
        Labels in ``{-1, +1}``, both present.
    n_samples : int, default=200_000
        Monte Carlo sample size per copula.
    n_reference : int, default=10
        Parametric-bootstrap replicates of the per-label reference distance (``0`` skips).
    random_state : int, numpy.random.Generator or None
    eps : float, default=1e-6

    Returns
    -------
    LabelCopulaFit
    """
    Ea = _errors_2d(E)
    n, m = Ea.shape
    if m < 3:
        raise constraint_error("E", "of at least 3 models (columns)", Shown(f"{m} models"))
    _, ya = check_X_y(np.ones((n, 1), dtype=np.int8), y, require_both_classes=True)
    n_samples = check_int(n_samples, "n_samples", low=1)
    n_reference = check_int(n_reference, "n_reference", low=0)
    rng = check_random_state(random_state)
    pooled = GaussianCopula(eps=eps).fit(Ea)
    Ep = pooled.sample_errors(n_samples, random_state=rng)
    cnt_p = simultaneous_error_distribution(Ep)
    pair_p = pairwise_joint_errors(Ep)
    tri_p = triple_joint_errors(Ep)
    per: dict[int, GaussianCopula] = {}
    mixture = np.zeros(m + 1)
    count_rows = []
    summary_rows = []
    for lab in (1, -1):
        El = Ea[ya == lab]
        cop = GaussianCopula(eps=eps).fit(El)
        per[lab] = cop
        Es = cop.sample_errors(n_samples, random_state=rng)
        emp = simultaneous_error_distribution(El)
        cnt_l = simultaneous_error_distribution(Es)
        mixture += cnt_l * El.shape[0] / n
        count_rows.append(pd.DataFrame({"label": lab, "n_errors": np.arange(m + 1),
                                        "empirical": emp, "pooled": cnt_p,
                                        "per_label": cnt_l}))
        ref, _ = _reference(cop, El.shape[0], n_samples // 4 or 1, n_reference, eps, rng)
        pair_e = pairwise_joint_errors(El)
        tri_e = triple_joint_errors(El)
        summary_rows.append({
            "label": lab, "n": int(El.shape[0]),
            "tv_pooled": total_variation(emp, cnt_p),
            "tv_per_label": total_variation(emp, cnt_l),
            "reference_tv": float(ref.mean()) if ref.size else float("nan"),
            "pair_mae_pooled": float(np.abs(pair_e - pair_p).mean()),
            "pair_mae_per_label": float(np.abs(pair_e - pairwise_joint_errors(Es)).mean()),
            "triple_mae_pooled": float(np.abs(tri_e - tri_p).mean()),
            "triple_mae_per_label": float(np.abs(tri_e - triple_joint_errors(Es)).mean()),
        })
    overall = simultaneous_error_distribution(Ea)
    return LabelCopulaFit(counts=pd.concat(count_rows, ignore_index=True),
                          summary=pd.DataFrame(summary_rows).set_index("label"),
                          tv_overall_pooled=total_variation(overall, cnt_p),
                          tv_overall_mixture=total_variation(overall, mixture),
                          pooled=pooled, per_label=per)


# --------------------------------------------------------------------------- one-factor summary


@dataclass(frozen=True)
class OneFactorSummary:
    """The equicorrelated summary of a pool used by Theorem 4.4.

    Attributes
    ----------
    accuracy : float
        Mean accuracy ``alpha`` of the models (abstention = error).
    rho : float
        Mean off-diagonal entry of the fitted copula correlation matrix.
    floor : float
        ``saturation_floor(accuracy, rho)`` (``nan`` when ``accuracy <= 1/2``).
    """

    accuracy: float
    rho: float
    floor: float


@validate_params({"error_rates": _ARR, "Sigma": _ARR})
def one_factor_summary(error_rates: Any, Sigma: Any) -> OneFactorSummary:
    """Mean accuracy, mean latent correlation and the Theorem 4.4 floor of a pool.

    Parameters
    ----------
    error_rates : array-like of shape (m,)
        Error rates of the models (e.g. ``GaussianCopula.error_rates_``).
    Sigma : array-like of shape (m, m)
        Fitted copula correlation matrix (``m >= 2``).

    Returns
    -------
    OneFactorSummary
    """
    rates = check_probabilities(error_rates, "error_rates")
    S = np.asarray(Sigma, dtype=float)
    m = rates.size
    if m < 2 or S.shape != (m, m):
        raise constraint_error("Sigma", f"of shape ({m}, {m}) with m >= 2 to match error_rates",
                               Shown(f"shape {S.shape}"))
    acc = float(1.0 - rates.mean())
    rho = float(average_correlation(S))
    floor = _theory.saturation_floor(acc, max(rho, 0.0)) if acc > 0.5 else float("nan")
    return OneFactorSummary(accuracy=acc, rho=rho, floor=float(floor))


@validate_params({"error_rates": _ARR, "Sigma": _ARR, "order": ["iterable"]})
def subset_one_factor(error_rates: Any, Sigma: Any, order: Sequence[int]) -> pd.DataFrame:
    """Equicorrelated summary of each prefix ``order[:k]`` of a selection order.

    Returns
    -------
    pandas.DataFrame
        Columns ``k``, ``accuracy`` (mean over the prefix) and ``rho`` (mean off-diagonal
        ``Sigma`` over the prefix; ``nan`` for ``k = 1``, where it does not matter).
    """
    rates = check_probabilities(error_rates, "error_rates")
    S = np.asarray(Sigma, dtype=float)
    m = rates.size
    if S.shape != (m, m):
        raise constraint_error("Sigma", f"of shape ({m}, {m}) to match error_rates",
                               Shown(f"shape {S.shape}"))
    order = [int(j) for j in order]
    if len(set(order)) != len(order) or any(j < 0 or j >= m for j in order):
        raise constraint_error("order", f"distinct column indices in [0, {m - 1}]", order)
    rows = []
    for k in range(1, len(order) + 1):
        cols = order[:k]
        sub = S[np.ix_(cols, cols)]
        rho = float(average_correlation(sub))
        rows.append({"k": k, "accuracy": float(1.0 - rates[cols].mean()), "rho": rho})
    return pd.DataFrame(rows)


@validate_params({"accuracy": [*_ARR, "real"], "rho": [*_ARR, "real"], "ks": ["iterable"],
                  "rules": ["iterable"]})
def one_factor_curves(accuracy: Any, rho: Any, ks: Sequence[int], *,
                      rules: Sequence[str] = ("map", "majority")) -> pd.DataFrame:
    """Exact ensemble error of ``k`` equicorrelated equal-accuracy models (Theorem 4.4 model).

    Parameters
    ----------
    accuracy, rho : float or array-like of shape (len(ks),)
        A common value, or one per budget (e.g. from :func:`subset_one_factor`). ``rho`` is
        clipped to ``[0, 1]``; a ``nan`` ``rho`` is only allowed at ``k = 1``.
    ks : sequence of int
        Budgets.
    rules : sequence of str
        ``"map"`` and/or ``"majority"`` (:func:`ensel.theory.ensemble_error`).

    Returns
    -------
    pandas.DataFrame
        Columns ``k``, ``rule``, ``accuracy``, ``rho``, ``error``.
    """
    ks = [check_int(k, "ks", low=1) for k in ks]
    if not ks:
        raise constraint_error("ks", "a non-empty list of budgets", ks)
    acc = np.broadcast_to(np.asarray(accuracy, dtype=float), (len(ks),))
    rr = np.broadcast_to(np.asarray(rho, dtype=float), (len(ks),))
    rows = []
    for k, a, r in zip(ks, acc, rr, strict=True):
        if np.isnan(r):
            if k != 1:
                raise constraint_error("rho", f"defined (not NaN) at k={k} > 1", float(r))
            r = 0.0
        r = float(np.clip(r, 0.0, 1.0))
        for rule in rules:
            rows.append({"k": k, "rule": rule, "accuracy": float(a), "rho": r,
                         "error": _theory.ensemble_error(float(a), r, k, rule=rule)})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- verdicts
