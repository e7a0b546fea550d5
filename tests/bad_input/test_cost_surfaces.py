"""Bad input on the cost surfaces (issue 36, item 6): ``select --budget-usd``, ``frontier``,
``cascade``, the price readers and the library functions behind them.

Each case was seen to fail first (a traceback, a silent wrong answer, valid input refused, or
a message naming the wrong thing); now it is refused with exit 2 and one line naming the
file, line, model or option, or read correctly.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pandas as pd
import pytest

from ensel._validation import InvalidParameterError
from ensel.cascade import Cascade, posterior_aggregators
from ensel.costs import PriceError, check_costs, read_prices
from ensel.frontier import budget_grid, convex_hull, hull_aiq
from ensel.meta import random_effects
from ensel.protocol import Protocol

from .conftest import assert_usage_error, run_cli

MODELS = ["m0", "m1", "m2"]


def _answers(names: list[str] = MODELS, n: int = 60, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.choice([-1, 1], n)
    rows = []
    for j, m in enumerate(names):
        right = rng.random(n) < 0.65 + 0.1 * j
        rows += [{"item": f"q{i}", "model": m, "answer": int(y[i] if right[i] else -y[i]),
                  "label": int(y[i])} for i in range(n)]
    return pd.DataFrame(rows)


@pytest.fixture()
def data(tmp_path):
    p = tmp_path / "answers.csv"
    _answers().to_csv(p, index=False)
    prices = tmp_path / "prices.csv"
    prices.write_text("model,usd_per_query\nm0,0.001\nm1,0.002\nm2,0.004\n", encoding="utf-8")
    return p, prices


FAST = ["--splits", "2"]


# --------------------------------------------------------------------------- aggregators
@pytest.mark.parametrize("voter", ["mv", "wmv"])
def test_the_cascade_offers_only_aggregators_with_a_posterior(data, capsys, voter) -> None:
    assert voter not in posterior_aggregators()
    answers, prices = data
    r = run_cli(["cascade", answers, "--prices", prices, "--aggregator", voter, *FAST], capsys)
    assert_usage_error(r, "cascade", "--aggregator", f"invalid choice: '{voter}'", "'backoff'")
    r = run_cli(["frontier", answers, "--prices", prices, "--aggregator", voter, *FAST,
                 "--budgets", "2"], capsys)
    assert_usage_error(r, "frontier", f"--aggregator {voter} only votes", "--no-cascade")


def test_cascade_and_frontier_errors_refuse_a_voting_aggregator_by_name() -> None:
    X = np.array([[1, -1], [-1, 1], [1, 1], [-1, -1]])
    y = np.array([1, -1, 1, -1])
    with pytest.raises(InvalidParameterError, match=r"^aggregator of Cascade\.fit must be one "
                       r"of 'map', 'logistic', 'backoff' \(it only votes.*got 'mv'$"):
        Cascade(aggregator="mv").fit(X, y)
    from ensel.experiment import condition_data
    from ensel.frontier import frontier_errors

    d = condition_data(_answers())
    with pytest.raises(InvalidParameterError, match=r"aggregator of frontier_errors .*'wmv'"):
        frontier_errors(d, [0.001, 0.002, 0.004], [0.004], aggregator="wmv",
                        protocol=Protocol(n_splits=2))


def test_frontier_without_the_cascade_still_takes_a_voting_aggregator(data, capsys) -> None:
    answers, prices = data
    r = run_cli(["frontier", answers, "--prices", prices, "--aggregator", "mv", *FAST,
                 "--budgets", "2", "--no-cascade"], capsys)
    assert r.code == 0, r.err


# --------------------------------------------------------------------------- silent answers
def test_a_model_twice_in_a_yaml_price_table_is_refused_with_both_lines(tmp_path) -> None:
    p = tmp_path / "p.yaml"
    p.write_text("m0: 0.001\nm1: 0.002\n# the dear one\nm0: 0.5\n", encoding="utf-8")
    with pytest.raises(PriceError, match=r"model 'm0' appears twice in .*p\.yaml \(lines 1 "
                       r"and 4\)$"):
        read_prices(p)
    nested = tmp_path / "n.yaml"
    nested.write_text("m0:\n  usd_per_query: 0.1\n  usd_per_query: 0.2\n", encoding="utf-8")
    with pytest.raises(PriceError, match=r"key 'usd_per_query' appears twice .*lines 2 and 3"):
        read_prices(nested)


def test_a_yaml_price_error_names_the_file_line(tmp_path) -> None:
    p = tmp_path / "p.yaml"
    p.write_text("# prices\nm0: 0.001\n\nm1: -2\n", encoding="utf-8")
    with pytest.raises(PriceError, match=r"model 'm1' \(line 4\) must be a positive"):
        read_prices(p)


def test_a_negative_cost_per_answer_is_refused_at_its_line(tmp_path, capsys) -> None:
    df = _answers()
    df["cost"] = 0.001
    df.loc[5, "cost"] = -0.002  # averaged with the model's other answers: a positive price
    p = tmp_path / "costs.csv"
    df.to_csv(p, index=False)
    r = run_cli(["frontier", p, "--prices", "tidy", *FAST, "--no-cascade"], capsys)
    assert_usage_error(r, "frontier", "column 'cost' has value -0.002 in line 7 of", "costs.csv",
                       ">= 0")


@pytest.mark.parametrize("method", ["bogus", "greedy_mi"])
def test_select_budget_refuses_a_method_it_does_not_use(data, capsys, method) -> None:
    answers, prices = data
    r = run_cli(["select", answers, "--prices", prices, "--budget-usd", "0.01",
                 "--method", method, *FAST], capsys)
    assert_usage_error(r, "select", f"--method {method}", "with --budget-usd")


@pytest.mark.parametrize("option", [["--max-k", "3"], ["--halvings", "4"], ["--jobs", "2"]])
def test_select_budget_refuses_options_it_would_ignore(data, capsys, option) -> None:
    answers, prices = data
    r = run_cli(["select", answers, "--prices", prices, "--budget-usd", "0.01", *option,
                 *FAST], capsys)
    assert_usage_error(r, "select", f"{option[0]} is not used with --budget-usd")


def test_a_cost_series_keyed_by_name_is_not_applied_by_position() -> None:
    from ensel.budget import BudgetedScoreMI

    X = pd.DataFrame(np.array([[1, -1, 1], [-1, 1, 1], [1, 1, -1], [-1, -1, -1]]),
                     columns=["a", "b", "c"])
    y = np.array([1, -1, 1, -1])
    costs = pd.Series({"c": 0.001, "b": 1.0, "a": 1.0})  # a different order than X
    with pytest.raises(InvalidParameterError, match=r"costs of BudgetedScoreMI\.fit must be "
                       r"one price per column of X, in column order.*got a Series keyed by "
                       r"'c', 'b', 'a'$"):
        BudgetedScoreMI(2, budget=0.5, costs=costs).fit(X, y)
    assert check_costs(pd.Series([1.0, 2.0]), 2).tolist() == [1.0, 2.0]  # positional: fine
    with pytest.raises(InvalidParameterError, match="keyed by 'a'"):
        check_costs({"a": 1.0}, 1)


@pytest.mark.parametrize("usd, shown", [([float("nan"), 1.0, 2.0], "nan for model 0"),
                                        ([1.0, -1.0, 2.0], "-1.0 for model 1")])
def test_nan_or_negative_prices_give_no_budget_grid(usd, shown) -> None:
    with pytest.raises(InvalidParameterError, match=rf"usd of budget_grid .*got {shown}$"):
        budget_grid(usd, 3)


def test_a_nan_point_is_refused_by_the_hull() -> None:
    with pytest.raises(InvalidParameterError, match=r"cost of convex_hull .*nan at point 1$"):
        convex_hull([0, float("nan"), 2], [0.5, 0.1, 0.3])
    with pytest.raises(InvalidParameterError, match=r"error of hull_aiq .*nan at point 1$"):
        hull_aiq([0, 1, 2], [0.5, float("nan"), 0.3], 2)
    assert convex_hull([0, 1, 2, 3], [0.5, 0.2, 0.19, 0.3]).tolist() == [
        [0.0, 0.5], [1.0, 0.2], [2.0, 0.19]]


def test_one_source_has_no_heterogeneity() -> None:
    # m_fixed = sum(w x) / sum(w) differs from x by rounding here: Q was 4e-32, I^2 = 1
    r = random_effects([0.8631789223498866], [0.5414612202490917])
    assert r.i2 == 0.0 and r.q == 0.0 and r.tau2 == 0.0


# --------------------------------------------------------------------------- valid input
def test_a_hash_inside_a_model_name_is_a_name_not_a_comment(tmp_path) -> None:
    p = tmp_path / "p.csv"
    p.write_text("# list prices\nmodel,usd_per_query\ngpt#4,0.001\n  # indented comment\n"
                 "m1,0.002\n", encoding="utf-8")
    assert read_prices(p).usd_per_query.to_dict() == {"gpt#4": 0.001, "m1": 0.002}


def test_model_names_that_look_like_numbers_are_read_as_text(tmp_path, capsys) -> None:
    names = ["1", "007", "3.50"]
    answers = tmp_path / "answers.csv"
    _answers(names).to_csv(answers, index=False)
    prices = tmp_path / "p.csv"
    prices.write_text("model,usd_per_query\n1,0.001\n007,0.002\n3.50,0.004\n", encoding="utf-8")
    assert read_prices(prices).models == names
    r = run_cli(["frontier", answers, "--prices", prices, *FAST, "--budgets", "2",
                 "--no-cascade", "--json"], capsys)
    assert r.code == 0, r.err


# --------------------------------------------------------------------------- right names
def test_a_latin1_price_file_is_named_not_the_data(data, tmp_path, capsys) -> None:
    answers, _ = data
    p = tmp_path / "latin.csv"
    p.write_bytes("model,usd_per_query\nm0,0.001\nm1,0.002\nm2,0.004\nmodèle,1\n"
                  .encode("latin-1"))
    r = run_cli(["frontier", answers, "--prices", p, *FAST], capsys)
    line = assert_usage_error(r, "frontier", f"--prices {p}: {p}, line 5: not UTF-8 text")
    assert "answers.csv" not in line


def test_a_price_error_names_the_file_line_after_comments(data, tmp_path, capsys) -> None:
    answers, _ = data
    p = tmp_path / "p.csv"
    p.write_text("# prices\n# as of 2025\nmodel,usd_per_query\nm0,0.001\n\nm1,-1\nm2,0.004\n",
                 encoding="utf-8")
    r = run_cli(["frontier", answers, "--prices", p, *FAST], capsys)
    assert_usage_error(r, "frontier", "usd_per_query of model 'm1' (line 6) must be a positive")


def test_a_locked_store_is_called_locked(tmp_path) -> None:
    from ensel.costs import prices_from_store

    store = tmp_path / "store.sqlite"
    con = sqlite3.connect(store)
    con.execute("CREATE TABLE answers(model TEXT, model_id TEXT, prompt_tokens INT, "
                "completion_tokens INT, latency_s REAL, answer TEXT)")
    con.execute("INSERT INTO answers VALUES ('a', 'x', 10, 10, 1.0, 'A')")
    con.commit()
    con.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(PriceError) as info:
            prices_from_store(store)
    finally:
        con.rollback()
        con.close()
    msg = str(info.value)
    assert "is locked by another process" in msg and "not an ensel collect store" not in msg


def test_differing_conditions_name_the_differing_models(tmp_path, capsys, data) -> None:
    _, prices = data
    a = _answers([*MODELS, "zz-the-last-model"]).assign(condition="c1")
    b = _answers(MODELS).assign(condition="c2")
    p = tmp_path / "conds.csv"
    pd.concat([a, b]).to_csv(p, index=False)
    prices.write_text(prices.read_text() + "zz-the-last-model,0.1\n", encoding="utf-8")
    r = run_cli(["frontier", p, "--prices", prices, *FAST, "--no-cascade"], capsys)
    assert_usage_error(r, "frontier", "(only 'c1' has 'zz-the-last-model')")


# --------------------------------------------------------------------------- impossible numbers
def test_frontier_cost_intervals_stay_within_what_a_choice_can_cost() -> None:
    """Per-split costs of 10 and 1 (prices 1 and 9, budgets 1 and 10): the overlap-corrected
    interval of their mean ran from 0 to 12.5, below the cheapest model and past the budget."""
    from ensel.frontier import frontier_summary

    rows = []
    for s in range(8):
        rows.append(("c", s, "none", 0.0, 0.5, 0.0, 0, "", 20))
        for m in ("budgeted", "best_single"):
            rows.append(("c", s, m, 1.0, 0.3 if m == "best_single" or s % 2 else 0.4, 1.0, 1,
                         "a", 20))
            rows.append(("c", s, m, 10.0, (0.1, 0.3)[s % 2] if m == "budgeted" else 0.3,
                         (10.0, 1.0)[s % 2] if m == "budgeted" else 1.0, 1, "a", 20))
    res = pd.DataFrame(rows, columns=["condition", "split", "method", "budget", "error", "cost",
                                      "n_models", "selected", "n_test"])
    doc = frontier_summary(res, usd=[1.0, 9.0], models=["a", "b"])
    point = doc["methods"]["budgeted"]["points"][1]
    assert point["cost"] == 5.5 and (point["cost_low"], point["cost_high"]) == (1.0, 10.0)
    reach = doc["reach"]["budgeted"]
    assert reach["cost_to_best_single_error"] == 5.5
    assert (reach["low"], reach["high"]) == (1.0, 10.0)


# --------------------------------------------------------------------------- notebook parameters
@pytest.mark.parametrize("param, fragment", [
    ("n_splits=1", "-p n_splits=1: notebook 'experiments' expects an integer >= 2"),
    ("seed=-1", "-p seed=-1: notebook 'experiments' expects an integer >= 0"),
    ("seed=abc", "-p seed='abc': notebook 'experiments' expects an integer >= 0 (default 0)"),
    ("ks=[0, 2]", "expects a non-empty list of integers >= 1"),
    ("exhaustive=maybe", "-p exhaustive='maybe': notebook 'experiments' expects true or false"),
    ("example_k=2.5", "expects an integer >= 1 (default 4); got 2.5"),
    ("n_jobs=0", "expects -1 or an integer >= 1"),
])
def test_a_bad_notebook_parameter_is_refused_before_the_kernel_starts(tmp_path, capsys, param,
                                                                       fragment) -> None:
    """The experiments page refused ``n_splits=1`` only in cell 37, 23 s after the start."""
    answers = tmp_path / "answers.csv"
    _answers().to_csv(answers, index=False)
    out = tmp_path / "out"
    r = run_cli(["notebooks", "run", "experiments", "-p", param, "-p", f"dataset={answers}",
                 "--out-dir", out], capsys)
    assert_usage_error(r, "notebooks", fragment)
    assert not out.exists()  # nothing executed, nothing written


def test_every_listed_run_passes_the_parameter_check() -> None:
    from ensel.book.runner._config import check_parameter_values, load_runs, repo_root

    runs = load_runs(repo_root() / "notebooks" / "runs.yml")
    assert runs
    for run in runs:
        check_parameter_values(run, run.parameters, repo_root())
        check_parameter_values(run, run.effective_parameters(test=True), repo_root())


# --------------------------------------------------------------------------- the older campaign
def test_text_labels_that_spell_a_sign_are_read_as_that_sign() -> None:
    """``y`` as '+1'/'-1' sorted as text put '-1' second, so it became the +1 class: majority
    vote then predicted every label flipped. Text that spells a sign is read by the one
    encoding rule (as the functions read it); other text keeps the sorted order."""
    from ensel.aggregate import AGGREGATORS

    X = np.array([[1, -1, 1], [-1, 1, 1], [1, 1, -1], [-1, -1, -1], [1, -1, -1], [-1, 1, 1]])
    y = np.array([1, -1, 1, -1, 1, -1])
    for name in ("mv", "wmv", "map"):
        want = AGGREGATORS[name]().fit(X, y).predict(X)
        for plus, minus in (("+1", "-1"), ("1", "-1"), ("True", "False")):
            est = AGGREGATORS[name]().fit(X, np.where(y > 0, plus, minus))
            assert est.classes_.tolist() == [minus, plus], (name, plus)
            assert est.predict(X).tolist() == np.where(want > 0, plus, minus).tolist()
    assert AGGREGATORS["mv"]().fit(X, np.where(y > 0, "b", "a")).classes_.tolist() == ["a", "b"]


def _lm_line(doc_id: int) -> str:
    import json

    return json.dumps({"doc_id": doc_id, "target": 0, "arguments": [["Qé", " A"], ["Q", " B"]],
                       "filtered_resps": [["-1.0", "False"], ["-2.0", "False"]]},
                      ensure_ascii=False)


def test_one_non_utf8_lm_eval_log_is_named_alone(tmp_path, capsys) -> None:
    files = []
    for model in ("m1", "m2", "m3"):
        (tmp_path / model).mkdir()
        f = tmp_path / model / "samples_task_2025-01-01T00-00-00.000001.jsonl"
        text = "\n".join(_lm_line(i) for i in range(3))
        f.write_bytes(text.encode("latin-1" if model == "m2" else "utf-8"))
        files.append(f)
    r = run_cli(["import", "lm-eval", *files, "-o", tmp_path / "o.parquet"], capsys)
    line = assert_usage_error(r, "import", f"{files[1]}, line 1: not UTF-8 text")
    assert str(files[0]) not in line and str(files[2]) not in line


def _mmlu(folder, model: str, qids: list[int]):
    import json

    d = folder / model
    d.mkdir()
    p = d / "biology_result.json"
    p.write_text(json.dumps([{"question_id": q, "question": "Q", "options": ["a", "b", "c"],
                              "answer": "B", "answer_index": 1, "pred": "B"} for q in qids]))
    return p


@pytest.mark.parametrize("bad, fragment", [
    ([], "no MMLU-Pro record in the file (0 entries"),
    ([-1, 1, 2], "record 0: question_id -1 is negative"),
])
def test_one_bad_mmlu_pro_file_is_named_alone(tmp_path, capsys, bad, fragment) -> None:
    good = [_mmlu(tmp_path, "m1", [0, 1, 2]), _mmlu(tmp_path, "m2", [0, 1, 2])]
    wrong = _mmlu(tmp_path, "m3", bad)
    r = run_cli(["import", "mmlu-pro", *good, wrong, "-o", tmp_path / "o.parquet"], capsys)
    line = assert_usage_error(r, "import", f"{wrong}", fragment)
    assert all(str(g) not in line for g in good)


@pytest.mark.parametrize("given, fragment", [("", "options ['']: option 1 is empty"),
                                             (",", "option 1 is empty"),
                                             ("A,,B", "option 2 is empty")])
def test_an_empty_option_list_is_named_as_such(tmp_path, capsys, given, fragment) -> None:
    w = tmp_path / "w.csv"
    w.write_text("item,gold,m1,m2\nq1,A,A,B\nq2,B,B,B\nq3,C,A,C\n", encoding="utf-8")
    r = run_cli(["import", "wide", w, "--options", given, "-o", tmp_path / "o.parquet"], capsys)
    line = assert_usage_error(r, "import", fragment)
    assert "gold" not in line


def test_a_collection_estimate_says_which_models_have_no_price() -> None:
    import dataclasses

    from ensel.collect.cli import total_line
    from ensel.collect.config import load_config
    from ensel.collect.estimate import estimate
    from ensel.datasets._paths import package_data

    cfg = load_config(package_data("collect", "paper.yml"))
    none = total_line(estimate(dataclasses.replace(cfg, prices={}, prices_as_of=None)))
    assert "nan" not in none and "None" not in none and "cost unknown" in none
    dropped = next(iter(cfg.prices))
    some = total_line(estimate(dataclasses.replace(
        cfg, prices={m: v for m, v in cfg.prices.items() if m != dropped})))
    assert f"for the priced models; no price for {dropped}" in some and "nan" not in some
