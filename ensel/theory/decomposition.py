"""Theorem 4.3: the gain of adding model ``j`` to ``S`` decomposes as
``I(Y; X_j | X_S) = I(Y; X_j) - I(X_j; X_S) + I(E_j; E_S) + Lambda_j(S)``.

The terms themselves are computed by :func:`ensel.info.decomposition_terms_exact` (exact
tables) and :func:`ensel.info.decomposition_terms` (smoothed counts); this module tabulates
them for every candidate (:func:`decomposition_table`), follows greedy paths on an exact law
(:func:`greedy_path_exact`) and searches seeded copula laws on which mRMR and the full
conditional MI disagree (:func:`search_mrmr_disagreement`).
"""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd

from ensel._validation import (
    Interval,
    StrOptions,
    check_k,
    constraint_error,
    validate_params,
)
from ensel.info import (
    decomposition_terms_exact,
    error_indicator_table,
    mutual_information_table,
)
from ensel.select import greedy_mi_exact
from ensel.theory._common import ARR, POS_INT, _check_joint_table
from ensel.theory.joint import copula_joint_law, random_correlation

__all__ = [
    "decomposition_table",
    "greedy_path_exact",
    "search_mrmr_disagreement",
]


@validate_params({"joint": ARR, "S": ["iterable"]})
def decomposition_table(joint: Any, S: Iterable[int]) -> pd.DataFrame:
    """Terms of Theorem 4.3 for every candidate ``j`` not in ``S``.

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
        (relevance - redundancy), ``three_term`` (Eq. (10)), ``residual``
        (``delta - (three_term + correction)``), ``error_label`` (``I(E_j; Y)``) and
        ``joint_error_label`` (``I(E_j, E_S; Y)``), the quantities bounding ``Lambda_j(S)``
        in Proposition B.6 and Remark B.7 of the paper.
    """
    arr = _check_joint_table(joint)
    m = arr.ndim - 1
    SS = tuple(int(s) for s in S)
    bad = [s for s in SS if not 0 <= s < m]
    if bad or len(set(SS)) != len(SS):
        raise constraint_error("S", f"distinct model indices in [0, {m - 1}]", SS)
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
        raise constraint_error("S", "a proper subset of the models (a candidate must be left)",
                               SS)
    return pd.DataFrame(rows)


@validate_params({"joint": ARR, "k": POS_INT,
                  "score": [StrOptions(["delta", "mrmr", "three_term", "relevance"])]})
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
        ``"three_term"`` is Eq. (10), ``"relevance"`` is Term 1.

    Returns
    -------
    list of int
        Picks in order; ties (within 1e-12) go to the lowest index. ``score="delta"`` is
        :func:`ensel.select.greedy_mi_exact` (the same rule on any alphabet).
    """
    arr = _check_joint_table(joint)
    m = arr.ndim - 1
    k = check_k(k, m)
    if score == "delta":  # the exact Greedy MI is the library's
        return greedy_mi_exact(arr, int(k))
    S: list[int] = []
    for _ in range(int(k)):
        t = decomposition_table(arr, S)
        v = t[score].to_numpy()
        best = int(np.flatnonzero(v >= v.max() - 1e-12)[0])
        S.append(int(t["j"].iloc[best]))
    return S


@validate_params({"m": [Interval(Integral, 3, 6)], "max_tries": POS_INT,
                  "eps_low": [Interval(Real, 0, 0.5, closed="neither")],
                  "eps_high": [Interval(Real, 0, 0.5, closed="neither")],
                  "n_factors": POS_INT, "abseps": [Interval(Real, 0, None, closed="neither")],
                  "random_state": [Interval(Integral, 0, None)], "stop_at_first": ["boolean"]})
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


    if not eps_low < eps_high:
        raise constraint_error("eps_high", f"larger than eps_low ({eps_low!r})", eps_high)
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
