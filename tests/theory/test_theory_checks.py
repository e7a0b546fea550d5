"""Tests of ensel.theory (helpers of the theory pages)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ensel import theory
from ensel.theory import (
    affine_vote_decisions,
    decomposition_table,
    flip_rate_table,
    greedy_path_exact,
    independent_map_rule,
    product_error_law,
    random_correlation,
    random_joint_law,
    sample_degradation_chain,
    search_mrmr_disagreement,
    subset_table,
    top_k_dominance,
)

rates = st.floats(0.02, 0.48)


# --- subset_table -------------------------------------------------------------------------

def test_subset_table_example_c1_closed_form():
    # Example A.1: eps = (0.1, 0.2, 0.4). Two BSCs: the MAP follows the better one -> eps_min.
    t = subset_table(theory.independent_joint_law([0.1, 0.2, 0.4]), 2)
    assert list(t["subset"]) == [(0, 1), (0, 2), (1, 2)]
    assert np.allclose(t["map_error"], [0.1, 0.1, 0.2], atol=1e-15)
    # I(Y; X_1) for a single BSC is 1 - h(eps)
    t1 = subset_table(theory.independent_joint_law([0.1, 0.2, 0.4]), 1)
    h = [-(e * math.log2(e) + (1 - e) * math.log2(1 - e)) for e in (0.1, 0.2, 0.4)]
    assert np.allclose(t1["mi"], [1 - v for v in h], atol=1e-12)


def test_subset_table_counts_and_bad_k():
    p = theory.independent_joint_law([0.1, 0.2, 0.3, 0.4])
    assert len(subset_table(p, 2)) == 6
    with pytest.raises(ValueError, match="k of subset_table must be an integer in \\[1, 4\\]"):
        subset_table(p, 5)
    with pytest.raises(ValueError, match="shape"):
        subset_table(np.ones(3) / 3, 1)


@settings(deadline=None, max_examples=30)
@given(st.lists(rates, min_size=3, max_size=5, unique=True), st.data())
def test_top_k_is_optimal_under_independence(eps, data):
    e = np.sort(np.asarray(eps))
    k = data.draw(st.integers(1, len(e) - 1))
    t = subset_table(theory.independent_joint_law(e), k)
    top = t[t["subset"] == tuple(range(k))].iloc[0]
    assert (t["mi"] <= top["mi"] + 1e-12).all()
    assert (t["map_error"] >= top["map_error"] - 1e-12).all()


# --- degradation chain --------------------------------------------------------------------

def test_degradation_chain_is_seeded_and_matches_lemma():
    a = sample_degradation_chain(0.2, 1 / 3, 60_000, random_state=1)
    b = sample_degradation_chain(0.2, 1 / 3, 60_000, random_state=1)
    assert a.equals(b)
    err = float((a["x_weak"] != a["y"]).mean())
    assert abs(err - 0.4) < 4 * math.sqrt(0.4 * 0.6 / len(a))
    ft = flip_rate_table(a)
    assert len(ft) == 4 and ft["n"].sum() == len(a)
    assert (np.abs(ft["flip_rate"] - 1 / 3) < 4.5 * ft["std_error"]).all()


def test_degradation_chain_bad_input():
    with pytest.raises(ValueError, match=r"delta of sample_degradation_chain must be a real"
                                         r" number in \[0, 1\]"):
        sample_degradation_chain(0.2, 1.5, 10)
    with pytest.raises(ValueError, match=r"n of sample_degradation_chain must be an int in \[1,"
                                         r" inf\)"):
        sample_degradation_chain(0.2, 0.1, 0)
    with pytest.raises(ValueError, match="prior"):
        sample_degradation_chain(0.2, 0.1, 10, prior=1.0)
    import pandas as pd
    with pytest.raises(ValueError, match="draws of flip_rate_table must be a table with columns"
                                         " y, x_strong, x_weak"):
        flip_rate_table(pd.DataFrame({"y": [1]}))


# --- random laws --------------------------------------------------------------------------

def test_random_joint_law_shape_seed():
    p = random_joint_law(3, random_state=0)
    assert p.shape == (2, 2, 2, 2) and abs(p.sum() - 1) < 1e-12 and (p >= 0).all()
    assert np.array_equal(p, random_joint_law(3, random_state=0))
    with pytest.raises(ValueError, match=r"m of random_joint_law must be an int in \[1, 12\]"):
        random_joint_law(0)
    with pytest.raises(ValueError, match="concentration"):
        random_joint_law(2, concentration=0.0)


def test_random_correlation_is_a_correlation_matrix():
    S = random_correlation(5, random_state=3)
    assert np.allclose(S, S.T) and np.allclose(np.diag(S), 1.0)
    assert np.linalg.eigvalsh(S).min() > 0 and (S >= 0).all()
    with pytest.raises(ValueError, match="min_unique"):
        random_correlation(3, min_unique=0.0)


# --- decomposition ------------------------------------------------------------------------

@settings(deadline=None, max_examples=30)
@given(st.integers(0, 10_000), st.integers(2, 4))
def test_decomposition_identity_on_random_laws(seed, m):
    p = random_joint_law(m, random_state=seed)
    S = tuple(range(m - 1))[: max(1, m - 2)]
    t = decomposition_table(p, S)
    assert np.abs(t["residual"]).max() < 1e-10
    assert set(t["j"]) == set(range(m)) - set(S)
    # Proposition B.6 and Remark B.7 bounds on Lambda
    assert (t["correction"] >= -t["error_label"] - 1e-12).all()
    assert (t["correction"].abs() <= t["joint_error_label"] + 1e-12).all()


def test_decomposition_table_xor_law_has_all_gain_in_lambda():
    # E_0 fair coin independent of Y, E_1 = E_0 xor 1(Y=+1): Delta(1|{0}) = Lambda = 1 bit
    p = theory.joint_law_from_error_laws([[0.5, 0.0], [0.0, 0.5]], [[0.0, 0.5], [0.5, 0.0]])
    r = decomposition_table(p, [0]).iloc[0]
    assert abs(r["delta"] - 1) < 1e-12 and abs(r["correction"] - 1) < 1e-12
    assert r["relevance"] < 1e-12 and r["redundancy"] < 1e-12 and r["error_label"] < 1e-12
    assert abs(r["joint_error_label"] - 1) < 1e-12


def test_decomposition_table_label_invariant_has_zero_correction():
    p = theory.copula_joint_law([-1.0, -0.8, -0.5], [[1, .5, .2], [.5, 1, .3], [.2, .3, 1]])
    t = decomposition_table(p, [0])
    assert np.abs(t["correction"]).max() < 1e-12
    assert np.allclose(t["delta"], t["three_term"], atol=1e-12)
    with pytest.raises(ValueError, match="distinct model indices"):
        decomposition_table(p, [0, 0])
    with pytest.raises(ValueError, match="S of decomposition_table must be a proper subset of"
                                         " the models"):
        decomposition_table(p, [0, 1, 2])


# --- Theorem E.1 --------------------------------------------------------------------------

def test_product_error_law():
    law = product_error_law([0.1, 0.3])
    assert np.allclose(law, [[0.9 * 0.7, 0.9 * 0.3], [0.1 * 0.7, 0.1 * 0.3]])
    with pytest.raises(ValueError, match=r"eps\[0\] of product_error_law must be a "
                       r"probability in \[0, 1\]; got 1.2"):
        product_error_law([1.2])


def test_independent_map_rule_symmetric_balanced_is_log_odds():
    eps = np.array([0.1, 0.25, 0.4])
    w, b = independent_map_rule(eps, eps, 0.5)
    assert abs(b) < 1e-15
    assert np.allclose(w, theory.log_odds_weights(1 - eps))
    with pytest.raises(ValueError, match="eps_neg of independent_map_rule must be of the shape"
                                         " of eps_pos"):
        independent_map_rule([0.1], [0.1, 0.2])
    with pytest.raises(ValueError, match="prior"):
        independent_map_rule([0.1], [0.1], 0.0)


@settings(deadline=None, max_examples=40)
@given(st.lists(st.tuples(rates, rates), min_size=1, max_size=5), st.floats(0.05, 0.95))
def test_affine_rule_equals_map_on_every_pattern(pairs, prior):
    ep = np.array([a for a, _ in pairs])
    en = np.array([b for _, b in pairs])
    joint = theory.joint_law_from_error_laws(product_error_law(en), product_error_law(ep), prior)
    w, b = independent_map_rule(ep, en, prior)
    d = affine_vote_decisions(w, b)
    # where the posterior is not (numerically) tied, the affine rule is the MAP decision
    gap = np.abs(joint[1] - joint[0]) > 1e-9 * np.maximum(joint[1], joint[0])
    assert np.array_equal(d[gap], theory.map_decisions(joint)[gap])


def test_affine_vote_decisions_layout_and_ties():
    d = affine_vote_decisions([1.0, 1.0])
    # patterns (-1,-1) -> -1, (-1,+1) tie -> +1, (+1,-1) tie -> +1, (+1,+1) -> +1
    assert d.tolist() == [[-1, 1], [1, 1]]
    assert affine_vote_decisions([1.0], bias=-2.0).tolist() == [-1, -1]
    with pytest.raises(ValueError, match=r"bias of affine_vote_decisions must be a real number"
                                         r" in \(-inf, inf\)"):
        affine_vote_decisions([1.0], bias=float("inf"))
    with pytest.raises(ValueError, match="weights"):
        affine_vote_decisions([])


def test_all_patterns_enumerated_in_c_order():
    w = np.array([1.0, 2.0, 4.0])
    d = affine_vote_decisions(w, 0.5)
    for idx in itertools.product((0, 1), repeat=3):
        x = 2 * np.array(idx) - 1
        assert d[idx] == (1 if 0.5 + x @ w >= 0 else -1)


# --- top_k_dominance ----------------------------------------------------------------------

def test_top_k_dominance_example_c1_error_tie():
    d = top_k_dominance([0.1, 0.2, 0.4], 2)
    assert d["top_k"] == (0, 1) and d["n_other"] == 2
    assert d["mi_gap"] > 0.09  # I(H_2) - I({1,3}) = 0.6358 - 0.5415
    assert abs(d["error_gap"]) < 1e-12 and d["n_error_ties"] == 1 and d["n_error_argmin"] == 2
    assert d["n_mi_argmax"] == 1 and abs(d["error_top"] - 0.1) < 1e-12


def test_top_k_dominance_unsorted_and_bad_input():
    d = top_k_dominance([0.4, 0.1, 0.3, 0.2], 2)
    assert d["top_k"] == (1, 3)
    with pytest.raises(ValueError, match="k of top_k_dominance must be an integer in \\[1, 2\\]"):
        top_k_dominance([0.1, 0.2, 0.3], 3)
    with pytest.raises(ValueError, match="prior"):
        top_k_dominance([0.1, 0.2], 1, prior=0.0)


# --- greedy paths and the mRMR search -----------------------------------------------------

def test_greedy_path_exact_independent_is_top_k():
    p = theory.independent_joint_law([0.3, 0.1, 0.25, 0.2])
    assert greedy_path_exact(p, 4, "delta") == [1, 3, 2, 0]
    assert greedy_path_exact(p, 2, "relevance") == [1, 3]
    with pytest.raises(ValueError, match="score of greedy_path_exact must be one of"):
        greedy_path_exact(p, 2, "accuracy")
    with pytest.raises(ValueError, match="k of greedy_path_exact must be an integer"):
        greedy_path_exact(p, 5)


def test_search_mrmr_disagreement_finds_a_real_disagreement():
    r = search_mrmr_disagreement(3, max_tries=10, random_state=0)
    assert r["found"] and r["tries"] == r["instance"] + 1
    t = r["candidates"][r["candidates"]["instance"] == r["instance"]]
    assert int(t.loc[t["mrmr"].idxmax(), "j"]) == r["mrmr_pick"]
    assert int(t.loc[t["delta"].idxmax(), "j"]) == r["cmi_pick"] != r["mrmr_pick"]
    assert r["S"][0] not in set(t["j"])
    assert r["disagreements"] == [r["instance"]]
    full = search_mrmr_disagreement(3, max_tries=6, random_state=0, stop_at_first=False)
    assert full["tries"] == 6 and full["instance"] == r["instance"]
    flagged = full["candidates"].groupby("instance")["disagree"].first()
    assert sorted(flagged[flagged].index) == full["disagreements"]
    with pytest.raises(ValueError, match="m of search_mrmr_disagreement must be an int in \\[3,"
                                         " 6\\]"):
        search_mrmr_disagreement(2)
    with pytest.raises(ValueError, match="eps_low"):
        search_mrmr_disagreement(3, eps_low=0.3, eps_high=0.2)
