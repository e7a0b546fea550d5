"""``--labels FILE`` for ``ensel select``, ``ensel report`` (issue 40, item 3) and ``ensel
label-next``: gold in a separate CSV (columns ``item``, ``label``; blank = none), read and
validated by one reader, added to the table's own gold before the one gold-with-gaps path
runs; the output says where the gold came from. Seeded tables, seconds per command."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ensel.cli import main
from tests.bad_input.conftest import assert_usage_error, run_cli
from tests.test_gold_gaps import N_BIN, _binary
from tests.test_native_cli import N, _table


def _gold(table: pd.DataFrame) -> pd.Series:
    """The gold of every item of a fully labelled tidy table, by item."""
    return table.groupby("item", sort=True)["label"].first()


def _write_labels(path: Path, gold: pd.Series, every: int, start: int = 0) -> Path:
    rows = list(gold.items())[start::every]
    fmt = "{:+d}" if isinstance(rows[0][1], int) else "{}"
    path.write_text("item,label\n" + "".join(f"{i},{fmt.format(v)}\n" for i, v in rows),
                    encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("labelsfile")
    out = {}
    for name, table in (("few", _table(40)), ("none", _table(None)),
                        ("bin_few", _binary(20)), ("bin_none", _binary(None))):
        table.to_csv(tmp / f"{name}.csv", index=False)
        out[name] = str(tmp / f"{name}.csv")
    native, binary = _gold(_table(1)), _gold(_binary(1)).astype(int)
    # every 20th item from 1 on: 20 of 400 items, q001 .. q381, none also in the table's
    # gold (every 40th from 0); every 10th binary item: 60, of which the 30 table ones
    out["labels"] = str(_write_labels(tmp / "labels.csv", native, 20, start=1))
    out["bin_labels"] = str(_write_labels(tmp / "bin_labels.csv", binary, 10))
    out["all_labels"] = str(_write_labels(tmp / "all.csv", native, 1))
    return out


def _json(argv: list[str], capsys) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("which", "labels", "n_table", "n_file", "n_both", "where"), [
    ("few", "labels", N // 40, 20, 0, "both"),
    ("none", "labels", 0, 20, 0, "file"),
    ("bin_few", "bin_labels", N_BIN // 20, N_BIN // 10, N_BIN // 20, "both"),
    ("bin_none", "bin_labels", 0, N_BIN // 10, 0, "file"),
])
def test_select_merges_the_file_into_the_tables_gold(files, capsys, which, labels, n_table,
                                                     n_file, n_both, where) -> None:
    doc = _json(["select", files[which], "-k", "2", "--labels", files[labels]], capsys)
    src = doc["gold"]["source"]
    assert src.pop("words").startswith("gold from: ")
    assert src == {"labels_file": files[labels], "from": where, "n_table": n_table,
                   "n_file": n_file, "n_both": n_both}
    n_gold = n_table + n_file - n_both
    assert doc["gold"]["n_with_gold"] == doc["few_labels"]["n_labels"] == n_gold
    assert main(["select", files[which], "-k", "2", "--labels", files[labels]]) == 0
    text = " ".join(capsys.readouterr().out.split())
    table = f"the table ({n_table} items) and " if n_table else ""
    assert f"gold from: {table}{files[labels]} ({n_file} items" in text
    assert f"gold: {n_gold} of" in text


@pytest.mark.parametrize(("which", "labels", "n_gold"), [
    ("few", "labels", N // 40 + 20), ("bin_few", "bin_labels", N_BIN // 10)])
def test_label_next_merges_the_file_into_the_tables_gold(files, capsys, which, labels,
                                                         n_gold) -> None:
    """``label-next --labels`` once replaced the table's gold with the file's (20 labels
    where ``select`` counted 30); now it adds them as ``select`` and ``report`` do."""
    doc = _json(["label-next", files[which], "-n", "3", "--strategy", "random", "-k", "2",
                 "--labels", files[labels]], capsys)
    assert doc["n_labels"] == n_gold and len(doc["items"]) == 3
    sel = _json(["select", files[which], "-k", "2", "--labels", files[labels]], capsys)
    assert sel["few_labels"]["n_labels"] == n_gold


def test_label_next_takes_the_files_gold_before_the_questions_become_queries(
        files, capsys) -> None:
    """With ``--binary`` the file names the table's questions (10 with gold in the table, 20
    in the file); the binary view keeps the 30 questions with gold, two queries each."""
    r = run_cli(["label-next", files["few"], "--binary", "--labels", files["labels"]],
                capsys)
    assert_usage_error(r, "label-next", f"only 0 of the {2 * (N // 40 + 20)} items have no "
                       "gold label")


def test_the_same_gold_in_the_table_or_in_the_file_gives_the_same_choice(
        files, tmp_path, capsys) -> None:
    """A table whose gold is in a file selects as the table carrying that gold itself."""
    merged = _table(None)
    gold = _gold(_table(1))
    keep = set(list(gold.index)[::20]) | set(list(gold.index)[1::20])
    merged["label"] = [gold[i] if i in keep else "" for i in merged["item"]]
    path = tmp_path / "merged.csv"
    merged.to_csv(path, index=False)
    both = tmp_path / "both.csv"
    both.write_text("item,label\n" + "".join(f"{i},{gold[i]}\n" for i in sorted(keep)),
                    encoding="utf-8")
    a = _json(["select", str(path), "-k", "2"], capsys)
    b = _json(["select", files["none"], "-k", "2", "--labels", str(both)], capsys)
    assert b["gold"].pop("source")["from"] == "file"
    for key in ("selected", "few_labels"):
        assert json.dumps(a[key]).replace(str(path), "DATA") == \
            json.dumps(b[key]).replace(files["none"], "DATA")


def test_full_gold_from_the_file_runs_the_held_out_path(files, capsys) -> None:
    doc = _json(["select", files["none"], "-k", "2", "--labels", files["all_labels"],
                 "--splits", "2", "--halvings", "0", "--jobs", "1"], capsys)
    assert doc["evaluation"] is not None and doc["few_labels"] is None
    assert doc["gold"]["n_with_gold"] == N and doc["gold"]["source"]["from"] == "file"


def test_report_takes_labels_and_says_where_the_gold_came_from(files, tmp_path,
                                                               capsys) -> None:
    out = tmp_path / "r.html"
    assert main(["report", files["bin_none"], "--labels", files["bin_labels"], "-o", str(out),
                 "--jobs", "1"]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert f"gold from: {files['bin_labels']} ({N_BIN // 10} items)" in err
    doc = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert doc["select"]["gold"]["source"]["n_file"] == N_BIN // 10
    assert doc["select"]["few_labels"]["n_labels"] == N_BIN // 10
    html = " ".join(out.read_text(encoding="utf-8").split())
    assert f"Gold from: {files['bin_labels']} ({N_BIN // 10} items)." in html


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("command", ["select", "report", "label-next"])
def test_conflicts_exit_2_naming_the_item(files, tmp_path, capsys, command) -> None:
    gold = _gold(_table(1))
    other = next(c for c in "ABCD" if c != gold["q000"])
    out = {"select": ["-k", "2"], "report": ["-o", str(tmp_path / "r.html")],
           "label-next": ["-n", "3"]}[command]
    cases = [
        (f"item,label\nq001,A\nq999,{gold['q000']}\n", ["--labels", "line 3 has a label for "
                                                         "item 'q999'", "not in the answers",
                                                         "400 items"]),
        ("item,label\nq001,A\nq002,B\nq001,C\n", ["item 'q001' has two different labels",
                                                   "'A' in line 2", "'C' in line 4"]),
        (f"item,label\nq000,{other}\n", ["--labels", "item 'q000' has the gold",
                                          f"'{other}' in the file", f"'{gold['q000']}' in "
                                          "the table"]),
        ("item,label\nq001,E\n", ["column 'label' has value 'E' in line 2 (item 'q001', "
                                  "whose options are A|B|C|D)"]),
    ]
    for i, (text, fragments) in enumerate(cases):
        labels = tmp_path / f"bad{i}.csv"
        labels.write_text(text, encoding="utf-8")
        r = run_cli([command, files["few"], "--labels", str(labels), *out], capsys)
        err = assert_usage_error(r, command, *fragments)
        # the labels file is named, never the answers' (once blamed for its bad values)
        assert f"--labels {labels}: " in err and files["few"] not in err
    # the table's own gold repeated in the file agrees with it: no conflict
    labels = tmp_path / "same.csv"
    labels.write_text(f"item,label\nq000,{gold['q000']}\nq001,\n", encoding="utf-8")
    if command == "select":
        doc = _json(["select", files["few"], "-k", "2", "--labels", str(labels)], capsys)
        assert doc["gold"]["source"].pop("words") == (
            f"gold from: the table ({N // 40} items) and {labels} (1 item, 1 of them also "
            "in the table)")
        assert doc["gold"]["source"] == {"labels_file": str(labels), "from": "both",
                                         "n_table": N // 40, "n_file": 1, "n_both": 1}


def test_binary_conflicts_and_file_problems(files, tmp_path, capsys) -> None:
    gold = _gold(_binary(1)).astype(int)
    labels = tmp_path / "flip.csv"
    labels.write_text(f"item,label\nq000,{-gold['q000']:+d}\n", encoding="utf-8")
    r = run_cli(["select", files["bin_few"], "-k", "2", "--labels", str(labels)], capsys)
    assert_usage_error(r, "select", "item 'q000' has the gold", f"{-gold['q000']:+d} in the "
                       f"file and {gold['q000']:+d} in the table")
    labels.write_text("item,label\nq000,\nq001,2\n", encoding="utf-8")
    for command in ("select", "label-next"):  # one check, naming file, line, column, value
        r = run_cli([command, files["bin_few"], "--labels", str(labels),
                     *(["-k", "2"] if command == "select" else [])], capsys)
        assert_usage_error(r, command, f"--labels {labels}: column 'label' has value '2' in "
                           "line 3 (item 'q001'); expected +1, -1")
    labels.write_text("\x00\x01 not a table", encoding="latin-1")
    r = run_cli(["select", files["bin_few"], "-k", "2", "--labels", str(labels)], capsys)
    assert_usage_error(r, "select", f"--labels {labels}: ")
    r = run_cli(["select", files["bin_few"], "-k", "2", "--labels", tmp_path / "no.csv"],
                capsys)
    assert_usage_error(r, "select", "--labels", "no such file")
    labels.write_text("question,gold\nq1,A\n", encoding="utf-8")
    r = run_cli(["select", files["bin_few"], "-k", "2", "--labels", str(labels)], capsys)
    assert_usage_error(r, "select", "needs the columns item and label", "question, gold")
    r = run_cli(["select", files["bin_few"], "--budget-usd", "1", "--prices", "tidy",
                 "--labels", files["bin_labels"]], capsys)
    assert_usage_error(r, "select", "--labels applies without prices")


def test_binary_view_takes_the_files_gold_before_the_questions_become_queries(
        files, capsys) -> None:
    """The file names the table's questions; ``--binary`` turns them into queries after."""
    doc = _json(["select", files["none"], "-k", "2", "--binary", "--labels",
                 files["all_labels"], "--splits", "2", "--halvings", "0", "--jobs", "1"],
                capsys)
    assert doc["view"] == "binary" and doc["n_items"] == 2 * N
    assert doc["gold"]["source"]["n_file"] == N and doc["evaluation"] is not None
