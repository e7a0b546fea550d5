"""Tests of ensel.book.large_pools (the computations of the large-pools page)."""

from __future__ import annotations

import numpy as np
import pytest

from ensel.book.large_pools import ARMS, NEW, compare, gain_breakdown, pick_path, verdict_summary
from ensel.datasets import load
from ensel.pools import family_pool
from ensel.stats import VERDICTS


def test_gain_breakdown_converges_to_the_exact_gain():
    g = gain_breakdown([200_000], accuracy=[0.6, 0.7, 0.8, 0.75], rho=0.2, seed=1)
    assert g["step"].tolist() == [0, 1, 2]
    assert g["estimated"].to_numpy() == pytest.approx(g["exact"].to_numpy(), abs=0.005)
    assert (g["best_exact"] >= g["exact"] - 1e-12).all()


@pytest.mark.parametrize("tidy", [False, True])
def test_compare_pairs_the_four_arms(tidy):
    if tidy:
        data = load("medmcqa", n_items=300, cache=False)
    else:
        pool = family_pool(30, 600, random_state=0)
        data = (pool.X, pool.y)
    t = compare(data, ks=[2, 4], n_splits=2, n_halvings=2, splits_per_half=1)
    assert len(t) == 6 and set(t["verdict"]) <= set(VERDICTS)
    assert set(t["baseline"]) == set(ARMS.values()) - {ARMS[NEW]}
    assert np.allclose(t["mean_diff"], t["error_new"] - t["error_baseline"])
    s = verdict_summary(t)
    assert list(s.index) == [2, 4] and list(s.columns[:4]) == list(ARMS.values())


def test_pick_path_columns():
    pool = family_pool(40, 800, random_state=2)
    p = pick_path(pool.X, pool.y, 5)
    assert p.shape == (5, 5) and list(p.index) == [1, 2, 3, 4, 5]


def test_above_best_topk_lists_exactly_the_budgets_above_the_better_topk_arm():
    from ensel.book.large_pools import above_best_topk

    pool = family_pool(30, 600, random_state=0)
    t = compare((pool.X, pool.y), ks=[2, 4, 6], n_splits=2, n_halvings=2, splits_per_half=1)
    s = verdict_summary(t)
    topk = s[[ARMS[("topk", "map")], ARMS[("topk", "wmv")]]].min(axis=1)
    expected = sorted(int(k) for k in s.index[s[ARMS[NEW]] > topk])
    above = above_best_topk({"p": t}, ["p"])
    assert sorted(above["k"]) == expected
    for r in above.itertuples(index=False):
        assert r.defaults > r._4 == topk[r.k] and r._5 <= r._6
    # a table made worse for the defaults lists every budget
    worse = t.assign(error_new=t["error_new"] + 1.0)
    assert sorted(above_best_topk({"p": worse}, ["p"])["k"]) == [2, 4, 6]


def test_page_data_defaults_to_every_real_source_of_the_book(monkeypatch):
    import ensel.book.large_pools as lp
    from ensel.book.profiles import names

    asked = []
    monkeypatch.setattr(lp, "available", lambda n: (asked.extend(n), ([], list(n)))[1])
    data, missing = lp.page_data([], None, [20], pool_items=100)
    assert asked == names("real") == missing
    assert list(data) == ["pool of 20"]
