"""Tests of ensel.book.few_labels (the experiment of the "handful of labels" page)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ensel.book import few_labels as fl
from ensel.data import OptionMatrix
from ensel.pools import family_pool, multiclass_pool
from ensel.stats import CONTRADICTED, HOLDS, WITHIN_NOISE


def _binary_source(n: int = 400, m: int = 6, seed: int = 0) -> fl.Source:
    pool = family_pool(m, n, family_size=2, random_state=seed)
    X = pd.DataFrame(pool.X, index=pd.Index([f"q{i:04d}" for i in range(n)], name="item"),
                     columns=pd.Index([f"m{j}" for j in range(m)], name="model"))
    return fl.Source("tiny binary", X, pool.y.astype(np.int64), "seeded")


def _option_source(n: int = 400, m: int = 6, seed: int = 0) -> fl.Source:
    pool = multiclass_pool(m, n, n_options=3, family_size=2, random_state=seed)
    om = OptionMatrix(pool.A.astype(np.int16), pool.y.astype(np.int16),
                      [("a", "b", "c")] * n, [f"q{i:04d}" for i in range(n)],
                      [f"m{j}" for j in range(m)])
    return fl.Source("tiny options", om, np.asarray(om.gold, dtype=np.int64), "seeded")


def _shuffled(src: fl.Source, seed: int = 1) -> fl.Source:
    """The same answers with the item rows in another order."""
    perm = np.random.default_rng(seed).permutation(len(src.items))
    answers, _ = src.part(perm)
    if src.binary:
        return fl.Source(src.name, answers, src.gold[perm], src.kind)
    return fl.Source(src.name, answers, src.gold[perm], src.kind)


_OPTS = {"grid": (0, 10, 20), "n_repeats": 2, "pool_items": 150, "n_draws": 20,
         "max_batch": 5, "seed": 0}


def test_hashed_order_follows_the_ids_not_their_positions() -> None:
    ids = [f"q{i}" for i in range(50)]
    order = [ids[i] for i in fl._hashed_order(ids, 0, 3)]
    rev = ids[::-1]
    assert [rev[i] for i in fl._hashed_order(rev, 0, 3)] == order
    assert [ids[i] for i in fl._hashed_order(ids, 0, 4)] != order  # the repeat enters
    assert sorted(order) == sorted(ids)


@pytest.mark.parametrize("make", [_binary_source, _option_source])
def test_paths_reveal_distinct_pool_items_and_decisive_starts_at_random(make) -> None:
    src = make()
    pool, test = fl._split(src, 0, 150, 0)
    assert pool.size == 150 and np.intersect1d(pool, test).size == 0
    paths = fl._paths(src, pool, grid=[0, 10, 20, 30], repeat=0, k="auto", n_draws=20,
                      max_batch=5, seed=0)
    assert set(paths) == set(fl.STRATEGIES)
    for p in paths.values():
        assert len(p) == 30 and len(set(p.tolist())) == 30
        assert p.min() >= 0 and p.max() < pool.size
    np.testing.assert_array_equal(paths["decisive"][:fl.FIRST_RANDOM],
                                  paths["random"][:fl.FIRST_RANDOM])


def test_best_single_is_the_most_accurate_model_on_the_revealed_labels() -> None:
    src = _option_source()
    pool, test = fl._split(src, 0, 150, 0)
    A, g = src.codes()
    lab = np.arange(20)
    right = (A[pool][lab] == g[pool][lab, None]).sum(axis=0)
    j = int(np.argmax(right))
    err = fl._baselines(src, pool, test, lab, 0)["single"]
    answered = A[test, j] >= 0
    wrong = np.where(answered, A[test, j] != g[test], 1 - 1 / 3)  # abstained: a 3-way tie
    assert err == pytest.approx(float(wrong.mean()))


@pytest.mark.parametrize("make", [_binary_source, _option_source])
def test_the_rows_order_of_the_input_does_not_change_the_results(make) -> None:
    src = make()
    a = fl.run_source(src, **_OPTS)
    b = fl.run_source(_shuffled(src), **_OPTS)
    pd.testing.assert_frame_equal(a, b)
    few = a[a["arm"] == "few"]
    assert set(few["n_labels"]) == {10, 20}  # choose_with_labels needs one label
    assert (few["low"] <= few["stated"]).all() and (few["stated"] <= few["high"]).all()
    assert set(a[a["strategy"] == "-"]["arm"]) == {"full", "vote"}
    zero = a[a["n_labels"] == 0].groupby(["repeat", "arm"])["error"].nunique()
    assert (zero == 1).all()  # N = 0 is the same for every label order


def _diff(verdicts: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"n_labels": [10, 20, 50, 100][:len(verdicts)], "verdict": verdicts})


@pytest.mark.parametrize(("verdicts", "expected"), [
    ([WITHIN_NOISE] * 4, 10),
    ([CONTRADICTED, WITHIN_NOISE, HOLDS, WITHIN_NOISE], 20),
    ([WITHIN_NOISE, CONTRADICTED, WITHIN_NOISE, WITHIN_NOISE], 50),  # must stay within
    ([WITHIN_NOISE, WITHIN_NOISE, WITHIN_NOISE, CONTRADICTED], None),
])
def test_reached_is_the_first_n_from_which_never_worse_beyond_noise(verdicts, expected):
    assert fl._reached(_diff(verdicts)) == expected


def _results(few: dict[str, list[float]], full: list[float]) -> pd.DataFrame:
    """A results table of one data set: few-label errors per strategy at N = 10, 20, 50
    (three repeats each, given as N-major lists) against the full-label errors."""
    rows = [{"data": "d", "strategy": "-", "n_labels": 100, "arm": "full", "repeat": r,
             "error": e} for r, e in enumerate(full)]
    for s, errs in few.items():
        for i, e in enumerate(errs):
            rows.append({"data": "d", "strategy": s, "n_labels": [10, 20, 50][i // 3],
                         "arm": "few", "repeat": i % 3, "error": e, "stated": e,
                         "low": e - 0.01, "high": e + 0.01})
    return pd.DataFrame(rows)


def test_versus_random_says_which_order_needs_fewer_labels() -> None:
    full = [0.10, 0.11, 0.12]
    worse = [0.30, 0.31, 0.32]
    res = _results({"random": worse * 2 + full, "decisive": worse + full * 2,
                    "disagreement": worse * 3}, full)
    t = fl.versus_random(res)
    assert t.loc["d", "random"] == "50" and t.loc["d", "decisive"] == "20"
    assert t.loc["d", "disagreement"] == "not by 50"
    assert t.loc["d", "decisive vs random"] == "fewer"
    res = _results({"random": worse + full * 2, "decisive": worse * 3,
                    "disagreement": worse * 3}, full)
    assert fl.versus_random(res).loc["d", "decisive vs random"] == "more"
    res = _results({s: worse * 3 for s in fl.STRATEGIES}, full)
    assert fl.versus_random(res).loc["d", "decisive vs random"] == "neither reaches"


def test_calibration_counts_intervals_that_contain_the_heldout_error() -> None:
    res = _results({s: [0.1] * 9 for s in fl.STRATEGIES}, [0.1] * 3)
    few = res["arm"] == "few"
    res.loc[few & (res["strategy"] == "decisive"), "error"] = 0.5  # every interval misses
    assert fl.coverage(res, "random") == (1.0, 9)
    assert fl.coverage(res, "decisive") == (0.0, 9)
    assert fl.coverage(res) == (pytest.approx(2 / 3), 27)
    t = fl.calibration_table(res)
    assert t.loc["d", "random"] == "1.00 of 9"
    assert t.loc["d", "decisive"] == "0.00 of 9 (below)"
    assert t.loc["all data", "disagreement"] == "1.00 of 9"
    assert fl.coverage_verdict(res, "decisive") == "below"
    assert fl.coverage_verdict(res, "random") == "at"  # 9 of 9: 0.95 inside [0.66, 1]


def test_page_sources_without_real_data_are_the_two_seeded_pools() -> None:
    sources, missing = fl.page_sources([], pool_models=6, pool_items=300, seed=0)
    assert missing == [] and [s.kind for s in sources] == ["seeded", "seeded"]
    binary, options = sources
    assert binary.binary and binary.answers.shape == (300, 6)
    assert set(np.unique(binary.gold)) == {-1, 1}
    assert not options.binary and options.answers.A.shape == (300, 6)
    A, g = options.codes()
    assert A.max() == 3 and g.min() >= 0
    A, g = binary.codes()
    assert set(np.unique(g)) == {0, 1} and A.min() >= -1


def test_a_consistent_excess_below_the_tolerance_counts_as_within_noise() -> None:
    full = [0.100, 0.110, 0.120]
    res = _results({s: [e + 0.002 for e in full] * 3 for s in fl.STRATEGIES}, full)
    base = res[res["arm"] == "full"].set_index("repeat")["error"]
    strict = fl._paired(res, "d", "random", "few", base)
    assert set(strict["verdict"]) == {CONTRADICTED}  # 0.002 worse, every repeat
    lenient = fl._paired(res, "d", "random", "few", base, 0.005)
    assert set(lenient["verdict"]) == {HOLDS}  # below 0.002 + noise < 0.005
    assert fl.versus_random(res).loc["d", "random"] == "10"


def test_coverage_holds_the_heldout_error_against_the_interval_for_a_measured_error():
    res = _results({s: [0.1] * 9 for s in fl.STRATEGIES}, [0.1] * 3)
    few = res["arm"] == "few"
    res.loc[few, "error"] = 0.13  # outside low-high, inside the wider held-out interval
    assert fl.coverage(res, "random") == (0.0, 9)
    res["held_low"], res["held_high"] = res["low"] - 0.05, res["high"] + 0.05
    assert fl.coverage(res, "random") == (1.0, 9)
