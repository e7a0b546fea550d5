"""Tests for ensel.theory (global diminishing-returns check, random D.1 instances, BSC)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ensel.theory import (
    LatentDifficultyModel,
    binary_entropy,
    bsc_capacity,
    compare_count_law,
    diminishing_returns_violation,
    independent_joint_law,
    mutual_information_xy,
    random_latent_difficulty_model,
    submodularity_violation,
)

# ----------------------------------------------------------------- diminishing returns


def test_modular_function_has_zero_gap_and_counts_all_triples():
    w = [0.3, 1.0, 2.5, -0.7]
    res = diminishing_returns_violation(lambda S: sum(w[i] for i in S), 4)
    assert abs(res.gap) < 1e-12
    # sum_t C(m,t) (2^t - 1) (m-t) = m (3^(m-1) - 2^(m-1))
    assert res.n_triples == 4 * (3**3 - 2**3)


def test_strictly_submodular_has_negative_gap_and_m1_has_no_triple():
    assert diminishing_returns_violation(lambda S: math.sqrt(len(S)), 3).gap < 0
    res = diminishing_returns_violation(lambda S: float(len(S)), 1)
    assert res.n_triples == 0 and res.gap == 0.0 and res.j == -1


def test_concave_of_cardinality_is_submodular():
    res = diminishing_returns_violation(lambda S: math.sqrt(len(S)), 5)
    assert res.gap <= 1e-12


def test_supermodular_counterexample_is_located():
    # F(S) = |S|^2 : gains grow with S; the worst gap is at S = {}, T = all but j.
    res = diminishing_returns_violation(lambda S: float(len(S) ** 2), 3)
    assert res.gap == pytest.approx(4.0)  # gain at |T|=2 is 5, at S = {} is 1
    assert res.S == () and len(res.T) == 2 and res.j not in res.T
    assert res.gain_large - res.gain_small == pytest.approx(res.gap)


def test_coverage_function_is_submodular():
    sets = [{0, 1}, {1, 2}, {2, 3, 4}, {0, 4}, {5}]
    res = diminishing_returns_violation(lambda S: float(len(set().union(*(sets[i] for i in S)))),
                                        5)
    assert res.gap <= 0


def test_agrees_with_local_pairwise_check_in_sign():
    rng = np.random.default_rng(3)
    for _ in range(10):
        vals = {S: rng.normal() for r in range(5) for S in itertools.combinations(range(4), r)}

        def F(S, vals=vals):
            return vals[tuple(S)]

        g = diminishing_returns_violation(F, 4).gap
        loc = submodularity_violation(F, 4)
        assert (g > 1e-12) == (loc > 1e-12)
        assert g >= loc - 1e-12  # the global check covers the local triples


@pytest.mark.parametrize("m", [0, 13, 2.0, True, "3"])
def test_bad_m(m):
    with pytest.raises(ValueError, match="m"):
        diminishing_returns_violation(lambda S: 0.0, m)


# ----------------------------------------------------------------- random D.1 instances


def test_random_model_is_seeded_and_valid():
    a = random_latent_difficulty_model(4, 3, random_state=7)
    b = random_latent_difficulty_model(4, 3, random_state=7)
    c = random_latent_difficulty_model(4, 3, random_state=8)
    assert isinstance(a, LatentDifficultyModel)
    assert np.array_equal(a.error_rates, b.error_rates)
    assert not np.array_equal(a.error_rates, c.error_rates)
    assert a.n_models == 4 and a.n_levels == 3
    assert np.allclose(a.error_rates[:, 0], a.error_rates[:, 1])  # label-invariant by default
    assert (a.error_rates >= 0.02).all() and (a.error_rates <= 0.98).all()
    d = random_latent_difficulty_model(4, 3, label_dependent=True, random_state=7)
    assert not np.allclose(d.error_rates[:, 0], d.error_rates[:, 1])


@settings(deadline=None, max_examples=30)
@given(seed=st.integers(0, 2**32 - 1), dep=st.booleans())
def test_random_model_satisfies_d1(seed, dep):
    M = random_latent_difficulty_model(3, 2, label_dependent=dep, random_state=seed)
    for S in [(0,), (0, 2), (0, 1, 2)]:
        d = M.decomposition(S)
        assert abs(d.residual) < 1e-10
        assert abs(d.label_difficulty_information) < 1e-12
    F = M.difficulty_aware_information
    assert diminishing_returns_violation(F, 3).gap < 1e-10


@pytest.mark.parametrize(
    "kwargs, match",
    [({"m": 0, "n_levels": 2}, "m of random_latent_difficulty_model must"),
     ({"m": 2, "n_levels": 0}, "n_levels"),
     ({"m": 2, "n_levels": 2, "error_range": (0.6, 0.4)}, "error_range"),
     ({"m": 2, "n_levels": 2, "error_range": 0.3}, "error_range")],
)
def test_random_model_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        random_latent_difficulty_model(**kwargs)


# ----------------------------------------------------------------- BSC


def test_binary_entropy_closed_forms():
    assert binary_entropy(0.5) == pytest.approx(1.0)
    assert binary_entropy(0.0) == 0.0 and binary_entropy(1.0) == 0.0
    assert binary_entropy(0.25) == pytest.approx(0.8112781244591328)
    assert isinstance(binary_entropy(0.3), float)
    out = binary_entropy([0.1, 0.9])
    assert out.shape == (2,) and out[0] == pytest.approx(out[1])


def test_bsc_capacity_closed_forms():
    assert bsc_capacity(0.0) == pytest.approx(1.0)
    assert bsc_capacity(0.5) == pytest.approx(0.0)
    assert bsc_capacity(0.11) == pytest.approx(1 - binary_entropy(0.11))


@settings(deadline=None, max_examples=40)
@given(eps=st.floats(0.0, 1.0))
def test_bsc_capacity_is_mi_under_uniform_prior(eps):
    mi = mutual_information_xy(independent_joint_law([eps]))
    assert bsc_capacity(eps) == pytest.approx(mi, abs=1e-12)


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), [0.2, 2.0]])
def test_bsc_bad_input(bad):
    with pytest.raises(ValueError, match="eps"):
        bsc_capacity(bad)
    with pytest.raises(ValueError, match="probabilities"):
        binary_entropy(bad)


# ----------------------------------------------------------------- count law comparison


def test_compare_count_law_exact_match_and_pooling():
    pmf = np.array([0.5, 0.3, 0.2, 0.0])
    K = np.array([0] * 50 + [1] * 30 + [2] * 20)
    res = compare_count_law(K, pmf, min_expected=10)
    assert res.total_variation == pytest.approx(0.0)
    assert res.max_abs_z == pytest.approx(0.0)
    assert list(res.table["bin"]) == [0, 1, 2, "rare"]
    res2 = compare_count_law(K, pmf, min_expected=25)  # expected count 20 < 25: bin 2 pooled
    assert list(res2.table["bin"]) == [0, 1, "rare"]
    assert res2.table["expected"].iloc[-1] == pytest.approx(0.2)


def test_compare_count_law_detects_wrong_law():
    rng = np.random.default_rng(0)
    K = rng.binomial(5, 0.3, size=20_000)
    good = compare_count_law(K, binom_pmf(5, 0.3))
    bad = compare_count_law(K, binom_pmf(5, 0.35))
    assert good.max_abs_z < 5 and bad.max_abs_z > 10
    assert good.total_variation < bad.total_variation


def test_compare_count_law_event_in_zero_probability_bin_is_infinite_z():
    res = compare_count_law(np.array([0, 0, 1]), np.array([1.0, 0.0]), min_expected=0.5)
    assert np.isinf(res.max_abs_z)


def binom_pmf(m, p):
    from scipy.stats import binom

    return binom.pmf(np.arange(m + 1), m, p)


@pytest.mark.parametrize(
    "K, pmf, match",
    [([0, 1], [0.5, 0.4], "summing to 1"), ([0, 3], [0.5, 0.5], "support"),
     ([0.5, 1], [0.5, 0.5], "K of compare_count_law must be integer counts"),
     ([], [1.0], "non-empty"), ([0], [[1.0]], "1-d")],
)
def test_compare_count_law_bad_input(K, pmf, match):
    with pytest.raises(ValueError, match=match):
        compare_count_law(np.asarray(K), pmf)
