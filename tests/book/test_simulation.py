"""Monte Carlo comparison of one-factor samples with their nominal statistics."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ensel.book.simulation import batch_means, compare_one_factor, nominal_one_factor
from ensel.copula import sample_equicorrelated


def test_nominal_independent_case_is_binomial() -> None:
    nom = nominal_one_factor(0.8, 0.0, 7)
    assert nom["joint_error_rate"] == pytest.approx(0.04, abs=1e-12)
    assert nom["error_correlation"] == pytest.approx(0.0, abs=1e-12)
    assert nom["errors_mean"] == pytest.approx(7 * 0.2)
    assert nom["errors_var"] == pytest.approx(7 * 0.2 * 0.8)


@settings(deadline=None, max_examples=30)
@given(acc=st.floats(0.05, 0.95), rho=st.floats(0.0, 0.95), m=st.integers(2, 30))
def test_nominal_statistics_are_consistent(acc: float, rho: float, m: int) -> None:
    nom = nominal_one_factor(acc, rho, m)
    eps = 1 - acc
    # Frechet bounds of the joint error rate and a non-negative error correlation
    assert eps**2 - 1e-12 <= nom["joint_error_rate"] <= eps + 1e-12
    assert -1e-9 <= nom["error_correlation"] <= 1 + 1e-9
    assert nom["errors_var"] >= m * eps * (1 - eps) - 1e-9


@pytest.mark.parametrize(("acc", "rho"), [(0.7, 0.0), (0.6, 0.4), (0.9, 0.8)])
def test_simulated_sample_matches_nominal(acc: float, rho: float) -> None:
    _, _, E = sample_equicorrelated(acc, rho, 8, 60_000, random_state=3)
    table = compare_one_factor(E, acc, rho)
    assert list(table["statistic"]) == ["error_rate", "joint_error_rate", "error_correlation",
                                        "errors_mean", "errors_var"]
    assert (table["std_error"] > 0).all()
    assert table["z"].abs().max() < 4.5, table


def test_a_wrong_nominal_value_is_detected() -> None:
    _, _, E = sample_equicorrelated(0.7, 0.5, 8, 60_000, random_state=4)
    table = compare_one_factor(E, 0.7, 0.2).set_index("statistic")
    assert abs(table.loc["error_correlation", "z"]) > 10
    assert abs(table.loc["error_rate", "z"]) < 4.5


def test_batch_means_standard_error() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40_000, 2))
    mean, se = batch_means(x)
    assert np.allclose(se, 1 / np.sqrt(40_000), rtol=0.5)
    assert np.all(np.abs(mean) < 5 * se)
    with pytest.raises(ValueError, match="need at least 40 items for 20 batches"):
        batch_means(x[:10])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"E": np.zeros((50, 1)), "accuracy": 0.7, "rho": 0.1}, "m >= 2"),
        ({"E": np.full((50, 3), 2), "accuracy": 0.7, "rho": 0.1}, "0/1 error indicators"),
        ({"E": np.zeros((50, 3)), "accuracy": 1.2, "rho": 0.1}, "accuracy must be in"),
        ({"E": np.zeros((50, 3)), "accuracy": 0.7, "rho": 1.0}, r"rho must be in \[0, 1\)"),
    ],
)
def test_bad_input(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        compare_one_factor(**kwargs)
