"""The reproduction report's pooling of the real sources (ensel.meta) and the
dataset profiles (ensel.book.profiles), on small hand-made tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ensel.book import figures, profiles, protocol
from ensel.meta import pool_claims, pool_paired, random_effects


def _verdicts(rows):
    return pd.DataFrame(rows, columns=["id", "dataset", "short", "effect", "effect_low",
                                       "effect_high", "effect_se", "verdict"])


def test_pool_claims_matches_the_meta_analysis_and_skips_spreadless_sources():
    v = _verdicts([
        ("G2", "a", "claim two", -0.02, -0.04, 0.00, 0.010, "within noise"),
        ("G2", "b", "claim two", -0.01, -0.03, 0.01, 0.010, "within noise"),
        ("G2", "c", "claim two", 0.00, 0.00, 0.00, 0.0, "within noise"),  # no spread
        ("G5", "a", "claim five", -0.05, -0.07, -0.03, 0.010, "holds"),
        ("G5", "x", "claim five", -0.05, -0.07, -0.03, 0.010, "holds"),  # not a source
    ])
    out = pool_claims(v, ["a", "b", "c"])
    g2 = out[out["id"] == "G2"].set_index("dataset")
    assert list(g2.index) == ["a", "b", "c", "pooled"]
    assert not g2.loc["c", "pooled"] and g2.loc["a", "pooled"]
    m = random_effects([-0.02, -0.01], [0.01, 0.01])
    assert g2.loc["pooled", "effect"] == pytest.approx(m.estimate)
    assert (g2.loc["pooled", "effect_low"], g2.loc["pooled", "effect_high"]) == \
        pytest.approx((m.low, m.high))
    # two sources: the HKSJ interval has t on 1 df, so the pooled claim is within noise,
    # although the normal DerSimonian-Laird interval would have called it a finding
    assert g2.loc["pooled", "n_sources"] == 2 and g2.loc["pooled", "verdict"] == "within noise"
    assert g2.loc["pooled", "dl_high"] < 0 and g2.loc["pooled", "fragile"]
    # a claim on one source only is shown, not pooled
    g5 = out[out["id"] == "G5"]
    assert list(g5["dataset"]) == ["a"]
    sentence = protocol.pooled_sentence(out)
    assert "pooled over 2 real sources" in sentence and "within noise" in sentence
    assert "fragile" in sentence
    assert f"{m.estimate:+.4f}" in sentence
    assert "scale factor floored at 1" in sentence


def test_pooled_rows_carry_the_floor_and_the_fixed_effect_interval():
    # three sources that agree far more closely than their noise (q_HK = 0.04): the pooled
    # interval is t_2 * se(mu), not 0.2 of it, and wider than the fixed-effect interval
    v = _verdicts([("G1", d, "claim one", x, x - 0.2, x + 0.2, 0.1, "within noise")
                   for d, x in [("a", 0.18), ("b", 0.22), ("c", 0.20)]])
    p = pool_claims(v, ["a", "b", "c"]).set_index("dataset").loc["pooled"]
    m = random_effects([0.18, 0.22, 0.20], [0.1, 0.1, 0.1])
    assert p["q_hk"] == pytest.approx(0.04) and p["se"] == pytest.approx(m.se)
    assert (p["fe_low"], p["fe_high"]) == pytest.approx((m.fe_low, m.fe_high))
    assert p["effect_high"] - p["effect_low"] > 2 * (p["fe_high"] - p["fe_low"])

    def paired(x):
        return pd.DataFrame({"k": [1], "mean_diff": [x], "ci_low": [x - 0.2],
                             "ci_high": [x + 0.2], "se": [0.1]})

    k = pool_paired({"a": paired(0.18), "b": paired(0.22), "c": paired(0.20)}).loc[1]
    assert (k["pooled_low"], k["pooled_high"]) == pytest.approx((m.low, m.high))
    assert k["q_hk"] == pytest.approx(0.04) and k["fe_low"] == pytest.approx(m.fe_low)


def test_pool_paired_per_budget():
    def paired(means, se):
        k = np.arange(1, len(means) + 1)
        m, s = np.asarray(means), np.asarray(se)
        return pd.DataFrame({"k": k, "mean_diff": m, "ci_low": m - 2 * s, "ci_high": m + 2 * s,
                             "se": s})

    out = pool_paired({"a": paired([0.0, 0.01, 0.02], [0.01, 0.0, 0.01]),
                                "b": paired([0.0, 0.03], [0.01, 0.01]), "c": None})
    assert list(out.index) == [1, 2]  # the budgets both sources have
    assert out.loc[1, "pooled"] == pytest.approx(0.0)
    assert np.isnan(out.loc[2, "pooled"]) and out.loc[2, "verdict"].startswith("not pooled")
    assert pool_paired({"a": paired([0.0], [0.01]), "b": None}) is None


def test_gather_verdicts_orders_by_claim_then_dataset():
    a = pd.DataFrame({"id": ["G5", "G1"], "dataset": ["a", "a"], "verdict": ["holds"] * 2})
    b = pd.DataFrame({"id": ["G1"], "dataset": ["b"], "verdict": ["within noise"]})
    v = protocol.gather_verdicts({"b": b, "a": a, "c": None})
    assert list(zip(v["id"], v["dataset"], strict=True)) == [("G1", "b"), ("G1", "a"),
                                                              ("G5", "a")]


def test_forest_plot_has_one_row_per_source_and_pooled_estimate():
    v = _verdicts([("G2", "mmlu_redux", "c", -0.02, -0.04, 0.0, 0.01, "within noise"),
                   ("G2", "llmbar", "c", 0.01, -0.01, 0.03, 0.01, "within noise")])
    pooled = pool_claims(v, ["mmlu_redux", "llmbar"])
    fig = figures.pooled_forest(pooled, dataset_label=profiles.label)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == ["MMLU-Redux", "LLMBar", "pooled"]
    assert fig.axes[0].get_title(loc="left") == "G2"
    empty = figures.pooled_forest(pooled.iloc[:0])
    assert "nothing to pool" in empty.axes[0].texts[0].get_text()


def test_profiles_describe_every_dataset_once():
    from ensel.datasets import available

    assert profiles.names() == list(available()["name"])
    assert profiles.names("stand-in") == ["medmcqa", "mmlu", "imdb"]
    for name in profiles.names("real"):
        p = profiles.profile(name)
        for key in ("label", "licence", "url", "models", "families", "conditions",
                    "conversion", "items", "queries"):
            assert p.get(key), (name, key)
    assert profiles.is_real("llmbar") and not profiles.is_standin("llmbar")
    assert profiles.profile("my/answers.csv") == {"label": "answers.csv", "kind": "user"}


def test_forest_plots_give_each_claim_and_each_effect_type_its_own_panel_and_scale():
    v = _verdicts([("G2", "mmlu_redux", "c", -0.02, -0.04, 0.0, 0.01, "within noise"),
                   ("G2", "llmbar", "c", 0.01, -0.01, 0.03, 0.01, "within noise"),
                   ("G5", "mmlu_redux", "c", -0.3, -0.4, -0.2, 0.01, "holds"),
                   ("G5", "llmbar", "c", -0.25, -0.35, -0.15, 0.01, "holds")])
    pooled = pool_claims(v, ["mmlu_redux", "llmbar"])
    fig = figures.pooled_forest(pooled, dataset_label=profiles.label)
    assert [ax.get_title(loc="left") for ax in fig.axes] == ["G2", "G5"]
    (lo2, hi2), (lo5, hi5) = (ax.get_xlim() for ax in fig.axes)
    # each claim keeps its own x scale (the pooled intervals, HKSJ and prediction, set it)
    ax2, ax5 = fig.axes
    assert not ax2.get_shared_x_axes().joined(ax2, ax5)
    assert (lo2, hi2) != pytest.approx((lo5, hi5))
    effects = pd.DataFrame({
        "id": ["a", "b"], "dataset": ["mmlu", "mmlu"], "effect": [-0.01, 2.0],
        "effect_low": [-0.02, 1.0], "effect_high": [0.0, 3.0], "verdict": ["holds"] * 2,
        "paper_effect": [np.nan] * 2, "paper_low": [np.nan] * 2, "paper_high": [np.nan] * 2,
        "effect_type": ["difference of test errors", "difference of accuracies (points)"]})
    fig = figures.claims_forest(effects)
    assert len(fig.axes) == 2
    assert fig.axes[1].get_xlabel().startswith("difference of accuracies")


def test_budget_verdicts_use_holm_over_the_budgets():
    # p-values (k = 1..4) 0.001, 0.02, 0.3, 0.012: sorted 0.001, 0.012, 0.02, 0.3 times
    # 4, 3, 2, 1 -> 0.004, 0.036, 0.04, 0.3 (already monotone): k = 1, 4, 2 beyond noise
    paired = pd.DataFrame({"k": [4, 1, 2, 3], "mean_diff": [0.0075, -0.01, 0.004, 0.001],
                           "ci_low": [0.002, -0.02, 0.001, -0.002],
                           "ci_high": [0.013, -0.001, 0.007, 0.004],
                           "p_value": [0.012, 0.001, 0.02, 0.3], "se": [0.003] * 4})
    t = protocol.budget_verdicts(paired).set_index("k")
    assert t["p_holm"].tolist() == pytest.approx([0.004, 0.04, 0.3, 0.036])
    assert t["verdict"].tolist() == ["Greedy MI better", "Top-k better", "within noise",
                                     "Top-k better"]
    text = protocol.budget_sentence("mmlu_pro", protocol.budget_verdicts(paired))
    assert text.startswith("on MMLU-Pro, Top-k is better at k = 2, 4 by each budget's own")
    assert "(k = 4: +0.0075 [+0.0020, +0.0130]), at k = 2, 4 after Holm over the 4" in text
    assert "Greedy MI is better at k = 1" in text
    # a budget where both selectors always agree (se 0) is no test: not in the family, so
    # the others are adjusted over three budgets only
    same = paired.assign(se=[0.0, 0.003, 0.003, 0.003], p_value=[1.0, 0.001, 0.02, 0.3])
    s = protocol.budget_verdicts(same).set_index("k")
    assert s.loc[4, "verdict"] == "within noise" and np.isnan(s.loc[4, "p_holm"])
    assert s.attrs["n_tests"] == 3 and s.loc[2, "p_holm"] == pytest.approx(0.04)
    # Holm can take back what a budget's own interval shows
    weak = paired.assign(p_value=[0.04, 0.001, 0.03, 0.3])
    w = protocol.budget_verdicts(weak).set_index("k")
    assert w.loc[4, "unadjusted"] == "Top-k better" and w.loc[4, "verdict"] == "within noise"
    assert protocol.budget_sentence("x", w.iloc[[2]]) == ""


def test_headline_sentence_counts_testable_claims_and_names_holm_budgets():
    counts = pd.DataFrame({"holds": [3, 2], "within noise": [5, 3], "contradicted": [1, 0],
                           "point": [4, 2], "claims": [9, 5], "not counted": [2, 1]},
                          index=["medmcqa", "mmlu_pro"])
    per_budget = {"mmlu_pro": pd.DataFrame({"k": [10, 11, 12], "verdict": [
        "within noise", "Top-k better", "Top-k better"]})}
    text = protocol.headline_sentence(counts, per_budget)
    assert text.startswith("On the paper-calibrated stand-ins 3 of 9 testable claims hold "
                           "beyond the noise and 1 is contradicted; on the 1 real source 2 of "
                           "5 testable claims hold beyond the noise and none is "
                           "contradicted.")
    assert "Top-k beats Greedy MI on MMLU-Pro at k = 11, 12" in text
    assert "Budget by budget" not in protocol.headline_sentence(counts)
