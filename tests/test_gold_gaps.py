"""Gold with gaps, or no gold at all, in ``ensel select`` and ``ensel report`` (issues 39 and
40): one path per regime, either view. Some gold: the few-label estimate of
:func:`ensel.fewlabels.choose_with_labels` (labels used, what the unlabelled items added,
whether the labels decide, labels needed, ``ensel label-next``); no gold: the label-free
picks without an error figure. The binary reader takes a blank label as no gold, as the
multi-class one does. Seeded tables, seconds per command."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ensel.cli import main
from ensel.data import DataError, require_gold, validate_responses
from ensel.pools import family_pool
from tests.bad_input.conftest import assert_usage_error, run_cli
from tests.test_native_cli import N, _table

N_BIN, M_BIN = 600, 8


def _binary(every: int | None) -> pd.DataFrame:
    """A seeded binary pool as a tidy table; gold on every ``every``-th item only (``None``:
    none), the rest blank."""
    p = family_pool(M_BIN, N_BIN, family_size=2, random_state=0)
    rows = [(f"q{i:03d}", f"m{j}", int(p.X[i, j]),
             int(p.y[i]) if every is not None and i % every == 0 else "")
            for i in range(N_BIN) for j in range(M_BIN)]
    return pd.DataFrame(rows, columns=["item", "model", "answer", "label"])


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("gaps")
    out = {}
    for name, table in (("few", _table(40)), ("none", _table(None)),
                        ("bin_few", _binary(20)), ("bin_none", _binary(None))):
        path = tmp / f"{name}.csv"
        table.to_csv(path, index=False)
        out[name] = str(path)
    return out


def _json(argv: list[str], capsys) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


# --------------------------------------------------------------------------- the reader
def test_the_binary_reader_takes_a_blank_label_as_no_gold() -> None:
    df = _binary(20)
    out = validate_responses(df)
    gold = out.groupby("item", observed=True)["label"].first()
    assert (gold == 0).sum() == N_BIN - N_BIN // 20 and set(gold.unique()) == {-1, 0, 1}
    assert out.attrs["encoding"]["label"] == "+1/-1 with blanks = no gold"
    with pytest.raises(DataError, match=r"gold is blank for 570 of 600 items \(first: item "
                                        r"'q001'.*the held-out protocol needs gold for every"):
        from ensel.experiment import evaluate

        evaluate(df, ks=[2], n_splits=2)
    require_gold(validate_responses(_binary(1)), "anything")  # full gold: no complaint


def test_a_label_zero_or_a_gap_on_some_rows_of_an_item_is_still_refused() -> None:
    df = _binary(1)
    with pytest.raises(DataError, match="column 'label' has value 0"):
        validate_responses(df.assign(label=df["label"].where(df.index != 5, 0)))
    with pytest.raises(DataError, match=r"item 'q000' has conflicting labels \(\+1 and blank\)"
                                        r" .*the same on every row, or blank on every row"):
        validate_responses(df.assign(label=df["label"].astype(object).where(df.index != 3, "")))


# --------------------------------------------------------------------------- ensel select
@pytest.mark.parametrize(("which", "view", "n_items", "n_gold"),
                         [("few", "native", N, N // 40), ("bin_few", "binary", N_BIN, 30)])
def test_some_gold_gives_the_few_label_estimate(files, capsys, which, view, n_items,
                                                n_gold) -> None:
    doc = _json(["select", files[which], "-k", "2"], capsys)
    few = doc["few_labels"]
    assert doc["view"] == view and doc["evaluation"] is None and doc["k"] == 2
    assert few["n_labels"] == n_gold == doc["gold"]["n_with_gold"]
    assert few["n_unlabelled"] == n_items - n_gold
    lo, hi = few["interval"]
    assert 0 <= lo <= few["error"] <= hi <= 1
    assert isinstance(few["decided"], bool) and len(few["runner_up"]) == 2
    assert few["labels_needed"] is None or few["labels_needed"] >= 0
    assert (few["labels_needed"] == 0) == few["decided"]
    only = few["labels_only"]
    a_lo, a_hi = only["interval"]
    assert a_lo <= only["error_on_labels"] <= a_hi
    assert few["label_next"] == f"ensel label-next {files[which]} -n 10"
    assert "rest on" in doc["gold"]["intervals"]
    # the library's choice, on the same answers and gold
    from ensel.fewlabels import choose_with_labels

    if view == "binary":
        from ensel.data import to_wide

        X, y = to_wide(validate_responses(pd.read_csv(files[which], dtype=str,
                                                      keep_default_na=False)), sort=True,
                       gaps=True)
        c = choose_with_labels(X.to_numpy(), y.to_numpy().astype(float), k=2, seed=0)
        assert [s["model"] for s in doc["selected"]] == [X.columns[j] for j in c.models]
        assert few["error"] == pytest.approx(c.error)
    assert main(["select", files[which], "-k", "2"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert f"gold: {n_gold} of {n_items:,} items" in text
    assert f"with the {n_gold} labels alone the choice errs" in text
    assert f"ensel label-next {files[which]} -n 10".replace(" ", "") in text.replace(" ", "")


@pytest.mark.parametrize("which", ["none", "bin_none"])
def test_no_gold_gives_the_consensus_picks_and_no_error(files, capsys, which) -> None:
    doc = _json(["select", files[which], "-k", "2"], capsys)
    assert doc["evaluation"] is None and doc["few_labels"] is None
    assert doc["gold"]["n_with_gold"] == 0 and doc["gold"]["error"] is None
    assert doc["gold"]["intervals"].startswith("there are no intervals")
    assert any("--strategy disagreement" in n for n in doc["gold"]["notes"])
    assert len(doc["selected"]) == 2


@pytest.mark.parametrize(("which", "extra", "fragments"), [
    ("none", ["-k", "auto"], ["-k auto chooses k", "no item has a gold label",
                              "--strategy disagreement"]),
    ("bin_none", ["-k", "2", "--aggregator", "wplurality"],
     ["--aggregator wplurality is fitted on gold labels", "ds, ds1, family_ds, plurality"]),
    ("few", ["-k", "2", "--aggregator", "pattern"],
     ["--aggregator pattern is fitted on gold labels", "390 of 400 items"]),
    ("bin_few", ["-k", "2", "--method", "exhaustive"],
     ["--method exhaustive", "choose_with_labels", "score_mi"]),
    ("few", ["-k", "2", "--splits", "4"], ["--splits sets up the held-out error",
                                           "gold for 10 of 400 items"]),
    ("few", ["-k", "auto", "--max-k", "3"], ["--max-k 3", "ensel.fewlabels.MAX_K"]),
])
def test_what_needs_labels_or_held_out_splits_exits_2(files, capsys, which, extra,
                                                      fragments) -> None:
    assert_usage_error(run_cli(["select", files[which], *extra], capsys), "select", *fragments)


def test_conflicting_labels_exit_2_naming_the_item_and_rows(tmp_path, capsys) -> None:
    df = _binary(20)
    df.loc[1, "label"] = -int(df.loc[0, "label"])
    path = tmp_path / "conflict.csv"
    df.to_csv(path, index=False)
    r = run_cli(["select", str(path), "-k", "2"], capsys)
    assert_usage_error(r, "select", "item 'q000' has conflicting labels", "line 2", "line 3")


def test_labels_for_unknown_items_exit_2(files, tmp_path, capsys) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text("item,label\nq000,1\nnot-an-item,-1\n", encoding="utf-8")
    r = run_cli(["label-next", files["bin_none"], "-n", "2", "--labels", str(labels)], capsys)
    assert_usage_error(r, "label-next", "not-an-item")


def test_label_next_reads_binary_gaps_through_the_one_reader(files, capsys) -> None:
    doc = _json(["label-next", files["bin_few"], "-n", "3"], capsys)
    assert doc["view"] == "binary" and doc["n_labels"] == 30
    assert doc["n_unlabelled"] == N_BIN - 30 and len(doc["items"]) == 3
    r = run_cli(["label-next", files["bin_none"], "-n", "3"], capsys)
    assert_usage_error(r, "label-next", "no item has a gold label", "--strategy disagreement")


def test_the_labels_alone_run_the_same_rule_and_never_decide_against_themselves() -> None:
    """The labels-alone verdict once ran with ``k`` fixed at the choice's size: with every
    model chosen it had no other candidate, named the choice as its own runner-up and
    "decided" in 100 % of the draws, and the page said the labels alone decide "unlike with
    them" under a headline saying they do not (real MMLU-Redux, 40 labels). Now it runs the
    same rule (``-k auto`` stays auto), its picks carry the models' names, and a choice
    without a rival has no verdict."""
    from ensel.evidence import _few_label_input, select_with_gaps
    from ensel.experiment import condition_data
    from ensel.fewlabels import choose_with_labels

    data = condition_data(validate_responses(_binary(20)), None, gaps=True)
    ev = select_with_gaps(data, k="auto", seed=0)
    few, only = ev.few_labels, ev.few_labels["labels_only"]
    lab = np.flatnonzero(np.concatenate([d.has_gold() for d in data]))
    alone = choose_with_labels(*_few_label_input(data, lab), k="auto", seed=0)
    models = list(data[0].models)
    assert only["picks"] == [models[j] for j in alone.models]
    assert only["decided"] == alone.decided and few["runner_up"] != []
    assert "the same rule on the labels alone" in few["unlabelled_added"]
    assert "unlike with them" not in few["unlabelled_added"]
    assert all(m in models for m in few["runner_up"])  # names, not m0.. column stand-ins
    every = select_with_gaps(data, k=M_BIN, seed=0).few_labels
    assert every["decided"] is None and every["runner_up"] == []
    assert every["win_rate"] is None and every["labels_needed"] is None
    assert every["labels_only"]["decided"] is None
    assert "no other ensemble of that size" in every["decision"]
    assert "decide" not in every["unlabelled_added"]


def test_a_labels_alone_verdict_that_differs_says_which_one_the_report_goes_by() -> None:
    from types import SimpleNamespace

    from ensel.evidence import _few_label_doc

    def choice(decided: bool, models: tuple[int, ...], runner: tuple[int, ...]) -> Any:
        return SimpleNamespace(models=models, runner_up=runner, decided=decided,
                               labels_needed=0 if decided else None, interval=(0.1, 0.3),
                               n_labels=40, n_unlabelled=960, error=0.2, k=len(models),
                               win_rate=0.97 if decided else 0.2, reason="")

    names = ["a", "b", "c"]
    doc = _few_label_doc(choice(False, (0, 1), (0,)), choice(True, (0, 1), (1, 2)), None,
                         names, 0.2)
    words = doc["unlabelled_added"]
    assert "would call its choice decided; this report goes by the estimate with the " \
           "unlabelled items, which does not" in words
    assert "the label model's uncertainty on the other items is left out" in words
    assert doc["decision"].startswith("the labels do not decide between the choice and the "
                                      "runner-up (a): the choice is within 0.005 of it")
    doc = _few_label_doc(choice(True, (0, 1), (0,)), choice(False, (1,), (0,)), None, names,
                         0.2)
    assert "would pick b and would not decide; this report goes by the estimate with " \
           "the unlabelled items, which does" in doc["unlabelled_added"]


# --------------------------------------------------------------------------- ensel report
@pytest.mark.parametrize("which", ["none", "bin_few"])
def test_the_report_runs_the_label_free_path_itself(files, tmp_path, capsys, which) -> None:
    out = tmp_path / f"{which}.html"
    assert main(["report", files[which], "-o", str(out), "--jobs", "1"]) == 0
    html = out.read_text(encoding="utf-8")
    doc = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    rec = doc["recommendation"]
    assert doc["select"]["evaluation"] is None and doc["no_model"] is None
    assert "What this means for the intervals:" in html
    assert f"ensel label-next {files[which]} -n 10" in html
    if which == "none":
        assert rec["error"] is None and len(rec["models"]) == 3
        assert "There are no intervals" in html and "k = 3 (a default" in html
        assert all(m["accuracy"] is None for m in doc["models"])
    else:
        few = doc["select"]["few_labels"]
        assert rec["error"] == few["error"] and doc["select"]["k_mode"] == "auto"
        # the aggregator by its name in every line of prose (issue: "aggregated by ds"),
        # its key in the JSON and beside the name in the settings
        assert rec["aggregator"] == doc["select"]["aggregator"] == "ds"
        assert "aggregated by Dawid-Skene: " in rec["headline"]
        assert "by ds" not in html and "(aggregator ds)" not in html
        assert "Picks of ScoreMI (aggregated by Dawid-Skene)" in html
        assert "aggregator ds (Dawid-Skene), k = " in html
        # the selector too: its label in prose and captions, its key beside it in the settings
        assert "Picks of score_mi" not in html and "selector score_mi (ScoreMI), " in html
        assert main(["select", files[which], "-k", "auto"]) == 0
        text = " ".join(capsys.readouterr().out.split())
        assert "method score_mi, aggregator ds (Dawid-Skene), k = " in text
        assert "aggregator fitted label-free, by Dawid-Skene (ds): EM" in text
        assert "rest on 30 gold labels" in html and "What the unlabelled items added" in html
    from ensel._html import unrendered_markup

    assert unrendered_markup(html) == []


def test_the_report_refuses_prices_with_gaps_in_one_line(files, tmp_path, capsys) -> None:
    df = _binary(20).assign(cost=0.001)
    df.loc[df["model"] == "m0", "cost"] = 0.01
    path = tmp_path / "priced.csv"
    df.to_csv(path, index=False)
    r = run_cli(["report", str(path), "--prices", "tidy", "-o", str(tmp_path / "p.html")],
                capsys)
    assert_usage_error(r, "report", "gold is blank for 570 of 600 items",
                       "ensel report without prices")


def test_the_view_line_names_why_the_binary_view_was_used() -> None:
    from ensel.report import _view_words

    sel = {"view": "binary", "gold": {"n_items": 4, "n_with_gold": 4, "notes": []}}
    priced = _view_words(sel, "--prices: the buy list reads the paper's binary view")
    assert "used because of --prices" in priced and "--binary" not in priced
    assert "read with --binary" not in _view_words(sel)
    assert "yes/no as given" in _view_words(sel)
    assert np.isfinite(N)
