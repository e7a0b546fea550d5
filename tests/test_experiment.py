"""Tests of ensel.experiment: the protocol, exhaustive scan, summaries and persistence."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ensel import experiment as ex
from ensel.aggregate import MAPAggregator, heldout_error
from ensel.book import results as book_results
from ensel.copula import sample_equicorrelated
from ensel.data import to_long
from ensel.info import pattern_codes, smoothed_mutual_information
from ensel.protocol import Protocol


def _tidy(n: int = 400, m: int = 5, conditions: tuple[str, ...] = ("c1", "c2"),
          rho: float = 0.4, seed: int = 0) -> pd.DataFrame:
    frames = []
    acc = np.linspace(0.65, 0.85, m)
    for i, c in enumerate(conditions):
        X, y, _ = sample_equicorrelated(acc, rho, m, n, random_state=seed + i, balanced=True)
        frames.append(to_long(X, y, condition=c, models=[f"m{j}" for j in range(m)]))
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def tidy() -> pd.DataFrame:
    return _tidy()


@pytest.fixture(scope="module")
def results(tidy: pd.DataFrame) -> pd.DataFrame:
    return ex.evaluate(tidy, exhaustive=True)


def test_columns_and_dtypes(results: pd.DataFrame) -> None:
    assert list(results.columns[:6]) == ex.RESULT_COLUMNS
    assert results["split"].dtype == np.int64 and results["k"].dtype == np.int64
    assert results["error"].dtype == np.float64
    assert results["error"].between(0, 1).all()
    assert set(results["selector"]) == set(ex.PAPER_SELECTORS) | set(ex.EXHAUSTIVE_SELECTORS)
    assert set(results["aggregator"]) == {"map", "mv", "wmv"}
    assert sorted(results["split"].unique()) == [0, 1, 2, 3, 4]
    assert sorted(results["k"].unique()) == [1, 2, 3, 4, 5]
    # 4 selectors x 3 aggregators + 3 exhaustive rows, per (condition, split, k)
    assert len(results) == 2 * 5 * 5 * (4 * 3 + 3)
    assert (results["n_test"] == 80).all()


def test_split_indices_fraction_and_disjoint() -> None:
    tr, te = ex.split_indices(1000, condition="a", split=3, seed=7, test_fraction=0.25)
    assert len(te) == 250 and len(tr) == 750
    assert np.intersect1d(tr, te).size == 0
    assert np.array_equal(np.sort(np.concatenate([tr, te])), np.arange(1000))
    tr2, te2 = ex.split_indices(1000, condition="b", split=3, seed=7, test_fraction=0.25)
    assert not np.array_equal(te, te2)  # conditions get different splits


def test_determinism_and_order_independence(tidy: pd.DataFrame) -> None:
    a = ex.evaluate(tidy, n_splits=2, ks=[1, 3], seed=3)
    b = ex.evaluate(tidy, n_splits=2, ks=[1, 3], seed=3)
    pd.testing.assert_frame_equal(a, b)
    # reversing the order of the conditions does not change any number
    rev = pd.concat([tidy[tidy["condition"] == "c2"], tidy[tidy["condition"] == "c1"]])
    c = ex.evaluate(rev, n_splits=2, ks=[1, 3], seed=3)
    key = ["condition", "split", "selector", "aggregator", "k"]
    pd.testing.assert_frame_equal(a.sort_values(key).reset_index(drop=True),
                                  c.sort_values(key).reset_index(drop=True))
    d = ex.evaluate(tidy, n_splits=2, ks=[1, 3], seed=4)
    assert not np.array_equal(a["error"].to_numpy(), d["error"].to_numpy())


def test_full_set_identical_across_selectors(results: pd.DataFrame) -> None:
    full = results[(results["k"] == 5) & results["selector"].isin(list(ex.PAPER_SELECTORS))]
    spread = full.groupby(["condition", "split", "aggregator"])["error"].agg(np.ptp)
    assert (spread == 0).all()
    topk = full[(full["selector"] == "topk") & (full["aggregator"] == "map")]["error"].to_numpy()
    greedy = full[(full["selector"] == "greedy_mi")
                  & (full["aggregator"] == "map")]["error"].to_numpy()
    assert np.array_equal(topk, greedy)


def test_exhaustive_is_a_lower_bound(results: pd.DataFrame) -> None:
    key = ["condition", "split", "k"]
    oracle = results[results["selector"] == "exhaustive"].set_index(key)["error"]
    mapped = results[results["aggregator"] == "map"].join(oracle.rename("oracle"), on=key)
    assert (mapped["error"] >= mapped["oracle"] - 1e-12).all()


def test_nested_subset_is_chosen_without_the_test_part(results: pd.DataFrame) -> None:
    # the nested choice is the inner split's best subset, scored on the test part: never
    # below the bound, and above it somewhere (the bound looks at the test part)
    key = ["condition", "split", "k"]
    nested = results[results["selector"] == "exhaustive_nested"].set_index(key)
    oracle = results[results["selector"] == "exhaustive"].set_index(key)["error"]
    assert (nested["error"] >= oracle.reindex(nested.index) - 1e-12).all()
    assert (nested["error"] > oracle.reindex(nested.index) + 1e-12).any()  # the bound is low
    assert ex.EXHAUSTIVE_SELECTORS["exhaustive"].endswith("(a bound, not a selector)")


def test_inner_errors_never_look_at_the_test_part() -> None:
    """``inner=True`` adds every arm's error on the inner split of the training part: the
    test errors are those of ``inner=False``, and relabelling the test items of a split
    changes its test errors but none of its inner errors."""
    X, y, _ = sample_equicorrelated(np.linspace(0.6, 0.8, 4), 0.3, 4, 600, random_state=3,
                                    balanced=True)
    kw = {"ks": [1, 2, 4], "protocol": Protocol(n_splits=2), "selectors": ["topk", "greedy_mi"],
          "aggregators": ["map", "wmv"]}
    plain = ex.heldout_errors(X, y, **kw)
    inner = ex.heldout_errors(X, y, inner=True, exhaustive=True, **kw)
    arms = inner[inner["selector"].isin(["topk", "greedy_mi"])].reset_index(drop=True)
    pd.testing.assert_frame_equal(arms[plain.columns], plain)
    assert arms[ex.INNER_COLUMN].between(0, 1).all()
    assert inner.loc[inner["selector"].str.startswith("exhaustive"), ex.INNER_COLUMN].isna().all()
    tr, te = ex.split_indices(len(y), condition="all", split=0, seed=0)
    y2 = y.copy()
    y2[te] = -y2[te]  # the test part of split 0, relabelled
    moved = ex.heldout_errors(X, y2, inner=True, **kw)
    s0 = (plain["split"] == 0).to_numpy()
    assert np.array_equal(moved.loc[s0, ex.INNER_COLUMN], arms.loc[s0, ex.INNER_COLUMN])
    assert not np.array_equal(moved.loc[s0, "error"], arms.loc[s0, "error"])
    with pytest.raises(ValueError, match="inner"):
        ex.heldout_errors(X, y, inner="yes", **kw)
    res = ex.evaluate(_tidy(n=200, m=4), ks=[1, 2], n_splits=2, inner=True)
    assert list(res.columns)[-1] == ex.INNER_COLUMN and res.attrs["provenance"]["inner"]


def test_selected_are_prefixes_and_distinct(results: pd.DataFrame) -> None:
    sub = results[(results["selector"] == "greedy_mi") & (results["aggregator"] == "map")]
    for _, g in sub.groupby(["condition", "split"]):
        picks = [ex.selected_models(s) for s in g.sort_values("k")["selected"]]
        assert len(set(picks[-1])) == len(picks[-1])
        for a, b in zip(picks, picks[1:], strict=False):
            assert b[: len(a)] == a


@settings(deadline=None, max_examples=15)
@given(seed=st.integers(0, 10_000), m=st.integers(2, 6), abstain=st.booleans())
def test_exhaustive_matches_map_and_smoothed_mi(seed: int, m: int, abstain: bool) -> None:
    rng = np.random.default_rng(seed)
    X, y, _ = sample_equicorrelated(rng.uniform(0.55, 0.9, m), 0.5, m, 300, random_state=seed)
    if abstain:
        X = X.copy()
        X[rng.random(X.shape) < 0.05] = 0
    tr, te = np.arange(240), np.arange(240, 300)
    if len(np.unique(y[tr])) < 2:
        return
    out = ex.exhaustive_errors(X[tr], y[tr], X[te], y[te], range(1, m + 1))
    base = 3 if (X == 0).any() else 2
    for k, t in out.items():
        for r, combo in enumerate(t["combos"]):
            cols = [int(j) for j in combo]
            agg = MAPAggregator().fit(X[tr][:, cols], y[tr])
            assert t["error"][r] == pytest.approx(heldout_error(agg, X[te][:, cols], y[te]),
                                                  abs=1e-12)
            a, size = pattern_codes(X[tr], cols, base=base)
            mi = smoothed_mutual_information(a, (y[tr] + 1) // 2, size_a=size, size_b=2)
            assert t["mi"][r] == pytest.approx(mi, abs=1e-9)
        assert len(t["combos"]) == len({tuple(c) for c in t["combos"]})
        assert k == t["combos"].shape[1]


def test_summarise(results: pd.DataFrame) -> None:
    s = ex.summarise(results)
    assert (s["n"] == 10).all()
    g = results[(results["selector"] == "mrmr") & (results["aggregator"] == "mv")
                & (results["k"] == 2)]["error"]
    row = s[(s["selector"] == "mrmr") & (s["aggregator"] == "mv") & (s["k"] == 2)].iloc[0]
    assert row["mean"] == pytest.approx(g.mean())
    assert row["std"] == pytest.approx(g.std(ddof=1))
    sc = ex.summarise(results, by=("condition",))
    assert (sc["n"] == 5).all() and set(sc["condition"]) == {"c1", "c2"}


def test_picks_per_row_are_k_distinct_models(results: pd.DataFrame) -> None:
    # moved from the experiments page: every row holds k distinct models
    picks = results["selected"].map(ex.selected_models)
    assert (picks.map(len) == results["k"]).all()
    assert (picks.map(lambda p: len(set(p))) == results["k"]).all()
    s = ex.summarise(results)
    assert (s["n"] == results.groupby(["condition", "split"]).ngroups).all()


def test_paired_differences_on_the_protocol(results: pd.DataFrame) -> None:
    # moved from the experiments page: the interval holds the mean, all evaluations are
    # paired, and with all models both selectors hold the same set
    d = ex.paired_differences(results, "greedy_mi", "topk", "map", seed=0)
    assert (d["n"] == results.groupby(["condition", "split"]).ngroups).all()
    assert (d["ci_low"] <= d["mean_diff"] + 1e-15).all()
    assert (d["mean_diff"] <= d["ci_high"] + 1e-15).all()
    assert np.allclose(d.loc[d["k"] == d["k"].max(), "mean_diff"], 0.0)


def test_paired_differences_known_case() -> None:
    rows = []
    d = np.array([-0.02, -0.01, 0.0, -0.03, -0.015, -0.005])
    for i, di in enumerate(d):
        rows.append(("c", i, "greedy_mi", "map", 2, 0.2 + di))
        rows.append(("c", i, "topk", "map", 2, 0.2))
    res = pd.DataFrame(rows, columns=ex.RESULT_COLUMNS)
    out = ex.paired_differences(res, confidence=0.95, n_boot=500, seed=1).iloc[0]
    from scipy import stats
    # corrected resampled t (Nadeau & Bengio): 80/20 splits, ratio 0.25
    half = stats.t.ppf(0.975, 5) * d.std(ddof=1) * np.sqrt(1 / 6 + 0.25)
    assert out["mean_diff"] == pytest.approx(d.mean())
    assert out["ci_low"] == pytest.approx(d.mean() - half)
    assert out["ci_high"] == pytest.approx(d.mean() + half)
    assert out["verdict"] == ("holds" if d.mean() + half < 0 else "within noise")
    naive = ex.paired_differences(res, n_boot=0, correct=False).iloc[0]
    assert naive["ci_high"] == pytest.approx(d.mean() + stats.t.ppf(0.975, 5)
                                             * d.std(ddof=1) / np.sqrt(6))
    assert naive["p_value"] < out["p_value"]
    third = ex.paired_differences(res, n_boot=0, test_fraction=1 / 3).iloc[0]
    assert third["ci_high"] - third["mean_diff"] == pytest.approx(
        stats.t.ppf(0.975, 5) * d.std(ddof=1) * np.sqrt(1 / 6 + 0.5))
    assert (out["n"], out["a_wins"], out["b_wins"], out["ties"]) == (6, 5, 0, 1)
    assert out["boot_low"] <= d.mean() <= out["boot_high"]
    again = ex.paired_differences(res, confidence=0.95, n_boot=500, seed=1).iloc[0]
    assert again["boot_low"] == out["boot_low"]
    with pytest.raises(ValueError, match="no rows for selector 'mrmr'"):
        ex.paired_differences(res, "mrmr", "topk")
    with pytest.raises(ValueError, match="confidence"):
        ex.paired_differences(res, confidence=1.5)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"ks": [1, 6]}, "exceeds the number of models m=5"),
    ({"ks": [0]}, "at least 1"),
    ({"ks": [1.5]}, "must be an integer"),
    ({"test_fraction": 0.0}, r"test_fraction of evaluate must be a real number in \(0, 1\)"),
    ({"test_fraction": 1.2}, r"test_fraction of evaluate must be a real number in \(0, 1\)"),
    ({"selectors": ("topk", "best")}, "selectors of evaluate must be one of 'topk'.*; got 'best'"),
    ({"aggregators": ("vote",)}, "aggregators of evaluate must be one of 'map', 'mv', 'wmv'.*; "
                                 "got 'vote'"),
    ({"n_splits": 0}, r"n_splits of evaluate must be an int in \[1, inf\); got 0"),
    ({"seed": "x"}, r"seed of evaluate must be an int in \[0, inf\); got 'x'"),
    ({"seed": -1}, r"seed of evaluate must be an int in \[0, inf\); got -1"),
])
def test_bad_arguments(tidy: pd.DataFrame, kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ex.evaluate(tidy, **kwargs)


def test_exhaustive_too_many_models() -> None:
    X, y, _ = sample_equicorrelated(0.7, 0.3, 16, 50, random_state=0)
    with pytest.raises(ValueError, match="exhaustive search over m=16 models"):
        ex.exhaustive_errors(X, y, X, y, [1])
    assert ex.exhaustive_feasible(13) and not ex.exhaustive_feasible(16)


def test_selection_table_and_example(tidy: pd.DataFrame) -> None:
    t = ex.selection_table(tidy, condition="c1", ks=[1, 2, 3])
    assert list(t.columns) == ["k", "selector", "model", "accuracy", "rank"]
    assert len(t) == 6
    assert t[(t["k"] == 1)]["rank"].eq(1).all()  # both start with the most accurate model
    with pytest.raises(ValueError, match="condition 'zz' not in the table"):
        ex.selection_table(tidy, condition="zz", ks=[1])
    ex_ = ex.diverse_vs_topk_example(_tidy(n=2000, m=6, rho=0.6), 3, condition="c1")
    if ex_ is not None:
        assert ex_.greedy_prediction == ex_.label != ex_.topk_prediction
        assert len(ex_.greedy) == len(ex_.topk) == 3


def test_save_load_roundtrip(results: pd.DataFrame, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ENSEL_RESULTS_DIR", str(tmp_path / "res"))
    assert book_results.results_dir() == tmp_path / "res"
    path = book_results.save_results(results, "medmcqa")
    assert path == tmp_path / "res" / "medmcqa.parquet"
    back = book_results.load_results("medmcqa")
    pd.testing.assert_frame_equal(back, results, check_dtype=False)
    assert book_results.results_path("/some/where/my_answers.csv").name == "my_answers.parquet"
    assert not list((tmp_path / "res").glob("*.tmp"))
    with pytest.raises(FileNotFoundError, match="no saved results for 'imdb'"):
        book_results.load_results("imdb")


def test_half_sample_errors_split_the_items_the_same_way_in_every_condition(
        tidy: pd.DataFrame) -> None:
    opts = dict(ks=[1, 2], selectors=("topk", "greedy_mi"), aggregators=("map",))
    reps = ex.half_sample_errors(tidy, protocol=Protocol(n_halvings=3), **opts)
    # 2 conditions -> 2 splits per half (at least 4 evaluations per half)
    assert set(reps.groupby(["halving", "half", "condition"])["split"].nunique()) == {2}
    for h in range(3):
        sizes = {}
        for (cond, half), g in reps[reps["halving"] == h].groupby(["condition", "half"]):
            sizes[(cond, half)] = int(g["n_test"].iloc[0])
        # both conditions have the same 400 items; each half holds 200 of them
        assert set(sizes.values()) == {40}
    pd.testing.assert_frame_equal(reps, ex.half_sample_errors(
        tidy, protocol=Protocol(n_halvings=3), **opts))
    other = ex.half_sample_errors(tidy, protocol=Protocol(n_halvings=3, seed=1), **opts)
    assert not reps["error"].equals(other["error"])
    means = ex.half_sample_means(reps)
    assert list(means.index) == [(h, x) for h in range(3) for x in "AB"]
    with pytest.raises(ValueError, match="n_halvings"):
        ex.half_sample_errors(tidy, protocol=Protocol(n_halvings=1))


def test_paired_differences_with_replicates(tidy: pd.DataFrame, results: pd.DataFrame
                                            ) -> None:
    reps = ex.half_sample_errors(tidy, protocol=Protocol(n_halvings=4),
                                 selectors=("topk", "greedy_mi"), aggregators=("map",))
    plain = ex.paired_differences(results, n_boot=0)
    checked = ex.paired_differences(results, n_boot=0, replicates=reps)
    assert set(plain["interval"]) == {"corrected"}
    assert set(checked["interval"]) <= {"corrected", "halves"}
    # the replicates can only widen the interval
    width = lambda t: (t["ci_high"] - t["ci_low"]).to_numpy()  # noqa: E731
    assert np.all(width(checked) >= width(plain) - 1e-12)
    pd.testing.assert_series_equal(plain["mean_diff"], checked["mean_diff"])


def test_save_load_replicates(tidy: pd.DataFrame, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ENSEL_RESULTS_DIR", str(tmp_path))
    reps = ex.half_sample_errors(tidy, protocol=Protocol(n_halvings=2), ks=[1],
                                 selectors=("topk",), aggregators=("map",))
    path = book_results.save_results(reps, "medmcqa", kind="halves")
    assert path.name == "medmcqa.halves.parquet"
    back = book_results.load_results("medmcqa", kind="halves")
    pd.testing.assert_frame_equal(back, reps, check_dtype=False)
    with pytest.raises(FileNotFoundError):
        book_results.load_results("medmcqa")  # the results themselves were not saved
    with pytest.raises(ValueError, match="kind must be one of"):
        book_results.results_path("medmcqa", kind="halfs")


def test_chunked_scan_equals_lattice(monkeypatch) -> None:
    rng = np.random.default_rng(5)
    X, y, _ = sample_equicorrelated(rng.uniform(0.6, 0.9, 7), 0.5, 7, 500, random_state=5)
    X = X.copy()
    X[rng.random(X.shape) < 0.04] = 0
    tr, te = np.arange(400), np.arange(400, 500)
    lattice = ex.exhaustive_errors(X[tr], y[tr], X[te], y[te], [1, 3, 7])
    monkeypatch.setattr(ex, "_EXHAUSTIVE_MAX_CELLS", 0)
    prefix = ex.exhaustive_errors(X[tr], y[tr], X[te], y[te], [1, 3, 7])
    monkeypatch.setattr(ex, "_PREFIX_MAX_GROUP_IDS", 0)
    chunked = ex.exhaustive_errors(X[tr], y[tr], X[te], y[te], [1, 3, 7])
    for k in (1, 3, 7):
        assert np.array_equal(lattice[k]["combos"], chunked[k]["combos"])
        assert np.allclose(lattice[k]["error"], chunked[k]["error"], atol=1e-12)
        assert np.allclose(lattice[k]["mi"], chunked[k]["mi"], atol=1e-10)
        # the prefix scan is the chunked scan's arithmetic in the same order: bit for bit
        for key in ("combos", "error", "mi"):
            assert np.array_equal(prefix[k][key], chunked[k][key])


@settings(deadline=None, max_examples=20)
@given(seed=st.integers(0, 10_000), m=st.integers(1, 8), n=st.integers(5, 300),
       p0=st.sampled_from([0.0, 0.05, 0.3]))
def test_prefix_scan_equals_chunked_scan(seed: int, m: int, n: int, p0: float) -> None:
    rng = np.random.default_rng(seed)
    X = rng.choice(np.array([-1, 1], dtype=np.int8), size=(n, m))
    X[rng.random(X.shape) < p0] = 0
    y = rng.choice(np.array([-1, 1], dtype=np.int8), size=n)
    n_tr = max(1, (4 * n) // 5)
    Xtr, ytr, Xte, yte = X[:n_tr], y[:n_tr], X[n_tr:], y[n_tr:]
    if len(yte) == 0:
        return
    base, h_y = 3, 1.0
    ks = sorted(set(rng.integers(1, m + 1, size=3).tolist()))
    digits = ex.kernels.answer_digits  # the one coder (ensel._kernels)
    args = (digits(Xtr), ytr, digits(Xte), yte, ks, base, h_y, 1.0)
    a, b = ex._exhaustive_prefix(*args), ex._exhaustive_chunked(*args)
    assert sorted(a) == sorted(b) == ks
    for k in ks:
        for key in ("combos", "error", "mi"):
            assert np.array_equal(a[k][key], b[k][key])


# --------------------------------------------------------------------------- row order
def test_split_depends_on_item_ids_not_on_row_positions() -> None:
    ids = np.array([f"q{i:03d}" for i in range(200)])
    perm = np.random.default_rng(5).permutation(200)
    _, te = ex.split_indices(200, condition="c", split=2, seed=3, item_ids=ids)
    _, te_perm = ex.split_indices(200, condition="c", split=2, seed=3, item_ids=ids[perm])
    assert set(ids[te]) == set(ids[perm][te_perm])
    # numeric ids are compared as text, and other seeds/splits/conditions differ
    _, te_other = ex.split_indices(200, condition="c", split=3, seed=3, item_ids=ids)
    assert set(ids[te]) != set(ids[te_other])
    with pytest.raises(ValueError, match="item_ids"):
        ex.split_indices(200, condition="c", split=0, item_ids=ids[:10])


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_row_order_never_changes_the_answer(perm_seed: int) -> None:
    """Shuffling the rows of a tidy table (and thereby the order of its models and items)
    changes nothing: evaluate, half_sample_errors and ensel select give identical output."""
    from ensel.evidence import run_select

    df = _tidy(n=120, m=5, rho=0.5)
    # ties everywhere: two models are exact copies, so selection and votes must break ties
    # by a canonical order, not by the order of appearance
    dup = df[df["model"] == "m1"].assign(model="m5")
    df = pd.concat([df, dup], ignore_index=True)
    shuffled = df.sample(frac=1.0, random_state=np.random.RandomState(perm_seed))
    shuffled = shuffled.reset_index(drop=True)
    opts = {"ks": [1, 2, 3], "protocol": Protocol(n_splits=2, n_halvings=2, seed=4)}
    a = ex.evaluate(df, **opts)
    b = ex.evaluate(shuffled, **opts)
    pd.testing.assert_frame_equal(a, b)
    assert a.attrs["provenance"]["input_sha256"] == b.attrs["provenance"]["input_sha256"]
    ha = ex.half_sample_errors(df, selectors=["greedy_mi"], **opts)
    hb = ex.half_sample_errors(shuffled, selectors=["greedy_mi"], **opts)
    pd.testing.assert_frame_equal(ha, hb)
    sa = run_select(df, k=3, aggregator="mv", n_splits=2, halvings=2, seed=4)
    sb = run_select(shuffled, k=3, aggregator="mv", n_splits=2, halvings=2, seed=4)
    assert sa == sb


def test_one_se_rule_prefers_the_smallest_k_within_noise() -> None:
    rng = np.random.default_rng(0)
    flat = pd.DataFrame({"k": np.repeat([1, 2, 3], 20),
                         "error": 0.2 + rng.normal(0, 0.01, 60)})
    k, table = ex.one_se_k(flat)
    assert k == 1 and list(table.columns) == ["k", "mean", "se", "n"]
    steep = flat.assign(error=flat["error"] - 0.05 * (flat["k"] - 1))
    assert ex.one_se_k(steep)[0] == 3


def test_threads_give_the_same_tables() -> None:
    """n_jobs only spreads the splits (and the halves) over threads: every table is equal."""
    X, y, _ = sample_equicorrelated([0.8, 0.75, 0.7, 0.65, 0.6], 0.3, 5, 600, random_state=3)
    df = to_long(X, y)
    kw = {"ks": [1, 3], "selectors": ["topk", "score_mi", "greedy_mi"],
          "aggregators": ["mv", "backoff"]}
    one = ex.evaluate(df, n_splits=4, **kw)
    pd.testing.assert_frame_equal(one, ex.evaluate(df, n_splits=4, n_jobs=2, **kw))
    pd.testing.assert_frame_equal(one, ex.evaluate(df, n_splits=4, n_jobs=-1, **kw))
    three = Protocol(n_halvings=3)
    h1 = ex.half_sample_errors(df, protocol=three, **kw)
    pd.testing.assert_frame_equal(h1, ex.half_sample_errors(df, protocol=three, n_jobs=3, **kw))


@pytest.mark.parametrize("n_jobs", [0, -2, 1.5, "2"])
def test_bad_n_jobs_is_named(n_jobs) -> None:
    X, y, _ = sample_equicorrelated(0.7, 0.3, 3, 200, random_state=0)
    with pytest.raises(ValueError, match="n_jobs"):
        ex.heldout_errors(X, y, ks=[1], protocol=Protocol(n_splits=2), selectors=["topk"],
                          aggregators=["mv"],
                          n_jobs=n_jobs)


def test_heldout_errors_identical_under_two_tie_seeds(monkeypatch) -> None:
    # even ks with abstentions: many majority-vote ties; the tie seed must not matter
    rng = np.random.default_rng(11)
    X, y, _ = sample_equicorrelated(0.7, 0.3, 6, 600, random_state=11)
    X = X.copy()
    X[rng.random(X.shape) < 0.1] = 0
    kw = dict(ks=[1, 2, 4, 6], protocol=Protocol(n_splits=3), selectors=["topk", "greedy_mi"],
              aggregators=["mv", "map", "wmv"])
    a = ex.heldout_errors(X, y, **kw)
    monkeypatch.setattr(ex, "_mv_seed", lambda seed, condition, split: 12345 + split)
    b = ex.heldout_errors(X, y, **kw)
    pd.testing.assert_frame_equal(a, b)


def test_majority_vote_spread_at_k2_comparable_to_k1_and_k3() -> None:
    # a seeded pool of six models; Top-2 with majority vote ties on every disagreement, and
    # the best model is right on most of them, so a coin per pattern swings the error
    from ensel.book.protocol import TIE_SPREAD_FACTOR, tie_rule_errors, tie_rule_table

    X, y, _ = sample_equicorrelated([0.9, 0.65, 0.6, 0.6, 0.58, 0.55], 0.3, 6, 3000,
                                    random_state=4)
    data = [ex.ConditionData("all", X, y, [str(j) for j in range(6)], np.arange(len(y)))]
    errs = ex.heldout_errors(X, y, ks=[1, 2, 3], protocol=Protocol(n_splits=12), selectors=["topk"],
                             aggregators=["mv"])
    sd = errs.groupby("k")["error"].std()
    assert sd[2] <= TIE_SPREAD_FACTOR * max(sd[1], sd[3])
    # the old coin per pattern: every tie of a split goes one way, a much larger spread
    tab = tie_rule_table(tie_rule_errors(data, protocol=Protocol(n_splits=12, seed=0)))
    np.testing.assert_allclose(tab["half spread"], sd.to_numpy(), atol=1e-15)
    assert tab.loc[2, "tied share"] > 0.1
    assert tab.loc[2, "coin spread"] > 2 * tab.loc[2, "half spread"]


def test_heldout_errors_do_not_depend_on_which_class_is_plus_one() -> None:
    # with ties counted half, relabelling (X, y) -> (-X, -y) changes no error; the old
    # "tie -> +1" of MAP's unseen patterns did (it favoured whichever class was coded +1)
    X, y, _ = sample_equicorrelated([0.8, 0.75, 0.7, 0.7, 0.65, 0.6], 0.4, 6, 400,
                                    random_state=2)
    kw = dict(ks=[1, 2, 4, 6], protocol=Protocol(n_splits=3), selectors=["topk", "greedy_mi"],
              aggregators=["map", "mv", "wmv"])
    a = ex.heldout_errors(X, y, **kw)
    b = ex.heldout_errors(-X, -y, **kw)
    pd.testing.assert_frame_equal(a, b)


# --------------------------------------------------------------------------- shared work
@settings(deadline=None, max_examples=40)
@given(seed=st.integers(0, 10_000), m=st.integers(1, 8), n=st.integers(6, 300),
       p0=st.sampled_from([0.0, 0.1, 0.4]))
def test_prefix_errors_are_the_aggregators_errors(seed: int, m: int, n: int,
                                                  p0: float) -> None:
    """Scoring MAP, MV and W-MV along a pick path gives, bit for bit, what fitting each
    aggregator on every prefix and scoring it with heldout_error gives (abstentions, unseen
    test patterns and ties included)."""
    from ensel.aggregate import make_aggregator

    rng = np.random.default_rng(seed)
    X = rng.choice(np.array([-1, 1], dtype=np.int8), size=(n, m))
    X[rng.random(X.shape) < p0] = 0
    y = rng.choice(np.array([-1, 1], dtype=np.int8), size=n)
    y[:2] = [-1, 1]
    n_f = max(2, (4 * n) // 5)
    part = (X[:n_f], y[:n_f], X[n_f:], y[n_f:])
    path = [int(j) for j in rng.permutation(m)]
    ks = sorted(set(rng.integers(1, m + 1, size=3).tolist()))
    got = ex._prefix_errors(part, path, ks, ["map", "mv", "wmv"])
    for k in ks:
        for agg in ("map", "mv", "wmv"):
            model = make_aggregator(agg, random_state=1).fit(part[0][:, path[:k]], part[1])
            assert got[(agg, k)] == heldout_error(model, part[2][:, path[:k]], part[3])


@pytest.mark.parametrize("p0", [0.0, 0.05])
def test_one_scan_for_all_splits_gives_each_splits_tables(monkeypatch, p0: float) -> None:
    """The exhaustive tables of many (fit, eval) parts from one shared scan are those of
    exhaustive_errors on each part, bit for bit; a part without MI reports NaN for it, and a
    part whose own answers have no abstention keeps its own alphabet's MI."""
    monkeypatch.setattr(ex, "_EXHAUSTIVE_MAX_CELLS", 0)  # the prefix scan at this size
    rng = np.random.default_rng(7)
    X, y, _ = sample_equicorrelated(rng.uniform(0.6, 0.9, 6), 0.4, 6, 400, random_state=7)
    X = X.copy()
    X[rng.random(X.shape) < p0] = 0
    X[:150][X[:150] == 0] = 1  # parts within the first 150 items have no abstention
    keys = ex._item_keys(None, len(y))
    parts = [p for tr, te, itr, iva in ex._protocol_splits(
        keys, condition="c", n_splits=3, seed=0, test_fraction=0.2, inner=True)
        for p in ((tr, te, True), (tr[itr], tr[iva], False))]
    parts.append((np.arange(100), np.arange(100, 150), True))
    ks = [1, 2, 4, 6]
    shared = ex._exhaustive_tables(X, y, parts, ks)
    for (fit, ev, mi), tab in zip(parts, shared, strict=True):
        alone = ex.exhaustive_errors(X[fit], y[fit], X[ev], y[ev], ks)
        for k in ks:
            assert np.array_equal(tab[k]["combos"], alone[k]["combos"])
            assert np.array_equal(tab[k]["error"], alone[k]["error"])
            if mi:
                assert np.array_equal(tab[k]["mi"], alone[k]["mi"])
            else:
                assert np.isnan(tab[k]["mi"]).all()
