"""Price tables: the forms, the validation (one line naming the model or row), the shipped table."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ensel.costs import (
    PriceError,
    check_budget,
    prices_from_store,
    prices_from_tidy,
    read_prices,
    shipped_prices,
)


def test_per_query_csv_and_alignment(tmp_path) -> None:
    p = tmp_path / "p.csv"
    p.write_text("model,usd_per_query,latency_s\na,0.01,1.5\nb,0.002,\n")
    prices = read_prices(p)
    usd, kept, dropped = prices.for_models(["b", "a"])
    assert usd.tolist() == [0.002, 0.01] and kept == ["b", "a"] and dropped == []
    assert prices.latency_s["a"] == 1.5 and math.isnan(prices.latency_s["b"])


def test_per_token_form_gives_cost_per_query() -> None:
    df = pd.DataFrame({"model": ["a"], "usd_per_m_input": [5.0], "usd_per_m_output": [15.0],
                       "input_tokens": [1000], "output_tokens": [300]})
    assert read_prices(df).usd_per_query["a"] == pytest.approx((5 * 1000 + 15 * 300) / 1e6)


def test_yaml_forms(tmp_path) -> None:
    p = tmp_path / "p.yml"
    p.write_text("a: 0.5\nb: {usd_per_query: 0.25, latency_s: 2}\n"
                 "c: {usd_per_m_input: 1, usd_per_m_output: 2, input_tokens: 10, "
                 "output_tokens: 5}\n")
    s = read_prices(p).usd_per_query
    assert s.to_dict() == {"a": 0.5, "b": 0.25, "c": pytest.approx(20 / 1e6)}


def test_tidy_cost_column() -> None:
    df = pd.DataFrame({"model": ["a", "a", "b"], "cost": [0.1, 0.3, 0.05]})
    assert prices_from_tidy(df).usd_per_query.to_dict() == pytest.approx({"a": 0.2, "b": 0.05})


@pytest.mark.parametrize("text, needle", [
    ("model,usd_per_query\na,0\n", "usd_per_query of model 'a' (line 2) must be a positive"),
    ("model,usd_per_query\na,-1\n", "usd_per_query of model 'a' (line 2) must be a positive"),
    ("model,usd_per_query\na,0.1\nb,\n", "usd_per_query of model 'b' (line 3) is missing (NaN)"),
    ("model,usd_per_query\na,nan\n", "model 'a' (line 2) is missing (NaN)"),
    ("model,usd_per_query\na,cheap\n", "usd_per_query of model 'a' (line 2) must be a number"),
    ("model,usd_per_query\na,1\na,2\n", "model 'a' appears twice"),
    ("model,usd_per_m_input,usd_per_m_output\na,5,15\n",
     "model 'a' (line 2) gives usd_per_m_input, usd_per_m_output without input_tokens, "
     "output_tokens"),
    ("model,cost\na,1\n", "needs a 'usd_per_query' column"),
])
def test_bad_tables_name_the_model_or_row(tmp_path, text: str, needle: str) -> None:
    p = tmp_path / "p.csv"
    p.write_text(text)
    with pytest.raises(PriceError) as exc:
        read_prices(p)
    assert needle in str(exc.value) and "\n" not in str(exc.value)


def test_missing_model_and_drop_unpriced() -> None:
    prices = read_prices({"a": 0.1})
    with pytest.raises(PriceError, match="model 'b' of the data has no price"):
        prices.for_models(["a", "b"])
    usd, kept, dropped = prices.for_models(["a", "b"], drop_unpriced=True)
    assert kept == ["a"] and dropped == ["b"] and usd.tolist() == [0.1]


def test_budget_checks() -> None:
    usd = np.array([0.1, 0.5])
    assert check_budget(0.1, usd) == 0.1
    for bad, needle in ((0.05, "below the cheapest model's price"), (0, "positive"),
                        (float("nan"), "positive finite"), ("x", "must be a number")):
        with pytest.raises(PriceError, match=needle):
            check_budget(bad, usd)


def test_shipped_table_is_dated_and_sourced() -> None:
    p = shipped_prices()
    t = p.table
    assert len(t) >= 25
    assert t["price_date"].str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()
    assert t["price_source"].str.len().gt(10).all()
    assert set(t["rule"]) <= {"list price"} | {r for r in t["rule"] if r.startswith("open-weight")}
    # the list prices we rely on most, per million tokens (input, output)
    assert tuple(t.loc["openai_gpt-4-0613", ["usd_per_m_input", "usd_per_m_output"]]) == (30, 60)
    assert (p.usd_per_query > 0).all()


def test_prices_from_the_collectors_store(tmp_path) -> None:
    from ensel.collect.store import Store
    from ensel.datasets._paths import package_data

    config = package_data("collect", "paper.yml")
    path = tmp_path / "answers.sqlite"
    base = {"dataset": "d", "temperature": 0.7, "run": 1, "prompt_hash": "h1", "label": 1,
            "attempts": 1}
    with Store(path) as st:
        for q, (pt, ct, lat) in enumerate([(100, 5, 1.0), (300, 5, 3.0)]):
            st.put({**base, "query_id": f"q{q}", "model": "GPT-4o",
                    "model_id": "openai/gpt-4o", "answer": 1, "prompt_tokens": pt,
                    "completion_tokens": ct, "latency_s": lat})
        st.put({**base, "query_id": "q9", "model": "GPT-4o", "model_id": "openai/gpt-4o",
                "answer": None, "error_class": "http_500"})  # unanswered: not priced
    p = prices_from_store(path, config)
    # openai/gpt-4o in paper.yml: 2.5 and 10.0 USD per million prompt / completion tokens
    assert p.usd_per_query["GPT-4o"] == pytest.approx((200 * 2.5 + 5 * 10.0) / 1e6)
    assert p.latency_s["GPT-4o"] == pytest.approx(2.0)
    with Store(path) as st:
        st.put({**base, "query_id": "q0", "model": "X", "model_id": "nobody/x", "answer": 1,
                "prompt_tokens": 1, "completion_tokens": 1})
    with pytest.raises(PriceError, match="model 'X' \\(nobody/x\\) has no price"):
        prices_from_store(path, config)


def test_costs_equal_up_to_float_noise_are_one_cost_for_the_buy_list() -> None:
    # 0.1 + 0.2 and 0.3 dollars are the same price: the buy list's choice between two
    # candidates that cost them is decided by error, never by the last bit (ensel.costs)
    from ensel.budget import cheapest_as_good
    from ensel.costs import COST_RTOL, cost_levels, within

    assert within(0.1 + 0.2, 0.3) and not within(0.3 * (1 + 10 * COST_RTOL), 0.3)
    assert within(np.array([0.1, 0.3, 0.31]), 0.3).tolist() == [True, True, False]
    assert cost_levels([0.1 + 0.2, 0.3, 0.2]) == [0.3, 0.3, 0.2]
    worse = {"errors": [0.30, 0.31, 0.30, 0.32], "cost": 0.1 + 0.2}
    better = {"errors": [0.10, 0.11, 0.10, 0.12], "cost": 0.3}
    found = cheapest_as_good([worse, better])
    assert found["choice"] == 1 and found["cheaper"] is None
