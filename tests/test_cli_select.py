"""``ensel select``, ``ensel import`` and ``ensel evaluate`` (ensel.cli, ensel.evidence)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from ensel.cli import main
from ensel.copula import sample
from ensel.data import to_long, to_wide
from ensel.datasets import load
from ensel.evidence import EXHAUSTIVE_LIMIT, run_select
from ensel.experiment import condition_arrays, prepare_table
from ensel.select import GreedyMI, greedy_mi, marginal_gains, top_k

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def medmcqa_file(tmp_path_factory) -> Path:
    df = load("medmcqa", n_items=600)
    df = df[df["condition"].isin(["t0.7-r1", "t0.7-r2"])]
    path = tmp_path_factory.mktemp("data") / "medmcqa_small.parquet"
    df.to_parquet(path, index=False)
    return path


def _json(capsys, argv) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_select_json_schema_and_same_picks_as_the_library(capsys, medmcqa_file) -> None:
    from ensel.aggregate import DEFAULT_AGGREGATOR

    doc = _json(capsys, ["select", str(medmcqa_file), "-k", "4", "--condition", "t0.7-r1",
                         "--splits", "5", "--method", "greedy-mi", "--json"])
    assert doc["schema"] == "ensel.select/2"
    assert set(doc) == {"schema", "data", "format", "view", "conditions", "n_items",
                        "n_models", "method", "aggregator", "defaults", "dropped_models", "k",
                        "k_mode", "selected", "evaluation", "auto",
                        "ensemble_beats_best_single", "message", "gold", "few_labels"}
    assert doc["view"] == "binary" and doc["gold"]["n_with_gold"] == doc["n_items"]
    # the default aggregator comes from the library's constant and the output says so; the
    # method was given (by its alias), so it is not among the defaults
    assert doc["method"] == "greedy_mi" and doc["aggregator"] == DEFAULT_AGGREGATOR
    assert any("DEFAULT_AGGREGATOR" in d for d in doc["defaults"])
    assert not any("DEFAULT_SELECTOR" in d for d in doc["defaults"])
    assert doc["format"] == "tidy" and doc["conditions"] == ["t0.7-r1"] and doc["k"] == 4
    assert set(doc["selected"][0]) == {"rank", "model", "accuracy", "gain_bits", "coverage",
                                       "accuracy_answered"}
    for s in doc["selected"]:  # accuracy = coverage x accuracy when answered (abstention: wrong)
        assert 0 <= s["coverage"] <= 1
        assert s["accuracy"] == pytest.approx(s["coverage"] * s["accuracy_answered"])
    ev = doc["evaluation"]
    assert set(ev) == {"n_splits", "n_evaluations", "test_fraction", "seed", "confidence",
                       "correction", "n_halvings", "splits_per_half", "arms", "comparisons"}
    assert ev["n_halvings"] == 10 and "half-sample" in ev["correction"]
    assert set(ev["arms"]) == {"selected", "top_k", "best_single"}
    for arm in ev["arms"].values():
        assert set(arm) == {"error", "low", "high", "k"} and arm["low"] <= arm["error"]
    assert [c["against"] for c in ev["comparisons"]] == ["top_k", "best_single"]
    for c in ev["comparisons"]:
        assert set(c) == {"against", "difference", "low", "high", "verdict", "interval"}
        assert c["verdict"] in ("holds", "within noise", "contradicted")
        assert c["interval"] in ("corrected", "halves")
    # the same picks as the library call on the same data (canonical order: models by name)
    X, y, names, _ = condition_arrays(prepare_table(load(str(medmcqa_file)))[0], "t0.7-r1")
    picks = greedy_mi(X, y, 4)
    assert [s["model"] for s in doc["selected"]] == [names[j] for j in picks]
    gains = GreedyMI(4).fit(X, y).gains_
    assert [s["gain_bits"] for s in doc["selected"]] == pytest.approx(list(gains), abs=1e-9)
    acc = (X == y[:, None]).mean(axis=0)
    assert doc["selected"][0]["accuracy"] == pytest.approx(acc[picks[0]])


def test_select_text_table_and_methods(capsys, medmcqa_file) -> None:
    assert main(["select", str(medmcqa_file), "-k", "3", "--method", "top-k",
                 "--aggregator", "wmv", "--splits", "3"]) == 0
    out = capsys.readouterr().out
    assert "rank  model" in out and "best single model" in out and "vs top-k" not in out
    X, y = to_wide(load(str(medmcqa_file)).query("condition == 't0.7-r1'"), "t0.7-r1")
    doc = run_select(load(str(medmcqa_file)), k=3, method="top-k", n_splits=3,
                     condition="t0.7-r1")
    assert [s["model"] for s in doc["selected"]] == [str(X.columns[j]) for j in top_k(X, y, 3)]


def _dominant_pool(seed: int = 0) -> pd.DataFrame:
    # one model far better than the rest, whose errors are correlated: no ensemble helps
    acc = np.array([0.93, 0.7, 0.69, 0.68, 0.67])
    S = np.full((5, 5), 0.6)
    np.fill_diagonal(S, 1.0)
    X, y, _ = sample(norm.ppf(1 - acc), S, 1500, random_state=seed)
    return to_long(X, y)


@pytest.mark.parametrize("method", [None, "greedy_mi"])
def test_select_auto_says_when_no_ensemble_beats_the_best_single_model(tmp_path, capsys,
                                                                       method) -> None:
    p = tmp_path / "dominant.csv"
    _dominant_pool().to_csv(p, index=False)
    doc = _json(capsys, ["select", str(p), "-k", "auto", "--splits", "4", "--max-k", "4",
                         "--json", *(["--method", method] if method else [])])
    assert doc["k_mode"] == "auto" and doc["auto"]["max_k"] == 4
    assert len(doc["auto"]["k_per_split"]) == 4
    assert set(doc["auto"]["inner_error"]) == {"1", "2", "3", "4"}
    assert not doc["ensemble_beats_best_single"]
    # one model dominates: the one-SE rule deploys k = 1 and says one model is enough
    # (the argmin rule printed k = 5 on such pools while its nested splits chose 1)
    assert doc["k"] == 1 and doc["auto"]["k_all_data"] >= 1
    assert doc["k"] <= sorted(doc["auto"]["k_per_split"])[1]
    assert doc["message"].startswith("One model is enough")


def test_select_greedy_mi_better_holds() -> None:
    S = np.eye(5)
    S[np.ix_([0, 1, 2], [0, 1, 2])] = 0.95
    np.fill_diagonal(S, 1.0)
    X, y, _ = sample(norm.ppf(1 - np.array([0.8, 0.8, 0.8, 0.75, 0.75])), S, 2000,
                     random_state=7)
    doc = run_select(to_long(X, y), k=3, n_splits=10, method="greedy_mi", aggregator="map")
    vs_topk = doc["evaluation"]["comparisons"][0]
    assert vs_topk["against"] == "top_k" and vs_topk["verdict"] == "holds"
    assert doc["ensemble_beats_best_single"]


def test_marginal_gains_match_greedy_mi_with_abstentions() -> None:
    rng = np.random.default_rng(1)
    y = rng.choice([-1, 1], 400)
    X = np.where(rng.random((400, 6)) < [0.85, 0.8, 0.75, 0.7, 0.65, 0.6], y[:, None],
                 -y[:, None])
    X[rng.random((400, 6)) < 0.05] = 0
    g = GreedyMI(4).fit(X, y)
    assert marginal_gains(X, y, g.selected_) == pytest.approx(list(g.gains_), abs=1e-9)


def test_exhaustive_refuses_beyond_reach() -> None:
    # the exhaustive method is the library's exhaustive_mi selector (every subset scanned per
    # split, experiment.exhaustive_errors): at most 15 models, whatever k
    X = np.where(np.random.default_rng(0).random((50, 30)) < 0.7, 1, -1)
    y = np.resize([1, -1], 50)
    df = to_long(X * y[:, None], y)
    with pytest.raises(ValueError, match=r"at most 15 models; the data has 30"):
        run_select(df, k=2, method="exhaustive")
    assert EXHAUSTIVE_LIMIT == 15
    small = to_long(X[:, :6] * y[:, None], y)
    doc = run_select(small, k=2, method="exhaustive", n_splits=2)
    assert doc["k"] == 2 and doc["method"] == "exhaustive"


def test_import_command_writes_the_tidy_table(tmp_path, capsys) -> None:
    out = tmp_path / "tidy.parquet"
    assert main(["import", "lm-eval", *map(str, sorted((DATA / "lm_eval").glob("*/samples_*"))),
                 "-o", str(out)]) == 0
    assert "36 answers, 12 items x 3 models" in capsys.readouterr().err
    df = pd.read_parquet(out)
    assert list(df.columns) == ["item", "model", "condition", "answer", "label"]
    assert main(["import", "wide", str(DATA / "wide_binary.csv"), "--correctness",
                 "-o", str(tmp_path / "b.csv")]) == 0
    assert len(pd.read_csv(tmp_path / "b.csv")) == 15


# --------------------------------------------------------------------------- bad input
def _tidy(tmp_path, name, rows, header="item,model,answer,label"):
    p = tmp_path / name
    p.write_text(header + "\n" + "\n".join(rows) + "\n")
    return p


def _balanced_rows(n_items, models=("a", "b")):
    return [f"{i},{m},{1 if (i + j) % 3 else -1},{1 if i % 2 else -1}"
            for i in range(n_items) for j, m in enumerate(models)]


@pytest.mark.parametrize(("make", "args", "needle"), [
    (lambda t: _tidy(t, "m.csv", ["1,a,1"], header="item,model,answer"), ["-k", "1"],
     "missing the column 'label'"),
    (lambda t: _tidy(t, "a.csv", ["1,a,1,1", "2,a,3,-1"]), ["-k", "1"],
     "column 'answer' has value 3 in line 3"),
    (lambda t: _tidy(t, "l.csv", ["1,a,1,1", "2,a,1,2"]), ["-k", "1"], "'label'"),
    (lambda t: _tidy(t, "one.csv", [f"{i},a,1,1" for i in range(20)]), ["-k", "1"],
     "only one label class"),
    (lambda t: _tidy(t, "d.csv", ["1,a,1,1", "1,a,-1,1"]), ["-k", "1"],
     "duplicate answer"),
    (lambda t: _tidy(t, "few.csv", _balanced_rows(3)), ["-k", "1"],
     "fewer than the 5 needed"),
    (lambda t: _tidy(t, "k.csv", _balanced_rows(20)), ["-k", "3"],
     "-k 3 is larger than the pool: the data has 2 model(s)"),
    (lambda t: _tidy(t, "k0.csv", _balanced_rows(20)), ["-k", "0"], "positive integer"),
    (lambda t: (t / "empty.csv").write_text("") or t / "empty.csv", ["-k", "1"],
     "the file is empty"),
    (lambda t: t, ["-k", "1"], "is a directory"),
    (lambda t: _tidy(t, "x.txt", []), ["-k", "1"], "unknown format"),
    (lambda t: _tidy(t, "c.csv", _balanced_rows(20)), ["-k", "1", "--condition", "zz"],
     "unknown condition 'zz'"),
])
def test_select_bad_input_exits_2_with_one_message(tmp_path, capsys, make, args,
                                                   needle) -> None:
    path = make(tmp_path)
    rc = main(["select", str(path), *args, "--splits", "2"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert needle in err and "Traceback" not in err
    if path.is_file() and "positive integer" not in needle:
        assert str(path) in err or path.name in err


def test_import_and_evaluate_bad_arguments_exit_2(tmp_path, capsys) -> None:
    assert main(["import", "xml", str(DATA / "wide_mc.csv"), "-o", "x.parquet"]) == 2
    assert main(["import", "wide", str(DATA / "wide_mc.csv"), "-o", str(tmp_path / "x.txt")]) == 2
    assert main(["evaluate", str(DATA / "wide_mc.csv"), "-o",
                 str(ROOT / "book" / "_generated" / "r.html")]) == 2
    err = capsys.readouterr().err
    assert "refusing to write into" in err and "Traceback" not in err
    assert not (ROOT / "book" / "_generated" / "r.html").exists()


@pytest.mark.notebooks
def test_evaluate_writes_a_standalone_report(tmp_path, medmcqa_file) -> None:
    out = tmp_path / "report" / "report.html"
    assert main(["evaluate", str(medmcqa_file), "-o", str(out), "--ks", "1-3",
                 "--splits", "2", "--no-exhaustive"]) == 0
    html = out.read_text()
    assert "<img" in html and "Experiments" in html
    # standalone and offline: nothing loaded from the network, no script at all (formulas
    # are written as HTML); every glued number, role, target and formula rendered, no code
    import re

    from ensel._html import unrendered_markup
    assert not re.findall(r'<(?:script|link|img)[^>]+(?:src|href)="(?!data:)', html)
    assert "<script" not in html and unrendered_markup(html) == []
    assert 'class="math' not in html and 'class="formula"' in html  # written, not typeset
    assert "import " not in html and "glue(" not in html
    assert 'href="report.ipynb"' in html  # the code is in the executed notebook beside it
    assert out.with_suffix(".ipynb").is_file()
    assert sorted(p.name for p in out.parent.iterdir()) == ["report.html", "report.ipynb"]


# --------------------------------------------------------------------------- = the library
def _aggregators() -> list[str]:
    from ensel.aggregate import AGGREGATORS

    return list(AGGREGATORS)


@pytest.mark.parametrize("aggregator", _aggregators())
def test_select_json_equals_the_library_calls_of_the_readme(capsys, medmcqa_file,
                                                            aggregator) -> None:
    """``ensel select --json`` gives exactly the numbers of evaluate, half_sample_errors,
    paired_differences and stats.paired_interval (the README's library example)."""
    from ensel.aggregate import AGGREGATORS
    from ensel.experiment import evaluate, half_sample_errors, paired_differences
    from ensel.stats import paired_interval

    assert aggregator in AGGREGATORS
    doc = _json(capsys, ["select", str(medmcqa_file), "-k", "3", "--condition", "t0.7-r1",
                         "--splits", "4", "--halvings", "2", "--aggregator", aggregator,
                         "--method", "greedy_mi", "--json"])
    df = load(str(medmcqa_file))
    df = df[df["condition"] == "t0.7-r1"]
    from ensel.protocol import Protocol

    opts = {"ks": [1, 3], "selectors": ["greedy_mi", "topk"], "aggregators": [aggregator]}
    results = evaluate(df, protocol=Protocol(n_splits=4, seed=0), **opts)
    halves = half_sample_errors(df, protocol=Protocol(n_halvings=2, seed=0), **opts)
    X, y, names, _ = condition_arrays(prepare_table(df)[0], "t0.7-r1")
    assert [s["model"] for s in doc["selected"]] == [names[j] for j in greedy_mi(X, y, 3)]
    arms = doc["evaluation"]["arms"]
    for arm, sel, k in (("selected", "greedy_mi", 3), ("top_k", "topk", 3),
                        ("best_single", "topk", 1)):
        e = results[(results["selector"] == sel) & (results["k"] == k)]["error"]
        r = paired_interval(e.to_numpy(), n_train=0.8, n_test=0.2)
        assert arms[arm]["error"] == pytest.approx(e.mean(), abs=1e-12)
        assert arms[arm]["low"] == pytest.approx(max(r.low, 0.0), abs=1e-12)
        assert arms[arm]["high"] == pytest.approx(min(r.high, 1.0), abs=1e-12)
    comps = {c["against"]: c for c in doc["evaluation"]["comparisons"]}
    for against, k_b in (("top_k", None), ("best_single", 1)):
        lib = paired_differences(results, "greedy_mi", "topk", aggregator=aggregator,
                                 k_b=k_b, replicates=halves)
        row = lib[lib["k"] == 3].iloc[0]
        c = comps[against]
        assert c["difference"] == pytest.approx(row["mean_diff"], abs=1e-12)
        assert (c["low"], c["high"]) == pytest.approx((row["ci_low"], row["ci_high"]),
                                                      abs=1e-12)
        assert (c["verdict"], c["interval"]) == (row["verdict"], row["interval"])


def _selector_names() -> list[str]:
    from ensel.select import SELECTORS

    return [*SELECTORS, "greedy-mi", "top-k"]


@pytest.mark.parametrize("name", _selector_names())
def test_every_registered_selector_is_reachable(capsys, medmcqa_file, name) -> None:
    from ensel.select import SELECTORS

    doc = _json(capsys, ["select", str(medmcqa_file), "-k", "2", "--condition", "t0.7-r1",
                         "--splits", "2", "--halvings", "0", "--method", name, "--json"])
    code = name.replace("-", "_").replace("top_k", "topk")
    assert doc["method"] == code and code in SELECTORS
    X, y, names, _ = condition_arrays(prepare_table(load(str(medmcqa_file)))[0], "t0.7-r1")
    picks = SELECTORS[code](2).fit(X, y).selected_
    assert [s["model"] for s in doc["selected"]] == [names[j] for j in picks]
    assert not any("DEFAULT_SELECTOR" in d for d in doc["defaults"])


def test_default_method_and_aggregator_come_from_the_library(capsys, medmcqa_file) -> None:
    from ensel.aggregate import DEFAULT_AGGREGATOR
    from ensel.select import DEFAULT_SELECTOR

    doc = _json(capsys, ["select", str(medmcqa_file), "-k", "2", "--condition", "t0.7-r1",
                         "--splits", "2", "--halvings", "0", "--json"])
    assert (doc["method"], doc["aggregator"]) == (DEFAULT_SELECTOR, DEFAULT_AGGREGATOR)
    assert any("DEFAULT_SELECTOR" in d for d in doc["defaults"])
    assert any("DEFAULT_AGGREGATOR" in d for d in doc["defaults"])


def test_condition_with_absent_models_drops_them_with_a_notice(tmp_path, capsys,
                                                                caplog) -> None:
    rng = np.random.default_rng(3)
    y = rng.choice([-1, 1], 200)
    X = np.where(rng.random((200, 4)) < [0.9, 0.7, 0.65, 0.6], y[:, None], -y[:, None])
    df = pd.concat([to_long(X, y, condition="a"),
                    to_long(X[:, 1:], y, condition="b", models=["m1", "m2", "m3"])])
    assert set(df[df["condition"] == "a"]["model"]) == {"m0", "m1", "m2", "m3"}
    doc = run_select(df, k=2, condition="b", n_splits=2, halvings=0)
    assert doc["dropped_models"] == [] and doc["n_models"] == 3
    # pooled over both conditions, m0 (the best) has no answer in b: dropped, not picked
    with caplog.at_level("WARNING", logger="ensel"):
        doc = run_select(df, k=2, n_splits=2, halvings=0)
    assert doc["dropped_models"] == ["m0"]
    assert "m0" not in [s["model"] for s in doc["selected"]]
    assert "1 model(s) dropped" in caplog.text


def test_select_json_does_not_depend_on_row_order(tmp_path, capsys) -> None:
    df = _dominant_pool(seed=2)
    df.to_csv(tmp_path / "a.csv", index=False)
    df.sample(frac=1.0, random_state=1).to_csv(tmp_path / "b.csv", index=False)
    argv = ["-k", "3", "--splits", "3", "--halvings", "2", "--aggregator", "mv", "--json"]
    a = _json(capsys, ["select", str(tmp_path / "a.csv"), *argv])
    b = _json(capsys, ["select", str(tmp_path / "b.csv"), *argv])
    assert a.pop("data") != b.pop("data")
    assert a == b


def test_select_json_does_not_depend_on_the_threads(tmp_path, capsys) -> None:
    df = _dominant_pool(seed=4)
    df.to_csv(tmp_path / "a.csv", index=False)
    argv = ["select", str(tmp_path / "a.csv"), "-k", "auto", "--max-k", "3", "--splits", "3",
            "--halvings", "2", "--json"]
    one = _json(capsys, [*argv, "--jobs", "1"])
    assert one == _json(capsys, [*argv, "--jobs", "2"]) == _json(capsys, argv)


@pytest.mark.notebooks
@pytest.mark.parametrize("m", [2, 3, 70, pytest.param(1000, marks=pytest.mark.slow)])
def test_evaluate_works_on_small_and_large_pools(tmp_path, capsys, m) -> None:
    """2 and 3 models: the claims that need larger budgets are "not applicable" instead of
    failing the page; 70 and 1,000 models: the default budgets are capped (MAP's 2^k
    table), and with 300 queries the copula's pair check is "not applicable" (fewer than 10
    queries per model). 70 models take the large-pool paths (capped budgets, a heatmap
    labelling only some of more than 40 models); 1,000, the scale, runs in CI (slow)."""
    from ensel.copula import sample_equicorrelated

    acc = np.random.default_rng(m).uniform(0.6, 0.85, m)
    X, y, _ = sample_equicorrelated(acc, 0.3, m, 300, random_state=m)
    data = tmp_path / f"pool{m}.parquet"
    to_long(X, y).to_parquet(data, index=False)
    out = tmp_path / "r" / "report.html"
    jobs = ["--jobs", "1"] if m == 2 else []  # else one thread per core (the default)
    assert main(["evaluate", str(data), "-o", str(out), "--splits", "2", *jobs]) == 0
    err = capsys.readouterr().err
    html = out.read_text()
    assert "all passed" in html
    assert "not applicable" in html
    from ensel._html import unrendered_markup

    assert unrendered_markup(html) == []
    if m > 3:
        assert "budgets k = 1..7" in err
        assert f"not applicable: 300 queries for {m:,} models" in html
