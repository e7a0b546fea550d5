"""Tests for ensel.theory: closed forms, independent references and Hypothesis properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.special import gammaln, log_ndtr, ndtr, ndtri
from scipy.stats import binom

from ensel import theory as T
from ensel.copula import bivariate_normal_cdf
from ensel.info import decomposition_terms_exact

# ---------------------------------------------------------------------------
# independent reference: P(K = e) by adaptive quadrature, panel by panel
# ---------------------------------------------------------------------------


def _ref_count_pmf(alpha: float, rho: float, m: int) -> np.ndarray:
    """P(K = e) by scipy.integrate.quad over u with break points at the binomial peak."""
    tau = float(ndtri(1 - alpha))
    sr, sc = math.sqrt(rho), math.sqrt(1 - rho)
    out = np.empty(m + 1)
    for e in range(m + 1):
        lc = gammaln(m + 1) - gammaln(e + 1) - gammaln(m - e + 1)

        def f(u: float, e: int = e, lc: float = lc) -> float:
            z = (tau - sr * u) / sc
            return math.exp(lc + e * log_ndtr(z) + (m - e) * log_ndtr(-z) - 0.5 * u * u
                            - 0.5 * math.log(2 * math.pi))

        q0 = min(max(e / m, 1e-4 / m), 1 - 1e-4 / m)
        sd = math.sqrt(max(e, 0.5) * max(m - e, 0.5) / m**3)
        qs = [q0 + j * sd for j in (-32, -16, -8, -4, -2, -1, 0, 1, 2, 4, 8, 16, 32)]
        qs += [c / m for c in (1e-3, 1e-2, 0.1, 1, 10)] + [1 - c / m for c in (1e-3, 1e-2, 0.1, 1)]
        pts = set(np.arange(-12.0, 12.1, 1.0).tolist())
        pts.update(float((tau - sc * ndtri(q)) / sr) for q in qs if 0 < q < 1)
        edges = [-39.0] + sorted(p for p in pts if -39 < p < 39) + [39.0]
        out[e] = sum(integrate.quad(f, a, b, epsabs=1e-17, epsrel=1e-13, limit=200)[0]
                     for a, b in zip(edges[:-1], edges[1:], strict=True))
    return out


def _binomial_error(alpha: float, m: int, rule: str) -> float:
    pmf = binom.pmf(np.arange(m + 1), m, 1 - alpha)
    if rule == "map":
        return float(0.5 * np.minimum(pmf, pmf[::-1]).sum())
    err = float(pmf[m // 2 + 1:].sum())
    return err + (0.5 * float(pmf[m // 2]) if m % 2 == 0 else 0.0)


# ---------------------------------------------------------------------------
# saturation floor
# ---------------------------------------------------------------------------


def test_floor_limits() -> None:
    for alpha in (0.55, 0.7, 0.9):
        assert T.saturation_floor(alpha, 1.0) == pytest.approx(1 - alpha, abs=1e-15)
        assert T.saturation_floor(alpha, 1 - 1e-12) == pytest.approx(1 - alpha, abs=1e-6)
        assert T.saturation_floor(alpha, 1e-4) < 1e-10
        assert T.saturation_floor(alpha, 0.0) == 0.0
    # strictly increasing in rho, decreasing in alpha, inside (0, 1/2)
    rhos = np.linspace(0.01, 1.0, 50)
    vals = [T.saturation_floor(0.8, r) for r in rhos]
    assert np.all(np.diff(vals) > 0) and 0 < vals[0] and vals[-1] < 0.5
    assert T.saturation_floor(0.8, 0.3) < T.saturation_floor(0.7, 0.3)
    assert isinstance(T.saturation_floor(0.8, 0.3), float)


def test_floor_value_and_array() -> None:
    # Phi(Phi^-1(0.2) / sqrt(0.25)) = Phi(2 * Phi^-1(0.2))
    assert T.saturation_floor(0.8, 0.25) == pytest.approx(float(ndtr(2 * ndtri(0.2))), rel=1e-14)
    arr = T.saturation_floor_array([0.6, 0.8], [[0.0], [0.5]])
    assert arr.shape == (2, 2)
    assert arr[0, 0] == 0.0 and arr[1, 1] == pytest.approx(T.saturation_floor(0.8, 0.5))


@pytest.mark.parametrize(("alpha", "rho", "match"), [
    (0.5, 0.3, "alpha"), (1.0, 0.3, "alpha"), (0.3, 0.3, "alpha"), (float("nan"), 0.3, "alpha"),
    ("x", 0.3, "alpha"), (0.8, -0.1, "rho"), (0.8, 1.5, "rho"), (0.8, float("nan"), "rho"),
])
def test_floor_errors(alpha: object, rho: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        T.saturation_floor(alpha, rho)  # type: ignore[arg-type]


def test_floor_array_errors() -> None:
    with pytest.raises(ValueError, match=r"alpha of saturation_floor_array must be values in"
                                         r" \(0.5, 1\)"):
        T.saturation_floor_array([0.4, 0.8], 0.3)
    with pytest.raises(ValueError, match=r"rho of saturation_floor_array must be "
                       r"values in \[0, 1\]"):
        T.saturation_floor_array(0.8, [0.3, 2.0])


# ---------------------------------------------------------------------------
# law of K and the finite-m error
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("alpha", "rho", "m"), [
    (0.7, 0.3, 15), (0.85, 0.05, 40), (0.6, 0.9, 25), (0.9, 0.99, 12), (0.55, 1e-3, 30),
])
def test_count_law_matches_quad_reference(alpha: float, rho: float, m: int) -> None:
    pmf, info = T.error_count_distribution(alpha, rho, m, return_info=True)
    ref = _ref_count_pmf(alpha, rho, m)
    assert np.abs(pmf - ref).max() < 1e-12
    assert abs(info.total_mass_error) < 1e-12
    assert info.method == "quadrature"
    err = 0.5 * np.minimum(ref, ref[::-1]).sum()
    assert T.ensemble_error(alpha, rho, m) == pytest.approx(err, abs=1e-12)


def test_count_law_large_m_mass_and_mean() -> None:
    m = 10_001
    pmf, info = T.error_count_distribution(0.7, 0.3, m, return_info=True)
    assert abs(info.total_mass_error) < 1e-9
    assert np.all(pmf >= 0)
    # E[K] = m eps exactly; Var[K] = m eps (1 - eps) + m (m - 1) (Phi2(tau, tau; rho) - eps^2)
    e = np.arange(m + 1)
    assert (pmf @ e) / m == pytest.approx(0.3, abs=1e-9)
    tau = float(ndtri(0.3))
    p2 = bivariate_normal_cdf(tau, tau, 0.3)
    var = m * 0.3 * 0.7 + m * (m - 1) * (p2 - 0.09)
    assert pmf @ (e - m * 0.3) ** 2 == pytest.approx(var, rel=1e-8)


def test_count_law_two_models_closed_form() -> None:
    for alpha, rho in ((0.7, 0.3), (0.9, 0.8), (0.6, 0.02)):
        tau = float(ndtri(1 - alpha))
        both = bivariate_normal_cdf(tau, tau, rho)
        pmf = T.error_count_distribution(alpha, rho, 2)
        np.testing.assert_allclose(pmf, [1 - 2 * (1 - alpha) + both, 2 * (1 - alpha - both), both],
                                   atol=1e-13)


@pytest.mark.parametrize("m", [1, 2, 5, 50, 501])
def test_rho_zero_is_binomial(m: int) -> None:
    for alpha in (0.55, 0.8):
        np.testing.assert_allclose(T.error_count_distribution(alpha, 0.0, m),
                                   binom.pmf(np.arange(m + 1), m, 1 - alpha), rtol=1e-12,
                                   atol=1e-300)
        for rule in ("map", "majority"):
            assert T.ensemble_error(alpha, 0.0, m, rule) == pytest.approx(
                _binomial_error(alpha, m, rule), abs=1e-14)


def test_rho_near_zero_and_one_are_continuous() -> None:
    assert T.ensemble_error(0.7, 1e-9, 31) == pytest.approx(T.ensemble_error(0.7, 0.0, 31),
                                                            abs=1e-6)
    assert T.ensemble_error(0.7, 1 - 1e-9, 31) == pytest.approx(0.3, abs=1e-3)
    assert T.ensemble_error(0.7, 1.0, 31) == pytest.approx(0.3, abs=1e-15)


@pytest.mark.parametrize("rho", [0.0, 1e-6, 0.2, 0.7, 0.999, 1.0])
def test_one_and_two_models_have_single_model_error(rho: float) -> None:
    for alpha in (0.6, 0.93):
        for m in (1, 2):
            for rule in ("map", "majority"):
                assert T.ensemble_error(alpha, rho, m, rule) == pytest.approx(1 - alpha, abs=1e-12)


def test_map_equals_majority_and_monotone_to_floor() -> None:
    # the paper's step "MAP equals majority vote" (Appendix, proof of Thm 4.4)
    for alpha, rho in ((0.7, 0.3), (0.6, 0.6), (0.9, 0.05)):
        ms = [1, 3, 5, 7, 11, 21, 51, 101, 301, 1001]
        errs = [T.ensemble_error(alpha, rho, m) for m in ms]
        for m, e in zip(ms, errs, strict=True):
            assert e <= T.ensemble_error(alpha, rho, m, "majority") + 1e-12
            assert e == pytest.approx(T.ensemble_error(alpha, rho, m, "mv"), abs=1e-12)
        floor = T.saturation_floor(alpha, rho)
        assert np.all(np.diff(errs) < 0)
        assert min(errs) > floor
    assert T.ensemble_error(0.7, 0.3, 10_001) - T.saturation_floor(0.7, 0.3) < 1e-4
    # even m: the tie mass is split, MAP (ties -> +1) gives the same value
    assert T.ensemble_error(0.7, 0.3, 10) == pytest.approx(T.ensemble_error(0.7, 0.3, 10, "mv"),
                                                           abs=1e-14)


def test_alpha_below_half_map_beats_majority() -> None:
    # MAP reads the pattern, so it exploits anti-informative models; majority does not
    assert T.ensemble_error(0.3, 0.2, 11) < T.ensemble_error(0.3, 0.2, 11, "majority")


def test_ensemble_error_vs_monte_carlo() -> None:
    rng = np.random.default_rng(12345)
    alpha, rho, m, n = 0.7, 0.4, 9, 200_000
    tau = ndtri(1 - alpha)
    U = rng.standard_normal((n, 1))
    Z = math.sqrt(rho) * U + math.sqrt(1 - rho) * rng.standard_normal((n, m))
    K = (Z < tau).sum(axis=1)
    wrong = (K > m / 2).astype(float)
    p_hat = wrong.mean()
    se = math.sqrt(p_hat * (1 - p_hat) / n)
    assert abs(p_hat - T.ensemble_error(alpha, rho, m, "majority")) < 4 * se
    counts = np.bincount(K, minlength=m + 1) / n
    pmf = T.error_count_distribution(alpha, rho, m)
    assert np.all(np.abs(counts - pmf) < 4 * np.sqrt(pmf * (1 - pmf) / n) + 1e-12)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"alpha": 0.0}, "alpha"), ({"alpha": 1.0}, "alpha"), ({"alpha": True}, "alpha"),
    ({"rho": -0.01}, "rho"), ({"rho": 1.01}, "rho"),
    ({"m": 0}, r"^m of ensemble_error must be an int in \[1, inf\); got 0$"),
    ({"m": 2.5}, "m of ensemble_error must be an int"), ({"m": True}, "must be an int"),
    ({"m": "3"}, "must be an int"), ({"rule": "median"}, "rule"), ({"rule": None}, "rule"),
])
def test_ensemble_error_errors(kwargs: dict, match: str) -> None:
    args = {"alpha": 0.7, "rho": 0.3, "m": 5, "rule": "map"} | kwargs
    with pytest.raises(ValueError, match=match):
        T.ensemble_error(**args)


def test_count_law_return_info_closed_forms() -> None:
    pmf, info = T.error_count_distribution(0.8, 1.0, 4, return_info=True)
    np.testing.assert_allclose(pmf, [0.8, 0, 0, 0, 0.2])
    assert info.method == "comonotone"
    assert T.error_count_distribution(0.8, 0.0, 3, return_info=True)[1].method == "binomial"


# ---------------------------------------------------------------------------
# Theorem 4.1: BSC degradation, joint laws
# ---------------------------------------------------------------------------


def test_example_c1_delta() -> None:
    assert T.bsc_degradation_delta(0.2, 0.4) == pytest.approx(1 / 3, abs=1e-15)
    assert T.bsc_degradation_delta(0.1, 0.1) == 0.0
    # cascade reproduces the weaker channel
    for e1, e2 in ((0.05, 0.3), (0.2, 0.45), (0.0, 0.25)):
        d = T.bsc_degradation_delta(e1, e2)
        assert e1 * (1 - d) + (1 - e1) * d == pytest.approx(e2, abs=1e-15)
    with pytest.raises(ValueError, match="eps_weak of bsc_degradation_delta must be at least"
                                         " eps_strong"):
        T.bsc_degradation_delta(0.3, 0.1)
    with pytest.raises(ValueError, match="eps_strong"):
        T.bsc_degradation_delta(0.5, 0.6)


def test_example_c1_degraded_joint_law() -> None:
    # X_S for S = {1, 3} equals (X_1, BSC(1/3)(X_2)) in law: the Markov chain of Example A.1
    J = T.independent_joint_law([0.1, 0.2, 0.4])
    d = T.bsc_degradation_delta(0.2, 0.4)
    top = T.subset_joint(J, [0, 1])
    chan = np.array([[1 - d, d], [d, 1 - d]])
    degraded = np.einsum("yab,bc->yac", top, chan)
    np.testing.assert_allclose(degraded, T.subset_joint(J, [0, 2]), atol=1e-15)
    assert T.mutual_information_xy(J, [0, 1]) > T.mutual_information_xy(J, [0, 2])
    assert T.map_error(J, [0, 1]) <= T.map_error(J, [0, 2]) + 1e-15


def test_remark_tightness_error_can_tie() -> None:
    # Remark "Tightness of the Bound" claims strict inequalities for S != H_k. For I(Y; X_S)
    # it holds here, but the MAP error of two BSCs is that of the better one, so it ties.
    J = T.independent_joint_law([0.1, 0.2, 0.4])
    assert T.mutual_information_xy(J, [0, 1]) > T.mutual_information_xy(J, [0, 2]) + 1e-3
    assert T.map_error(J, [0, 1]) == pytest.approx(T.map_error(J, [0, 2]), abs=1e-15)
    assert T.map_error(J, [0, 2]) == pytest.approx(0.1, abs=1e-15)


def test_independent_joint_law_layout() -> None:
    J = T.independent_joint_law([0.1, 0.3], prior=0.6)
    assert J.shape == (2, 2, 2) and J.sum() == pytest.approx(1.0)
    assert J[1, 1, 1] == pytest.approx(0.6 * 0.9 * 0.7)  # Y=+1, both right
    assert J[0, 0, 0] == pytest.approx(0.4 * 0.9 * 0.7)  # Y=-1, both right
    assert J[1, 0, 1] == pytest.approx(0.6 * 0.1 * 0.7)  # Y=+1, model 0 wrong
    assert T.map_error(J, [0]) == pytest.approx(0.1)
    assert T.map_decisions(J, [0]).tolist() == [-1, 1]
    with pytest.raises(ValueError, match=r"eps\[1\]"):
        T.independent_joint_law([0.1, 1.5])
    with pytest.raises(ValueError, match="prior"):
        T.independent_joint_law([0.1], prior=1.0)


def test_subset_joint_order_and_errors() -> None:
    J = T.independent_joint_law([0.1, 0.2, 0.3])
    a = T.subset_joint(J, [2, 0])
    np.testing.assert_allclose(a, np.transpose(T.subset_joint(J, [0, 2]), (0, 2, 1)))
    assert T.subset_joint(J, []).tolist() == pytest.approx([0.5, 0.5])
    assert T.mutual_information_xy(J, []) == 0.0
    with pytest.raises(ValueError, match="only 3 models"):
        T.subset_joint(J, [3])
    with pytest.raises(ValueError, match="repeats"):
        T.subset_joint(J, [1, 1])
    with pytest.raises(ValueError, match="shape"):
        T.map_error(np.ones((2, 3)) / 6)
    with pytest.raises(ValueError, match="joint of map_error must be a probability table that "
                                         "sums to 1; got a sum of 4.0"):
        T.map_error(np.ones((2, 2)))


def test_copula_identity_equals_independent() -> None:
    eps = np.array([0.1, 0.25, 0.4, 0.3])
    for k in (1, 2, 3, 4):
        C = T.copula_joint_law(ndtri(eps[:k]), np.eye(k))
        np.testing.assert_allclose(C, T.independent_joint_law(eps[:k]), atol=1e-14)


def test_copula_pairs_closed_form_and_marginals() -> None:
    tau = ndtri([0.2, 0.35])
    law = T.error_pattern_law(tau, [[1, 0.5], [0.5, 1]])
    assert law[1, 1] == pytest.approx(bivariate_normal_cdf(tau[0], tau[1], 0.5), abs=1e-14)
    assert law[1].sum() == pytest.approx(0.2, abs=1e-14)
    assert law[:, 1].sum() == pytest.approx(0.35, abs=1e-14)
    assert law.sum() == pytest.approx(1.0, abs=1e-15)


def test_copula_equicorrelated_matches_count_law() -> None:
    alpha, rho, k = 0.72, 0.45, 6
    Sigma = np.full((k, k), rho) + (1 - rho) * np.eye(k)
    law = T.error_pattern_law(np.full(k, ndtri(1 - alpha)), Sigma)
    counts = np.zeros(k + 1)
    for idx in itertools.product((0, 1), repeat=k):
        counts[sum(idx)] += law[idx]
    np.testing.assert_allclose(counts, T.error_count_distribution(alpha, rho, k), atol=1e-13)
    J = T.copula_joint_law(np.full(k, ndtri(1 - alpha)), Sigma)
    assert T.map_error(J) == pytest.approx(T.ensemble_error(alpha, rho, k), abs=1e-13)


def test_copula_general_sigma_marginals_and_pairs() -> None:
    rng = np.random.default_rng(3)
    A = rng.normal(size=(4, 6))
    S = A @ A.T
    S = S / np.sqrt(np.outer(np.diag(S), np.diag(S)))
    eps = np.array([0.2, 0.3, 0.25, 0.35])
    law = T.error_pattern_law(ndtri(eps), S)
    assert law.sum() == pytest.approx(1.0, abs=1e-12) and (law >= 0).all()
    for j in range(4):
        marg = law.sum(axis=tuple(i for i in range(4) if i != j))
        assert marg[1] == pytest.approx(eps[j], abs=5e-6)
    pair = law.sum(axis=(2, 3))
    assert pair[1, 1] == pytest.approx(bivariate_normal_cdf(ndtri(0.2), ndtri(0.3), S[0, 1]),
                                       abs=5e-6)
    # deterministic
    np.testing.assert_array_equal(law, T.error_pattern_law(ndtri(eps), S))


def test_copula_independent_blocks_are_exact_in_any_order() -> None:
    S = np.array([[1, 0.0, 0.6], [0.0, 1, 0.0], [0.6, 0.0, 1.0]])
    law = T.error_pattern_law(ndtri([0.3, 0.2, 0.25]), S)
    pair = T.error_pattern_law(ndtri([0.3, 0.25]), [[1, 0.6], [0.6, 1]])
    expected = np.einsum("ac,b->abc", pair, [0.8, 0.2])
    np.testing.assert_allclose(law, expected, atol=1e-15)


def test_comonotone_pattern_law() -> None:
    law = T.error_pattern_law(ndtri([0.1, 0.3]), np.ones((2, 2)))
    np.testing.assert_allclose(law, [[0.7, 0.2], [0.0, 0.1]], atol=1e-15)


def test_label_dependent_law_has_correction_term() -> None:
    S1 = np.full((3, 3), 0.5) + 0.5 * np.eye(3)
    S2 = np.full((3, 3), 0.2) + 0.8 * np.eye(3)
    L = T.label_dependent_copula_joint_law(ndtri([0.1, 0.3, 0.2]), S1, ndtri([0.3, 0.1, 0.25]), S2)
    assert L.sum() == pytest.approx(1.0)
    terms = decomposition_terms_exact(L, 0, [1, 2])
    assert abs(terms.correction) > 1e-3
    assert terms.delta == pytest.approx(terms.four_term, abs=1e-12)
    same = T.label_dependent_copula_joint_law(ndtri([0.1, 0.3, 0.2]), S1, ndtri([0.1, 0.3, 0.2]),
                                              S1)
    assert decomposition_terms_exact(same, 0, [1, 2]).correction == pytest.approx(0, abs=1e-12)
    with pytest.raises(ValueError, match="models"):
        T.label_dependent_copula_joint_law(ndtri([0.1, 0.3]), np.eye(2), ndtri([0.1]), np.eye(1))


def test_copula_errors() -> None:
    with pytest.raises(ValueError, match="Sigma of copula_joint_law must be of shape"):
        T.copula_joint_law([0.0, 0.0], np.eye(3))
    with pytest.raises(ValueError, match="positive definite"):
        bad = np.array([[1, 0.9, -0.9], [0.9, 1, 0.9], [-0.9, 0.9, 1.0]])
        T.error_pattern_law([0.0, 0.0, 0.0], bad)


eps_lists = st.lists(st.floats(0.02, 0.48), min_size=2, max_size=5)


@settings(deadline=None, max_examples=40)
@given(eps=eps_lists, data=st.data())
def test_topk_is_mi_and_error_optimal_under_independence(eps: list[float], data) -> None:
    m = len(eps)
    k = data.draw(st.integers(1, m))
    J = T.independent_joint_law(eps)
    top = sorted(np.argsort(eps, kind="stable")[:k].tolist())
    mi_top, pe_top = T.mutual_information_xy(J, top), T.map_error(J, top)
    for S in itertools.combinations(range(m), k):
        assert T.mutual_information_xy(J, S) <= mi_top + 1e-12
        assert T.map_error(J, S) >= pe_top - 1e-12


# ---------------------------------------------------------------------------
# Theorem D.1: latent difficulty
# ---------------------------------------------------------------------------


def test_difficulty_model_decomposition_and_single_level() -> None:
    M = T.LatentDifficultyModel([0.5, 0.3, 0.2],
                                [[0.05, 0.1, 0.2, 0.1], [0.2, 0.3, 0.3, 0.25],
                                 [0.45, 0.5, 0.4, 0.6]])
    dec = M.decomposition([0, 1, 2])
    assert abs(dec.residual) < 1e-12
    assert dec.price_of_difficulty == pytest.approx(dec.price_operational, abs=1e-12)
    assert dec.label_difficulty_information == pytest.approx(0.0, abs=1e-12)
    assert dec.price_of_difficulty > 0
    assert M.joint([0, 1]).shape == (3, 2, 2, 2) and M.joint().sum() == pytest.approx(1.0)
    assert M.map_error([0, 1, 2], oracle=True) <= M.map_error([0, 1, 2])
    # one difficulty level = independent BSCs, no price
    one = T.LatentDifficultyModel([1.0], [[0.1, 0.2, 0.4]])
    assert one.price_of_difficulty([0, 1, 2]) == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(one.joint_yx(), T.independent_joint_law([0.1, 0.2, 0.4]),
                               atol=1e-15)


def test_one_factor_difficulty_matches_saturation_model() -> None:
    M = T.LatentDifficultyModel.from_one_factor(0.7, 0.4, m=6, n_levels=80)
    np.testing.assert_allclose(M.marginal_error_rates, 0.3, atol=1e-10)
    assert M.map_error() == pytest.approx(T.ensemble_error(0.7, 0.4, 6), abs=1e-8)


def test_difficulty_model_errors() -> None:
    with pytest.raises(ValueError, match="difficulty_prior of LatentDifficultyModel must be"
                                         " non-negative and summing to 1"):
        T.LatentDifficultyModel([0.5, 0.6], [[0.1], [0.2]])
    with pytest.raises(ValueError, match="error_rates of LatentDifficultyModel must be of shape"):
        T.LatentDifficultyModel([0.5, 0.5], [[0.1, 0.2]])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        T.LatentDifficultyModel([1.0], [[1.2]])
    with pytest.raises(ValueError, match="only 1 models"):
        T.LatentDifficultyModel([1.0], [[0.2]]).information([1])


@st.composite
def difficulty_models(draw):
    n_levels = draw(st.integers(1, 3))
    m = draw(st.integers(2, 5))
    label_dep = draw(st.booleans())
    w = np.array(draw(st.lists(st.floats(0.05, 1.0), min_size=n_levels, max_size=n_levels)))
    shape = (n_levels, 2, m) if label_dep else (n_levels, m)
    rates = draw(st.lists(st.floats(0.01, 0.99), min_size=int(np.prod(shape)),
                          max_size=int(np.prod(shape))))
    return T.LatentDifficultyModel(w / w.sum(), np.reshape(rates, shape))


@settings(deadline=None, max_examples=30)
@given(M=difficulty_models())
def test_difficulty_aware_information_is_monotone_submodular(M: T.LatentDifficultyModel) -> None:
    F = M.difficulty_aware_information
    m = M.n_models
    assert T.is_monotone(F, m, tol=1e-12)
    assert T.is_submodular(F, m, tol=1e-12)
    for k in range(1, m + 1):
        _, g = T.greedy_maximize(F, m, k)
        _, opt = T.exhaustive_maximize(F, m, k)
        assert g >= (1 - 1 / math.e) * opt - 1e-12
        assert g <= opt + 1e-12
    S = tuple(range(m))
    assert abs(M.decomposition(S).residual) < 1e-12


def test_set_function_checks_detect_violations() -> None:
    def supermodular(S: tuple[int, ...]) -> float:
        return float(len(S) ** 2)

    def decreasing(S: tuple[int, ...]) -> float:
        return -float(len(S))

    assert not T.is_submodular(supermodular, 3)
    assert T.submodularity_violation(supermodular, 3) == pytest.approx(2.0)
    assert not T.is_monotone(decreasing, 3) and T.is_submodular(decreasing, 3)
    assert T.greedy_maximize(lambda S: float(sum(S)), 4, 2) == ([3, 2], 5.0)
    assert T.exhaustive_maximize(lambda S: float(sum(S)), 4, 2) == ((2, 3), 5.0)
    with pytest.raises(ValueError, match="exceeds"):
        T.greedy_maximize(supermodular, 3, 4)
    with pytest.raises(ValueError, match=r"m of set_function_table must be an int in \[1, 16\];"
                                         r" got 17"):
        T.set_function_table(supermodular, 17)


# ---------------------------------------------------------------------------
# Theorem E.1: log-odds weights
# ---------------------------------------------------------------------------


def test_log_odds_weights_values() -> None:
    np.testing.assert_allclose(T.log_odds_weights([0.5, 0.9, 0.1]),
                               [0.0, math.log(9), -math.log(9)])
    with pytest.raises(ValueError, match=r"p\[0\]"):
        T.log_odds_weights([1.0])
    assert T.weighted_vote_decisions([1.0, 1.0]).tolist() == [[-1, 1], [1, 1]]  # ties -> +1


@settings(deadline=None, max_examples=40)
@given(eps=st.lists(st.floats(0.02, 0.6), min_size=1, max_size=6))
def test_log_odds_vote_is_map_under_independence(eps: list[float]) -> None:
    assert T.weighted_vote_matches_map(eps)
    cmp = T.compare_weighted_vote_with_map(T.independent_joint_law(eps))
    assert cmp.n_disagree == 0 and cmp.excess_error == pytest.approx(0.0, abs=1e-15)


def test_log_odds_vote_under_correlation_can_lose() -> None:
    # two strongly correlated weaker models + one independent better model: the vote trusts
    # the pair (0.85 + 0.85 > 1.39), MAP knows the pair is nearly one model
    S = np.array([[1, 0.95, 0], [0.95, 1, 0], [0, 0, 1.0]])
    J = T.copula_joint_law(ndtri([0.3, 0.3, 0.2]), S)
    cmp = T.compare_weighted_vote_with_map(J)
    assert cmp.n_patterns == 8
    assert cmp.n_disagree > 0 and cmp.disagreement_mass > 0
    assert cmp.excess_error > 1e-3
    assert cmp.weighted_vote_error >= cmp.map_error
    with pytest.raises(ValueError, match=r"weights of compare_weighted_vote_with_map must be of"
                                         r" shape \(3,\)"):
        T.compare_weighted_vote_with_map(J, weights=[1.0, 2.0])
