"""The cost-error frontier: hull, area, the protocol's splits, the document."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from ensel.experiment import ConditionData, split_indices
from ensel.frontier import (
    SCHEMA,
    budget_grid,
    convex_hull,
    frontier_errors,
    frontier_summary,
    hull_aiq,
)
from ensel.pools import family_pool
from ensel.protocol import Protocol


def test_hull_is_non_decreasing_and_convex() -> None:
    h = convex_hull([0, 1, 2, 3, 4], [0.5, 0.3, 0.28, 0.2, 0.25])
    assert h.tolist() == [[0.0, 0.5], [1.0, 0.3], [3.0, 0.2]]  # (2, .28) under the chord
    assert hull_aiq([0, 1], [0.5, 0.3], 2.0) == pytest.approx((0.6 * 1 + 0.7 * 1) / 2)
    assert hull_aiq([0, 4], [0.5, 0.1], 2.0) == pytest.approx((0.5 + 0.7) / 2)
    with pytest.raises(ValueError, match="zero-cost"):
        hull_aiq([1, 2], [0.3, 0.2], 2.0)


@pytest.fixture(scope="module")
def run():
    p = family_pool(12, 1500, random_state=7)
    usd = np.exp(np.random.default_rng(8).uniform(np.log(1e-4), np.log(1e-2), 12))
    d = ConditionData("all", p.X, p.y, [f"m{j:02d}" for j in range(12)], np.arange(1500))
    budgets = budget_grid(usd, 5, max_models=6)
    res = frontier_errors([d], usd, budgets, protocol=Protocol(n_splits=3),
                          max_models=6)
    return d, usd, budgets, res


def test_rows_use_the_protocol_splits(run) -> None:
    d, usd, budgets, res = run
    assert set(res["method"]) == {"none", "budgeted", "topk_budget", "cheapest_first",
                                  "best_single", "cascade"}
    static = res[res["method"].isin(["budgeted", "topk_budget", "cheapest_first",
                                     "best_single"])]
    assert (static["cost"] <= static["budget"] + 1e-12).all()
    _, te = split_indices(1500, condition="all", split=0, seed=0, item_ids=d.items)
    assert (res["n_test"] == len(te)).all()
    # one row recomputed by hand: best single model's error on split 0 at the largest budget
    row = res[(res["method"] == "best_single") & (res["split"] == 0)
              & (res["budget"] == budgets[-1])].iloc[0]
    j = d.models.index(row["selected"])
    tr, te = split_indices(1500, condition="all", split=0, seed=0, item_ids=d.items)
    from ensel.aggregate import make_aggregator

    agg = make_aggregator("backoff").fit(d.X[tr][:, [j]], d.y[tr])
    assert row["error"] == pytest.approx(np.mean(agg.predict(d.X[te][:, [j]]) != d.y[te]))


def test_sharing_work_across_budgets_changes_no_row(run, monkeypatch) -> None:
    # the budgets of a split share their greedy gains, cross-fitted errors and cascade
    # prefix fits (ensel.select._budgeted.shared_fits); without it every fit starts afresh
    import contextlib

    import pandas as pd

    import ensel.select._budgeted as budgeted

    d, usd, budgets, res = run
    calls = []
    real = budgeted._Gains.__call__

    def counted(self, *a):
        calls.append(1)
        return real(self, *a)

    monkeypatch.setattr(budgeted._Gains, "__call__", counted)
    shared = frontier_errors([d], usd, budgets, protocol=Protocol(n_splits=3),
                          max_models=6)
    n_shared = len(calls)
    monkeypatch.setattr(budgeted, "shared_fits", lambda X, y: contextlib.nullcontext())
    calls.clear()
    alone = frontier_errors([d], usd, budgets, protocol=Protocol(n_splits=3),
                          max_models=6)
    pd.testing.assert_frame_equal(shared, res, check_exact=True)
    pd.testing.assert_frame_equal(alone, res, check_exact=True)
    assert n_shared < len(calls) / 2, (n_shared, len(calls))  # the work really is shared


def test_single_models_are_fitted_once_per_split(run, monkeypatch) -> None:
    # frontier_errors(singles=B) gives the rows of single_model_errors from its own splits'
    # fits, and its best single model reuses them: one fit per model and split
    import pandas as pd

    import ensel.budget as budget

    d, usd, budgets, res = run
    fits = []
    real, real_alone = budget.subset_error, budget.alone_errors

    def counted(split, cols, *a, **k):
        fits.append(tuple(sorted(cols)))
        return real(split, cols, *a, **k)

    def counted_alone(split, cols, *a):  # every model alone at once (a few refitted)
        before = len(fits)
        out = real_alone(split, cols, *a)
        refitted = set(fits[before:])
        fits.extend((j,) for j in cols if (j,) not in refitted)
        return out

    monkeypatch.setattr(budget, "subset_error", counted)
    monkeypatch.setattr(budget, "alone_errors", counted_alone)
    both = frontier_errors([d], usd, budgets, protocol=Protocol(n_splits=3), max_models=6,
                           singles=float(budgets[-1]))
    alone = both[both["method"] == "single"].reset_index(drop=True)
    expected = budget.single_model_errors([d], usd, float(budgets[-1]),
                                          protocol=Protocol(n_splits=3))
    pd.testing.assert_frame_equal(alone, expected, check_exact=True, check_dtype=False)
    rest = both[both["method"] != "single"].reset_index(drop=True)
    pd.testing.assert_frame_equal(rest, res, check_exact=True)
    in_frontier = fits[: len(fits) - len(expected)]  # single_model_errors' own come last
    # each model alone fitted once per split: the best single model is not fitted again
    assert sum(len(k) == 1 for k in in_frontier) == len(expected)


def test_summary_document(run) -> None:
    d, usd, budgets, res = run
    doc = frontier_summary(res, usd=usd, models=d.models)
    assert doc["schema"] == SCHEMA == "ensel.frontier/2"
    assert doc["budgets"] == pytest.approx(list(budgets))
    for name, m in doc["methods"].items():
        assert 0 <= m["aiq_low"] <= m["aiq"] <= m["aiq_high"] <= 1, name
        assert len(m["points"]) == len(budgets)
    assert {r["verdict"] for r in doc["budgeted_vs_topk"]} <= {"holds", "within noise",
                                                                "contradicted"}
    assert doc["best_single"]["model"] in d.models
    assert set(doc["reach"]) == set(doc["methods"])
    cvs = doc["cascade_vs_static"]
    assert cvs["n_evaluations"] == 3 and 0 <= cvs["matched_in"] <= 3
    assert doc == frontier_summary(res.sample(frac=1, random_state=0), usd=usd,
                                   models=d.models)  # independent of the rows' order


def test_grid_includes_the_best_single_models_price(run) -> None:
    from ensel.frontier import best_single_price

    d, usd, _, _ = run
    p = best_single_price([d], usd)
    acc = (d.X == d.y[:, None]).mean(axis=0)
    assert p == usd[int(np.argmax(acc))]
    assert p in budget_grid(usd, 5, max_models=6, include=[p]).tolist()


def test_the_figure_is_written_without_touching_the_callers_backend(run, tmp_path) -> None:
    import json

    import matplotlib

    from ensel.frontier import frontier_figure

    d, usd, _, res = run
    doc = frontier_summary(res, usd=usd, models=d.models)
    backend = matplotlib.get_backend()
    frontier_figure(doc, str(tmp_path / "f.png"))
    frontier_figure(doc, tmp_path / "f.html")
    assert matplotlib.get_backend() == backend
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    html = (tmp_path / "f.html").read_text(encoding="utf-8")
    assert "data:image/png;base64," in html and json.dumps(doc, indent=1) in html
    from ensel._html import unrendered_markup  # the reports' page: a real alt text

    assert unrendered_markup(html) == [] and 'alt="Held-out error against cost' in html
    ax = frontier_figure(doc).axes[0]  # no path: a pyplot figure, one line pair per method
    assert ax.get_xscale() == "log" and len(ax.get_legend_handles_labels()[1]) == len(
        doc["methods"])


def test_cost_functions_take_the_protocol_alone() -> None:
    # one way to pass the protocol: no loose split count, test fraction or seed beside it
    import inspect

    from ensel.budget import single_model_errors
    from ensel.cli.cascade import run_cascade
    from ensel.protocol import PAPER_PROTOCOL

    for func in (frontier_errors, frontier_summary, single_model_errors, run_cascade):
        params = inspect.signature(func).parameters
        assert params["protocol"].default is PAPER_PROTOCOL, func
        assert not {"n_splits", "test_fraction", "seed"} & set(params), func


def test_summary_records_and_uses_the_protocol_it_is_given(run) -> None:
    d, usd, budgets, res = run
    wide = Protocol(n_splits=3, test_fraction=0.4, seed=0)
    doc = frontier_summary(res, usd=usd, models=d.models, protocol=wide)
    base = frontier_summary(res, usd=usd, models=d.models)
    assert doc["evaluation"]["test_fraction"] == 0.4
    assert base["evaluation"]["test_fraction"] == Protocol().test_fraction
    # a larger test share makes the overlap correction, hence the intervals, wider
    p, q = doc["methods"]["budgeted"]["points"][-1], base["methods"]["budgeted"]["points"][-1]
    assert p["error"] == q["error"]
    assert p["error_high"] - p["error_low"] >= q["error_high"] - q["error_low"]


def test_forked_workers_give_the_same_rows(run) -> None:
    # processes=True (ensel frontier's): the splits on forked processes, the same rows
    import pandas as pd

    d, usd, budgets, res = run
    forked = frontier_errors([d], usd, budgets, protocol=Protocol(n_splits=3), max_models=6,
                             n_jobs=2, processes=True)
    pd.testing.assert_frame_equal(forked, res, check_exact=True)


def test_buy_list_deciding_every_candidate_at_once_changes_nothing(run, monkeypatch) -> None:
    # _as_good_all decides the equivalence rule for all candidates in one array pass; the
    # buy list is the same as when every candidate is tested one by one
    import ensel.budget as budget

    d, usd, budgets, _ = run
    res = frontier_errors([d], usd, budgets, protocol=Protocol(n_splits=3), max_models=6,
                          singles=float(budgets[-1]))
    fast = budget.buy_list(res, budgets, min_cost=float(usd.min()))
    monkeypatch.setattr(budget, "_as_good_all", lambda *a: None)
    assert budget.buy_list(res, budgets, min_cost=float(usd.min())) == fast


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (no longer there, or a zombie nobody reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_forked_worker_ends_with_its_killed_parent(tmp_path) -> None:
    # SIGKILL leaves the parent no time to stop its children: the kernel's parent-death
    # signal does, instead of the child working on until its splits end
    import signal
    import subprocess
    import time

    pids = tmp_path / "child.pid"
    script = (
        "import os, sys, time\n"
        "from ensel.frontier import _map_forked\n"
        "top = os.getpid()\n"
        "def work(i):\n"
        "    if os.getpid() != top:\n"
        f"        open({str(pids)!r}, 'w').write(str(os.getpid()))\n"
        "    time.sleep(600)\n"
        "_map_forked(work, [0, 1], 2)\n")
    proc = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 60
        while not (pids.exists() and pids.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        child = int(pids.read_text())
        assert not _gone(child)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 30
        while not _gone(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(child), f"the forked worker {child} outlived its killed parent"
    finally:
        proc.kill()
        if pids.exists() and pids.read_text() and not _gone(int(pids.read_text())):
            os.kill(int(pids.read_text()), signal.SIGKILL)
