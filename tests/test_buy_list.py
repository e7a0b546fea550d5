"""The buy list never pays more for nothing: on each real source with the shipped prices,
no model alone and no smaller choice within the budget is as good as the recommendation
for less (the equivalence rule of :mod:`ensel.budget`), recomputed here independently."""

from __future__ import annotations

import numpy as np
import pytest

from ensel.aggregate import make_aggregator
from ensel.budget import EQUIVALENCE_MARGIN, as_good, cheapest_as_good
from ensel.cli.select import run_select_budget
from ensel.costs import shipped_prices
from ensel.experiment import _mv_seed, condition_data, split_indices
from ensel.protocol import Protocol
from ensel.stats import paired_interval
from tests.conftest import UPSTREAMS, require_mirror

SPLITS = 2


def _priced(df):
    """The conditions of ``df`` with the models the shipped table prices, and their prices."""
    _, kept, _ = shipped_prices().for_models(sorted(df["model"].astype(str).unique()),
                                             drop_unpriced=True)
    data = condition_data(df[df["model"].astype(str).isin(kept)], validate=False)
    return data, shipped_prices().for_models(data[0].models)[0]


def _alone(data, j: int) -> np.ndarray:
    """Held-out errors of model ``j`` alone on the command's splits (its own loop)."""
    out = []
    for d in data:
        for s in range(SPLITS):
            tr, te = split_indices(len(d.y), condition=d.condition, split=s, seed=0,
                                   item_ids=d.items)
            agg = make_aggregator("backoff", random_state=_mv_seed(0, d.condition, s))
            agg.fit(d.X[tr][:, [j]], d.y[tr])
            out.append(float(np.mean(agg.predict(d.X[te][:, [j]]) != d.y[te])))
    return np.asarray(out)


@pytest.mark.parametrize("name", list(UPSTREAMS))
def test_no_recommendation_is_dominated_beyond_noise(name, monkeypatch) -> None:
    from ensel.datasets import load

    mirror = require_mirror(UPSTREAMS[name])
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(mirror))
    data, usd = _priced(load(name))
    # a cheap budget and one that affords the dearest model: the two ends of the list
    for budget in (float(np.sort(usd)[len(usd) // 3]), float(usd.max())):
        doc = run_select_budget(data, usd, budget, k=None,
                                protocol=Protocol(n_splits=SPLITS))
        rec, best = doc["recommendation"], doc["best"]
        assert doc["cost"] <= budget + 1e-12
        assert rec["cost_high"] <= budget + 1e-12 and rec["cost_low"] >= 0
        # the recommendation is as good as the best choice within the budget ...
        assert rec["error"] - best["error"] <= max(rec["test_against_best"]["se"],
                                                   EQUIVALENCE_MARGIN) + 1e-9
        assert rec["cost"] <= best["cost"] + 1e-12
        # ... and no model alone that is cheaper is as good as the best (recomputed here)
        best_err = _alone(data, data[0].models.index(best["models"][0])) \
            if len(best["models"]) == 1 else None
        for j in np.flatnonzero(usd < doc["cost"] - 1e-12):
            e = _alone(data, int(j))
            if best_err is not None:
                assert not as_good(e, best_err)["as_good"], data[0].models[j]
            # its mean excess over the recommendation's error is beyond the rule's noise
            excess = float(e.mean()) - best["error"]
            assert excess > EQUIVALENCE_MARGIN - 1e-12, (name, budget, data[0].models[j])


@pytest.mark.parametrize("name", list(UPSTREAMS))
def test_the_frontiers_buy_list_pays_for_nothing_on_real_sources(name, monkeypatch) -> None:
    from ensel.datasets import load
    from ensel.frontier import budget_grid, frontier_errors, frontier_summary

    mirror = require_mirror(UPSTREAMS[name])
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(mirror))
    data, usd = _priced(load(name))
    budgets = budget_grid(usd, 4, max_models=8)
    res = frontier_errors(data, usd, budgets, protocol=Protocol(n_splits=SPLITS),
                          max_models=8,
                          singles=float(budgets.max()))
    doc = frontier_summary(res, usd=usd, models=data[0].models)
    assert [r["budget"] for r in doc["buy_list"]] == doc["budgets"]
    for row in doc["buy_list"]:
        c, best, b = row["choice"], row["best"], row["budget"]
        assert c["cost"] <= min(best["cost"], b) + 1e-12 and c["models"]
        assert row["test"]["as_good"]
        # no model alone that costs less than the choice is as good as the best (own loop)
        for j in np.flatnonzero(usd < c["cost"] - 1e-12):
            assert float(_alone(data, int(j)).mean()) - best["error"] > EQUIVALENCE_MARGIN, (
                name, b, data[0].models[j])


def test_cheapest_as_good_takes_the_cheaper_choice_within_noise() -> None:
    rng = np.random.default_rng(0)
    base = 0.2 + rng.normal(0, 0.01, 10)
    dear = {"errors": base, "cost": 3.0}
    cheap = {"errors": base + 0.002, "cost": 1.0}  # within the margin: as good
    bad = {"errors": base + 0.05, "cost": 0.5}  # far worse: not as good
    found = cheapest_as_good([dear, cheap, bad])
    assert (found["best"], found["choice"], found["cheaper"]) == (0, 1, 2)
    assert not found["tests"][2]["as_good"]
    # a consistent excess beyond one standard error and the margin is not "as good"
    d = paired_interval(bad["errors"] - base, n_train=0.8, n_test=0.2)
    assert d.mean > max(d.se, EQUIVALENCE_MARGIN)


# --------------------------------------------------------------------------- the outputs
@pytest.fixture(scope="module")
def pool_files(tmp_path_factory):
    """Six models, m0 the cheapest; m3-m5 copies of m0 at ten times its price (a set of
    them buys nothing over m0 alone); about 15 % abstentions in m1."""
    import pandas as pd

    from ensel.pools import family_pool

    p = family_pool(6, 900, family_size=2, random_state=5)
    X = p.X.copy()
    X[:, 3] = X[:, 4] = X[:, 5] = X[:, 0]
    rng = np.random.default_rng(1)
    X[rng.random(len(X)) < 0.15, 1] = 0
    models = [f"m{j}" for j in range(6)]
    n, m = X.shape
    d = tmp_path_factory.mktemp("buy")
    pd.DataFrame({"item": np.repeat(np.arange(n), m), "model": np.tile(models, n),
                  "answer": X.ravel(), "label": np.repeat(p.y, m)}).to_csv(d / "a.csv",
                                                                           index=False)
    pd.DataFrame({"model": models, "usd_per_query": [0.001, 0.002, 0.004, 0.01, 0.01, 0.01]}
                 ).to_csv(d / "p.csv", index=False)
    return d


def _cli(capsys, argv):
    from ensel.cli import main

    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


def test_copies_of_the_cheapest_model_are_never_bought(capsys, pool_files) -> None:
    import json

    d = pool_files
    doc = json.loads(_cli(capsys, ["select", d / "a.csv", "--prices", d / "p.csv",
                                   "--budget-usd", "0.05", "--splits", "3", "--json"]))
    assert doc["schema"] == "ensel.select-budget/2"
    names = set(doc["recommendation"]["deployed_models"])
    assert not names & {"m3", "m4", "m5"} or names == {"m0"}
    # the recommendation costs no more than the best choice and is as good by the rule
    rec, best = doc["recommendation"], doc["best"]
    assert rec["cost"] <= best["cost"] + 1e-12 and rec["test_against_best"]["as_good"]
    assert 0 <= rec["cost_low"] <= rec["cost"] <= rec["cost_high"] <= 0.05 + 1e-12
    # abstention-aware rows: accuracy = coverage x accuracy when answered
    rows = {r["model"]: r for r in doc["model_table"]}
    for r in rows.values():
        assert r["accuracy"] == pytest.approx(r["coverage"] * r["accuracy_answered"])
    if "m1" in rows:
        assert rows["m1"]["coverage"] == pytest.approx(0.85, abs=0.04)


def test_select_budget_text_explains_itself(capsys, pool_files) -> None:
    import re

    d = pool_files
    out = _cli(capsys, ["select", d / "a.csv", "--prices", d / "p.csv", "--budget-usd", "0.02",
                        "--splits", "3"])
    assert out.startswith("Buy, within 0.02 USD per query: ")
    flat = " ".join(out.split())  # the text is wrapped
    for needle in ("rule: the cheapest choice", "3 random 80/20 splits", "Nadeau-Bengio",
                   "clipped to [0.001 (the cheapest model), 0.02 (the budget)]", "coverage",
                   "acc. when answered", "abstention as wrong"):
        assert needle in flat, needle
    assert not re.search(r"\d\.\d{7,}", out), "a number with more than 4 significant digits"


def test_model_table_on_an_abstaining_pool() -> None:
    import pandas as pd

    from ensel.evidence import model_table

    rng = np.random.default_rng(0)
    n, m = 600, 20
    y = rng.choice([-1, 1], n)
    X = np.where(rng.random((n, m)) < 0.55, y[:, None], -y[:, None])  # near chance
    X[rng.random((n, m)) < 0.18] = 0  # 18 % abstentions
    df = pd.DataFrame({"item": np.repeat(np.arange(n), m), "model": np.tile(
        [f"w{j:02d}" for j in range(m)], n), "answer": X.ravel(), "label": np.repeat(y, m)})
    t = model_table(df).set_index("model")
    cov = (X != 0).mean(axis=0)
    assert t["coverage"].to_numpy() == pytest.approx(cov)
    assert t["accuracy"].to_numpy() == pytest.approx((X == y[:, None]).mean(axis=0))
    assert (t["accuracy_answered"] > t["accuracy"]).all()  # abstentions only lower accuracy
    assert t["accuracy_answered"].to_numpy() == pytest.approx(
        (X == y[:, None]).sum(axis=0) / (X != 0).sum(axis=0))


def test_cascade_warns_on_a_missed_target_and_explains_its_histogram(capsys,
                                                                      pool_files) -> None:
    import json

    d = pool_files
    out = _cli(capsys, ["cascade", d / "a.csv", "--prices", d / "p.csv", "--target-error",
                        "0.0001", "--splits", "2"])
    warn = [ln for ln in out.splitlines() if "warning: the target error 0.0001 is missed" in ln]
    assert len(warn) == 1
    assert "whose orders have" in out and "threshold" in out and "stops asking" in out
    assert "recommended" in out
    doc = json.loads(_cli(capsys, ["cascade", d / "a.csv", "--prices", d / "p.csv",
                                   "--splits", "2", "--json"]))
    bars = [int(k) for k in doc["asked_histogram"]]
    assert max(bars) <= max(doc["split_order_lengths"])  # the bars the orders allow
    assert doc["cost_high"] <= doc["static_order"]["cost"] * (1 + 1e-9) + 1e-12
    rec = doc["recommendation"]
    assert rec["recommended"] == (rec["choice"] == "the cascade")


def test_frontier_names_the_models_at_every_point(capsys, pool_files) -> None:
    import json

    d = pool_files
    fig = d / "f.html"
    doc = json.loads(_cli(capsys, ["frontier", d / "a.csv", "--prices", d / "p.csv",
                                   "--splits", "2", "--budgets", "4", "--json", "-o", fig,
                                   "--force"]))
    assert doc["schema"] == "ensel.frontier/2"
    for mdoc in doc["methods"].values():
        for p in mdoc["points"]:
            assert p["models"] and 1 <= p["in_splits"] <= doc["evaluation"]["n_evaluations"]
            assert p["cost_high"] <= p["budget"] * (1 + 1e-9)
    assert len(doc["buy_list"]) == len(doc["budgets"])
    for row in doc["buy_list"]:
        assert row["choice"]["cost"] <= row["best"]["cost"] + 1e-12
    html = fig.read_text(encoding="utf-8")
    assert "<ol><li>" in html and "numbered by its set of models" in html
    out = _cli(capsys, ["frontier", d / "a.csv", "--prices", d / "p.csv", "--splits", "2",
                        "--budgets", "4"])
    assert "Buy list" in out and "Each point's models" in out and "AIQ" in out


def test_the_figure_labels_each_curve_and_draws_hulls_as_segments(pool_files) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from ensel.frontier import draw_frontier, point_sets

    doc = {"methods": {
        "budgeted": {"points": [{"cost": 1.0, "error": 0.3, "models": ["a"]},
                                {"cost": 3.0, "error": 0.2, "models": ["a", "b"]}],
                     "hull": [[0, 0.5], [1.0, 0.3], [3.0, 0.2]], "aiq": 0.7},
        "topk_budget": {"points": [{"cost": 1.0, "error": 0.3, "models": ["a"]},
                                   {"cost": 3.0, "error": 0.2, "models": ["b", "a"]}],
                        "hull": [[0, 0.5], [1.0, 0.3], [3.0, 0.2]], "aiq": 0.7}}}
    assert point_sets(doc) == [["a"], ["a", "b"]]
    fig = matplotlib.figure.Figure()
    ax = fig.subplots()
    draw_frontier(ax, doc, numbers=True)
    labels = ax.get_legend_handles_labels()[1]
    assert labels[1].endswith("= budgeted selection")  # overlapping curves say so
    hulls = [ln for ln in ax.get_lines() if ln.get_label() in labels]
    assert [len(ln.get_xdata()) for ln in hulls] == [2, 2]  # vertices only: straight segments
    assert {t.get_text() for t in ax.texts} == {"1", "2"}


def test_margin_is_refused_where_it_does_nothing(capsys, pool_files) -> None:
    from ensel.cli import main

    d = pool_files
    assert main(["select", str(d / "a.csv"), "-k", "2", "--margin", "0.01"]) == 2
    err = capsys.readouterr().err
    assert "--margin applies to --budget-usd only" in err and len(err.strip().splitlines()) == 1
