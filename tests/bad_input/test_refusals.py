"""Importers and the collector refuse what they cannot read (issue 28, items 2 and 4).

Each case asserts exit code 2 and one line naming the one file, record, key or parameter at
fault, or the correct result: letters in any case, saved index columns, two gold columns,
Excel's ``sep=`` line, UTF-16 files, symbolic link loops, lm-eval results that are not an
object; collection configs with a repeated key, per-model settings for unknown models, a
missing local file, ``n_queries`` beyond the file, a pasted API key (never echoed); exports of
an unknown dataset; the simulator's port and fault rate; closed pipes; unknown options.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from .conftest import REPO, assert_usage_error, run_cli, run_subprocess

DATA = REPO / "tests" / "data"
WIDE = "item,gold,m1,m2,m3\nq1,A,A,B,A\nq2,B,B,B,C\nq3,C,A,C,C\nq4,D,D,D,A\n"


def _imported(tmp_path: Path, capsys, text: str, *extra: str, name: str = "w.csv"):
    src = tmp_path / name
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "out.parquet"
    r = run_cli(["import", "wide", src, "-o", out, *extra], capsys)
    return r, (pd.read_parquet(out) if r.code == 0 else None)


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))


# --------------------------------------------------------------------------- wide matrices
@pytest.mark.parametrize("case", ["lower", "mixed", "lower gold"])
def test_wide_letters_are_matched_in_any_case(tmp_path, capsys, case) -> None:
    _, upper = _imported(tmp_path, capsys, WIDE)
    lines = WIDE.splitlines()
    if case == "lower":
        text = "\n".join([lines[0], *[ln.split(",", 2)[0] + "," + ln.split(",", 2)[1] + ","
                                      + ln.split(",", 2)[2].lower() for ln in lines[1:]]])
    elif case == "mixed":
        text = WIDE.replace(",B,B,C", ",b,B,c").replace(",D,D,A", ",D,d,a")
    else:
        text = "\n".join([lines[0], *[",".join(c.lower() if i == 1 else c
                                               for i, c in enumerate(ln.split(",")))
                                      for ln in lines[1:]]])
    (tmp_path / "out.parquet").unlink()
    r, got = _imported(tmp_path, capsys, text + "\n")
    assert r.code == 0, r.err
    _same(got, upper)


def test_wide_letters_outside_the_options_are_refused_by_value(tmp_path, capsys) -> None:
    r, _ = _imported(tmp_path, capsys, WIDE.replace("q2,B,B,B,C", "q2,B,B,B,e"), "--options",
                     "A,B,C,D")
    assert_usage_error(r, "import", "line 3", "'m3'", "'E'", "not one of the options")


@pytest.mark.parametrize("header", ["Unnamed: 0", ""])
def test_a_saved_index_column_is_dropped_with_a_notice(tmp_path, capsys, caplog,
                                                      header) -> None:
    _, plain = _imported(tmp_path, capsys, WIDE)
    (tmp_path / "out.parquet").unlink()
    lines = WIDE.splitlines()
    text = "\n".join([f"{header}," + lines[0]] + [f"{i},{ln}" for i, ln in
                                                  enumerate(lines[1:])]) + "\n"
    r, got = _imported(tmp_path, capsys, text)
    assert r.code == 0, r.err
    _same(got, plain)
    assert "saved row index" in caplog.text and "dropped" in caplog.text
    assert sorted(got["model"].unique()) == ["m1", "m2", "m3"]


@pytest.mark.parametrize("second", ["label", "target", "correct_answer"])
def test_two_gold_columns_are_refused(tmp_path, capsys, second) -> None:
    text = WIDE.replace("item,gold,", f"item,gold,{second},").replace("\nq1,A,", "\nq1,A,A,")
    text = text.replace("\nq2,B,", "\nq2,B,B,").replace("\nq3,C,", "\nq3,C,C,")
    text = text.replace("\nq4,D,", "\nq4,D,D,")
    r, _ = _imported(tmp_path, capsys, text)
    assert_usage_error(r, "import", "w.csv", "'gold'", f"'{second}'", "--gold")


def test_naming_the_gold_column_reads_the_other_as_a_model(tmp_path, capsys) -> None:
    text = WIDE.replace("item,gold,", "item,gold,label,").replace("\nq1,A,", "\nq1,A,A,")
    text = text.replace("\nq2,B,", "\nq2,B,B,").replace("\nq3,C,", "\nq3,C,A,")
    text = text.replace("\nq4,D,", "\nq4,D,D,")
    r, got = _imported(tmp_path, capsys, text, "--gold", "gold")
    assert r.code == 0, r.err
    assert sorted(got["model"].unique()) == ["label", "m1", "m2", "m3"]


@pytest.mark.parametrize("hint", ["sep=,", "sep=;", "SEP=,"])
@pytest.mark.parametrize("command", ["import", "select"])
def test_excels_separator_line_is_named(tmp_path, capsys, hint, command) -> None:
    src = tmp_path / "w.csv"
    src.write_text(f"{hint}\n{WIDE}", encoding="utf-8")
    argv = (["import", "wide", src, "-o", tmp_path / "o.parquet"] if command == "import"
            else ["select", src, "-k", "2"])
    r = run_cli(argv, capsys)
    assert_usage_error(r, command, "w.csv, line 1", "separator hint", "delete that first line")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
@pytest.mark.parametrize("command", ["import wide", "import auto", "select"])
def test_utf16_files_get_a_message_saying_what_to_do(tmp_path, capsys, encoding,
                                                     command) -> None:
    src = tmp_path / "w.csv"
    text = WIDE if encoding == "utf-16" else "\ufeff" + WIDE
    src.write_bytes(text.encode(encoding))
    words = command.split()
    argv = ([*words, src, "-o", tmp_path / "o.parquet"] if words[0] == "import"
            else ["select", src, "-k", "2"])
    r = run_cli(argv, capsys)
    assert_usage_error(r, words[0], "w.csv", "UTF-16", "CSV UTF-8")


@pytest.mark.parametrize("where", ["import input", "select input", "evaluate input",
                                   "import -o"])
def test_a_symbolic_link_loop_is_named(tmp_path, capsys, where) -> None:
    loop = tmp_path / "loop.csv"
    loop.symlink_to(loop)
    good = tmp_path / "w.csv"
    good.write_text(WIDE, encoding="utf-8")
    argv = {"import input": ["import", "wide", loop, "-o", tmp_path / "o.parquet"],
            "select input": ["select", loop, "-k", "2"],
            "evaluate input": ["evaluate", loop, "-o", tmp_path / "r.html"],
            "import -o": ["import", "wide", good, "-o", loop]}[where]
    r = run_cli(argv, capsys)
    line = assert_usage_error(r, where.split()[0], "loop.csv", "symbolic link loop")
    assert "w.csv" not in line  # the one file at fault, not every input


# --------------------------------------------------------------------------- MMLU-Pro outputs
def _mmlu_pro(tmp_path: Path, pred_of) -> Path:
    src = next((DATA / "mmlu_pro" / "my-model").glob("*.json"))
    records = json.loads(src.read_text(encoding="utf-8"))
    for i, rec in enumerate(records):
        rec["pred"] = pred_of(i, rec["pred"])
    folder = tmp_path / "my-model"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / src.name).write_text(json.dumps(records), encoding="utf-8")
    return folder / src.name


@pytest.mark.parametrize("change", [str.lower, lambda p: f" {p.lower()} "])
def test_mmlu_pro_preds_are_read_in_any_case(tmp_path, capsys, change) -> None:
    upper = _mmlu_pro(tmp_path / "u", lambda i, p: p)
    other = _mmlu_pro(tmp_path / "l", lambda i, p: p if p is None else change(p))
    r1 = run_cli(["import", "mmlu-pro", upper, "-o", tmp_path / "u.parquet"], capsys)
    r2 = run_cli(["import", "mmlu-pro", other, "-o", tmp_path / "l.parquet"], capsys)
    assert r1.code == r2.code == 0, r2.err
    _same(pd.read_parquet(tmp_path / "l.parquet"), pd.read_parquet(tmp_path / "u.parquet"))


@pytest.mark.parametrize("bad", ["Z", "AB", "1", "answer: B"])
def test_mmlu_pro_pred_that_is_no_option_letter_is_refused(tmp_path, capsys, bad) -> None:
    src = _mmlu_pro(tmp_path, lambda i, p: bad if i == 1 else p)
    r = run_cli(["import", "mmlu-pro", src, "-o", tmp_path / "o.parquet"], capsys)
    assert_usage_error(r, "import", src.name, "record", repr(bad), "option letters")
    assert not (tmp_path / "o.parquet").exists()


# --------------------------------------------------------------------------- lm-eval results
@pytest.mark.parametrize(("content", "what"), [("[1, 2]", "JSON list"), ('"x"', "JSON str"),
                                               ('{"config": [1]}', "'config'")])
def test_lm_eval_results_that_are_not_an_object_are_named(tmp_path, capsys, content,
                                                          what) -> None:
    folder = tmp_path / "run"
    shutil.copytree(DATA / "lm_eval" / "Qwen__Qwen2.5-0.5B", folder)
    results = next(folder.glob("results_*.json"))
    results.write_text(content, encoding="utf-8")
    samples = next(folder.glob("samples_*.jsonl"))
    r = run_cli(["import", "lm-eval", samples, "-o", tmp_path / "o.parquet"], capsys)
    assert_usage_error(r, "import", results.name, what)


# --------------------------------------------------------------------------- collection configs
def _config(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "run.yml"
    p.write_text(text, encoding="utf-8")
    return p


BASE = """\
endpoint:
  base_url: http://127.0.0.1:1/v1
  api_key_env: null
datasets:
  imdb:
    source: imdb
    n_queries: 4
    path: imdb.parquet
    models:
      gpt: openai/gpt-4o-mini
      llama: meta/llama-3-8b
"""


@pytest.fixture
def imdb_file(tmp_path: Path) -> Path:
    from ensel.collect.testing import write_fixture

    return write_fixture("imdb", tmp_path / "imdb.parquet", n=10)


def test_a_valid_config_estimates(tmp_path, capsys, imdb_file) -> None:
    r = run_cli(["collect", "estimate", _config(tmp_path, BASE), "--json"], capsys)
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["total_requests"] == 2 * 4 * 6  # 2 models, 4 queries, 3 temperatures x 2 runs
    assert {row["chars_from"] for row in doc["rows"]} == {"queries"}


@pytest.mark.parametrize(("text", "key", "line"), [
    (BASE + "seed: 1\nseed: 2\n", "'seed'", "line 13: the key 'seed' is given twice in one "
     "mapping (first on line 12)"),
    (BASE.replace("      llama: meta/llama-3-8b\n",
                  "      llama: meta/llama-3-8b\n      gpt: other/x\n"), "'gpt'", "line 12"),
    (BASE.replace("  api_key_env: null\n", "  api_key_env: null\n  timeout_s: 5\n"
                  "  timeout_s: 9\n"), "'timeout_s'", "line 5"),
    (BASE + "runs: 1\nruns: 1\n", "'runs'", "line 13"),
])
def test_a_key_given_twice_is_refused_with_its_line(tmp_path, capsys, imdb_file, text, key,
                                                    line) -> None:
    r = run_cli(["collect", "estimate", _config(tmp_path, text)], capsys)
    assert_usage_error(r, "collect", "run.yml", key, line, "given twice")


@pytest.mark.parametrize(("extra", "fragment"), [
    ("requests_per_minute:\n  openai/gpt-4o-mni: 100\n", "did you mean 'openai/gpt-4o-mini'"),
    ("requests_per_minute:\n  default: 100\n  meta/llama-3-8: 5\n",
     "did you mean 'meta/llama-3-8b'"),
    ("prices:\n  as_of: '2025-01'\n  per_million_tokens:\n    openai/gpt4o-mini: [1, 2]\n",
     "did you mean 'openai/gpt-4o-mini'"),
    ("requests_per_minute:\n  zzz: 100\n", "model ids: meta/llama-3-8b, openai/gpt-4o-mini"),
])
def test_per_model_settings_for_unknown_models_are_refused(tmp_path, capsys, imdb_file, extra,
                                                           fragment) -> None:
    r = run_cli(["collect", "estimate", _config(tmp_path, BASE + extra)], capsys)
    assert_usage_error(r, "collect", "run.yml", "no dataset lists", fragment)


def test_a_missing_local_query_file_is_refused(tmp_path, capsys) -> None:
    r = run_cli(["collect", "estimate", _config(tmp_path, BASE)], capsys)
    assert_usage_error(r, "collect", "run.yml", "datasets.imdb.path", "imdb.parquet",
                       "no such file")


@pytest.mark.parametrize("n", [12, 400])
def test_n_queries_beyond_the_local_file_is_refused_in_estimate(tmp_path, capsys, imdb_file,
                                                                n) -> None:
    text = BASE.replace("n_queries: 4", f"n_queries: {n}")
    r = run_cli(["collect", "estimate", _config(tmp_path, text)], capsys)
    assert_usage_error(r, "collect", "run.yml", "datasets.imdb", "n_queries", "at most")


# made-up keys, assembled here so no key-shaped literal sits in the repository
KEYS = ["sk-or-v1-" + "0123456789abcdef" * 2, "sk-proj-" + "AbCdEf0123456789",
        "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345", "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6",
        "my key with spaces"]


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("action", ["estimate", "run"])
def test_a_pasted_key_is_refused_and_never_echoed(tmp_path, capsys, imdb_file, key,
                                                  action) -> None:
    text = BASE.replace("api_key_env: null", f"api_key_env: '{key}'")
    r = run_cli(["collect", action, _config(tmp_path, text)], capsys)
    assert_usage_error(r, "collect", "run.yml", "api_key_env", "not shown")
    assert key not in r.err and key not in r.out
    assert key[:8] not in r.err


def test_a_variable_name_in_api_key_env_is_accepted(tmp_path, capsys, imdb_file) -> None:
    text = BASE.replace("api_key_env: null", "api_key_env: MY_LAB_KEY_2")
    assert run_cli(["collect", "estimate", _config(tmp_path, text)], capsys).code == 0


# --------------------------------------------------------------------------- export, simulate
def test_export_of_an_unknown_dataset_is_refused(tmp_path, capsys) -> None:
    from ensel.collect.store import Store

    store = tmp_path / "s.sqlite"
    with Store(store):
        pass
    out = tmp_path / "o.parquet"
    r = run_cli(["collect", "export", store, "-o", out, "--dataset", "nope"], capsys)
    assert_usage_error(r, "collect", "'nope'", "s.sqlite")
    assert not out.exists()


@pytest.mark.parametrize(("option", "value", "fragment"), [
    ("--port", "99999", "[0, 65535]"), ("--port", "-1", "[0, 65535]"),
    ("--port", "http", "[0, 65535]"), ("--fault-rate", "2", "[0, 0.1429]"),
    ("--fault-rate", "-0.1", "[0, 0.1429]"), ("--fault-rate", "nan", "[0, 0.1429]"),
    ("--fault-rate", "0.2", "together they are at most 1"),
])
def test_simulate_options_are_range_checked(tmp_path, capsys, option, value, fragment) -> None:
    r = run_cli(["collect", "simulate", _config(tmp_path, BASE), option, value], capsys)
    line = assert_usage_error(r, "collect", option, fragment, value)
    assert "http://" not in r.out and line


def test_simulate_on_a_port_in_use_prints_no_url(tmp_path, imdb_file) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = run_subprocess(["collect", "simulate", _config(tmp_path, BASE), "--port", port,
                            "--seconds", "1"])
    assert_usage_error(r, "collect", f"port {port}", "cannot serve")
    assert r.out == ""


# --------------------------------------------------------------------------- pipes, prefixes
@pytest.mark.parametrize("argv", [["collect", "estimate", "paper"], ["datasets", "list"],
                                  ["notebooks", "list"]])
def test_a_closed_pipe_exits_quietly(argv) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "ensel", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    err = proc.stderr.read().decode()
    assert proc.wait(120) == 0, err
    assert "Broken pipe" not in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [
    ["collect", "estimate", "paper", "--bogus"], ["datasets", "list", "--bogus"],
    ["select", "tests/data/wide_mc.csv", "-k", "2", "--bogus"],
    ["import", "wide", "tests/data/wide_mc.csv", "-o", "x.parquet", "--bogus"],
    ["evaluate", "tests/data/wide_mc.csv", "-o", "x.html", "--bogus"],
])
def test_unknown_options_carry_the_commands_prefix(capsys, argv) -> None:
    r = run_cli(argv, capsys)
    assert_usage_error(r, argv[0], "unrecognized arguments: --bogus")


def test_the_config_loader_is_yaml_safe(tmp_path) -> None:
    from ensel.collect.config import ConfigError, load_config

    p = _config(tmp_path, BASE + "seed: !!python/object/apply:os.getcwd []\n")
    with pytest.raises((ConfigError, yaml.YAMLError)):
        load_config(p)


# --------------------------------------------------------------------------- evaluate, early
ONE_MODEL = "item,model,answer,label\n" + "".join(
    f"q{i},a,{1 if i % 3 else -1},{1 if i % 2 else -1}\n" for i in range(10))
ONE_CLASS = "item,model,answer,label\n" + "".join(
    f"q{i},{m},{1 if (i + j) % 3 else -1},1\n" for i in range(10) for j, m in enumerate("ab"))
FEW_ITEMS = "item,model,answer,label\nq1,a,1,1\nq1,b,1,1\nq2,a,-1,-1\nq2,b,1,-1\n"


@pytest.mark.parametrize(("text", "fragments"), [
    (ONE_MODEL, ("needs at least 2 models", "('a')")),
    (ONE_CLASS, ("only one label class",)),
    (FEW_ITEMS, ("fewer than the 5 needed",)),
])
def test_evaluate_refuses_before_the_page_as_select_does(tmp_path, capsys, text,
                                                         fragments) -> None:
    src = tmp_path / "t.csv"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "r.html"
    r = run_cli(["evaluate", src, "-o", out], capsys)
    line = assert_usage_error(r, "evaluate", *fragments)
    assert "executing" not in r.err and "ipynb" not in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]
    if text is not ONE_MODEL:
        s = run_cli(["select", src, "-k", "1"], capsys)
        assert assert_usage_error(s, "select").split("error: ", 1)[1] == line.split("error: ", 1)[1]


@pytest.mark.parametrize("value", ["1", "0", "x"])
def test_evaluate_splits_as_select(tmp_path, capsys, value) -> None:
    src = tmp_path / "t.csv"
    src.write_text(ONE_CLASS, encoding="utf-8")
    r = run_cli(["evaluate", src, "-o", tmp_path / "r.html", "--splits", value], capsys)
    assert_usage_error(r, "evaluate", "--splits must be an integer >= 2", value)
    s = run_cli(["select", src, "-k", "1", "--splits", value], capsys)
    assert_usage_error(s, "select", "--splits must be an integer >= 2", value)
