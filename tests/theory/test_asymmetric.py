"""Independent models with class-dependent error rates: Top-k can lose (Remark 4.2 is false)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ensel import theory as T

EPS_POS = [0.060, 0.181, 0.092, 0.118]
EPS_NEG = [0.338, 0.126, 0.218, 0.441]


def _brute_force_map_error(eps_pos, eps_neg, S, prior=0.5):
    """sum over answer patterns of min_y P(Y = y, X_S = x), by enumeration."""
    total = 0.0
    for x in itertools.product((-1, 1), repeat=len(S)):
        like = {}
        for y in (-1, 1):
            p = prior if y == 1 else 1 - prior
            for j, xj in zip(S, x, strict=True):
                eps = eps_pos[j] if y == 1 else eps_neg[j]
                p *= (1 - eps) if xj == y else eps
            like[y] = p
        total += min(like.values())
    return total


def test_the_counterexample_exactly():
    r = T.asymmetric_top_k_regret(EPS_POS, EPS_NEG, 2)
    np.testing.assert_allclose(r["accuracy"], [0.801, 0.8465, 0.845, 0.7205], atol=1e-12)
    assert r["top_k"] == (1, 2) and r["best"] == (0, 2)
    assert r["error_top"] == pytest.approx(_brute_force_map_error(EPS_POS, EPS_NEG, (1, 2)))
    assert r["error_best"] == pytest.approx(_brute_force_map_error(EPS_POS, EPS_NEG, (0, 2)))
    assert round(r["error_top"], 4) == 0.1419 and round(r["error_best"], 4) == 0.1101
    assert r["regret"] == pytest.approx(r["error_top"] - r["error_best"])


def test_symmetric_rates_give_the_independent_law_and_no_regret():
    eps = [0.1, 0.25, 0.3, 0.4]
    np.testing.assert_allclose(T.asymmetric_joint_law(eps, eps, prior=0.3),
                               T.independent_joint_law(eps, prior=0.3), atol=1e-15)
    study = T.asymmetric_regret_study(30, 5, 2, symmetric=True, random_state=1)
    assert study["regret"].max() <= 1e-12  # Theorem 4.1
    assert all(np.allclose(p, n) for p, n in zip(study["eps_pos"], study["eps_neg"], strict=True))


def test_the_study_is_seeded_and_finds_losses():
    a = T.asymmetric_regret_study(60, 4, 2, random_state=0)
    b = T.asymmetric_regret_study(60, 4, 2, random_state=0)
    assert a.equals(b)
    assert (a["regret"] >= -1e-12).all() and (a["regret"] > 0.01).any()


@pytest.mark.parametrize("call, match", [
    (lambda: T.asymmetric_joint_law([0.1, 0.2], [0.1]), "eps_neg"),
    (lambda: T.asymmetric_top_k_regret(EPS_POS, EPS_NEG, 4), "k"),
    (lambda: T.asymmetric_regret_study(5, 13, 2), "m"),
    (lambda: T.asymmetric_regret_study(5, 4, 2, low=0.4, high=0.3), "high"),
])
def test_bad_input_is_a_clear_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()
