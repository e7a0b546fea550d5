"""Tests for ensel.copula: bivariate normal, tetrachoric fitting, sampling, diagnostics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq
from scipy.special import ndtr, ndtri, owens_t
from scipy.stats import multivariate_normal

from ensel.copula import (
    GaussianCopula,
    bivariate_normal_cdf,
    bivariate_normal_pdf,
    copula_diagnostics,
    errors_from,
    fit_gaussian_copula,
    model_pairwise_joint_errors,
    nearest_correlation,
    pairwise_joint_errors,
    sample,
    sample_equicorrelated,
    sample_errors,
    simultaneous_error_distribution,
    solve_tetrachoric,
    tetrachoric,
    tetrachoric_matrix,
    thresholds,
)


def _owen_phi2(h, k, r):
    """Phi_2 by Owen's T function (independent reference; h, k nonzero)."""
    s = np.sqrt(1 - r * r)
    beta = np.where(h * k < 0, 0.5, 0.0)
    return (0.5 * (ndtr(h) + ndtr(k)) - owens_t(h, (k - r * h) / (h * s))
            - owens_t(k, (h - r * k) / (k * s)) - beta)


# ----------------------------------------------------------------------------- Phi_2


def test_bivariate_cdf_closed_forms():
    assert bivariate_normal_cdf(0.0, 0.0, 0.5) == pytest.approx(1 / 3, abs=1e-15)
    for r in (-0.99, -0.5, 0.3, 0.95):
        assert bivariate_normal_cdf(0, 0, r) == pytest.approx(
            0.25 + np.arcsin(r) / (2 * np.pi), abs=1e-15)
    h, k = 0.3, -1.2
    assert bivariate_normal_cdf(h, k, 0.0) == pytest.approx(ndtr(h) * ndtr(k), abs=1e-15)
    assert bivariate_normal_cdf(h, k, 1.0) == pytest.approx(ndtr(min(h, k)), abs=1e-15)
    assert bivariate_normal_cdf(h, k, -1.0) == pytest.approx(
        max(0.0, ndtr(h) + ndtr(k) - 1), abs=1e-15)
    assert bivariate_normal_cdf(np.inf, k, 0.4) == pytest.approx(ndtr(k))
    assert bivariate_normal_cdf(-np.inf, k, 0.4) == 0.0
    assert isinstance(bivariate_normal_cdf(0.1, 0.2, 0.3), float)


def test_bivariate_cdf_matches_owens_t_and_scipy():
    rng = np.random.default_rng(0)
    h, k = rng.normal(0, 1.5, 3000), rng.normal(0, 1.5, 3000)
    r = np.concatenate([rng.uniform(-1, 1, 2000), rng.uniform(0.9, 0.99999, 500),
                        -rng.uniform(0.9, 0.99999, 500)])
    np.testing.assert_allclose(bivariate_normal_cdf(h, k, r), _owen_phi2(h, k, r), atol=1e-14)
    for i in range(0, 3000, 300):
        ref = multivariate_normal.cdf([h[i], k[i]], cov=[[1, r[i]], [r[i], 1]])
        assert bivariate_normal_cdf(h[i], k[i], r[i]) == pytest.approx(ref, abs=1e-12)


def test_bivariate_pdf_is_derivative_in_rho():
    h, k, r, d = 0.4, -0.7, 0.35, 1e-6
    num = (bivariate_normal_cdf(h, k, r + d) - bivariate_normal_cdf(h, k, r - d)) / (2 * d)
    assert float(bivariate_normal_pdf(h, k, r)) == pytest.approx(num, rel=1e-7)
    assert float(bivariate_normal_pdf(h, k, 1.0)) == 0.0


def test_bivariate_cdf_errors():
    with pytest.raises(ValueError, match=r"rho of bivariate_normal_cdf must be a correlation in"
                                         r" \[-1, 1\]; got 1.5"):
        bivariate_normal_cdf(0, 0, 1.5)
    with pytest.raises(ValueError, match="NaN"):
        bivariate_normal_cdf(np.nan, 0, 0.1)


# ----------------------------------------------------------------------------- tetrachoric


def test_phi2_inversion_round_trip():
    rng = np.random.default_rng(1)
    ti, tj = ndtri(rng.uniform(0.05, 0.6, 4000)), ndtri(rng.uniform(0.05, 0.6, 4000))
    rho = rng.uniform(-0.95, 0.98, 4000)
    p = bivariate_normal_cdf(ti, tj, rho)
    # Phi_2 is known to ~1e-16, so rho is determined to ~1e-16 / phi_2: keep the pairs where
    # that is below 1e-8 (near |rho| = 1 with unequal thresholds Phi_2 is flat to 1e-13)
    ok = bivariate_normal_pdf(ti, tj, rho) > 1e-6
    assert ok.mean() > 0.95
    np.testing.assert_allclose(solve_tetrachoric(ti[ok], tj[ok], p[ok]), rho[ok], atol=1e-8)


@settings(deadline=None, max_examples=50)
@given(pi=st.floats(0.02, 0.7), pj=st.floats(0.02, 0.7), rho=st.floats(-0.9, 0.97))
def test_phi2_inversion_round_trip_property(pi, pj, rho):
    ti, tj = ndtri(pi), ndtri(pj)
    assume(float(bivariate_normal_pdf(ti, tj, rho)) > 1e-6)  # well-conditioned (see above)
    p = bivariate_normal_cdf(ti, tj, rho)
    assert float(solve_tetrachoric(ti, tj, p)) == pytest.approx(rho, abs=1e-8)


def test_solver_agrees_with_scipy_brentq():
    rng = np.random.default_rng(2)
    ti, tj = ndtri(rng.uniform(0.05, 0.5, 15)), ndtri(rng.uniform(0.05, 0.5, 15))
    p = bivariate_normal_cdf(ti, tj, rng.uniform(-0.5, 0.9, 15)) * rng.uniform(0.98, 1.02, 15)
    ours = solve_tetrachoric(ti, tj, p)
    for a, b, q, r in zip(ti, tj, p, ours, strict=True):
        def f(x, a=a, b=b, q=q):
            return multivariate_normal.cdf([a, b], cov=[[1, x], [x, 1]]) - q
        ref = brentq(f, -0.999999, 0.999999, xtol=1e-12)
        assert r == pytest.approx(ref, abs=1e-6)


def test_tetrachoric_recovers_known_rho():
    tau = ndtri(np.array([0.3, 0.2]))
    for rho in (-0.4, 0.0, 0.6):
        Sigma = np.array([[1.0, rho], [rho, 1.0]])
        E = sample_errors(tau, Sigma, 200_000, random_state=3)
        # standard error of the tetrachoric estimate here is ~0.005
        assert tetrachoric(E[:, 0], E[:, 1]) == pytest.approx(rho, abs=0.025)


def test_tetrachoric_zero_for_exactly_independent_columns():
    a, b = np.meshgrid(np.arange(10), np.arange(10), indexing="ij")
    e_i = (a.ravel() < 3).astype(int)  # 30 % errors
    e_j = (b.ravel() < 4).astype(int)  # 40 % errors, joint 12 % = 0.3 * 0.4
    assert tetrachoric(e_i, e_j) == pytest.approx(0.0, abs=1e-12)


def test_tetrachoric_bounds():
    e = np.zeros(100, dtype=int)
    e_i = e.copy()
    e_i[:40] = 1
    e_j = e.copy()
    e_j[:10] = 1        # subset of e_i's errors: joint = min(p_i, p_j), upper bound
    assert tetrachoric(e_i, e_i) == 1.0
    assert tetrachoric(e_i, e_j) == 1.0
    e_k = e.copy()
    e_k[60:90] = 1      # disjoint from e_i, p_i + p_k <= 1: joint 0 = lower bound
    assert tetrachoric(e_i, e_k) == -1.0
    assert tetrachoric(e_i, 1 - e_i) == -1.0
    e_a = e.copy()
    e_a[:70] = 1
    e_b = e.copy()
    e_b[40:] = 1        # p = 0.7, 0.6: joint 0.3 = p_a + p_b - 1, lower bound
    assert tetrachoric(e_a, e_b) == -1.0
    e_b[99] = 0         # joint 0.3 but p_b = 0.59: inside the bounds, strongly negative
    assert -1.0 < tetrachoric(e_a, e_b) < -0.5
    # beyond the Frechet interval (not reachable from data, but defined): clipped to +-1
    ti, tj = ndtri(0.3), ndtri(0.2)
    np.testing.assert_array_equal(solve_tetrachoric(ti, tj, [0.25, 0.2, -0.01, 0.0]),
                                  [1.0, 1.0, -1.0, -1.0])


@settings(deadline=None, max_examples=30)
@given(st.integers(0, 20), st.integers(0, 20))
def test_tetrachoric_increases_with_joint_errors(a, b):
    # 20 errors each out of 100 items; rolling the errors by 20 - o leaves an overlap of o
    lo, hi = sorted((a, b))
    e_i = np.zeros(100, int)
    e_i[:20] = 1
    e_j1 = np.roll(e_i, 20 - lo)   # overlap lo
    e_j2 = np.roll(e_i, 20 - hi)   # overlap hi >= lo
    assert tetrachoric(e_i, e_j1) <= tetrachoric(e_i, e_j2)


def test_tetrachoric_constant_column_is_zero():
    e_i = np.r_[np.ones(30), np.zeros(70)].astype(int)
    assert tetrachoric(e_i, np.zeros(100, int)) == 0.0
    assert tetrachoric(np.ones(100, int), e_i) == 0.0
    tau, _ = fit_gaussian_copula(np.column_stack([e_i, np.zeros(100, int)]), eps=1e-4)
    assert tau[1] == pytest.approx(ndtri(1e-4))


def test_tetrachoric_errors():
    with pytest.raises(ValueError, match=r"e_j of tetrachoric must be of the same length as e_i"
                                         r" \(3 items\); got 2 items"):
        tetrachoric([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match=r"e_j has value 2 at position \(1,\)"):
        tetrachoric([0, 1], [0, 2])
    with pytest.raises(ValueError, match="e_i of tetrachoric must be 1-dimensional"):
        tetrachoric([[0, 1]], [[0, 1]])
    with pytest.raises(ValueError, match=r"eps of tetrachoric must be a real number in \(0, 0.5\)"):
        tetrachoric([0, 1], [1, 0], eps=0.0)
    with pytest.raises(ValueError, match="must be finite"):
        solve_tetrachoric(np.inf, 0.0, 0.1)


def test_tetrachoric_matrix_matches_pairwise():
    _, _, E = sample_equicorrelated([0.6, 0.7, 0.8, 0.9], 0.4, 4, 3000, random_state=4)
    R = tetrachoric_matrix(E)
    assert np.allclose(R, R.T) and np.all(np.diag(R) == 1.0)
    for i in range(4):
        for j in range(i + 1, 4):
            assert R[i, j] == pytest.approx(tetrachoric(E[:, i], E[:, j]), abs=1e-12)


# ----------------------------------------------------------------------------- fitting


def _non_psd_errors():
    E = np.zeros((100, 3), dtype=np.int8)
    E[:40, 1] = 1    # model 1 errs on 0..39
    E[:10, 0] = 1    # model 0's errors inside model 1's -> rho = +1
    E[30:40, 2] = 1  # model 2's errors inside model 1's -> rho = +1, disjoint from 0 -> -1
    return E


def test_fit_projects_non_psd_raw_matrix():
    E = _non_psd_errors()
    cop = GaussianCopula().fit(E)
    np.testing.assert_array_equal(cop.raw_Sigma_, [[1, 1, -1], [1, 1, 1], [-1, 1, 1]])
    assert np.linalg.eigvalsh(cop.raw_Sigma_).min() < -0.5
    S = cop.Sigma_
    np.testing.assert_allclose(np.diag(S), 1.0)
    np.testing.assert_allclose(S, S.T)
    assert np.linalg.eigvalsh(S).min() > 0
    np.linalg.cholesky(S)
    tau, Sigma = fit_gaussian_copula(E)
    np.testing.assert_array_equal(Sigma, S)
    np.testing.assert_allclose(tau, ndtri([0.1, 0.4, 0.1]))
    np.testing.assert_allclose(cop.error_rates_, [0.1, 0.4, 0.1])


def test_nearest_correlation_keeps_psd_input_and_fixes_bad_one():
    A = np.array([[1.0, 0.5, 0.2], [0.5, 1.0, 0.3], [0.2, 0.3, 1.0]])
    np.testing.assert_allclose(nearest_correlation(A), A, atol=1e-12)
    B = np.array([[1.0, 0.9, -0.9], [0.9, 1.0, 0.9], [-0.9, 0.9, 1.0]])
    P = nearest_correlation(B, eps=1e-3)
    assert np.linalg.eigvalsh(P).min() > 0
    np.testing.assert_allclose(np.diag(P), 1.0)
    with pytest.raises(ValueError, match="R of nearest_correlation must be symmetric"):
        nearest_correlation([[1.0, 0.2], [0.3, 1.0]])
    with pytest.raises(ValueError, match="square"):
        nearest_correlation(np.ones((2, 3)))


def test_fit_on_psd_truth_reproduces_pairwise_joint_errors():
    _, _, E = sample_equicorrelated([0.6, 0.75, 0.9, 0.7, 0.8], 0.5, 5, 20_000, random_state=5)
    cop = GaussianCopula().fit(E)
    assert np.linalg.eigvalsh(cop.raw_Sigma_).min() > 1e-3  # projection is a no-op
    np.testing.assert_allclose(model_pairwise_joint_errors(cop.tau_, cop.Sigma_),
                               pairwise_joint_errors(E), atol=1e-10)
    off = cop.Sigma_[np.triu_indices(5, 1)]
    np.testing.assert_allclose(off, 0.5, atol=0.06)


def test_fit_errors():
    with pytest.raises(ValueError, match=r"E has value -1 at position \(0, 0\)"):
        fit_gaussian_copula(np.array([[-1, 1], [1, 1]]))
    with pytest.raises(ValueError, match=r"E of .* must be 2-dimensional \(n_items, n_models\);"
                                         r" got shape"):
        fit_gaussian_copula(np.array([0, 1, 1]))
    with pytest.raises(ValueError, match="this GaussianCopula is not fitted yet; "
                                         r"call fit\(E\) first"):
        GaussianCopula().sample(10)


# ----------------------------------------------------------------------------- sampling


def test_errors_from_and_abstention_is_error():
    X = np.array([[1, -1, 0], [-1, -1, 1]])
    y = np.array([1, 1])
    np.testing.assert_array_equal(errors_from(X, y), [[0, 1, 1], [1, 1, 0]])
    with pytest.raises(ValueError, match="y has 3 labels but X has 2 rows"):
        errors_from(X, [1, 1, 1])


def test_sample_reproducible_and_marginals():
    tau = ndtri(np.array([0.1, 0.3, 0.45]))
    Sigma = np.array([[1, 0.3, 0.1], [0.3, 1, 0.5], [0.1, 0.5, 1]])
    X1, y1, E1 = sample(tau, Sigma, 40_000, random_state=6)
    X2, y2, E2 = sample(tau, Sigma, 40_000, random_state=6)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    X3, _, _ = sample(tau, Sigma, 40_000, random_state=7)
    assert (X1 != X3).any()
    assert X1.dtype == np.int8 and E1.dtype == np.int8
    np.testing.assert_array_equal(X1, y1[:, None] * (1 - 2 * E1))
    np.testing.assert_array_equal(errors_from(X1, y1), E1)
    # 5 standard errors of a proportion with n = 40,000
    np.testing.assert_allclose(E1.mean(axis=0), [0.1, 0.3, 0.45], atol=5 * 0.0025)
    assert abs(y1.mean()) < 5 / np.sqrt(40_000)
    np.testing.assert_allclose(pairwise_joint_errors(E1),
                               model_pairwise_joint_errors(tau, Sigma), atol=0.012)
    _, yb, _ = sample(tau, Sigma, 1001, random_state=1, balanced=True)
    assert (yb == 1).sum() == 501


def test_sample_errors_input_checks():
    with pytest.raises(ValueError, match=r"Sigma of .* must be of shape \(2, 2\) to match tau"):
        sample_errors([0.0, 0.0], np.eye(3), 5)
    with pytest.raises(ValueError, match="unit diagonal"):
        sample_errors([0.0, 0.0], 2 * np.eye(2), 5)
    with pytest.raises(ValueError, match="Sigma of sample_errors must be positive semi-definite"):
        sample_errors([0.0, 0.0, 0.0], [[1, 1, -1], [1, 1, 1], [-1, 1, 1]], 5)
    with pytest.raises(ValueError, match=r"n of sample_errors must be an int in \[1, inf\); got 0"):
        sample_errors([0.0], [[1.0]], 0)


def test_sample_equicorrelated_marginals_correlation_and_seed():
    acc = np.array([0.6, 0.7, 0.8, 0.9])
    X, y, E = sample_equicorrelated(acc, 0.5, 4, 50_000, random_state=8)
    np.testing.assert_allclose((X == y[:, None]).mean(axis=0), acc, atol=5 * 0.0023)
    # joint errors follow Phi_2 at rho = 0.5
    tau = ndtri(1 - acc)
    Sigma = np.full((4, 4), 0.5) + 0.5 * np.eye(4)
    np.testing.assert_allclose(pairwise_joint_errors(E), model_pairwise_joint_errors(tau, Sigma),
                               atol=0.01)
    X2, y2, E2 = sample_equicorrelated(acc, 0.5, 4, 50_000, random_state=8)
    np.testing.assert_array_equal(X, X2)
    # rho = 0: independent errors; rho = 1: equal-accuracy models err together
    _, _, E0 = sample_equicorrelated(0.7, 0.0, 2, 50_000, random_state=9)
    assert np.mean(E0[:, 0] & E0[:, 1]) == pytest.approx(0.09, abs=0.006)
    _, _, E1 = sample_equicorrelated(0.7, 1.0, 3, 1000, random_state=9)
    assert (E1 == E1[:, :1]).all()
    # accuracy 1 never errs, accuracy 0 always errs
    _, _, Ed = sample_equicorrelated([1.0, 0.0], 0.3, 2, 100, random_state=0)
    assert Ed[:, 0].sum() == 0 and Ed[:, 1].sum() == 100


def test_sample_equicorrelated_errors():
    with pytest.raises(ValueError, match=r"rho of sample_equicorrelated must be a real number in"
                                         r" \[0, 1\]"):
        sample_equicorrelated(0.7, -0.1, 3, 10)
    with pytest.raises(ValueError, match="accuracy of sample_equicorrelated must be of length 3; "
                                         "got length 2"):
        sample_equicorrelated([0.7, 0.8], 0.1, 3, 10)
    with pytest.raises(ValueError,
                       match=r"accuracy\[0\] of sample_equicorrelated must be a probability"):
        sample_equicorrelated(1.2, 0.1, 3, 10)
    with pytest.raises(ValueError, match=r"m of sample_equicorrelated must be an int in \[1, "):
        sample_equicorrelated(0.7, 0.1, 2.5, 10)


# ----------------------------------------------------------------------------- diagnostics


def test_pairwise_and_simultaneous_distribution_by_hand():
    E = np.array([[1, 1, 0], [0, 1, 1], [1, 1, 1], [0, 0, 0]])
    np.testing.assert_allclose(pairwise_joint_errors(E), [2 / 4, 1 / 4, 2 / 4])
    np.testing.assert_allclose(simultaneous_error_distribution(E), [1 / 4, 0, 2 / 4, 1 / 4])


@settings(deadline=None, max_examples=30)
@given(st.integers(1, 6), st.integers(1, 50), st.integers(0, 2**31))
def test_simultaneous_distribution_property(m, n, seed):
    E = (np.random.default_rng(seed).random((n, m)) < 0.3).astype(np.int8)
    d = simultaneous_error_distribution(E)
    assert d.shape == (m + 1,)
    assert d.sum() == pytest.approx(1.0)
    assert d @ np.arange(m + 1) == pytest.approx(E.sum() / n)  # mean number of errors


def test_copula_diagnostics_tidy_frames():
    _, _, E = sample_equicorrelated(np.linspace(0.6, 0.9, 6), 0.5, 6, 5000, random_state=10)
    df = pd.DataFrame(E, columns=[f"m{j}" for j in range(6)])
    d = copula_diagnostics(df, random_state=11)
    assert list(d.pairs.columns) == ["model_i", "model_j", "empirical", "model", "sampled", "rho"]
    assert len(d.pairs) == 15 and d.pairs.loc[0, ["model_i", "model_j"]].tolist() == ["m0", "m1"]
    assert list(d.simultaneous.columns) == ["n_errors", "empirical", "copula"]
    assert len(d.simultaneous) == 7 and d.n_samples == 5000
    np.testing.assert_allclose(d.pairs.model, d.pairs.empirical, atol=1e-10)
    np.testing.assert_allclose(d.pairs.sampled, d.pairs.empirical, atol=0.03)
    np.testing.assert_allclose(d.simultaneous.copula, d.simultaneous.empirical, atol=0.03)
    d2 = copula_diagnostics(E, random_state=11, n_samples=5000)
    np.testing.assert_array_equal(d2.simultaneous.copula, d.simultaneous.copula)


def test_thresholds_clamp():
    np.testing.assert_allclose(thresholds([0.0, 0.5, 1.0], eps=0.01),
                               [ndtri(0.01), 0.0, ndtri(0.99)])
