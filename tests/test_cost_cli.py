"""``ensel select --budget-usd``, ``ensel frontier``, ``ensel cascade``, and their bad input.

Every bad price table or budget exits 2 with one line naming the model, row or parameter.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ensel.cli import main
from ensel.cli.select import run_select_budget
from ensel.costs import read_prices
from ensel.experiment import condition_data
from ensel.pools import family_pool
from ensel.protocol import Protocol

MODELS = [f"m{j}" for j in range(6)]
PRICES = [0.001, 0.002, 0.004, 0.008, 0.0005, 0.01]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    p = family_pool(6, 800, family_size=3, random_state=11)
    n, m = p.X.shape
    df = pd.DataFrame({"item": np.repeat(np.arange(n), m), "model": np.tile(MODELS, n),
                       "answer": p.X.ravel(), "label": np.repeat(p.y, m)})
    d = tmp_path_factory.mktemp("cost")
    data = d / "answers.csv"
    df.to_csv(data, index=False)
    prices = d / "prices.csv"
    pd.DataFrame({"model": MODELS, "usd_per_query": PRICES}).to_csv(prices, index=False)
    return {"data": data, "prices": prices, "dir": d}


def _run(capsys, argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _write(files, name: str, text: str) -> Path:
    p = files["dir"] / name
    p.write_text(text)
    return p


def _table(rows: dict[str, str], header: str = "model,usd_per_query") -> str:
    return header + "\n" + "".join(f"{m},{v}\n" for m, v in rows.items())


@pytest.mark.parametrize("case, make, needle", [
    ("missing model", lambda: _table({m: "0.001" for m in MODELS[:-1]}),
     "model 'm5' of the data has no price"),
    ("zero price", lambda: _table({**{m: "0.001" for m in MODELS}, "m2": "0"}),
     "usd_per_query of model 'm2' (line 4) must be a positive finite number; got 0.0"),
    ("negative price", lambda: _table({**{m: "0.001" for m in MODELS}, "m3": "-0.5"}),
     "usd_per_query of model 'm3' (line 5) must be a positive finite number; got -0.5"),
    ("NaN", lambda: _table({**{m: "0.001" for m in MODELS}, "m1": "nan"}),
     "usd_per_query of model 'm1' (line 3) is missing (NaN)"),
    ("tokens without counts", lambda: _table({m: "5,15" for m in MODELS},
                                             "model,usd_per_m_input,usd_per_m_output"),
     "model 'm0' (line 2) gives usd_per_m_input, usd_per_m_output without input_tokens, "
     "output_tokens"),
])
@pytest.mark.parametrize("command", ["select", "frontier", "cascade"])
def test_bad_prices_exit_2_with_one_line(capsys, files, case, make, needle, command) -> None:
    prices = _write(files, f"bad-{case.replace(' ', '_')}.csv", make())
    extra = ["--budget-usd", "0.01"] if command == "select" else []
    code, out, err = _run(capsys, [command, files["data"], "--prices", prices, *extra])
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], err
    assert lines[0].startswith(f"ensel {command}: error:")


@pytest.mark.parametrize("argv, needle", [
    (["select", "--budget-usd", "0.0001"],
     "--budget-usd 0.0001 USD per query is below the cheapest model's price (0.0005"),
    (["select", "--budget-usd", "-1"], "--budget-usd must be a positive finite number"),
    (["select", "--budget-usd", "nan"], "--budget-usd must be a positive finite number"),
    (["cascade", "--target-cost", "0.0001"], "--target-cost 0.0001 USD per query is below"),
    (["select"], "-k is required (or --budget-usd with --prices)"),
])
def test_bad_budgets_exit_2_naming_the_parameter(capsys, files, argv, needle) -> None:
    code, out, err = _run(capsys, [argv[0], files["data"], "--prices", files["prices"],
                                   *argv[1:]])
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err, err


def test_select_budget_json_equals_the_library(capsys, files) -> None:
    code, out, _ = _run(capsys, ["select", files["data"], "--prices", files["prices"],
                                 "--budget-usd", "0.012", "--splits", "3", "--json"])
    assert code == 0
    doc = json.loads(out)
    assert doc["schema"] == "ensel.select-budget/2"
    assert doc["cost"] <= 0.012 + 1e-12
    data = condition_data(pd.read_csv(files["data"]))
    usd, _, _ = read_prices(files["prices"]).for_models(data[0].models)
    lib = run_select_budget(data, usd, 0.012, k=None, protocol=Protocol(n_splits=3))
    assert doc["selected"] == lib["selected"] and doc["arms"] == lib["arms"]
    assert set(doc["arms"]) == {"budgeted", "topk_budget", "cheapest_first", "best_single"}
    for arm in doc["arms"].values():
        assert arm["error_low"] <= arm["error"] <= arm["error_high"]


def test_drop_unpriced_and_frontier_outputs(capsys, caplog, files) -> None:
    rows = {m: str(p) for m, p in zip(MODELS[:5], PRICES[:5], strict=True)}
    prices = _write(files, "partial.csv", _table(rows))
    fig = files["dir"] / "frontier.png"
    code, out, err = _run(capsys, ["frontier", files["data"], "--prices", prices,
                                   "--drop-unpriced", "--splits", "2", "--budgets", "4",
                                   "--json", "-o", fig])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["schema"] == "ensel.frontier/2" and doc["dropped_models"] == ["m5"]
    assert "m5" not in doc["models"] and fig.stat().st_size > 1000
    assert "1 unpriced model(s) dropped: m5" in caplog.text


def test_cascade_command(capsys, files) -> None:
    code, out, err = _run(capsys, ["cascade", files["data"], "--prices", files["prices"],
                                   "--target-cost", "0.005", "--splits", "2", "--json"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["schema"] == "ensel.cascade/2"
    assert sum(doc["asked_histogram"].values()) == pytest.approx(1.0)
    assert doc["error_low"] <= doc["error"] <= doc["error_high"]


def test_prices_from_the_tidy_cost_column(capsys, files) -> None:
    df = pd.read_csv(files["data"])
    df["cost"] = df["model"].map(dict(zip(MODELS, PRICES, strict=True)))
    path = files["dir"] / "with_cost.csv"
    df.to_csv(path, index=False)
    code, out, err = _run(capsys, ["select", path, "--prices", "tidy", "--budget-usd", "0.012",
                                   "--splits", "2", "--json"])
    assert code == 0, err
    doc = json.loads(out)
    priced = dict(zip(MODELS, PRICES, strict=True))
    assert all(s["usd_per_query"] == pytest.approx(priced[s["model"]])
               for s in doc["selected"])


def test_a_bad_price_table_is_named_by_its_option(tmp_path: Path, capsys) -> None:
    """An error in the price file names ``--prices FILE``, not the data file (a trial found
    the data named and the price file not)."""
    data = tmp_path / "answers.csv"
    data.write_text("item,model,answer,label\n" + "".join(
        f"q{i},{m},{1 if (i + j) % 3 else -1},{1 if i % 2 else -1}\n"
        for i in range(20) for j, m in enumerate(("m1", "m2"))), encoding="utf-8")
    prices = tmp_path / "neg.csv"
    prices.write_text("model,usd_per_query\nm1,-0.001\nm2,0.002\n", encoding="utf-8")
    assert main(["frontier", str(data), "--prices", str(prices), "--splits", "2"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"ensel frontier: error: --prices {prices}: usd_per_query of model "
                           "'m1' (line 2) must be a positive"), line
    assert "answers.csv" not in line


def _two_pools(tmp_path: Path) -> tuple[Path, Path]:
    """Conditions t0 (models a, b, c) and t1 (a, c, d): two pools of models in one file."""
    rng = np.random.default_rng(3)
    rows = []
    for cond, models in (("t0", "abc"), ("t1", "acd")):
        for i in range(40):
            label = int(rng.choice([-1, 1]))
            rows += [f"q{i},{m},{cond},{label if rng.random() < 0.75 else -label},{label}"
                     for m in models]
    data = tmp_path / "pools.csv"
    data.write_text("item,model,condition,answer,label\n" + "\n".join(rows) + "\n",
                    encoding="utf-8")
    prices = tmp_path / "prices.csv"
    prices.write_text("model,usd_per_query\na,0.01\nb,0.002\nc,0.003\nd,0.5\n",
                      encoding="utf-8")
    return data, prices


def test_conditions_with_different_models_are_not_priced_as_one_pool(tmp_path: Path,
                                                                       capsys) -> None:
    """One price vector serves every condition, so conditions holding different models are
    refused (a review found t1's models priced by t0's order: d at c's price, silently);
    ``ensel select --condition`` prices the one condition asked for."""
    data, prices = _two_pools(tmp_path)
    assert main(["frontier", str(data), "--prices", str(prices), "--splits", "2"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "the conditions hold different models (only 't0' has 'b'; only 't1' has 'd')" in line
    assert main(["select", str(data), "--budget-usd", "0.6", "--prices", str(prices),
                 "--splits", "2", "--condition", "t1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    price = {"a": 0.01, "c": 0.003, "d": 0.5}
    assert doc["selected"] and all(s["usd_per_query"] == price[s["model"]]
                                   for s in doc["selected"])


def test_select_condition_needs_prices_only_for_its_own_models(tmp_path: Path,
                                                               capsys) -> None:
    """``select --condition t1`` prices t1's models: b, which only t0 holds, needs no price
    (it used to be refused as unpriced)."""
    data, prices = _two_pools(tmp_path)
    prices.write_text("model,usd_per_query\na,0.01\nc,0.003\nd,0.5\n", encoding="utf-8")
    assert main(["select", str(data), "--budget-usd", "0.6", "--prices", str(prices),
                 "--splits", "2", "--condition", "t1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {s["model"] for s in doc["selected"]} <= {"a", "c", "d"}
    assert main(["select", str(data), "--budget-usd", "0.6", "--prices", str(prices),
                 "--splits", "2", "--condition", "t0", "--json"]) == 2
    assert "'b'" in capsys.readouterr().err


def test_frontier_figure_is_written_as_every_output(capsys, files, tmp_path) -> None:
    """``frontier -o`` wrote with a plain open(): an existing figure was replaced without
    asking, and a missing folder was blamed on the data file (session-8 trial). It now
    takes the path through the one output check and atomic writer, as ``import -o`` does."""
    fig = tmp_path / "new" / "deeper" / "f.html"
    argv = ["frontier", files["data"], "--prices", files["prices"], "--splits", "2",
            "--budgets", "3", "-o", fig]
    code, _, err = _run(capsys, argv)
    assert code == 0, err
    assert fig.read_text().startswith("<!doctype html>")
    fig.write_text("mine")
    code, out, err = _run(capsys, argv)
    assert code == 2 and out == ""
    assert err.strip() == f"ensel frontier: error: -o {fig}: the file exists; pass --force " \
                          "to overwrite it"
    assert fig.read_text() == "mine"
    assert _run(capsys, [*argv, "--force"])[0] == 0
    assert fig.read_text().startswith("<!doctype html>")
    assert sorted(p.name for p in fig.parent.iterdir()) == ["f.html"]


@pytest.mark.parametrize("command", ["frontier", "cascade"])
@pytest.mark.parametrize("argv, needle", [
    (["--max-models", "0"], "--max-models must be a positive integer; got 0"),
    (["--splits", "1"], "--splits must be an integer >= 2; got 1"),
    (["--seed", "-3"], "--seed must be a non-negative integer; got -3"),
    (["--aggregator", "vote"], "argument --aggregator: invalid choice: 'vote'"),
    (["--format", "bogus"], "argument --format: invalid choice: 'bogus'"),
])
def test_price_commands_name_their_options(capsys, files, command, argv, needle) -> None:
    """These were passed on to the library, whose message named its own function
    ("max_models of Cascade", "name of make_aggregator") after the data file; ``--splits 1``
    gave intervals of width 0 (session-8 trial)."""
    extra = ["--target-cost", "0.01"] if command == "cascade" else []
    code, out, err = _run(capsys, [command, files["data"], "--prices", files["prices"],
                                   *extra, *argv])
    assert code == 2 and out == ""
    last = err.strip().splitlines()[-1]  # argparse's usage, then the one error line
    assert last.startswith(f"ensel {command}: error: ") and needle in last, err
    assert files["data"].name not in err and "make_aggregator" not in err


def test_the_aggregator_is_read_in_any_case(capsys, files) -> None:
    runs = [_run(capsys, ["frontier", files["data"], "--prices", files["prices"], "--splits",
                          "2", "--budgets", "2", "--json", "--aggregator", a])
            for a in ("MAP", "map")]
    assert runs[0][0] == 0 and runs[0] == runs[1]


def test_a_model_that_never_answered_is_priced_and_fitted_like_any(tmp_path, capsys) -> None:
    """A model whose every answer is blank is valid data; the budgeted arms fit aggregators
    on it alone (they fall back to the prior). A review found a fit-time refusal of such an
    X breaking frontier and select --budget-usd; it was taken out before it landed."""
    rng = np.random.default_rng(5)
    rows = []
    for i in range(60):
        label = int(rng.choice([-1, 1]))
        rows += [f"q{i},{m},{label if rng.random() < 0.75 else -label},{label}" for m in "abc"]
        rows.append(f"q{i},dead,,{label}")
    data = tmp_path / "dead.csv"
    data.write_text("item,model,answer,label\n" + "\n".join(rows) + "\n", encoding="utf-8")
    prices = tmp_path / "p.csv"
    prices.write_text("model,usd_per_query\na,0.01\nb,0.02\nc,0.03\ndead,0.001\n",
                      encoding="utf-8")
    assert main(["frontier", str(data), "--prices", str(prices), "--splits", "2",
                 "--budgets", "3", "--no-cascade", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["schema"] == "ensel.frontier/2"
    assert main(["select", str(data), "--budget-usd", "0.005", "--prices", str(prices),
                 "--splits", "2", "--json"]) == 0
    from ensel.aggregate import MAPAggregator

    y = np.array([1, 1, 1, -1])
    assert MAPAggregator().fit(np.zeros((4, 2), np.int8), y).predict(
        np.zeros((2, 2), np.int8)).tolist() == [1, 1]  # the prior's majority
