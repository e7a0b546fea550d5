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
from ensel.stats import paired_interval
from tests.conftest import UPSTREAMS, require_mirror

SPLITS = 2


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


@pytest.mark.parametrize("name", ["mmlu_pro", "mmlu_redux", "llmbar"])
def test_no_recommendation_is_dominated_beyond_noise(name, monkeypatch) -> None:
    from ensel.datasets import DATASETS, load

    mirror = require_mirror(UPSTREAMS[name] if name in UPSTREAMS else DATASETS[name].upstream)
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(mirror))
    data = condition_data(load(name), validate=False)
    usd, kept, _ = shipped_prices().for_models(data[0].models, drop_unpriced=True)
    data = condition_data(load(name).pipe(lambda df: df[df["model"].isin(kept)]),
                          validate=False)
    usd = shipped_prices().for_models(data[0].models)[0]
    # a cheap budget and one that affords the dearest model: the two ends of the list
    for budget in (float(np.sort(usd)[len(usd) // 3]), float(usd.max())):
        doc = run_select_budget(data, usd, budget, k=None, n_splits=SPLITS)
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
