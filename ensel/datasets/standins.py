"""Paper-calibrated stand-ins for the paper's three datasets (``medmcqa``, ``mmlu``, ``imdb``).

The paper's raw LLM answers are not public. A stand-in reproduces the *mechanism* the paper
describes -- Gaussian-copula errors with family-structured correlations -- calibrated to
the numbers the paper prints, not the paper's exact results.

Calibration (everything read from ``data/paper/model_pools.csv``)
-----------------------------------------------------------------
* **Models**: the pool table of each dataset (12 / 13 / 12 models), with family = vendor.
* **Accuracies**: in each of the 6 conditions (temperatures 0.01, 0.3, 0.7 x runs 1, 2;
  labels ``"t0.01-r1"`` ... ``"t0.7-r2"``) model ``j``'s accuracy is drawn from
  ``N(mean_j, std_j)`` (the table's "Accuracy" column; seeded), and its threshold is
  ``tau_j = Phi^-1(1 - accuracy_j)`` (the table's ``tau`` is this quantity at the mean).
* **Correlations**: a two-factor model of the latent error variables,

  ``Z_j = a_j U + g V_f(j) + sqrt(1 - a_j^2 - g^2 [j shares its family]) xi_j``

  (``U`` common factor, ``V_f`` one factor per family, ``xi_j`` idiosyncratic), so
  ``rho_ij = a_i a_j + g^2 1[family_i = family_j]`` -- within-family pairs are more correlated
  than cross-family pairs, as the paper reports. It is a valid covariance by construction
  (positive definite; passed through :func:`ensel.copula.nearest_correlation`, a no-op here).
  The loadings ``a_j`` are fitted by bounded least squares so that each model's average
  correlation with the others matches the table's "Avg. ρ_j". The table gives ``m``
  numbers for ``m + 1`` parameters; the family loading ``g`` is set to the **largest**
  value for which the fit still reproduces every avg rho within 0.4 units of the printed
  precision (0.004; IMDB, printed with 3 decimals, 0.0004), so every fitted value rounds to
  the printed one: the strongest family structure the table allows.
  Each model keeps at least 1 % idiosyncratic latent variance. :func:`fit_residuals`
  reports target vs achieved values.
* **Queries**: ``n`` binary queries (MEDMCQA 8,366, MMLU 10,000, IMDB 10,000), labels
  balanced (exactly ``n/2`` of each when ``n`` is even), the same items and labels in every
  condition. ``E_j = 1(Z_j < tau_j)``, answer ``X_j = Y (1 - 2 E_j)``; no abstentions.
* **Persistence across conditions** (an assumption; the paper does not report it): the
  latent vector of an item in a condition is ``sqrt(p) Z_shared + sqrt(1 - p) Z_condition``
  with both parts ``N(0, Sigma)``, so each condition is exactly the copula above while
  the same query tends to be hard in every condition; ``p = 0.9`` by default.

Same draws on every machine
---------------------------
The calibration runs through LAPACK and BLAS (the bounded least-squares fit, the
eigendecompositions), whose last bits depend on the CPU's kernels (FMA or not, summation
order) and on the thread count; the least-squares fit, whose residuals are not zero, stops
within about ``1e-10`` of its optimum along a kernel-dependent path. An answer is decided by
a comparison ``Z_j < tau_j``, so a latent value that moves by ``d`` flips it with probability
about ``0.4 d`` per draw. The rule, for every float that feeds a draw:

* the loading fit is finished by Newton steps to the least-squares stationary point (the
  same on every machine, reached to rounding, about ``1e-16``), and the loadings and
  ``Sigma`` are rounded to :data:`STABLE_DECIMALS` (10) decimal places, a grid a million
  times coarser than what is left of the machine differences: they have the same bits on
  every machine but with a probability of about ``1e-6`` per entry (polish and grid
  together moved ``Sigma`` by at most ``1.5e-10`` from the unpolished fit, and no draw of
  the recorded tables);
* the thresholds ``tau`` come from elementwise IEEE arithmetic and ``ndtri`` on seeded
  draws: the same bits everywhere;
* left machine-dependent: the square root of ``Sigma`` (an eigendecomposition) and its
  product with the normal draws (BLAS), within about ``1e-15`` of the exact values, so a
  paper-size table (under 10^6 comparisons) differs between machines with probability
  below ``1e-9``.

Tests therefore compare the calibrated floats to a tolerance and the draws by hash.

Variants
--------
* ``variant="class-asymmetric"`` (the default): the errors follow the paper's binary
  conversion of a ``K``-option question (:mod:`ensel.datasets.binary`): the positive query
  (``Y = +1``, the gold option) is wrong whenever the model's choice is wrong, the negative
  query (``Y = -1``, one wrong option drawn uniformly) only when the model chose that very
  option. With the model's binary error ``eps`` (the table's accuracy) kept, that gives
  ``eps_+ = 2 eps (K - 1) / K`` and ``eps_- = 2 eps / K`` (MEDMCQA and MMLU: ``K = 4``, so
  ``eps_+ = 3 eps_-``; IMDB is binary by nature and stays label-invariant). The threshold
  depends on the label, ``E_j = 1(Z_j < Phi^-1(eps_{Y,j}))``, and the latent ``Sigma`` is
  calibrated so that the errors pooled over both labels (balanced), read with the pooled
  thresholds ``Phi^-1(eps_j)`` as the paper's tables read them, have the label-invariant
  fit's correlations: per pair, the ``r`` with ``pi_+ Phi2(tau+_i, tau+_j; r) + pi_-
  Phi2(tau-_i, tau-_j; r) = Phi2(tau_i, tau_j; Sigma_ij)`` (monotone in ``r``: a vectorised
  bisection, unreachable targets clipped to ``+-1`` and counted), then the nearest
  correlation matrix (:func:`pooled_correlation` reads the pooled correlations back).
  Loadings and persistence are those of the fit.
* ``variant="label-invariant"``: every model errs with the same probability whatever the
  label (``Lambda = 0`` in the paper's decomposition). Some of the paper's claims are then
  true by construction (Term 1 ranks models exactly as accuracy does); pages that need
  ``Lambda = 0`` by construction ask for it by name.
* ``family_scale`` in ``[0, 1]`` (default 1) sets the family loading to that fraction of
  the largest one the table allows (``g = family_scale * g_max``), refitting the common
  loadings so that every model's average correlation still matches the table: 0 is no
  family structure beyond the averages, 1 the strongest. The stand-in pages show which
  verdicts depend on it.

:func:`load` returns the tidy table (see :mod:`ensel.data`) and caches it as Parquet under
``ensel.datasets._paths.data_dir("standins")`` keyed by (name, seed, ``n_items``, variant,
generator version, a hash of the pool table), so a rerun is instant.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

from ensel._errors import UsageError
from ensel._validation import check_int
from ensel.copula import average_correlation
from ensel.datasets import _integrity
from ensel.datasets._paths import data_dir, declarations
from ensel.datasets.paper_tables import load_paper_table

__all__ = [
    "BY_CONSTRUCTION_ATTR",
    "CONDITIONS",
    "DEFAULT_VARIANT",
    "LABEL_INVARIANT",
    "NAMES",
    "OPTIONS_PER_QUESTION",
    "POOLED_CALIBRATION_TOL",
    "RELEVANCE_FOLLOWS_ACCURACY",
    "STABLE_DECIMALS",
    "VARIANTS",
    "by_construction",
    "class_error_rates",
    "StandinSpec",
    "condition_accuracies",
    "correlation_matrix",
    "fit_residuals",
    "generate",
    "load",
    "model_info",
    "pooled_correlation",
    "spec",
]

#: Stand-in names and their one-line descriptions (declared in ``data/datasets.yml``).
NAMES: dict[str, str] = {name: str(entry["description"])
                         for name, entry in declarations().items()
                         if entry.get("kind") == "stand-in"}
TEMPERATURES = (0.01, 0.3, 0.7)
RUNS = (1, 2)
#: Condition labels, temperature-major: ``t0.01-r1, t0.01-r2, ..., t0.7-r2``.
CONDITIONS = tuple(f"t{t:g}-r{r}" for t in TEMPERATURES for r in RUNS)
#: Bump when the generator changes, so cached Parquet files are not reused.
GENERATOR_VERSION = "2"  # 2: the class-asymmetric Sigma is calibrated to the pooled table
#: The named variants of the stand-ins (see the module text); the first is the default.
VARIANTS = ("class-asymmetric", "label-invariant")
#: The variant :func:`load` and :func:`generate` make unless asked for another.
DEFAULT_VARIANT = VARIANTS[0]
#: What a table made by a stand-in holds true by construction, in ``df.attrs`` under this
#: key (a tuple of property names; see :func:`by_construction`).
BY_CONSTRUCTION_ATTR = "by_construction"
#: The property of a stand-in whose errors do not depend on the label (``Lambda = 0``).
LABEL_INVARIANT = "label-invariant"
#: The property of a stand-in whose models' channels lie in one family with one parameter,
#: the error, so that the relevance ``I(Y; X_j)`` ranks them exactly as accuracy does.
RELEVANCE_FOLLOWS_ACCURACY = "relevance follows accuracy"
#: Options per question of each paper dataset's multiple-choice source (``None``: binary by
#: nature, no conversion): what the class-asymmetric variant's error rates follow.
OPTIONS_PER_QUESTION: dict[str, int | None] = {"medmcqa": 4, "mmlu": 4, "imdb": None}
DEFAULT_PERSISTENCE = 0.9
_MIN_IDIOSYNCRATIC = 0.01
_ACC_CLIP = (0.5, 0.9999)
_NAME_CODE = {"medmcqa": 1, "mmlu": 2, "imdb": 3}
#: Decimal places of the calibrated loadings and ``Sigma`` (see "Same draws on every machine").
STABLE_DECIMALS = 10


def _check_name(name: str) -> str:
    if name not in NAMES:
        raise UsageError(f"unknown stand-in {name!r}; expected one of {sorted(NAMES)}")
    return name


@dataclass(frozen=True)
class StandinSpec:
    """Calibrated parameters of one stand-in.

    Attributes
    ----------
    name : str
    models, families : list of str
        In the paper's table order (by accuracy).
    accuracy, accuracy_std : numpy.ndarray of shape (m,)
        Mean and std over conditions (fractions).
    tau : numpy.ndarray of shape (m,)
        ``Phi^-1(1 - accuracy)`` at the mean accuracy.
    target_avg_rho : numpy.ndarray of shape (m,)
        The table's "Avg. ρ_j".
    loadings : numpy.ndarray of shape (m,)
        Common-factor loadings ``a_j``.
    family_loading : float
        ``g`` (``g**2`` is the extra within-family correlation).
    Sigma : numpy.ndarray of shape (m, m)
        Latent correlation matrix. For the class-asymmetric variant it is calibrated so that
        the errors pooled over both labels have the label-invariant fit's correlations
        (:func:`pooled_correlation`); ``loadings`` and ``family_loading`` then describe that
        pooled structure, the one the table reports. Rounded to :data:`STABLE_DECIMALS`
        decimals, as are the loadings (the same bits on every machine).
    n_items : int
        The paper's number of binary queries.
    tolerance : float
        Allowed absolute avg-rho residual (0.4 units of the printed precision).
    variant : str
        The variant the latent ``Sigma`` is made for (:data:`VARIANTS`).
    calibration_clipped : int
        Pairs whose pooled target the class-asymmetric mixture cannot reach (clipped to
        ``r = +-1``); 0 for the label-invariant variant.
    calibration_shift : float
        Largest change the nearest-correlation projection made to the calibrated pairs.
    """

    name: str
    models: list[str]
    families: list[str]
    accuracy: np.ndarray
    accuracy_std: np.ndarray
    tau: np.ndarray
    target_avg_rho: np.ndarray
    loadings: np.ndarray
    family_loading: float
    Sigma: np.ndarray = field(repr=False)
    n_items: int
    tolerance: float
    variant: str = "label-invariant"
    calibration_clipped: int = 0
    calibration_shift: float = 0.0


def _build_sigma(a: np.ndarray, g2: float, same: np.ndarray) -> np.ndarray:
    S = np.outer(a, a) + g2 * same
    np.fill_diagonal(S, 1.0)
    return S


def _fit_loadings(target: np.ndarray, same: np.ndarray, g2: float) -> tuple[np.ndarray, float]:
    """Least-squares loadings for a given family loading; returns (a, max |residual|)."""
    member = same.any(axis=1)
    cap = np.sqrt(np.maximum(1.0 - _MIN_IDIOSYNCRATIC - g2 * member, 0.0))
    x0 = np.minimum(np.sqrt(np.clip(target, 0.0, 1.0)), cap) * 0.999

    def residual(a: np.ndarray) -> np.ndarray:
        return average_correlation(_build_sigma(a, g2, same), per_model=True) - target

    from scipy.optimize import least_squares  # 0.25 s to import: only when fitting

    res = least_squares(residual, x0, bounds=(np.zeros_like(cap), cap + 1e-15), xtol=1e-14,
                        ftol=1e-14, gtol=1e-14)
    a = _polish_loadings(res.x, target, same, g2, cap)
    a = np.minimum(np.round(a, STABLE_DECIMALS), cap)  # the same bits on every machine
    return a, float(np.max(np.abs(residual(a))))


def _polish_loadings(a: np.ndarray, target: np.ndarray, same: np.ndarray, g2: float,
                     cap: np.ndarray) -> np.ndarray:
    """Newton steps from the least-squares answer ``a`` to the stationary point of
    ``||r(a)||^2`` over the loadings off their bounds (those on a bound stay there).

    ``least_squares`` stops within about ``1e-10`` of that point along a path that depends
    on the CPU's LAPACK kernels; the stationary point itself does not, and Newton reaches it
    to rounding (the step is tiny, so the solver's last bits do not matter). With
    ``r_j = (a_j (S - a_j) + g^2 c_j) / (m - 1) - t_j`` (``S`` the sum of the loadings,
    ``c_j`` the family members of ``j``): ``J = (a 1^T + diag(S - 2a)) / (m - 1)`` and the
    Hessian is ``J^T J`` plus ``(r_j + r_k) / (m - 1)`` off the diagonal."""
    m = len(a)
    upper, lower = a >= cap - 1e-8, a <= 1e-8
    a = np.where(upper, cap, np.where(lower, 0.0, a))
    free = ~(upper | lower)
    if not free.any():
        return a
    c = same.sum(axis=1)

    def parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        total = x.sum()
        r = (x * (total - x) + g2 * c) / (m - 1) - target
        J = (np.repeat(x[:, None], m, axis=1) + np.diag(total - 2.0 * x)) / (m - 1)
        H = J.T @ J + (r[:, None] + r[None, :]) * (1.0 - np.eye(m)) / (m - 1)
        return r, J.T @ r, H

    r, grad, H = parts(a)
    for _ in range(8):
        step = np.zeros(m)
        step[free] = -np.linalg.solve(H[np.ix_(free, free)], grad[free])
        x = a + step
        if np.any(x < 0) or np.any(x > cap):
            break
        r_new, grad_new, H_new = parts(x)
        if r_new @ r_new > (r @ r) * (1.0 + 1e-12):  # a step that does not descend
            break
        a, r, grad, H = x, r_new, grad_new, H_new
        if np.max(np.abs(step)) < 1e-15:
            break
    return a


def _fit(target: np.ndarray, families: list[str], tol: float) -> tuple[np.ndarray, float]:
    """Largest family loading (bisection on g^2) whose loading fit stays within ``tol``."""
    fam = np.asarray(families)
    same = (fam[:, None] == fam[None, :]) & ~np.eye(len(fam), dtype=bool)
    a0, err0 = _fit_loadings(target, same, 0.0)
    if err0 > tol or not same.any():
        return a0, 0.0
    lo, hi = 0.0, 1.0 - _MIN_IDIOSYNCRATIC
    best = a0
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        a, err = _fit_loadings(target, same, mid)
        if err <= tol:
            lo, best = mid, a
        else:
            hi = mid
    return best, float(np.sqrt(lo))


#: Width of the bisection bracket at which the pooled calibration stops (latent r units).
POOLED_CALIBRATION_TOL = 1e-12


def _label_thresholds(name: str, eps: np.ndarray, variant: str
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Thresholds on ``Y = +1`` and ``Y = -1`` queries for binary errors ``eps``."""
    from scipy.special import ndtri

    if variant == "class-asymmetric":
        pos, neg = class_error_rates(name, eps)
    else:
        pos = neg = np.asarray(eps, dtype=float)
    return ndtri(pos), ndtri(neg)


def _pooled_joint(tp: np.ndarray, tn: np.ndarray, pi_pos: float, i: np.ndarray,
                  j: np.ndarray, r: np.ndarray) -> np.ndarray:
    """``P(E_i = 1, E_j = 1)`` pooled over labels: ``pi+ Phi2(tau+_i, tau+_j; r) +
    pi- Phi2(tau-_i, tau-_j; r)`` (pairs ``(i, j)``)."""
    from ensel.copula import bivariate_normal_cdf

    return (pi_pos * bivariate_normal_cdf(tp[i], tp[j], r)
            + (1.0 - pi_pos) * bivariate_normal_cdf(tn[i], tn[j], r))


def _calibrate_pooled(name: str, Sigma: np.ndarray, eps: np.ndarray, pi_pos: float
                      ) -> tuple[np.ndarray, int, float]:
    """Latent correlations of the class-asymmetric variant whose errors, pooled over both
    labels with the pooled thresholds ``Phi^-1(eps)``, have tetrachoric correlation
    ``Sigma`` (the label-invariant fit). The pooled joint error probability is monotone in
    the latent ``r``, so a vectorised bisection finds it; unreachable targets are clipped
    to ``r = +-1`` and counted. Returns (the projected matrix, clipped pairs, largest change
    the nearest-correlation projection made)."""
    from scipy.special import ndtri

    from ensel.copula import bivariate_normal_cdf, nearest_correlation

    m = len(eps)
    i, j = np.triu_indices(m, 1)
    tau = ndtri(eps)
    target = bivariate_normal_cdf(tau[i], tau[j], Sigma[i, j])
    tp, tn = _label_thresholds(name, eps, "class-asymmetric")
    lo, hi = np.full(i.size, -1.0), np.full(i.size, 1.0)
    below = _pooled_joint(tp, tn, pi_pos, i, j, lo) > target
    above = _pooled_joint(tp, tn, pi_pos, i, j, hi) < target
    while np.max(hi - lo) > POOLED_CALIBRATION_TOL:
        mid = 0.5 * (lo + hi)
        up = _pooled_joint(tp, tn, pi_pos, i, j, mid) < target
        lo, hi = np.where(up, mid, lo), np.where(up, hi, mid)
    r = np.where(below, -1.0, np.where(above, 1.0, 0.5 * (lo + hi)))
    R = np.eye(m)
    R[i, j] = R[j, i] = r
    out = nearest_correlation(R)
    return out, int(np.sum(below | above)), float(np.max(np.abs(out - R)))


@cache
def _spec_cached(name: str, family_scale: float = 1.0,
                 variant: str = DEFAULT_VARIANT) -> StandinSpec:
    from scipy.special import ndtri

    from ensel.copula import nearest_correlation

    pool = load_paper_table("model_pools", dataset=name)
    ds = load_paper_table("datasets", dataset=name)
    decimals = pool["avg_rho"].map(lambda v: len(f"{v:g}".split(".")[1]) if "." in f"{v:g}"
                                   else 0)
    tol = 0.4 * 10.0 ** (-int(decimals.max()))
    families = list(pool["family"])
    target = pool["avg_rho"].to_numpy(dtype=float)
    a, g = _fit(target, families, tol)
    fam = np.asarray(families)
    same = (fam[:, None] == fam[None, :]) & ~np.eye(len(fam), dtype=bool)
    if family_scale != 1.0:
        g = float(family_scale) * g
        a = _fit_loadings(target, same, g * g)[0]
    Sigma = _stable(nearest_correlation(_build_sigma(a, g * g, same)))
    acc = pool["accuracy"].to_numpy(dtype=float)
    n_items = int(ds["n_items"].iloc[0])
    clipped, shift = 0, 0.0
    if variant == "class-asymmetric" and OPTIONS_PER_QUESTION[name] is not None:
        Sigma, clipped, shift = _calibrate_pooled(name, Sigma, 1.0 - acc,
                                                  _positive_share(n_items))
        Sigma = _stable(Sigma)
    for arr in (a, acc, Sigma):
        arr.setflags(write=False)
    return StandinSpec(
        name=name, models=list(pool["model"]), families=families, accuracy=acc,
        accuracy_std=pool["accuracy_std"].to_numpy(dtype=float), tau=ndtri(1.0 - acc),
        target_avg_rho=target, loadings=a, family_loading=g, Sigma=Sigma,
        n_items=n_items, tolerance=tol, variant=variant, calibration_clipped=clipped,
        calibration_shift=shift,
    )


def _stable(Sigma: np.ndarray) -> np.ndarray:
    """``Sigma`` on the grid of :data:`STABLE_DECIMALS` (still symmetric with unit diagonal):
    the bits the draws see, the same on every machine."""
    out = np.round(Sigma, STABLE_DECIMALS)
    np.fill_diagonal(out, 1.0)
    return out


def _positive_share(n: int) -> float:
    """Share of ``Y = +1`` queries among ``n`` balanced ones (as :func:`generate` draws)."""
    return ((n + 1) // 2) / n


def _check_scale(family_scale: float) -> float:
    v = float(family_scale)
    if isinstance(family_scale, bool) or not 0.0 <= v <= 1.0:
        raise UsageError(f"family_scale must lie in [0, 1]; got {family_scale!r}")
    return v


def _check_variant(variant: str) -> str:
    if variant not in VARIANTS:
        raise UsageError(f"unknown stand-in variant {variant!r}; expected one of "
                         f"{list(VARIANTS)}")
    return variant


def spec(name: str, family_scale: float = 1.0, variant: str = DEFAULT_VARIANT
         ) -> StandinSpec:
    """Calibrated parameters of stand-in ``name`` made as ``variant`` (fitted once per
    process); with ``family_scale < 1`` the family loading is that fraction of the largest
    the table allows and the common loadings are refitted to the table's average
    correlations."""
    return _spec_cached(_check_name(name), _check_scale(family_scale),
                        _check_variant(variant))


def pooled_correlation(name: str, variant: str = DEFAULT_VARIANT,
                       family_scale: float = 1.0, *, latent: np.ndarray | None = None
                       ) -> pd.DataFrame:
    """Tetrachoric correlation of the errors pooled over both labels, with the pooled
    thresholds ``Phi^-1(1 - accuracy)`` at the mean accuracies: the quantity the paper's
    tables report. For the label-invariant variant it is the latent ``Sigma`` itself.
    ``latent`` replaces the stand-in's latent ``Sigma`` (to measure another one, e.g. the
    label-invariant ``Sigma`` under class-asymmetric thresholds).

    Returns
    -------
    pandas.DataFrame
        models x models, unit diagonal.
    """
    from scipy.special import ndtri

    from ensel.copula import solve_tetrachoric

    s = spec(name, family_scale, variant)
    S = np.array(s.Sigma if latent is None else latent, dtype=float)
    if variant != "label-invariant" and OPTIONS_PER_QUESTION[name] is not None:
        eps = 1.0 - s.accuracy
        i, j = np.triu_indices(len(eps), 1)
        tp, tn = _label_thresholds(name, eps, variant)
        joint = _pooled_joint(tp, tn, _positive_share(s.n_items), i, j, S[i, j])
        tau = ndtri(eps)
        S[i, j] = S[j, i] = solve_tetrachoric(tau[i], tau[j], joint)
    idx = pd.Index(s.models, name="model")
    return pd.DataFrame(S, index=idx, columns=idx.rename("model_j"))


def class_error_rates(name: str, error: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """Error rates on ``Y = +1`` and ``Y = -1`` queries of the class-asymmetric variant.

    For a ``K``-option question converted as in :mod:`ensel.datasets.binary`, a model with
    binary error ``eps`` (the mean over the two queries) errs on the positive query with
    probability ``eps_+ = 2 eps (K - 1) / K`` and on the negative one with
    ``eps_- = 2 eps / K``; a source that is binary by nature has ``eps_+ = eps_- = eps``.

    Examples
    --------
    >>> pos, neg = class_error_rates("mmlu", 0.2)
    >>> round(float(pos), 12), round(float(neg), 12)
    (0.3, 0.1)
    >>> [float(x) for x in class_error_rates("imdb", 0.05)]
    [0.05, 0.05]
    """
    eps = np.asarray(error, dtype=float)
    k = OPTIONS_PER_QUESTION[_check_name(name)]
    if k is None:
        return eps.copy(), eps.copy()
    pos = 2.0 * eps * (k - 1) / k
    if np.any(pos >= 1):
        raise UsageError(f"binary error {float(np.max(eps))} of {name} is too large for "
                         f"{k}-option questions (error on Y=+1 would reach 1)")
    return pos, 2.0 * eps / k


def model_info(name: str) -> pd.DataFrame:
    """The paper's model pool of a stand-in with the fitted loadings.

    Returns
    -------
    pandas.DataFrame
        One row per model, in the paper's order: ``model, family, provider, accuracy,
        accuracy_std, tau, avg_rho, loading`` (fractions; ``avg_rho`` and ``tau`` as printed).
    """
    s = spec(name)
    pool = load_paper_table("model_pools", dataset=name)
    out = pool[["model", "family", "provider", "accuracy", "accuracy_std", "tau", "avg_rho"]]
    out = out.copy()
    out["loading"] = np.asarray(s.loadings)
    return out.reset_index(drop=True)


def correlation_matrix(name: str, variant: str = DEFAULT_VARIANT) -> pd.DataFrame:
    """The stand-in's latent correlation matrix ``Sigma`` (models x models)."""
    s = spec(name, variant=variant)
    idx = pd.Index(s.models, name="model")
    return pd.DataFrame(np.array(s.Sigma), index=idx, columns=idx.rename("model_j"))


def fit_residuals(name: str, variant: str = DEFAULT_VARIANT) -> pd.DataFrame:
    """Target vs achieved average correlation per model (and the family summary).

    The achieved value is that of the errors pooled over both labels
    (:func:`pooled_correlation`), as the paper's tables pool them; for the label-invariant
    variant it is the latent ``Sigma``'s.

    Returns
    -------
    pandas.DataFrame
        One row per model: ``model, family, target_avg_rho, fitted_avg_rho, residual``
        (fitted minus target). ``df.attrs`` holds ``family_loading``, ``within_family_mean``,
        ``across_family_mean`` (of the pooled correlations), ``max_abs_residual``,
        ``tolerance`` and ``variant``.
    """
    s = spec(name, variant=variant)
    S = pooled_correlation(name, variant).to_numpy()
    fitted = average_correlation(S, per_model=True)
    fam = np.asarray(s.families)
    offdiag = ~np.eye(len(fam), dtype=bool)
    same = (fam[:, None] == fam[None, :]) & offdiag
    across = fam[:, None] != fam[None, :]
    df = pd.DataFrame({
        "model": s.models, "family": s.families, "target_avg_rho": s.target_avg_rho,
        "fitted_avg_rho": fitted, "residual": fitted - s.target_avg_rho,
    })
    df.attrs.update(
        family_loading=float(s.family_loading),
        within_family_mean=float(S[same].mean()) if same.any() else float("nan"),
        across_family_mean=float(S[across].mean()),
        max_abs_residual=float(np.max(np.abs(df["residual"]))),
        tolerance=float(s.tolerance), variant=variant,
    )
    return df


def _streams(name: str, seed: int) -> list[np.random.SeedSequence]:
    """Independent seed streams: [accuracies, labels, shared latent, per-condition latents]."""
    return np.random.SeedSequence([int(seed), _NAME_CODE[name]]).spawn(4)


def condition_accuracies(name: str, *, seed: int = 0) -> pd.DataFrame:
    """The target accuracy drawn for each (condition, model) (independent of ``n_items``).

    Returns
    -------
    pandas.DataFrame
        Index ``condition`` (:data:`CONDITIONS`), columns the models; values are the
        accuracies ``~ N(mean_j, std_j)``, clipped to [0.5, 0.9999].
    """
    s = spec(name)
    rng = np.random.default_rng(_streams(name, check_int(seed, "seed", low=0))[0])
    draws = rng.standard_normal((len(CONDITIONS), len(s.models)))
    acc = np.clip(s.accuracy + s.accuracy_std * draws, *_ACC_CLIP)
    return pd.DataFrame(acc, index=pd.Index(CONDITIONS, name="condition"),
                        columns=pd.Index(s.models, name="model"))


def _sqrt_psd(S: np.ndarray) -> np.ndarray:
    w, V = np.linalg.eigh(S)
    return (V * np.sqrt(np.clip(w, 0.0, None))) @ V.T


def generate(name: str, *, seed: int = 0, n_items: int | None = None,
             persistence: float = DEFAULT_PERSISTENCE, variant: str = DEFAULT_VARIANT,
             family_scale: float = 1.0) -> pd.DataFrame:
    """Sample a stand-in (no caching; see :func:`load`).

    Parameters
    ----------
    name : {"medmcqa", "mmlu", "imdb"}
    seed : int, default=0
    n_items : int, optional
        Number of binary queries; default the paper's (8,366 / 10,000 / 10,000).
    persistence : float in [0, 1], default=0.9
        Share of the latent error variable common to all conditions of an item.
    variant : {"class-asymmetric", "label-invariant"}, default="class-asymmetric"
        Whether a model's error rate depends on the label (:func:`class_error_rates`).
    family_scale : float in [0, 1], default=1
        The family loading as a fraction of the largest the table allows.

    Returns
    -------
    pandas.DataFrame
        Tidy table ``item, model, condition, answer, label``: ``item``, ``model``,
        ``condition`` categorical (models in the paper's order), ``answer`` and ``label``
        ``int8``; rows ordered by condition, item, model. ``attrs`` as in :func:`load`.
    """
    from scipy.special import ndtri

    variant = _check_variant(variant)
    s = spec(name, family_scale, variant)
    seed = check_int(seed, "seed", low=0)
    n = s.n_items if n_items is None else n_items
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 2:
        raise UsageError(f"n_items must be an integer >= 2; got {n_items!r}")
    n = int(n)
    p = float(persistence)
    if not 0.0 <= p <= 1.0:
        raise UsageError(f"persistence must lie in [0, 1]; got {persistence!r}")
    m, C = len(s.models), len(CONDITIONS)
    acc = condition_accuracies(name, seed=seed).to_numpy()
    if variant == "class-asymmetric":
        eps_pos, eps_neg = class_error_rates(name, 1.0 - acc)
    else:
        eps_pos = eps_neg = 1.0 - acc
    tau_pos, tau_neg = ndtri(eps_pos), ndtri(eps_neg)  # (C, m) each
    _, s_lab, s_shared, s_cond = _streams(name, seed)
    y = np.where(np.arange(n) < (n + 1) // 2, 1, -1).astype(np.int8)
    y = np.random.default_rng(s_lab).permutation(y)
    L = _sqrt_psd(np.asarray(s.Sigma))
    z_shared = np.random.default_rng(s_shared).standard_normal((n, m)) @ L
    rng_c = np.random.default_rng(s_cond)
    answers = np.empty((C, n, m), dtype=np.int8)
    for c in range(C):
        z = np.sqrt(p) * z_shared + np.sqrt(1.0 - p) * (rng_c.standard_normal((n, m)) @ L)
        err = z < np.where(y[:, None] == 1, tau_pos[c], tau_neg[c])
        answers[c] = np.where(err, -y[:, None], y[:, None])
    width = len(str(n - 1))
    items = [f"{name}-{i:0{width}d}" for i in range(n)]
    item_codes = np.tile(np.repeat(np.arange(n), m), C)
    return _mark(name, variant, pd.DataFrame({
        "item": pd.Categorical.from_codes(item_codes, categories=items),
        "model": pd.Categorical.from_codes(np.tile(np.arange(m), n * C), categories=s.models),
        "condition": pd.Categorical.from_codes(np.repeat(np.arange(C), n * m),
                                               categories=list(CONDITIONS)),
        "answer": answers.reshape(-1),
        "label": np.tile(np.repeat(y, m), C),
    }))


def by_construction(name: str, variant: str = DEFAULT_VARIANT) -> tuple[str, ...]:
    """What the stand-in ``name`` made as ``variant`` holds true by construction.

    * :data:`LABEL_INVARIANT` when every model errs with the same probability whatever the
      label: the label-invariant variant, or a source binary by nature (IMDB), which the
      class-asymmetric variant leaves symmetric.
    * :data:`RELEVANCE_FOLLOWS_ACCURACY`, always: every model's channel is one of a family
      with one parameter, its binary error ``eps`` (``eps_+ = eps_- = eps``, or
      ``eps_+ = 2 eps (K - 1) / K`` and ``eps_- = 2 eps / K``, the same ratio for every
      model), and within such a family ``I(Y; X_j)`` with balanced labels falls strictly as
      ``eps`` grows on ``eps <= 1/2`` (the stand-ins clip accuracies at 0.5), so Term 1
      ranks the models exactly as accuracy does.

    :func:`generate` and :func:`load` put it in the table's ``attrs[BY_CONSTRUCTION_ATTR]``,
    so whoever checks a claim on the table knows which claims the data cannot contradict.

    Examples
    --------
    >>> by_construction("mmlu")
    ('relevance follows accuracy',)
    >>> by_construction("mmlu", "label-invariant")
    ('label-invariant', 'relevance follows accuracy')
    >>> by_construction("imdb")
    ('label-invariant', 'relevance follows accuracy')
    """
    symmetric = (_check_variant(variant) == "label-invariant"
                 or OPTIONS_PER_QUESTION[_check_name(name)] is None)
    return ((LABEL_INVARIANT,) if symmetric else ()) + (RELEVANCE_FOLLOWS_ACCURACY,)


def _mark(name: str, variant: str, df: pd.DataFrame) -> pd.DataFrame:
    df.attrs.update({BY_CONSTRUCTION_ATTR: by_construction(name, variant),
                     "standin_variant": variant})
    return df


@cache
def _pool_sha256(name: str) -> str:
    """SHA-256 of the stand-in's pool table as shipped (read once per process)."""
    pool = load_paper_table("model_pools", dataset=name)
    return hashlib.sha256(pool.to_csv(index=False).encode()).hexdigest()


def _cache_path(name: str, seed: int, n_items: int | None, variant: str = DEFAULT_VARIANT,
                family_scale: float = 1.0) -> Path:
    digest = _pool_sha256(name)[:10]
    n = "paper" if n_items is None else str(int(n_items))
    # the variant is always named (the default changed once: a file without it would be
    # ambiguous), the family scale only when it is not 1
    extra = f"_{variant}" + ("" if family_scale == 1.0 else f"_g{family_scale:g}")
    fname = f"{name}_seed{seed}_n{n}{extra}_v{GENERATOR_VERSION}_{digest}.parquet"
    return data_dir("standins") / fname


def _restore_dtypes(df: pd.DataFrame, name: str) -> pd.DataFrame:
    """Dtypes exactly as :func:`generate` makes them (Parquet normally keeps them)."""
    # the model names of the pool table (spec(name).models) without fitting the whole
    # calibration of spec(), which a table read from the cache does not need (about 1 s)
    models = list(load_paper_table("model_pools", dataset=name)["model"])
    for col, cats in (("model", models), ("condition", list(CONDITIONS))):
        dtype = df[col].dtype
        if not (isinstance(dtype, pd.CategoricalDtype) and list(dtype.categories) == cats):
            df[col] = pd.Categorical(df[col].astype(object), categories=cats)
    if not isinstance(df["item"].dtype, pd.CategoricalDtype):
        df["item"] = df["item"].astype("category")  # zero-padded ids: sorted = original order
    for col in ("answer", "label"):
        if df[col].dtype != np.int8:
            df[col] = df[col].astype(np.int8)
    return df


def load(name: str, *, seed: int = 0, n_items: int | None = None,
         cache: bool = True, variant: str = DEFAULT_VARIANT,
         family_scale: float = 1.0) -> pd.DataFrame:
    """Load a paper-calibrated stand-in as a tidy table (cached as Parquet).

    Parameters
    ----------
    name : {"medmcqa", "mmlu", "imdb"}
    seed : int, default=0
        Same seed, same table.
    n_items : int, optional
        Number of binary queries (default the paper's); small values make quick tests.
    cache : bool, default=True
        Read from / write to ``data_dir("standins")`` (``$ENSEL_DATA_DIR``). Files are
        written atomically with a checksum record and verified before use; a damaged,
        truncated or stale file is regenerated with a one-line notice
        (:mod:`ensel.datasets._integrity`).
    variant : {"class-asymmetric", "label-invariant"}, default="class-asymmetric"
        See :func:`generate`.
    family_scale : float in [0, 1], default=1
        See :func:`generate`.

    Returns
    -------
    pandas.DataFrame
        See :func:`generate`; ``df.attrs[BY_CONSTRUCTION_ATTR]`` says what the table holds
        true by construction (:func:`by_construction`) and ``df.attrs["standin_variant"]``
        names the variant.
    """
    _check_name(name)
    seed = check_int(seed, "seed", low=0)
    variant, scale = _check_variant(variant), _check_scale(family_scale)
    if not cache:
        return generate(name, seed=seed, n_items=n_items, variant=variant, family_scale=scale)
    path = _cache_path(name, seed, n_items, variant, scale)
    derived = _derivation(name, seed, n_items, variant, scale)
    cached = _integrity.read_parquet(path, derived_from=derived, action="regenerating it")
    if cached is not None:
        return _mark(name, variant, _restore_dtypes(cached, name))
    df = generate(name, seed=seed, n_items=n_items, variant=variant, family_scale=scale)
    _integrity.write_parquet(df, path, derived_from=derived)
    return df


def _derivation(name: str, seed: int, n_items: int | None, variant: str = DEFAULT_VARIANT,
                family_scale: float = 1.0) -> dict:
    """What a cached stand-in is derived from (checked before the cache is used)."""
    out = {"kind": "stand-in", "name": name, "seed": int(seed),
           "n_items": None if n_items is None else int(n_items),
           "generator": GENERATOR_VERSION, "code": _integrity.code_version(),
           "pool_table_sha256": _pool_sha256(name), "variant": variant}
    if family_scale != 1.0:
        out["family_scale"] = float(family_scale)
    return out
