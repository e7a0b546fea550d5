"""Bad input of the few-label path (``ensel label-next``, :mod:`ensel.fewlabels`).

No labels at all with a strategy or selector that needs them, labels for items that are not
in the answers, two labels for one item, ``-n`` larger than the unlabelled items, and gold
values that are not labels: exit code 2 with one line naming the problem from the command
line, an :class:`ensel._errors.EnselError` naming it from the library.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ensel._errors import EnselError
from ensel.data import OptionMatrix
from ensel.fewlabels import choose_with_labels, label_next
from ensel.pools import family_pool, multiclass_pool

from .conftest import assert_usage_error, run_cli

N_ITEMS, N_GOLD = 300, 12


def _matrix(gold_items: int = N_GOLD) -> OptionMatrix:
    p = multiclass_pool(6, N_ITEMS, n_options=4, family_size=2, random_state=0)
    gold = np.where(np.arange(N_ITEMS) < gold_items, p.y, -1).astype(np.int16)
    return OptionMatrix(p.A.astype(np.int16), gold, [tuple("ABCD")] * N_ITEMS,
                        [f"q{i}" for i in range(N_ITEMS)], [f"m{j}" for j in range(6)])


@pytest.fixture
def native(tmp_path: Path) -> Path:
    path = tmp_path / "mc.csv"
    _matrix().to_frame().to_csv(path, index=False)
    return path


def _binary_csv(tmp_path: Path, gold_items: int) -> Path:
    p = family_pool(6, N_ITEMS, family_size=2, random_state=0)
    rows = [(f"q{i}", f"m{j}", int(p.X[i, j]), int(p.y[i]) if i < gold_items else "")
            for i in range(N_ITEMS) for j in range(6)]
    path = tmp_path / "bin.csv"
    pd.DataFrame(rows, columns=["item", "model", "answer", "label"]).to_csv(path, index=False)
    return path


def test_no_labels_at_all_with_decisive_is_refused(tmp_path: Path, capsys) -> None:
    path = _binary_csv(tmp_path, 0)
    r = run_cli(["label-next", path, "-n", "5"], capsys)
    assert_usage_error(r, "label-next", "no item has a gold label", "--strategy disagreement")
    # the baselines need no gold
    r = run_cli(["label-next", path, "-n", "5", "--strategy", "disagreement"], capsys)
    assert r.code == 0, r.err
    assert len(r.out.splitlines()) == 7


def test_no_labels_at_all_in_a_native_table(tmp_path: Path, capsys) -> None:
    path = tmp_path / "mc0.csv"
    _matrix(0).to_frame().to_csv(path, index=False)
    r = run_cli(["label-next", path, "-n", "5"], capsys)
    assert_usage_error(r, "label-next", "no item has a gold label")


def test_no_labels_at_all_from_the_library() -> None:
    with pytest.raises(EnselError, match="needs at least one gold label.*'score_mi'"):
        choose_with_labels(_matrix(0), k=2)
    with pytest.raises(EnselError, match="label_next needs at least one gold label"):
        label_next(_matrix(0), n=3, k=2)


def test_labels_for_items_not_in_the_answers(native: Path, tmp_path: Path, capsys) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text("item,label\nq1,A\nq999,B\n", encoding="utf-8")
    r = run_cli(["label-next", native, "--labels", labels, "-n", "3"], capsys)
    assert_usage_error(r, "label-next", "not in the answers", "'q999'", "300 items")
    y = pd.Series(["A", "B"], index=["q1", "nope"])
    with pytest.raises(EnselError, match="1 item\\(s\\) that are not in the answers.*'nope'"):
        choose_with_labels(_matrix(), y, k=2)


def test_conflicting_labels_for_one_item(native: Path, tmp_path: Path, capsys) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text("item,label\nq1,A\nq2,C\nq1,B\n", encoding="utf-8")
    r = run_cli(["label-next", native, "--labels", labels, "-n", "3"], capsys)
    assert_usage_error(r, "label-next", "item 'q1' has two different labels", "'A'", "'B'")
    # the same label twice is one label (items past the table's gold: no conflict with it)
    labels.write_text("item,label\nq20,A\nq20,A\nq21,C\n", encoding="utf-8")
    r = run_cli(["label-next", native, "--labels", labels, "-n", "3", "--strategy",
                 "random"], capsys)
    assert r.code == 0, r.err


def test_conflicting_labels_inside_a_binary_table(tmp_path: Path, capsys) -> None:
    path = _binary_csv(tmp_path, N_GOLD)
    text = path.read_text().splitlines()
    text[1] = text[1].rsplit(",", 1)[0] + ("," + ("1" if text[1].endswith("-1") else "-1"))
    path.write_text("\n".join(text) + "\n")
    r = run_cli(["label-next", path, "-n", "3"], capsys)
    assert_usage_error(r, "label-next", "item 'q0' has conflicting labels")


def test_n_larger_than_the_unlabelled_items(native: Path, capsys) -> None:
    r = run_cli(["label-next", native, "-n", "299"], capsys)
    assert_usage_error(r, "label-next", "-n 299", f"only {N_ITEMS - N_GOLD}", "300 items")
    with pytest.raises(EnselError, match="n of label_next must be at most the number of "
                                         "unlabelled items \\(288 of 300\\)"):
        label_next(_matrix(), n=289, strategy="random")


def test_labels_file_problems(native: Path, tmp_path: Path, capsys) -> None:
    r = run_cli(["label-next", native, "--labels", tmp_path / "none.csv"], capsys)
    assert_usage_error(r, "label-next", "--labels", "no such file")
    bad = tmp_path / "bad.csv"
    bad.write_text("question,gold\nq1,A\n", encoding="utf-8")
    r = run_cli(["label-next", native, "--labels", bad], capsys)
    assert_usage_error(r, "label-next", "needs the columns item and label", "question, gold")
    off = tmp_path / "off.csv"
    off.write_text("item,label\nq1,E\n", encoding="utf-8")
    r = run_cli(["label-next", native, "--labels", off], capsys)
    assert_usage_error(r, "label-next", f"--labels {off}: column 'label' has value 'E' in "
                       "line 2 (item 'q1', whose options are A|B|C|D)")


@pytest.mark.parametrize(("y", "fragment"), [
    (np.r_[np.zeros(299), 2.0], "y of choose_with_labels must be +1, -1, or 0/NaN"),
    (np.zeros(10), "one gold entry per item (300 items); got 10 entries"),
])
def test_binary_gold_values(y, fragment) -> None:
    X = family_pool(6, N_ITEMS, family_size=2, random_state=0).X
    with pytest.raises(EnselError) as info:
        choose_with_labels(X, y, k=2)
    assert fragment in str(info.value)


def test_parameters_are_declared() -> None:
    X = family_pool(6, N_ITEMS, family_size=2, random_state=0).X
    y = np.zeros(N_ITEMS)
    y[:5] = 1
    with pytest.raises(EnselError, match="strategy of label_next must be one of"):
        label_next(X, y, 3, strategy="best")
    with pytest.raises(EnselError, match="k of choose_with_labels must be at most the number "
                                         "of models \\(6\\)"):
        choose_with_labels(X, y, k=7)
    with pytest.raises(EnselError, match="method of choose_with_labels must be a selector of "
                                         "option labels"):
        choose_with_labels(_matrix(), k=2, method="mrmr")
