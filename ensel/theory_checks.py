"""Exact checks behind the theory pages (Theorems 4.1, 4.2 and E.1).

Small helpers that the theory notebooks call so that they stay thin. They build on the exact
joint tables of :mod:`ensel.theory` (axis 0 = ``Y``, axis ``1 + j`` = model ``j``, index 0 =
answer ``-1``, index 1 = ``+1``) and on :mod:`ensel.info`:

* :func:`subset_table` -- exact ``I(Y; X_S)`` and MAP error of *every* subset of size ``k``
  (the exhaustive search behind Theorem 4.1);
* :func:`sample_degradation_chain` and :func:`flip_rate_table` -- a simulation of the
  Markov chain ``Y -> X_strong -> X_weak`` of Lemma C.1 / Example C.1;
* :func:`random_joint_law`, :func:`random_correlation` -- seeded random laws for the
  decomposition identity and Gaussian-copula instances;
* :func:`decomposition_table` -- the terms of Theorem 4.2 for every candidate ``j`` given
  ``S``, with the mRMR score (Terms 1 + 2) and the full conditional MI;
* :func:`product_error_law`, :func:`independent_map_rule`, :func:`affine_vote_decisions`
  -- the exact MAP rule for conditionally independent classifiers with any prior and
  label-dependent error rates, as an affine vote (the general form of Theorem E.1).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from ensel._validation import check_random_state
from ensel.info import (
    decomposition_terms_exact,
    error_indicator_table,
    mutual_information_table,
)
from ensel.theory import _check_joint, map_error, mutual_information_xy

__all__ = [
    "affine_vote_decisions",
    "decomposition_table",
    "flip_rate_table",
    "greedy_path_exact",
    "independent_map_rule",
    "product_error_law",
    "random_correlation",
    "random_joint_law",
    "sample_degradation_chain",
    "search_mrmr_disagreement",
    "subset_table",
    "top_k_dominance",
]


def _check_joint_table(joint: Any) -> np.ndarray:
    """The law of (Y, X_1, ..., X_m) with at least one model (checks of ensel.theory)."""
    arr = _check_joint(joint)
    if arr.ndim < 2:
        raise ValueError(f"joint must include at least one model X_1; got shape {arr.shape}")
    return arr


def _check_rates(eps: Any, name: str, *, closed: bool = True) -> np.ndarray:
    e = np.asarray(eps, dtype=float)
    if e.ndim != 1 or e.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d array of error rates; got {eps!r}")
    ok = (e >= 0) & (e <= 1) if closed else (e > 0) & (e < 1)
    if not np.all(np.isfinite(e)) or not ok.all():
        interval = "[0, 1]" if closed else "(0, 1)"
        raise ValueError(f"{name} must lie in {interval}; got {e.tolist()!r}")
    return e


def _check_prior(prior: Any) -> float:
    p = float(prior)
    if not 0.0 < p < 1.0:
        raise ValueError(f"prior P(Y=+1) must lie in (0, 1); got {prior!r}")
    return p


# ---------------------------------------------------------------------------
# Theorem 4.1
# ---------------------------------------------------------------------------

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
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= m:
        raise ValueError(f"k must be an integer in [1, {m}]; got {k!r}")
    rows = [
        {"subset": S, "mi": mutual_information_xy(arr, S), "map_error": map_error(arr, S)}
        for S in itertools.combinations(range(m), int(k))
    ]
    return pd.DataFrame(rows)


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
    from ensel.theory import independent_joint_law

    e = _check_rates(eps, "eps")
    m = e.size
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k < m:
        raise ValueError(f"k must be an integer in [1, {m - 1}] (m = {m}); got {k!r}")
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


def sample_degradation_chain(eps_strong: float, delta: float, n: int, *, prior: float = 0.5,
                             random_state: Any = None) -> pd.DataFrame:
    """Simulate ``Y -> X_strong -> X_weak`` (Lemma C.1): a BSC cascaded with a BSC(``delta``).

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
    if not 0.0 <= e1 <= 1.0:
        raise ValueError(f"eps_strong must lie in [0, 1]; got {eps_strong!r}")
    if not 0.0 <= d <= 1.0:
        raise ValueError(f"delta must lie in [0, 1]; got {delta!r}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer; got {n!r}")
    p = _check_prior(prior)
    rng = check_random_state(random_state)
    y = np.where(rng.random(n) < p, 1, -1).astype(np.int8)
    n1 = np.where(rng.random(n) < e1, -1, 1).astype(np.int8)
    n2 = np.where(rng.random(n) < d, -1, 1).astype(np.int8)
    xs = (y * n1).astype(np.int8)
    xw = (xs * n2).astype(np.int8)
    return pd.DataFrame({"y": y, "x_strong": xs, "x_weak": xw})


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
        raise ValueError(f"draws lacks column(s) {sorted(missing)}")
    flip = (draws["x_weak"].to_numpy() != draws["x_strong"].to_numpy()).astype(float)
    g = pd.DataFrame({"y": draws["y"].to_numpy(), "x_strong": draws["x_strong"].to_numpy(),
                      "flip": flip}).groupby(["y", "x_strong"], sort=True)["flip"]
    out = g.agg(n="size", flip_rate="mean").reset_index()
    out["std_error"] = np.sqrt(out["flip_rate"] * (1 - out["flip_rate"]) / out["n"])
    return out


# ---------------------------------------------------------------------------
# Theorem 4.2
# ---------------------------------------------------------------------------

def random_joint_law(m: int, *, concentration: float = 1.0,
                     random_state: Any = None) -> np.ndarray:
    """A random joint law of ``(Y, X_1, ..., X_m)``: Dirichlet over the ``2^(m+1)`` cells.

    Parameters
    ----------
    m : int
        Number of models (``1 <= m <= 12``).
    concentration : float
        Dirichlet parameter of every cell (positive); small values give peaked laws.
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    numpy.ndarray of shape (2,) * (m + 1)
    """
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or not 1 <= m <= 12:
        raise ValueError(f"m must be an integer in [1, 12]; got {m!r}")
    c = float(concentration)
    if not c > 0 or not np.isfinite(c):
        raise ValueError(f"concentration must be positive and finite; got {concentration!r}")
    rng = check_random_state(random_state)
    p = rng.dirichlet(np.full(2 ** (m + 1), c))
    return p.reshape((2,) * (m + 1))


def random_correlation(m: int, *, n_factors: int = 2, min_unique: float = 0.2,
                       random_state: Any = None) -> np.ndarray:
    """A random positive-definite correlation matrix with non-negative correlations.

    ``A A^T + diag(u)`` rescaled to unit diagonal, with loadings ``A`` uniform on ``[0, 1]``
    (``m x n_factors``) and unique variances ``u`` uniform on ``[min_unique, 1]``: models
    sharing large loadings on a factor form correlated "families".

    Parameters
    ----------
    m : int
        Dimension (``m >= 1``).
    n_factors : int
        Number of common factors (``>= 1``).
    min_unique : float
        Lower bound of the unique variances, in ``(0, 1]`` (keeps the matrix well inside
        the positive-definite cone).
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    numpy.ndarray of shape (m, m)
    """
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m must be a positive integer; got {m!r}")
    if isinstance(n_factors, bool) or not isinstance(n_factors, (int, np.integer)) \
            or n_factors < 1:
        raise ValueError(f"n_factors must be a positive integer; got {n_factors!r}")
    u0 = float(min_unique)
    if not 0.0 < u0 <= 1.0:
        raise ValueError(f"min_unique must lie in (0, 1]; got {min_unique!r}")
    rng = check_random_state(random_state)
    A = rng.uniform(0.0, 1.0, size=(m, n_factors))
    S = A @ A.T + np.diag(rng.uniform(u0, 1.0, size=m))
    d = np.sqrt(np.diag(S))
    S = S / np.outer(d, d)
    np.fill_diagonal(S, 1.0)
    return S


def decomposition_table(joint: Any, S: Iterable[int]) -> pd.DataFrame:
    """Terms of Theorem 4.2 for every candidate ``j`` not in ``S``.

    Parameters
    ----------
    joint : array-like of shape (2,) * (m + 1)
        Joint law of ``(Y, X_1, ..., X_m)``.
    S : iterable of int
        Selected models (0-based; may be empty).

    Returns
    -------
    pandas.DataFrame
        One row per candidate ``j``; columns ``j``, ``relevance`` (``I(Y;X_j)``),
        ``redundancy`` (``I(X_j;X_S)``), ``error_correlation`` (``I(E_j;E_S)``),
        ``correction`` (``Lambda_j(S)``), ``delta`` (``I(Y;X_j|X_S)``), ``mrmr``
        (relevance - redundancy), ``three_term`` (Eq. (9)), ``residual``
        (``delta - (three_term + correction)``), ``error_label`` (``I(E_j; Y)``) and
        ``joint_error_label`` (``I(E_j, E_S; Y)``), the quantities bounding ``Lambda_j(S)``
        in Proposition B.6 and Remark B.7 of the paper.
    """
    arr = _check_joint_table(joint)
    m = arr.ndim - 1
    SS = tuple(int(s) for s in S)
    bad = [s for s in SS if not 0 <= s < m]
    if bad or len(set(SS)) != len(SS):
        raise ValueError(f"S must hold distinct model indices in [0, {m}); got {SS!r}")
    pe = error_indicator_table(arr)
    ax_S = tuple(1 + s for s in SS)
    rows = []
    for j in range(m):
        if j in SS:
            continue
        t = decomposition_terms_exact(arr, j, SS)
        rows.append({
            "j": j, "relevance": t.relevance, "redundancy": t.redundancy,
            "error_correlation": t.error_correlation, "correction": t.correction,
            "delta": t.delta, "mrmr": t.relevance - t.redundancy,
            "three_term": t.three_term, "residual": t.delta - t.four_term,
            "error_label": mutual_information_table(pe, (1 + j,), (0,)),
            "joint_error_label": mutual_information_table(pe, (1 + j, *ax_S), (0,)),
        })
    if not rows:
        raise ValueError("S holds every model; there is no candidate left")
    return pd.DataFrame(rows)


def greedy_path_exact(joint: Any, k: int, score: str = "delta") -> list[int]:
    """Greedy selection on an exact joint law, by a column of :func:`decomposition_table`.

    Parameters
    ----------
    joint : array-like of shape (2,) * (m + 1)
        Joint law of ``(Y, X_1, ..., X_m)``.
    k : int
        Number of picks, ``1 <= k <= m``.
    score : {"delta", "mrmr", "three_term", "relevance"}
        ``"delta"`` is the exact Greedy MI (``I(Y; X_j | X_S)``), ``"mrmr"`` is Terms 1+2,
        ``"three_term"`` is Eq. (9), ``"relevance"`` is Term 1.

    Returns
    -------
    list of int
        Picks in order; ties (within 1e-12) go to the lowest index.
    """
    arr = _check_joint_table(joint)
    m = arr.ndim - 1
    if score not in ("delta", "mrmr", "three_term", "relevance"):
        raise ValueError(
            f"score must be 'delta', 'mrmr', 'three_term' or 'relevance'; got {score!r}"
        )
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= m:
        raise ValueError(f"k must be an integer in [1, {m}]; got {k!r}")
    S: list[int] = []
    for _ in range(int(k)):
        t = decomposition_table(arr, S)
        v = t[score].to_numpy()
        best = int(np.flatnonzero(v >= v.max() - 1e-12)[0])
        S.append(int(t["j"].iloc[best]))
    return S


def search_mrmr_disagreement(m: int, *, max_tries: int = 50, eps_low: float = 0.1,
                             eps_high: float = 0.4, n_factors: int = 2,
                             abseps: float = 1e-5, random_state: int = 0,
                             stop_at_first: bool = True) -> dict:
    """Search random Gaussian-copula pools for one where mRMR and ``I(Y; X_j | X_S)`` differ.

    Instance ``t = 0, 1, ...`` draws, from ``numpy.random.default_rng([random_state, t])``,
    error rates uniform on ``[eps_low, eps_high]`` and a :func:`random_correlation` matrix.
    ``S`` is the first pick of both greedy rules (the model of largest relevance
    ``I(Y; X_j)``; with ``S`` empty both scores reduce to it); the second pick of mRMR
    (argmax ``I(Y;X_j) - I(X_j;X_S)``) is compared with that of the full conditional MI
    (argmax ``I(Y; X_j | X_S)``), ties to the lowest index. The search stops at the first
    disagreement unless ``stop_at_first`` is false, in which case all ``max_tries``
    instances are examined (the reported instance is still the first disagreement).

    Parameters
    ----------
    m : int
        Pool size (``3 <= m <= 6``; the exact copula law has ``2^m`` orthant probabilities).
    max_tries : int
        Give up after this many instances (positive).
    eps_low, eps_high : float
        Range of the error rates, ``0 < eps_low < eps_high < 1/2``.
    n_factors : int
        Factors of :func:`random_correlation`.
    abseps : float
        Tolerance of the orthant probabilities (:func:`ensel.theory.copula_joint_law`);
        recompute the found instance at a finer tolerance to confirm it.
    random_state : int
        Base seed of the search.
    stop_at_first : bool
        Stop at the first disagreement (default) or examine all ``max_tries`` instances.

    Returns
    -------
    dict
        ``found`` (bool), ``tries`` (instances examined), ``disagreements`` (list of the
        instances where the picks differ), ``candidates`` (DataFrame of every candidate row
        of every instance: ``instance``, ``disagree`` plus the columns of
        :func:`decomposition_table`), and for the first disagreement ``instance``, ``eps``,
        ``Sigma``, ``S`` (tuple), ``mrmr_pick``, ``cmi_pick``.
    """
    from scipy.special import ndtri

    from ensel.theory import copula_joint_law

    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or not 3 <= m <= 6:
        raise ValueError(f"m must be an integer in [3, 6]; got {m!r}")
    if isinstance(max_tries, bool) or not isinstance(max_tries, (int, np.integer)) \
            or max_tries < 1:
        raise ValueError(f"max_tries must be a positive integer; got {max_tries!r}")
    if not 0.0 < eps_low < eps_high < 0.5:
        raise ValueError(
            f"need 0 < eps_low < eps_high < 1/2; got eps_low={eps_low!r}, eps_high={eps_high!r}"
        )
    out: dict[str, Any] = {"found": False}
    frames = []
    disagreements: list[int] = []
    for t in range(int(max_tries)):
        rng = np.random.default_rng([int(random_state), t])
        eps = rng.uniform(eps_low, eps_high, size=m)
        Sigma = random_correlation(m, n_factors=n_factors, random_state=rng)
        joint = copula_joint_law(ndtri(eps), Sigma, abseps=abseps)
        first = decomposition_table(joint, ())
        S = (int(first.loc[first["relevance"].idxmax(), "j"]),)
        table = decomposition_table(joint, S)
        a = int(table.loc[table["mrmr"].idxmax(), "j"])
        b = int(table.loc[table["delta"].idxmax(), "j"])
        table.insert(0, "instance", t)
        table.insert(1, "disagree", a != b)
        frames.append(table)
        if a != b:
            disagreements.append(t)
            if not out["found"]:
                out.update(found=True, instance=t, eps=eps, Sigma=Sigma, S=S, mrmr_pick=a,
                           cmi_pick=b)
            if stop_at_first:
                break
    out["tries"] = len(frames)
    out["disagreements"] = disagreements
    out["candidates"] = pd.concat(frames, ignore_index=True)
    return out


# ---------------------------------------------------------------------------
# Theorem E.1
# ---------------------------------------------------------------------------

def product_error_law(eps: Any) -> np.ndarray:
    """Law of independent error indicators, ``P(E = e) = prod_j eps_j^e_j (1-eps_j)^(1-e_j)``.

    Parameters
    ----------
    eps : array-like of shape (k,)
        Error rates in ``[0, 1]``.

    Returns
    -------
    numpy.ndarray of shape (2,) * k
        Index ``e_j`` on axis ``j`` (1 = model ``j`` is wrong).
    """
    e = _check_rates(eps, "eps")
    law = np.ones(())
    for ej in e:
        law = np.multiply.outer(law, np.array([1.0 - ej, ej]))
    return law


def independent_map_rule(eps_pos: Any, eps_neg: Any, prior: float = 0.5
                         ) -> tuple[np.ndarray, float]:
    """Exact MAP rule of conditionally independent classifiers as an affine vote.

    With ``P(X_j != Y | Y = +1) = eps_pos[j]``, ``P(X_j != Y | Y = -1) = eps_neg[j]`` and
    ``P(Y = +1) = prior``, the log posterior ratio is ``b + sum_j w_j x_j`` with

    ``w_j = (1/2) [log((1 - eps_pos_j) / eps_neg_j) + log((1 - eps_neg_j) / eps_pos_j)]``,

    ``b = log(prior / (1 - prior))
    + (1/2) sum_j [log((1 - eps_pos_j) / eps_neg_j) - log((1 - eps_neg_j) / eps_pos_j)]``.

    For a balanced prior and symmetric errors (``eps_pos == eps_neg == eps``) this is
    ``b = 0`` and ``w_j = log((1 - eps_j) / eps_j)``: Theorem E.1's log-odds weights.

    Parameters
    ----------
    eps_pos, eps_neg : array-like of shape (k,)
        Class-conditional error rates in ``(0, 1)``.
    prior : float
        ``P(Y = +1)`` in ``(0, 1)``.

    Returns
    -------
    (numpy.ndarray of shape (k,), float)
        Weights ``w`` and bias ``b`` (natural log).
    """
    ep = _check_rates(eps_pos, "eps_pos", closed=False)
    en = _check_rates(eps_neg, "eps_neg", closed=False)
    if ep.shape != en.shape:
        raise ValueError(f"eps_pos {ep.shape} and eps_neg {en.shape} must have the same shape")
    p = _check_prior(prior)
    a_plus = np.log1p(-ep) - np.log(en)   # LLR of an answer +1
    a_minus = np.log(ep) - np.log1p(-en)  # LLR of an answer -1
    w = 0.5 * (a_plus - a_minus)
    b = float(np.log(p) - np.log1p(-p) + 0.5 * (a_plus + a_minus).sum())
    return w, b


def affine_vote_decisions(weights: Any, bias: float = 0.0, *,
                          tie_rtol: float = 1e-12) -> np.ndarray:
    """Decision ``sign(b + sum_j w_j x_j)`` for every answer pattern ``x`` in ``{-1,+1}^k``.

    Parameters
    ----------
    weights : array-like of shape (k,)
        Finite weights.
    bias : float
        Finite bias ``b``.
    tie_rtol : float
        A score with ``|b + w.x| <= tie_rtol * (|b| + sum|w|)`` is a tie and goes to ``+1``
        (the tie rule of :func:`ensel.theory.map_decisions`).

    Returns
    -------
    numpy.ndarray of shape (2,) * k, int8
        Index 0 on an axis = answer ``-1``, index 1 = ``+1`` (the table layout of
        :mod:`ensel.theory`).
    """
    w = np.asarray(weights, dtype=float)
    if w.ndim != 1 or w.size == 0 or not np.all(np.isfinite(w)):
        raise ValueError(f"weights must be a finite, non-empty 1-d array; got {weights!r}")
    b = float(bias)
    if not np.isfinite(b):
        raise ValueError(f"bias must be finite; got {bias!r}")
    k = w.size
    x = 2 * np.array(list(itertools.product((0, 1), repeat=k)), dtype=float) - 1
    v = b + x @ w
    tie = np.abs(v) <= tie_rtol * (abs(b) + np.abs(w).sum())
    return np.where((v > 0) | tie, 1, -1).astype(np.int8).reshape((2,) * k)
