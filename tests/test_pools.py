"""Tests of ensel.pools.family_pool: the sampled law is the documented copula."""

from __future__ import annotations

import numpy as np
import pytest

from ensel.copula import errors_from, tetrachoric
from ensel.pools import family_pool


def test_seeded_shapes_and_families():
    a = family_pool(25, 500, random_state=3)
    b = family_pool(25, 500, random_state=3)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert a.X.shape == (500, 25) and a.X.dtype == np.int8
    assert set(np.unique(a.X)) <= {-1, 1}
    assert a.family.tolist() == [j // 10 for j in range(25)]
    assert not np.array_equal(a.X, family_pool(25, 500, random_state=4).X)


def test_law_matches_accuracies_and_sigma():
    pool = family_pool(20, 60_000, random_state=0)
    acc = (pool.X == pool.y[:, None]).mean(axis=0)
    assert acc == pytest.approx(pool.accuracy, abs=0.01)
    E = errors_from(pool.X, pool.y)
    S = pool.Sigma
    for i, j in [(0, 1), (3, 7), (0, 12), (5, 15)]:  # two within, two across families
        assert tetrachoric(E[:, i], E[:, j]) == pytest.approx(S[i, j], abs=0.05)
    assert S[0, 1] == pytest.approx(0.6) and S[0, 12] == pytest.approx(0.1)
    assert np.allclose(np.diag(S), 1.0)


def test_bad_parameters():
    with pytest.raises(ValueError, match="within of family_pool must be"):
        family_pool(10, 10, common=0.5, within=0.6)
    with pytest.raises(ValueError, match="m of family_pool must be an int"):
        family_pool(0, 10)
