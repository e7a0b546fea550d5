"""Multi-class answers read as they are (issue 39): ``ensel select`` and ``ensel report`` on a
table of option labels (text and ``--json``), gold for every item, some or none (the few-label
and label-free paths in detail: tests/test_gold_gaps.py), the bad inputs that need labels,
and :func:`ensel.experiment.evaluate` on option codes.

The tables are a seeded multiple-choice pool (:func:`ensel.pools.multiclass_pool`), small
enough for seconds per command."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ensel.cli import main
from ensel.data import OptionMatrix
from ensel.pools import multiclass_pool
from tests.bad_input.conftest import assert_usage_error, run_cli

N, M = 400, 6
LETTERS = "ABCD"


def _table(gold_every: int | None = 1, seed: int = 0) -> pd.DataFrame:
    """A tidy multi-class table of the pool; gold kept on every ``gold_every``-th item
    (``None``: no gold at all), the rest blank."""
    p = multiclass_pool(M, N, n_options=4, share=0.5, abstain=(0.0, 0.05), random_state=seed)
    rows = []
    for i in range(N):
        has = gold_every is not None and i % gold_every == 0
        for j in range(M):
            a = int(p.A[i, j])
            rows.append({"item": f"q{i:03d}", "model": f"m{j}", "condition": "c",
                         "answer": LETTERS[a] if a >= 0 else "",
                         "label": LETTERS[int(p.y[i])] if has else "",
                         "options": "A|B|C|D"})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("native")
    out = {}
    for name, every in (("full", 1), ("partial", 4), ("few", 40), ("none", None)):
        path = tmp / f"{name}.csv"
        _table(every).to_csv(path, index=False)
        out[name] = str(path)
    return out


def _json(argv: list[str], capsys) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_select_reads_a_multiclass_table_natively_and_says_so(files, capsys) -> None:
    argv = ["select", files["full"], "-k", "2", "--splits", "3", "--halvings", "2"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].startswith("view: native (multi-class answers as they are")
    assert "1 - 1/t" in text and "held-out error over 3 random" in text
    doc = _json(argv, capsys)
    assert doc["view"] == "native" and doc["schema"] == "ensel.select/2"
    from ensel.aggregate import DEFAULT_MULTICLASS_AGGREGATOR
    from ensel.select import DEFAULT_MULTICLASS_SELECTOR

    assert doc["method"] == DEFAULT_MULTICLASS_SELECTOR
    assert doc["aggregator"] == DEFAULT_MULTICLASS_AGGREGATOR
    assert doc["gold"]["n_with_gold"] == doc["n_items"] == N
    assert set(doc["evaluation"]["arms"]) == {"selected", "top_k", "best_single"}
    # the same picks as the library's K-ary selector on the option codes
    from ensel.select import MULTICLASS_SELECTORS

    p = multiclass_pool(M, N, n_options=4, share=0.5, abstain=(0.0, 0.05), random_state=0)
    picks = MULTICLASS_SELECTORS[doc["method"]](2).fit(p.A, p.y).selected_
    assert [s["model"] for s in doc["selected"]] == [f"m{j}" for j in picks]
    acc = (p.A == p.y[:, None]).mean(axis=0)
    assert [s["accuracy"] for s in doc["selected"]] == pytest.approx(acc[picks].tolist())


def test_k_auto_on_a_multiclass_table(files, capsys) -> None:
    """With gold for some items, -k auto is the few-label size with the lowest estimated
    error (ensel.fewlabels.choose_with_labels; tests/test_gold_gaps.py has the rest)."""
    doc = _json(["select", files["partial"], "-k", "auto"], capsys)
    assert doc["view"] == "native" and doc["k_mode"] == "auto" and 1 <= doc["k"] <= 6
    assert doc["gold"]["n_with_gold"] == 100 and doc["few_labels"]["n_labels"] == 100


def test_binary_flag_gives_the_papers_view(files, capsys) -> None:
    argv = ["select", files["full"], "-k", "2", "--splits", "3", "--halvings", "0",
            "--binary"]
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith("view: binary (--binary: the paper's yes/no")
    doc = _json(argv, capsys)
    assert doc["view"] == "binary" and doc["n_items"] == 2 * N


def test_partial_gold_runs_dawid_skene_and_says_on_how_many_items(files, capsys) -> None:
    argv = ["select", files["partial"], "-k", "2"]
    assert main(argv) == 0
    text = " ".join(capsys.readouterr().out.split())  # one line, however wrapped
    assert "gold: 100 of 400 items; aggregator fitted label-free, by Dawid-Skene (ds)" \
        in text
    assert "estimated from the 100 labels and the label-free model's posterior" in text
    doc = _json(argv, capsys)
    assert doc["aggregator"] == "ds" and doc["gold"]["n_with_gold"] == 100
    assert doc["evaluation"] is None and doc["few_labels"]["n_unlabelled"] == 300
    assert any("LABEL_FREE_AGGREGATOR" in d for d in doc["defaults"])


@pytest.mark.parametrize("which", ["none"])
def test_no_gold_prints_no_error_figure_and_says_why(files, capsys, which) -> None:
    argv = ["select", files[which], "-k", "2"]
    assert main(argv) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "no error figure:" in text and "held-out error over" not in text
    assert "label-free posterior" in text
    doc = _json(argv, capsys)
    assert doc["evaluation"] is None and doc["ensemble_beats_best_single"] is None
    assert doc["gold"]["error"] is None and len(doc["selected"]) == 2
    for s in doc["selected"]:
        assert 0 <= s["accuracy"] <= 1 and 0 <= s["coverage"] <= 1
    assert doc["gold"]["n_with_gold"] == 0


@pytest.mark.parametrize(("extra", "fragments"), [
    (["-k", "auto"], ["-k auto chooses k by the error", "no item has a gold label"]),
    (["-k", "2", "--aggregator", "wplurality"],
     ["--aggregator wplurality is fitted on gold labels", "ds, ds1, family_ds, plurality"]),
    (["-k", "2", "--splits", "4"], ["--splits sets up the held-out error"]),
    (["-k", "9"], ["-k 9 is larger than the pool", "6 model(s)"]),
])
def test_options_that_need_missing_labels_exit_2(files, capsys, extra, fragments) -> None:
    r = run_cli(["select", files["none"], *extra], capsys)
    assert_usage_error(r, "select", *fragments)


@pytest.mark.parametrize(("extra", "fragments"), [
    (["--method", "mrmr"], ["--method mrmr", "multi-class", "topk, greedy_mi, score_mi",
                            "--binary"]),
    (["--method", "exhaustive"], ["--method exhaustive", "reads the binary view"]),
    (["--aggregator", "backoff"], ["--aggregator backoff", "multi-class", "plurality"]),
])
def test_binary_only_options_on_a_multiclass_table_exit_2(files, capsys, extra,
                                                           fragments) -> None:
    r = run_cli(["select", files["full"], "-k", "2", *extra], capsys)
    assert_usage_error(r, "select", *fragments)


def test_a_multiclass_aggregator_on_binary_answers_exits_2(tmp_path, capsys) -> None:
    path = tmp_path / "b.csv"
    path.write_text("item,model,answer,label\n" + "".join(
        f"q{i},{m},{1 if (i + j) % 3 else -1},{1 if i % 2 else -1}\n"
        for i in range(20) for j, m in enumerate("abc")))
    r = run_cli(["select", str(path), "-k", "2", "--aggregator", "ds"], capsys)
    assert_usage_error(r, "select", "--aggregator ds reads multi-class answers", "binary")


def test_bad_gold_or_answer_in_a_multiclass_table_names_item_model_and_line(tmp_path,
                                                                           capsys) -> None:
    """Read natively (no --binary), a gold or an answer outside the item's options is
    refused naming the value, the item, the model, the line and the options."""
    df = _table()
    df.loc[df["item"] == "q007", "label"] = "E"
    df.loc[(df["item"] == "q009") & (df["model"] == "m2"), "answer"] = "F"
    gold, answer = tmp_path / "gold.csv", tmp_path / "answer.csv"
    df.assign(answer=_table()["answer"]).to_csv(gold, index=False)
    df.assign(label=_table()["label"]).to_csv(answer, index=False)
    r = run_cli(["select", str(gold), "-k", "2"], capsys)
    assert_usage_error(r, "select", "gold label 'E' on item 'q007'", "line 44 of",
                       "options 'A|B|C|D'")
    r = run_cli(["report", str(answer), "-o", str(tmp_path / "r.html")], capsys)
    assert_usage_error(r, "report", "answer 'F' of model 'm2' on item 'q009'", "line 58 of",
                       "options 'A|B|C|D'")


def test_one_gold_option_only_is_refused_naming_the_condition(tmp_path, capsys) -> None:
    df = _table()
    df["label"] = "A"
    path = tmp_path / "one.csv"
    df.to_csv(path, index=False)
    r = run_cli(["select", str(path), "-k", "2"], capsys)
    assert_usage_error(r, "select", "condition 'c'", "same gold option ('A')")


def test_report_reads_a_multiclass_table_and_says_which_view(files, tmp_path, capsys) -> None:
    out = tmp_path / "r.html"
    assert main(["report", files["partial"], "-o", str(out), "--jobs", "1"]) == 0
    html = out.read_text(encoding="utf-8")
    head = html[:html.index('<div class="answer">')]
    assert 'id="view">View: native (multiple-choice answers as they are' in head
    assert "gold for 100 of them" in head
    doc = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert doc["select"]["view"] == "native" and doc["select"]["gold"]["n_with_gold"] == 100


def test_evaluate_takes_a_multiclass_table() -> None:
    from ensel.experiment import RESULT_COLUMNS, evaluate

    df = _table()
    res = evaluate(df, ks=[1, 3], n_splits=2, selectors=["topk", "greedy_mi"],
                   aggregators=["plurality", "ds"])
    assert list(res.columns[:6]) == RESULT_COLUMNS and len(res) == 2 * 2 * 2 * 2
    assert res["error"].between(0, 1).all() and (res["n_test"] == N // 5).all()
    # the row order of the input does not matter
    again = evaluate(df.sample(frac=1, random_state=1), ks=[1, 3], n_splits=2,
                     selectors=["topk", "greedy_mi"], aggregators=["plurality", "ds"])
    pd.testing.assert_frame_equal(res, again)
    # the default arms are every K-ary selector and aggregator
    from ensel.aggregate import MULTICLASS_SPECS as AGG
    from ensel.select import MULTICLASS_SPECS as SEL

    full = evaluate(df, ks=[2], n_splits=1)
    assert set(full["selector"]) == set(SEL) and set(full["aggregator"]) == set(AGG)


def test_evaluate_scores_only_the_items_with_gold() -> None:
    from ensel.experiment import evaluate

    res = evaluate(_table(gold_every=4), ks=[2], n_splits=2, selectors=["topk"],
                   aggregators=["ds"])
    assert (res["n_test"] < N // 5).all() and (res["n_test"] > 0).all()


def test_select_with_gaps_takes_answers_and_a_gold_vector_with_gaps() -> None:
    from ensel.evidence import select_with_gaps

    p = multiclass_pool(M, N, n_options=4, share=0.5, random_state=0)
    m = OptionMatrix(p.A.astype(np.int16), p.y.astype(np.int16), [tuple(LETTERS)] * N,
                     [f"q{i}" for i in range(N)], [f"m{j}" for j in range(M)])
    gaps = np.where(np.arange(N) % 2 == 0, p.y, -1)
    ev = select_with_gaps(m, gaps, k=2)
    assert ev.gold["n_with_gold"] == N // 2 and ev.aggregator == "ds"
    assert ev.evaluation is None and ev.view == "native"
    assert ev.few_labels is not None and ev.few_labels["n_labels"] == N // 2
    bare = select_with_gaps(m, np.full(N, -1), k=2)
    assert bare.evaluation is None and bare.gold["n_with_gold"] == 0
    from ensel._errors import UsageError

    with pytest.raises(UsageError, match="gold of item 'q0' is code 7"):
        select_with_gaps(m, np.r_[7, gaps[1:]], k=2)


def test_the_native_default_selector_rests_on_its_evidence(monkeypatch) -> None:
    """DEFAULT_MULTICLASS_REASON's claim on MMLU-Pro read natively: score_mi picks Top-k's
    ensembles, and the K-ary Greedy MI's ensembles err more beyond k = 2."""
    from tests.conftest import require_mirror

    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(require_mirror()))
    from ensel.datasets import load
    from ensel.experiment import evaluate

    res = evaluate(load("mmlu_pro", view="native"), ks=[3, 5], n_splits=5,
                   selectors=["topk", "score_mi", "greedy_mi"], aggregators=["ds"])
    mean = res.groupby(["selector", "k"])["error"].mean()
    for k in (3, 5):
        assert mean[("score_mi", k)] == mean[("topk", k)]
        assert mean[("greedy_mi", k)] > mean[("score_mi", k)] + 0.01
