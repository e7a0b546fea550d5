"""Invariants of the library that the model and theory pages used to assert inline.

They hold for every input by construction of the library (not as claims of the paper), so
they are tested here rather than checked on the pages.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr, ndtri

from ensel.info import decomposition_terms_exact
from ensel.theory import (
    compare_weighted_vote_with_map,
    copula_joint_law,
    diminishing_returns_violation,
    error_pattern_law,
    joint_law_from_error_laws,
    map_error,
    mutual_information_xy,
    product_error_law,
)


def test_threshold_map_inverts_the_error_rate() -> None:
    # system_model: tau = Phi^-1(1 - accuracy) gives back the error rate
    acc = np.array([0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.99])
    assert np.allclose(ndtr(ndtri(1 - acc)), 1 - acc, atol=1e-14)


def _family_law(rho: float) -> np.ndarray:
    k = 3
    sigma = np.full((k, k), rho) + (1 - rho) * np.eye(k)
    law = np.multiply.outer(error_pattern_law(ndtri([0.2, 0.22, 0.24]), sigma),
                            product_error_law([0.15, 0.3]))
    return joint_law_from_error_laws(law, law)


def test_map_error_agrees_with_the_rule_comparison() -> None:
    # theorem_e_1: map_error and compare_weighted_vote_with_map give the same Bayes error
    for rho in (0.0, 0.6, 0.9):
        joint = _family_law(rho)
        assert abs(map_error(joint) - compare_weighted_vote_with_map(joint).map_error) < 1e-12


def _pair_law() -> np.ndarray:
    rho = 0.9
    return copula_joint_law(ndtri(1 - np.array([0.9, 0.6])), np.array([[1.0, rho], [rho, 1.0]]))


def test_decomposition_delta_is_the_conditional_information() -> None:
    # theorem_d_1: Delta(1 | {0}) = I(Y; X_0, X_1) - I(Y; X_0)
    joint = _pair_law()
    gain = mutual_information_xy(joint, (0, 1)) - mutual_information_xy(joint, (0,))
    assert abs(decomposition_terms_exact(joint, 1, (0,)).delta - gain) < 1e-12


def test_two_element_diminishing_returns_gap() -> None:
    # theorem_d_1: with two elements the gap is I(Y; X_0, X_1) - I(Y; X_0) - I(Y; X_1) (+ I(Y))
    joint = _pair_law()
    info = {S: mutual_information_xy(joint, S) for S in [(), (0,), (1,), (0, 1)]}
    cx = diminishing_returns_violation(lambda S: mutual_information_xy(joint, S), 2)
    gain_after, gain_alone = info[(0, 1)] - info[(0,)], info[(1,)] - info[()]
    assert cx.S == () and len(cx.T) == 1 and cx.j not in cx.T
    assert abs(cx.gap - (gain_after - gain_alone)) < 1e-12
