"""The paper's greedy selectors: Top-k, relevance, mRMR, Greedy MI (and the three-term estimate).

Each selector exists as a function returning the picked column indices in pick order
(the public contract) and as a scikit-learn style class with fitted attributes::

    >>> import numpy as np
    >>> from ensel.select import greedy_mi, GreedyMI
    >>> rng = np.random.default_rng(0)
    >>> y = rng.choice([-1, 1], size=500)
    >>> X = np.where(rng.random((500, 4)) < [0.9, 0.8, 0.7, 0.6], y[:, None], -y[:, None])
    >>> greedy_mi(X, y, 2)
    [0, 1]
    >>> sel = GreedyMI(k=2).fit(X, y)
    >>> sel.selected_, sel.transform(X).shape
    ([0, 1], (500, 2))

The functions are thin wrappers around the classes, so both always agree.

Criteria (``S`` = models picked so far; every information quantity is the smoothed
estimator :func:`ensel.info.smoothed_mutual_information`, add-``alpha``, bits):

* ``top_k`` -- training accuracy ``mean(X_j == y)`` (an abstention counts as wrong).
* ``relevance`` -- ``I(Y; X_j)`` (the paper's Term 1).
* ``mrmr`` -- ``I(Y; X_j) - I(X_j; X_S)`` with ``X_S`` the joint answer pattern
  (Terms 1 + 2).
* ``greedy_mi`` -- the full conditional gain ``I(Y; X_j | X_S) = I(Y; (X_j, X_S)) -
  I(Y; X_S)`` (Section 5 / Algorithm "Greedy MI Selection", computed as the paper says
  it does "in practice"); each of the two terms is the smoothed estimator with the
  pattern alphabet of ``X_S`` (``2^|S|`` answer patterns).
* ``three_term_greedy`` -- the Eq. (10) estimate ``I(Y; X_j) - I(X_j; X_S) +
  I(E_j; E_S)``, with ``E_j = 1(X_j != Y)``.

Conventions:

* *Alphabets.* The alphabet of ``X_j`` is ``{-1, +1}`` (size 2), or ``{-1, 0, +1}``
  (size 3) when column ``j`` contains an abstention (``0``) in the data given to ``fit``;
  ``X_S`` has the product alphabet (``2^|S|`` when nothing abstains); ``E_S`` has
  ``2^|S|`` (an abstention is an error).
* *Ties.* Among candidates whose score is within ``TIE_TOL = 1e-12`` bits of the best,
  the lowest column index wins. The tolerance makes picks stable across platforms and
  BLAS/ufunc rounding; Top-k compares integer counts exactly.
* *Labels.* The information-based selectors (and :func:`exhaustive_search`) require both
  classes in ``y``: with a single class every ``I(Y; .)`` is 0 in truth and the smoothed
  estimate would be pure smoothing noise, so they raise ``ValueError``. Top-k by accuracy
  is well defined with one class and accepts it.
* *Speed.* At each greedy step the counts ``#(X_S pattern, Y, X_j)`` of all candidates
  come from one sparse-times-dense product (one-hot of ``2 * code(X_S) + y`` times the
  0/1 answer matrix), a single pass over the ``n x m`` answers, and the entropies are
  vectorised over candidates. The pattern code of ``X_S`` is relabelled to the observed
  patterns after each pick, so the count tables have at most ``min(n, 2^|S|)`` rows; the
  nominal alphabet size (``2^|S|``) is kept for the smoothing, whose empty cells are
  summed in closed form. For Greedy MI, patterns of ``X_S`` seen on a single item add the
  same amount to every candidate's entropies and are added in closed form instead of
  counted, and entropies of integer counts are read from a table of ``-q log2 q`` per count
  value (:class:`ensel._kernels.CountTable`, a reduction of the package's one smoothed-entropy
  kernel; m = 1,000 models, n = 20,000 items, k = 20: about 1.5 s).
  ``benchmarks/bench_greedy_mi.py`` and ``benchmarks/bench_select_cli.py`` time it.

Why one module of this size: every selector shares one counting engine (the pattern codes
and smoothed entropies of ``_Prepared``), which is what makes Greedy MI fast; the selectors
themselves are a few lines each.
"""


from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ensel._kernels import answer_digits, label_bits
from ensel._validation import (
    Shown,
    check_k,
    check_real,
    check_subset,
    check_X_y,
    constraint_error,
    validate_params,
)
from ensel.info import (
    _check_prob,
    conditional_mutual_information_table,
    smoothed_mutual_information,
)
from ensel.select._base import _ALPHA, _K, _XY, _BaseSelector
from ensel.select._engine import (
    _gain_greedy_mi,
    _gain_mrmr,
    _gain_relevance,
    _gain_three_term,
    _greedy_path,
    _pick,
    _Prepared,
)

__all__ = [
    "GreedyMI",
    "MRMR",
    "Relevance",
    "ThreeTermGreedy",
    "TopK",
    "greedy_mi",
    "greedy_mi_exact",
    "marginal_gains",
    "mrmr",
    "relevance",
    "three_term_greedy",
    "top_k",
]


class TopK(_BaseSelector):
    """Top-``k`` models by training accuracy (abstention = wrong; ties -> lowest index).

    ``gains_`` holds the accuracies of the picks; ``scores_`` repeats every model's
    accuracy on each row (NaN once selected). One-class labels are accepted.

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> TopK(2).fit(X, y).selected_
    [0, 1]
    """

    _needs_both_classes = False

    def _path(self, Xa, ya, k):
        correct = (Xa == ya[:, None]).sum(axis=0)
        order = np.argsort(-correct, kind="stable")[:k]
        acc = correct / Xa.shape[0]
        scores = np.tile(acc.astype(float), (k, 1))
        for t, j in enumerate(order):
            scores[t + 1:, j] = np.nan
        return [int(j) for j in order], [float(acc[j]) for j in order], scores


class _InfoSelector(_BaseSelector):
    _gain: Callable[..., np.ndarray]
    _need_errors = False
    _parameter_constraints: dict[str, Any] = {"k": _K, "alpha": _ALPHA}

    def __init__(self, k: int = 3, alpha: float = 1.0) -> None:
        self.k = k
        self.alpha = alpha

    def _path(self, Xa, ya, k):
        alpha = check_real(self.alpha, "alpha", low=0, low_open=True,
                           what="the Laplace pseudo-count")
        P = _Prepared(Xa, ya, alpha)
        return _greedy_path(P, k, type(self)._gain, self._need_errors)


class Relevance(_InfoSelector):
    """The ``k`` models with the largest smoothed relevance ``I(Y; X_j)`` (Term 1).

    Parameters
    ----------
    k : int, default=3
        Budget, ``1 <= k <= n_models``.
    alpha : float, default=1.0
        Laplace pseudo-count of the smoothed MI estimator.

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> Relevance(2).fit(X, y).selected_
    [0, 1]
    """

    _gain = staticmethod(_gain_relevance)


class MRMR(_InfoSelector):
    """Greedy mRMR: maximise ``I(Y; X_j) - I(X_j; X_S)`` (the paper's Terms 1 + 2).

    Redundancy is measured against the *joint* answer pattern ``X_S`` of the models
    already picked (not the mean of pairwise terms as in Peng et al.), matching the
    decomposition of Theorem 4.3.

    Parameters
    ----------
    k : int, default=3
        Budget, ``1 <= k <= n_models``.
    alpha : float, default=1.0
        Laplace pseudo-count of the smoothed MI estimator.

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> MRMR(2).fit(X, y).selected_
    [0, 2]
    """

    _gain = staticmethod(_gain_mrmr)


class GreedyMI(_InfoSelector):
    """Greedy MI (the paper's Algorithm "Greedy MI Selection").

    At each step picks ``argmax_j I(Y; X_j | X_S) = I(Y; (X_j, X_S)) - I(Y; X_S)``, each
    term from :func:`ensel.info.smoothed_mutual_information` with the pattern alphabet of
    ``X_S`` (``2^|S|``; ``3`` per abstaining column). ``gains_`` holds the estimated
    ``Delta(j* | S)`` of each pick.

    Parameters
    ----------
    k : int, default=3
        Budget, ``1 <= k <= n_models``.
    alpha : float, default=1.0
        Laplace pseudo-count (1.0 = add-one, as in the paper).

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> sel = GreedyMI(2).fit(X, y)
    >>> sel.selected_
    [0, 2]
    >>> [round(float(g), 3) for g in sel.gains_]
    [0.279, 0.12]
    """

    _gain = staticmethod(_gain_greedy_mi)


class ThreeTermGreedy(_InfoSelector):
    """Greedy maximisation of the Eq. (10) estimate ``I(Y;X_j) - I(X_j;X_S) + I(E_j;E_S)``.

    The label-dependence correction ``Lambda_j(S)`` of Theorem 4.3 is dropped (it is 0
    when errors are independent of the label); compare with :class:`GreedyMI`, which
    estimates the full ``I(Y; X_j | X_S)``.

    Parameters
    ----------
    k : int, default=3
        Budget, ``1 <= k <= n_models``.
    alpha : float, default=1.0
        Laplace pseudo-count.
    """

    _gain = staticmethod(_gain_three_term)
    _need_errors = True


# ---------------------------------------------------------------------------
# Function interface (the public contract)
# ---------------------------------------------------------------------------

@validate_params({**_XY, "k": _K})
def top_k(X: Any, y: Any, k: int) -> list[int]:
    """Indices of the ``k`` most accurate models on ``(X, y)``, most accurate first.

    Accuracy is ``mean(X_j == y)`` (an abstention counts as wrong); ties go to the lowest
    column index. See :class:`TopK`.

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> top_k(X, y, 2)
    [0, 1]
    """
    return TopK(k).fit(X, y).selected_


@validate_params({**_XY, "k": _K, "alpha": _ALPHA})
def relevance(X: Any, y: Any, k: int, alpha: float = 1.0) -> list[int]:
    """The ``k`` models with the largest smoothed ``I(Y; X_j)``. See :class:`Relevance`.

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> relevance(X, y, 2)
    [0, 1]
    """
    return Relevance(k, alpha=alpha).fit(X, y).selected_


@validate_params({**_XY, "k": _K, "alpha": _ALPHA})
def mrmr(X: Any, y: Any, k: int, alpha: float = 1.0) -> list[int]:
    """Greedy ``I(Y; X_j) - I(X_j; X_S)`` selection, in pick order. See :class:`MRMR`.

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> mrmr(X, y, 2)
    [0, 2]
    """
    return MRMR(k, alpha=alpha).fit(X, y).selected_


@validate_params({**_XY, "k": _K, "alpha": _ALPHA})
def greedy_mi(X: Any, y: Any, k: int, alpha: float = 1.0) -> list[int]:
    """Greedy MI selection (maximise ``I(Y; X_j | X_S)``), in pick order. See :class:`GreedyMI`.

    Parameters
    ----------
    X : array-like of shape (n_items, n_models)
        Answers in ``{-1, +1}`` (``0`` = abstained).
    y : array-like of shape (n_items,)
        Labels in ``{-1, +1}``; both classes must be present.
    k : int, default=3
        Budget, ``1 <= k <= n_models``.
    alpha : float, default=1.0
        Laplace pseudo-count of the smoothed MI estimator.

    Returns
    -------
    list of int
        Column indices in pick order.

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> top_k(X, y, 2), greedy_mi(X, y, 2)
    ([0, 1], [0, 2])
    """
    return GreedyMI(k, alpha=alpha).fit(X, y).selected_


@validate_params({**_XY, "k": _K, "alpha": _ALPHA})
def three_term_greedy(X: Any, y: Any, k: int, alpha: float = 1.0) -> list[int]:
    """Greedy maximisation of the Eq. (10) estimate. See :class:`ThreeTermGreedy`.

    Examples
    --------
    >>> from ensel.copula import sample
    >>> # models 0 and 1 are strong but make the same mistakes; model 2 is weaker
    >>> # and errs independently (accuracies about 0.80, 0.79, 0.75)
    >>> Sigma = [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]]
    >>> X, y, _ = sample([-0.84, -0.81, -0.67], Sigma, 20000, random_state=0)
    >>> three_term_greedy(X, y, 2)
    [0, 2]
    """
    return ThreeTermGreedy(k, alpha=alpha).fit(X, y).selected_


@validate_params({"p": ["array-like"], "k": _K})
def greedy_mi_exact(p: Any, k: int) -> list[int]:
    """Greedy MI on an exact joint law: ``argmax_j I(Y; X_j | X_S)`` from a probability table.

    The population version of :func:`greedy_mi`, for the theory pages (e.g. Theorem 4.1:
    with independent BSCs it picks the ``k`` most accurate channels).

    Parameters
    ----------
    p : array-like
        Joint probability table of ``(Y, X_1, ..., X_m)``: axis 0 is ``Y``, axis ``1 + j``
        is model ``j`` (any alphabet sizes).
    k : int
        Budget, ``1 <= k <= m``.

    Returns
    -------
    list of int
        Model indices (0-based) in pick order; ties within ``TIE_TOL`` -> lowest index.
    """
    arr = _check_prob(p)
    if arr.ndim < 2:
        raise constraint_error("p", "a table with one axis for Y and at least one per model",
                               Shown(f"shape {arr.shape}"))
    m = arr.ndim - 1
    k = check_k(k, m)
    selected: list[int] = []
    for _ in range(k):
        cand = np.array([j for j in range(m) if j not in selected])
        axes_S = [1 + s for s in selected]
        scores = np.array([conditional_mutual_information_table(arr, 0, 1 + j, axes_S)
                           for j in cand])
        selected.append(int(cand[_pick(scores, cand)]))
    return selected


@validate_params({**_XY, "picks": ["array-like"], "alpha": _ALPHA})
def marginal_gains(X: Any, y: Any, picks: Any, alpha: float = 1.0) -> list[float]:
    """``I(Y; X_{S_t}) - I(Y; X_{S_{t-1}})`` in bits along ``picks`` (smoothed estimator).

    The pattern alphabet has radix 2 per column (3 for a column with an abstention), as in
    :func:`greedy_mi`, whose gains (``GreedyMI.gains_``) these are for its own picks.

    Examples
    --------
    >>> from ensel.copula import sample_equicorrelated
    >>> X, y, _ = sample_equicorrelated(0.8, 0.3, 4, 2000, random_state=0)
    >>> g = GreedyMI(3).fit(X, y)
    >>> np.allclose(marginal_gains(X, y, g.selected_), g.gains_)
    True
    """
    Xa, ya = check_X_y(X, y)
    picks = check_subset(picks, Xa.shape[1], "picks", func="marginal_gains")
    yc = label_bits(ya)
    codes = np.zeros(len(ya), dtype=np.int64)
    size, prev, out = 1, 0.0, []
    for j in picks:
        col = Xa[:, int(j)]
        d = answer_digits(col)
        radix = 3 if (d == 2).any() else 2
        _, codes = np.unique(codes * 3 + d, return_inverse=True)  # relabel (size stays nominal)
        codes = codes.reshape(-1)
        size *= radix
        mi = smoothed_mutual_information(yc, codes, size_a=2, size_b=size, alpha=alpha)
        out.append(mi - prev)
        prev = mi
    return out
