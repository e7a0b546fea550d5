"""Tests of the LLMBar loader: hand-made fixtures in the upstream format, then the mirror."""

from __future__ import annotations

import itertools
import json

import pandas as pd
import pytest
from conftest import REPO, UPSTREAMS, require_mirror

from ensel.datasets import _fetch, load
from ensel.datasets import llmbar as lb

FIX = REPO / "tests" / "data" / "llmbar" / "Dataset" / "LLMBar" / "Natural" / "evaluators"
MODELS = ("Falcon/Metrics_Reference", "Falcon/Vanilla", "GPT-4/Metrics_Reference",
          "GPT-4/Vanilla")


def fixture_files() -> dict:
    return {("LLMBar/Natural", m): FIX / m / "result.json" for m in MODELS}


# --------------------------------------------------------------------------- fixtures
def test_fixture_conversion_hand_checked():
    df = lb.convert(fixture_files())
    assert list(df.columns) == ["item", "model", "condition", "answer", "label"]
    assert list(df["condition"].unique()) == ["original-order", "swapped-order"]
    assert sorted(df["model"].unique()) == list(MODELS)
    assert len(df) == 3 * 4 * 2
    a = df.set_index(["item", "model", "condition"])
    # record 1: output_2 is better (label 2 -> Y = -1)
    assert (a.xs("LLMBar/Natural/1", level="item")["label"] == -1).all()
    # Falcon/Vanilla: winner null on record 1 in the original order -> abstention
    assert a.loc[("LLMBar/Natural/1", "Falcon/Vanilla", "original-order"), "answer"] == 0
    # GPT-4/Vanilla on record 2: right in the original order, wrong when swapped
    assert a.loc[("LLMBar/Natural/2", "GPT-4/Vanilla", "original-order"), "answer"] == 1
    assert a.loc[("LLMBar/Natural/2", "GPT-4/Vanilla", "swapped-order"), "answer"] == -1
    acc = lb.upstream_accuracy(df)
    assert acc[("GPT-4/Metrics_Reference", "original-order")] == 1.0
    assert acc[("GPT-4/Vanilla", "swapped-order")] == pytest.approx(2 / 3)
    assert acc[("Falcon/Vanilla", "original-order")] == 0.0
    assert [lb.family(m) for m in MODELS] == ["Falcon", "Falcon", "GPT-4", "GPT-4"]


def test_fixture_one_order_and_null_as_false():
    df = lb.convert(fixture_files(), orders=["swapped"], null_pred="false")
    assert list(df["condition"].unique()) == ["swapped-order"]
    assert (df["answer"] != 0).all()


def test_records_must_agree_across_judges(tmp_path):
    files = fixture_files()
    data = json.loads(files[("LLMBar/Natural", "GPT-4/Vanilla")].read_text())
    data[0]["output_1"] = "Red."
    bad = tmp_path / "result.json"
    bad.write_text(json.dumps(data))
    files[("LLMBar/Natural", "GPT-4/Vanilla")] = bad
    with pytest.raises(ValueError, match="its records differ from those of the other judges"):
        lb.convert(files)


@pytest.mark.parametrize("kwargs, match", [
    ({"orders": ["sideways"]}, "orders of llmbar.load must be distinct values from"),
    ({"orders": []}, "orders of llmbar.load must be distinct values from"),
    ({"null_pred": "tie"}, "null_pred of llmbar.load must be one of"),
])
def test_bad_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        lb.convert(fixture_files(), **kwargs)


def test_bad_label_names_the_record(tmp_path):
    data = json.loads(fixture_files()[("LLMBar/Natural", "Falcon/Vanilla")].read_text())
    data[2]["label"] = 3
    bad = tmp_path / "result.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"result.json record 2: expected a record with 'label' "
                                         r"1 or 2"):
        lb.convert({("LLMBar/Natural", "Falcon/Vanilla"): bad})


# --------------------------------------------------------------------------- mirror
@pytest.fixture(scope="module")
def mirror_env():
    mirror = require_mirror(UPSTREAMS["llmbar"])
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ENSEL_DATA_MIRROR", str(mirror))
        yield mirror


@pytest.fixture(scope="module")
def real(mirror_env):
    return load("llmbar")


def test_mirror_accuracy_equals_upstream_right_wrong(real):
    """Each judge's accuracy per order equals the files' own winner == label, pooled over the
    benchmark's five subsets (recomputed from the JSON without the loader)."""
    right: dict[tuple[str, str], list[bool]] = {}
    for (subset, model), entry in lb.file_entries().items():
        if subset not in lb.BENCHMARK:
            continue
        for rec in json.loads(_fetch.fetch(entry).read_text(encoding="utf-8")):
            verdict = [r for r in rec["results"] if isinstance(r, dict)][0]
            for swap, cond in (("swap = False", "original-order"),
                               ("swap = True", "swapped-order")):
                right.setdefault((model, cond), []).append(
                    str(verdict[swap]["winner"]) == str(rec["label"]))
    theirs = pd.Series({k: sum(v) / len(v) for k, v in right.items()})
    ours = lb.upstream_accuracy(real)
    assert len(ours) == 18 * 2
    pd.testing.assert_series_equal(ours.sort_index(), theirs.sort_index(), check_names=False,
                                   rtol=0, atol=1e-12)
    # below chance on the benchmark (mostly adversarial items): MAP can use such judges
    assert (ours < 0.5).sum() > 0


def test_mirror_shape_no_duplicates(real):
    assert real.attrs["records"] == {"LLMBar/Natural": 100, "LLMBar/Adversarial/Neighbor": 134,
                                     "LLMBar/Adversarial/GPTInst": 92,
                                     "LLMBar/Adversarial/GPTOut": 47,
                                     "LLMBar/Adversarial/Manual": 46}
    assert real["item"].nunique() == 419 and real["model"].nunique() == 18
    assert not real.duplicated(["item", "model", "condition"]).any()
    w = real.pivot(index=["item", "condition"], columns="model", values="answer")
    for a, b in itertools.combinations(w.columns, 2):
        assert not (w[a] == w[b]).all(), (a, b)  # no two judges answer identically
    every = load("llmbar", subset="all")
    texts = {}
    for (subset, model), entry in lb.file_entries().items():
        if model == "GPT-4/CoT":
            for rec in json.loads(_fetch.fetch(entry).read_text(encoding="utf-8")):
                texts.setdefault((rec["input"], rec["output_1"], rec["output_2"]), set()).add(
                    subset)
    assert all(len(s) == 1 for s in texts.values())  # no record in two subsets
    assert every["item"].nunique() == len(texts) == 734
