"""The transcribed paper tables: shapes, completeness, spot values, validation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from ensel.datasets import paper_tables
from ensel.datasets.paper_tables import PAPER_TABLES, load_paper_table

N_MODELS = {"medmcqa": 12, "mmlu": 13, "imdb": 12}


@pytest.mark.parametrize("name", sorted(PAPER_TABLES))
def test_every_table_loads_without_missing_values(name):
    df = load_paper_table(name)
    assert len(df) > 0
    assert not df.isna().any().any()


def test_model_pools_sizes_and_families():
    pools = load_paper_table("model_pools")
    assert pools.groupby("dataset").size().to_dict() == N_MODELS
    for ds, grp in pools.groupby("dataset"):
        assert list(grp["rank"]) == list(range(1, N_MODELS[ds] + 1))
        # "Models sorted by accuracy"
        assert np.all(np.diff(grp["accuracy_pct"].to_numpy()) <= 0)
    assert set(pools["family"]) == {"OpenAI", "Google", "Anthropic", "Meta", "Qwen", "Moonshot",
                                    "Mistral", "DeepSeek", "Microsoft"}
    fam = pools.set_index(["dataset", "model"])["family"]
    assert fam["mmlu", "phi-4"] == "Microsoft"
    assert fam["imdb", "deepseek-chat-v3"] == "DeepSeek"
    assert fam["medmcqa", "LLaMA-3.1-8b"] == "Meta"
    assert fam["medmcqa", "kimi-k2"] == "Moonshot"


def test_model_pools_spot_values():
    p = load_paper_table("model_pools").set_index(["dataset", "model"])
    row = p.loc[("medmcqa", "GPT-5-chat")]
    assert (row["accuracy_pct"], row["accuracy_std_pct"], row["tau"], row["avg_rho"]) == (
        83.1, 0.1, -0.96, 0.59)
    row = p.loc[("mmlu", "LLaMA-3.1-8b")]
    assert (row["accuracy_pct"], row["accuracy_std_pct"], row["tau"], row["avg_rho"]) == (
        65.9, 1.3, -0.41, 0.42)
    row = p.loc[("imdb", "Mistral-small-3.1-24b")]
    assert (row["accuracy_pct"], row["accuracy_std_pct"], row["tau"], row["avg_rho"]) == (
        91.81, 0.06, -1.393, 0.84)
    assert p.loc[("medmcqa", "LLaMA-3.1-8b"), "accuracy_std"] == pytest.approx(0.015)
    assert p.loc[("imdb", "GPT-5-chat"), "error_rate"] == pytest.approx(0.0374)


def test_tau_is_the_gaussian_threshold_of_the_error_rate():
    p = load_paper_table("model_pools")
    implied = norm.ppf(1 - p["accuracy"])
    # printed with 2 (MEDMCQA, MMLU) or 3 (IMDB) decimals; accuracy itself is rounded too
    tol = np.where(p["dataset"] == "imdb", 0.001, 0.005)
    assert np.all(np.abs(p["tau"] - implied) <= tol)


def test_datasets_table_matches_pools():
    d = load_paper_table("datasets").set_index("dataset")
    pools = load_paper_table("model_pools")
    assert d["n_models"].to_dict() == N_MODELS
    assert d["n_items"].to_dict() == {"medmcqa": 8366, "mmlu": 10000, "imdb": 10000}
    mean_rho = pools.groupby("dataset")["avg_rho"].mean()
    for ds in N_MODELS:
        assert mean_rho[ds] == pytest.approx(d.loc[ds, "avg_rho"], abs=0.005)
    assert d.loc["imdb", "accuracy_pct"] == 94.54  # printed; see README item 1


@pytest.mark.parametrize("name", ["results_map", "results_mv_vs_map", "results_wmv_vs_map"])
def test_results_complete_grid(name):
    df = load_paper_table(name)
    assert len(df) == 4 * sum(N_MODELS.values())
    for (ds, method), grp in df.groupby(["dataset", "method"]):
        assert sorted(grp["k"]) == list(range(1, N_MODELS[ds] + 1)), (ds, method)
    assert (df.loc[df["method"] == "greedy_mi", "aggregator"] == "map").all()
    baseline_agg = {"results_map": "map", "results_mv_vs_map": "mv", "results_wmv_vs_map": "wmv"}
    assert (df.loc[df["method"] != "greedy_mi", "aggregator"] == baseline_agg[name]).all()


def test_results_spot_values():
    r = load_paper_table("results").set_index(["table", "k", "method"])
    assert tuple(r.loc[("tab:medmcqa_results", 5, "greedy_mi"), ["mean", "std", "bold"]]) == (
        0.163, 0.008, True)
    assert tuple(r.loc[("tab:medmcqa_results", 5, "topk"), ["mean", "std", "bold"]]) == (
        0.170, 0.008, False)
    assert tuple(r.loc[("tab:mmlu_mv_vs_map", 2, "mrmr"), ["mean", "std"]]) == (0.246, 0.022)
    assert tuple(r.loc[("tab:imdb_results", 6, "greedy_mi"), ["mean", "std"]]) == (0.0327, 0.0039)
    assert tuple(r.loc[("tab:imdb_wmv_vs_map", 1, "mrmr"), ["mean", "std"]]) == (0.0351, 0.004)
    assert tuple(r.loc[("tab:mmlu_wmv_vs_map", 13, "topk"), ["mean", "std", "bold"]]) == (
        0.161, 0.008, True)


def test_bold_counts_as_printed():
    r = load_paper_table("results")
    assert r.groupby("table")["bold"].sum().sum() == 108


def test_greedy_mi_map_column_repeated_in_vote_tables():
    r = load_paper_table("results")
    g = r[r["method"] == "greedy_mi"]
    base = g[g["table"].str.endswith("_results")].set_index(["dataset", "k"])[["mean", "std"]]
    for suffix in ("_mv_vs_map", "_wmv_vs_map"):
        other = g[g["table"].str.endswith(suffix)].set_index(["dataset", "k"])[["mean", "std"]]
        pd.testing.assert_frame_equal(other.sort_index(), base.sort_index())


def test_selections():
    s = load_paper_table("selections")
    assert s.groupby(["dataset", "method"]).size().to_dict() == {
        ("medmcqa", "greedy_mi"): 5, ("medmcqa", "mrmr"): 5,
        ("mmlu", "greedy_mi"): 6, ("mmlu", "mrmr"): 6}
    # no model picked twice by one method
    assert not s.duplicated(["dataset", "method", "model"]).any()
    g = s[(s["dataset"] == "mmlu") & (s["method"] == "greedy_mi")].sort_values("k")
    assert list(g["model"]) == ["GPT-4.1", "Qwen3-235b", "kimi-k2", "Gemini-2.5-flash",
                                "GPT-4.1-mini", "phi-4"]
    m = s[(s["dataset"] == "medmcqa") & (s["method"] == "mrmr")].sort_values("k")
    assert list(m["model"]) == ["GPT-5-chat", "LLaMA-3.1-8b", "GPT-4.1-nano", "Claude-3.5-haiku",
                                "Gemini-2.5-flash"]
    # names and accuracies agree with the pool tables
    pools = load_paper_table("model_pools")
    merged = s.merge(pools, on=["dataset", "model"], suffixes=("", "_pool"), validate="m:1")
    assert len(merged) == len(s)
    assert np.array_equal(merged["accuracy_pct"], merged["accuracy_pct_pool"])


def test_dataset_filter_and_errors():
    assert set(load_paper_table("results_map", dataset="mmlu")["dataset"]) == {"mmlu"}
    with pytest.raises(ValueError, match="unknown paper table 'nope'"):
        load_paper_table("nope")
    with pytest.raises(ValueError, match="unknown dataset 'gsm8k'"):
        load_paper_table("model_pools", dataset="gsm8k")


def test_malformed_files_are_rejected(tmp_path, monkeypatch):
    src = paper_tables.paper_dir()
    for f in src.glob("*.csv"):
        (tmp_path / f.name).write_text(f.read_text())
    monkeypatch.setenv("ENSEL_PAPER_DIR", str(tmp_path))
    path = tmp_path / "results_map.csv"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n")  # drop imdb greedy_mi k=12
    with pytest.raises(ValueError, match=r"imdb/greedy_mi has k values"):
        load_paper_table("results_map")
    pools = tmp_path / "model_pools.csv"
    pools.write_text(pools.read_text().replace(",0.59\n", ",\n", 1))
    with pytest.raises(ValueError, match="column 'avg_rho' is empty in line 2"):
        load_paper_table("model_pools")
    (tmp_path / "selections.csv").unlink()
    with pytest.raises(FileNotFoundError, match="selections.csv"):
        load_paper_table("selections")
