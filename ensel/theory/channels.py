"""Theorem 4.1: under independent errors each model is a binary symmetric channel, and Top-k is
MI- and error-optimal (Lemma A.3: a weaker BSC is a degraded version of a stronger one).

* :func:`binary_entropy`, :func:`bsc_capacity` -- ``h(p)`` and ``1 - h(eps)`` in bits;
* :func:`bsc_degradation_delta` -- the flip rate that turns the stronger channel into the weaker;
* :func:`sample_degradation_chain`, :func:`flip_rate_table` -- a seeded simulation of the
  Markov chain ``Y -> X_strong -> X_weak`` (Lemma A.3, Example A.1);
* :func:`subset_table`, :func:`top_k_dominance` -- exact ``I(Y; X_S)`` and MAP error of every
  subset of size ``k``, and whether the top-k subset attains the optimum;
* :func:`asymmetric_joint_law`, :func:`asymmetric_top_k_regret`,
  :func:`asymmetric_regret_study` -- beyond the theorem: independent models whose error rate
  depends on the class (``eps_pos != eps_neg``), where Top-k by accuracy can lose (the paper's
  Remark 4.2 attributes Top-k's failures to correlation alone).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd

from ensel._validation import Shown, check_k, check_random_state, constraint_error, validate_params
from ensel.theory._common import (
    ARR,
    ARR_OR_REAL,
    POS_INT,
    PRIOR,
    RATE,
    REAL,
    SEED,
    TOL,
    _check_joint_table,
    _check_prior,
    _check_rates,
    _real,
)
from ensel.theory.joint import (
    independent_joint_law,
    joint_law_from_error_laws,
    map_error,
    mutual_information_xy,
    product_error_law,
)

__all__ = [
    "asymmetric_joint_law",
    "asymmetric_regret_study",
    "asymmetric_top_k_regret",
    "binary_entropy",
    "bsc_capacity",
    "bsc_degradation_delta",
    "flip_rate_table",
    "sample_degradation_chain",
    "subset_table",
    "top_k_dominance",
]


# ---------------------------------------------------------------------------
# Theorem 4.1: BSCs, joint laws and the MAP error on tables
# ---------------------------------------------------------------------------


@validate_params({"eps_strong": REAL, "eps_weak": REAL})
def bsc_degradation_delta(eps_strong: float, eps_weak: float) -> float:
    """Crossover of the BSC that degrades ``BSC(eps_strong)`` into ``BSC(eps_weak)``.

    Lemma A.3: cascading ``BSC(eps_strong)`` with an independent ``BSC(delta)`` gives a BSC
    with error ``eps_strong (1 - delta) + (1 - eps_strong) delta``; setting this to
    ``eps_weak`` gives ``delta = (eps_weak - eps_strong) / (1 - 2 eps_strong)``. Example A.1:
    ``bsc_degradation_delta(0.2, 0.4) == 1/3``.

    Parameters
    ----------
    eps_strong, eps_weak : float
        Error rates with ``0 <= eps_strong <= eps_weak < 1/2``.

    Returns
    -------
    float
        ``delta`` in ``[0, 1/2)``.
    """
    e1 = _real(eps_strong, "eps_strong")
    e2 = _real(eps_weak, "eps_weak")
    if not 0.0 <= e1 < 0.5:
        raise constraint_error("eps_strong", "a real number in [0, 0.5)", e1)
    if not 0.0 <= e2 < 0.5:
        raise constraint_error("eps_weak", "a real number in [0, 0.5)", e2)
    if e2 < e1:
        raise constraint_error("eps_weak", f"at least eps_strong ({e1!r}): only a more accurate "
                               "channel can be degraded into a less accurate one", e2)
    return (e2 - e1) / (1.0 - 2.0 * e1)


@validate_params({"p": ARR_OR_REAL})
def binary_entropy(p: Any) -> Any:
    """Binary entropy ``h(p) = -p log2 p - (1 - p) log2 (1 - p)`` in bits (``h(0) = h(1) = 0``).

    Parameters
    ----------
    p : float or array-like
        Probabilities in ``[0, 1]``.

    Returns
    -------
    float or numpy.ndarray
        A plain float for scalar input, else an array of the input's shape.
    """
    arr = np.asarray(p, dtype=float)
    if not np.all(np.isfinite(arr)) or (arr < 0).any() or (arr > 1).any():
        raise constraint_error("p", "probabilities in [0, 1]", p)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(np.where(arr > 0, arr * np.log2(arr), 0.0)
              + np.where(arr < 1, (1 - arr) * np.log2(1 - arr), 0.0))
    return float(h) if h.ndim == 0 else h


@validate_params({"eps": ARR_OR_REAL})
def bsc_capacity(eps: Any) -> Any:
    """Capacity ``1 - h(eps)`` (bits per use) of a binary symmetric channel with crossover ``eps``.

    It is attained by the uniform input, so for a model with error rate ``eps`` answering a
    balanced label, ``I(Y; X_j) = 1 - h(eps)``.

    Parameters
    ----------
    eps : float or array-like
        Crossover probabilities in ``[0, 1]``.

    Returns
    -------
    float or numpy.ndarray
    """
    arr = np.asarray(eps, dtype=float)
    if not np.all(np.isfinite(arr)) or (arr < 0).any() or (arr > 1).any():
        raise constraint_error("eps", "crossover probabilities in [0, 1]", eps)
    return 1.0 - binary_entropy(eps)


# ---------------------------------------------------------------------------
# Theorem 4.1
# ---------------------------------------------------------------------------

@validate_params({"joint": ARR, "k": POS_INT})
def subset_table(joint: Any, k: int) -> pd.DataFrame:
    """Exact ``I(Y; X_S)`` (bits) and MAP error of every subset ``S`` of ``k`` models.

    Parameters
    ----------
    joint : array-like of shape (2,) * (m + 1)
        Joint law of ``(Y, X_1, ..., X_m)``.
    k : int
        Subset size, ``1 <= k <= m``.

    Returns
    -------
    pandas.DataFrame
        One row per subset in lexicographic order; columns ``subset`` (tuple of 0-based
        model indices), ``mi`` and ``map_error``.
    """
    arr = _check_joint_table(joint)
    m = arr.ndim - 1
    k = check_k(k, m)
    rows = [
        {"subset": S, "mi": mutual_information_xy(arr, S), "map_error": map_error(arr, S)}
        for S in itertools.combinations(range(m), int(k))
    ]
    return pd.DataFrame(rows)


@validate_params({"eps": ARR, "k": POS_INT, "prior": PRIOR, "tol": TOL})
def top_k_dominance(eps: Any, k: int, *, prior: float = 0.5, tol: float = 1e-12) -> dict:
    """Compare the top-``k`` set with every other ``k``-subset of independent BSCs, exactly.

    ``H_k`` is the set of the ``k`` smallest error rates (a stable sort: among equal rates
    the lower index). Gaps are taken over all subsets ``S != H_k`` of size ``k``.

    Parameters
    ----------
    eps : array-like of shape (m,)
        Error rates in ``[0, 1]``, ``m >= 2``.
    k : int
        Subset size, ``1 <= k < m``.
    prior : float
        ``P(Y = +1)`` in ``(0, 1)``.
    tol : float
        Differences within ``tol`` count as ties.

    Returns
    -------
    dict
        ``top_k`` (tuple), ``n_other`` (number of subsets ``S != H_k``), ``mi_gap`` =
        ``min_S I(Y;X_H) - I(Y;X_S)``, ``error_gap`` = ``min_S P_e(S) - P_e(H)``,
        ``n_mi_ties`` / ``n_error_ties`` (subsets within ``tol`` of ``H_k``),
        ``n_mi_argmax`` / ``n_error_argmin`` (size of the set of optimal subsets,
        ``H_k`` included when it is optimal), ``mi_top``, ``error_top``.
    """

    e = _check_rates(eps, "eps")
    m = e.size
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k < m:
        raise constraint_error("k", f"an integer in [1, {m - 1}] (m = {m})", k)
    p = _check_prior(prior)
    joint = independent_joint_law(e, prior=p)
    table = subset_table(joint, int(k))
    top = tuple(sorted(int(i) for i in np.argsort(e, kind="stable")[: int(k)]))
    is_top = table["subset"].map(lambda S: S == top).to_numpy()
    mi_top = float(table.loc[is_top, "mi"].iloc[0])
    err_top = float(table.loc[is_top, "map_error"].iloc[0])
    other = table[~is_top]
    mi_gap = mi_top - other["mi"].to_numpy()
    err_gap = other["map_error"].to_numpy() - err_top
    return {
        "top_k": top,
        "n_other": int(len(other)),
        "mi_top": mi_top,
        "error_top": err_top,
        "mi_gap": float(mi_gap.min()),
        "error_gap": float(err_gap.min()),
        "n_mi_ties": int((np.abs(mi_gap) <= tol).sum()),
        "n_error_ties": int((np.abs(err_gap) <= tol).sum()),
        "n_mi_argmax": int((table["mi"] >= table["mi"].max() - tol).sum()),
        "n_error_argmin": int((table["map_error"] <= table["map_error"].min() + tol).sum()),
    }


@validate_params({"eps_strong": RATE, "delta": RATE, "n": POS_INT, "prior": PRIOR,
                  "random_state": SEED})
def sample_degradation_chain(eps_strong: float, delta: float, n: int, *, prior: float = 0.5,
                             random_state: Any = None) -> pd.DataFrame:
    """Simulate ``Y -> X_strong -> X_weak`` (Lemma A.3): a BSC cascaded with a BSC(``delta``).

    ``X_strong = Y N_1`` with ``P(N_1 = -1) = eps_strong`` and ``X_weak = X_strong N_2`` with
    ``P(N_2 = -1) = delta``, ``Y``, ``N_1``, ``N_2`` independent.

    Parameters
    ----------
    eps_strong : float
        Error rate of the strong channel, in ``[0, 1]``.
    delta : float
        Crossover of the degrading channel, in ``[0, 1]``.
    n : int
        Number of draws (positive).
    prior : float
        ``P(Y = +1)`` in ``(0, 1)``.
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    pandas.DataFrame
        Columns ``y``, ``x_strong``, ``x_weak`` (int8 in ``{-1, +1}``).
    """
    e1 = float(eps_strong)
    d = float(delta)
    p = _check_prior(prior)
    rng = check_random_state(random_state)
    y = np.where(rng.random(n) < p, 1, -1).astype(np.int8)
    n1 = np.where(rng.random(n) < e1, -1, 1).astype(np.int8)
    n2 = np.where(rng.random(n) < d, -1, 1).astype(np.int8)
    xs = (y * n1).astype(np.int8)
    xw = (xs * n2).astype(np.int8)
    return pd.DataFrame({"y": y, "x_strong": xs, "x_weak": xw})


@validate_params({"draws": [pd.DataFrame]})
def flip_rate_table(draws: pd.DataFrame) -> pd.DataFrame:
    """Empirical ``P(X_weak != X_strong | Y = y, X_strong = s)`` for the four cells.

    Under the Markov chain ``Y -> X_strong -> X_weak`` with a BSC(``delta``) as second link,
    every cell has flip probability ``delta`` (conditional independence of ``X_weak`` and
    ``Y`` given ``X_strong``).

    Parameters
    ----------
    draws : pandas.DataFrame
        Columns ``y``, ``x_strong``, ``x_weak`` (e.g. from :func:`sample_degradation_chain`).

    Returns
    -------
    pandas.DataFrame
        Columns ``y``, ``x_strong``, ``n``, ``flip_rate``, ``std_error``
        (binomial standard error ``sqrt(r (1 - r) / n)``).
    """
    missing = {"y", "x_strong", "x_weak"} - set(draws.columns)
    if missing:
        raise constraint_error("draws", "a table with columns y, x_strong, x_weak",
                               Shown(f"no column(s) {sorted(missing)}"))
    flip = (draws["x_weak"].to_numpy() != draws["x_strong"].to_numpy()).astype(float)
    g = pd.DataFrame({"y": draws["y"].to_numpy(), "x_strong": draws["x_strong"].to_numpy(),
                      "flip": flip}).groupby(["y", "x_strong"], sort=True)["flip"]
    out = g.agg(n="size", flip_rate="mean").reset_index()
    out["std_error"] = np.sqrt(out["flip_rate"] * (1 - out["flip_rate"]) / out["n"])
    return out


# ---------------------------------------------------------------------------
# Beyond Theorem 4.1: independent channels with class-dependent error rates
# ---------------------------------------------------------------------------


def _check_pair(eps_pos: Any, eps_neg: Any) -> tuple[np.ndarray, np.ndarray]:
    pos = _check_rates(eps_pos, "eps_pos")
    neg = _check_rates(eps_neg, "eps_neg")
    if pos.shape != neg.shape:
        raise constraint_error("eps_neg", f"of the length of eps_pos ({pos.size})",
                               Shown(f"length {neg.size}"))
    return pos, neg


@validate_params({"eps_pos": ARR, "eps_neg": ARR, "prior": PRIOR})
def asymmetric_joint_law(eps_pos: Any, eps_neg: Any, prior: float = 0.5) -> np.ndarray:
    """Joint table of ``(Y, X_1..X_m)`` for independent models with class-dependent errors.

    Model ``j`` errs with probability ``eps_pos[j]`` on ``Y = +1`` queries and ``eps_neg[j]``
    on ``Y = -1`` queries, independently of the other models given ``Y``. With
    ``eps_pos == eps_neg`` this is :func:`~ensel.theory.independent_joint_law` (binary
    symmetric channels, Theorem 4.1's setting).

    Parameters
    ----------
    eps_pos, eps_neg : array-like of shape (m,)
        Error rates in ``[0, 1]`` given ``Y = +1`` and given ``Y = -1``.
    prior : float
        ``P(Y = +1)``.

    Returns
    -------
    numpy.ndarray of shape (2,) * (m + 1)
        Axis 0 = ``Y``, axis ``1 + j`` = ``X_j``; index 0 = ``-1``, index 1 = ``+1``.
    """
    pos, neg = _check_pair(eps_pos, eps_neg)
    return joint_law_from_error_laws(product_error_law(neg), product_error_law(pos),
                                     _check_prior(prior))


@validate_params({"eps_pos": ARR, "eps_neg": ARR, "k": POS_INT, "prior": PRIOR})
def asymmetric_top_k_regret(eps_pos: Any, eps_neg: Any, k: int, *,
                            prior: float = 0.5) -> dict:
    """Exact MAP error of Top-k (by accuracy) against the best ``k``-subset, class-dependent errors.

    Parameters
    ----------
    eps_pos, eps_neg : array-like of shape (m,)
        Error rates given ``Y = +1`` and given ``Y = -1`` (see :func:`asymmetric_joint_law`).
    k : int
        Subset size, ``1 <= k < m``.
    prior : float
        ``P(Y = +1)``.

    Returns
    -------
    dict
        ``accuracy`` (per model, ``1 - prior eps_pos - (1 - prior) eps_neg``), ``top_k``
        (0-based indices of the ``k`` most accurate models; among equal accuracies the lower
        index), ``error_top`` (its exact MAP error), ``best`` (the subset of smallest MAP
        error; the first in lexicographic order among ties), ``error_best`` and ``regret``
        (``error_top - error_best >= 0``).
    """
    pos, neg = _check_pair(eps_pos, eps_neg)
    p = _check_prior(prior)
    m = pos.size
    if isinstance(k, bool) or not 1 <= int(k) < m:
        raise constraint_error("k", f"an integer in [1, {m - 1}] (m = {m})", k)
    accuracy = 1.0 - p * pos - (1.0 - p) * neg
    joint = asymmetric_joint_law(pos, neg, prior=p)
    errors = {S: map_error(joint, S) for S in itertools.combinations(range(m), int(k))}
    top = tuple(sorted(int(i) for i in np.argsort(-accuracy, kind="stable")[: int(k)]))
    best = min(errors, key=errors.__getitem__)  # the first minimiser in lexicographic order
    return {"accuracy": accuracy, "top_k": top, "error_top": errors[top], "best": best,
            "error_best": errors[best], "regret": errors[top] - errors[best]}


@validate_params({"n_pools": POS_INT, "m": POS_INT, "k": POS_INT, "low": RATE, "high": RATE,
                  "symmetric": ["boolean"], "random_state": SEED})
def asymmetric_regret_study(n_pools: int, m: int, k: int, *, low: float = 0.05,
                            high: float = 0.45, symmetric: bool = False,
                            random_state: Any = None) -> pd.DataFrame:
    """Top-k's exact regret on random pools of independent models with class-dependent errors.

    Each pool draws ``eps_pos`` and ``eps_neg`` independently and uniformly on
    ``[low, high]`` for each of ``m`` models (with ``symmetric=True``, ``eps_neg = eps_pos``:
    Theorem 4.1's binary symmetric channels, the control). The prior is uniform. Errors are
    exact (:func:`asymmetric_top_k_regret`), not simulated.

    Parameters
    ----------
    n_pools, m, k : int
        Number of pools, models per pool and budget (``1 <= k < m <= 12``).
    low, high : float
        Range of the error rates, ``0 <= low < high <= 1``.
    symmetric : bool
        Draw one rate per model (``eps_neg = eps_pos``).
    random_state : int, numpy.random.Generator or None
        Seed of the draws.

    Returns
    -------
    pandas.DataFrame
        One row per pool: ``pool``, ``eps_pos``, ``eps_neg`` (tuples), ``top_k``, ``best``,
        ``error_top``, ``error_best``, ``regret``.
    """
    if not 1 <= k < m <= 12:
        raise constraint_error("m", f"at most 12 and greater than k = {k}", m)
    if not low < high:
        raise constraint_error("high", f"greater than low = {low}", high)
    rng = check_random_state(random_state)
    rows = []
    for pool in range(int(n_pools)):
        pos = rng.uniform(low, high, size=m)
        neg = pos.copy() if symmetric else rng.uniform(low, high, size=m)
        r = asymmetric_top_k_regret(pos, neg, k)
        rows.append({"pool": pool, "eps_pos": tuple(pos), "eps_neg": tuple(neg),
                     "top_k": r["top_k"], "best": r["best"], "error_top": r["error_top"],
                     "error_best": r["error_best"], "regret": r["regret"]})
    return pd.DataFrame(rows)
