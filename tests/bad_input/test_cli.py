"""Bad input at the command line: arguments, output paths, environment, data files.

Every case asserts exit code 2 and one line ``ensel <command>: error:`` naming the option,
file or value at fault (never a traceback), or the correct result.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ensel.data import to_long

from .conftest import REPO, assert_usage_error, run_cli, run_subprocess

DATA = REPO / "tests" / "data"


def _pool(tmp_path: Path, name: str = "pool.csv", *, m: int = 3, n: int = 60,
          seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    y = np.resize([1, -1], n)
    X = np.where(rng.random((n, m)) < np.linspace(0.9, 0.6, m), y[:, None], -y[:, None])
    path = tmp_path / name
    df = to_long(X, y, models=[f"model-{j}" for j in range(m)])
    if name.endswith(".parquet"):
        df.to_parquet(path, index=False)
    else:
        df.to_csv(path, index=False)
    return path


@pytest.fixture
def pool(tmp_path: Path) -> Path:
    return _pool(tmp_path)


# --------------------------------------------------------------------------- the tree
def test_version(capsys) -> None:
    from importlib.metadata import version

    r = run_cli(["--version"], capsys)
    assert r.code == 0 and r.out.strip() == f"ensel {version('ensel')}"


def test_python_m_ensel_version_and_error() -> None:
    r = run_subprocess(["--version"])
    assert r.code == 0 and r.out.startswith("ensel ")
    r = run_subprocess(["select", "medmcqa", "-k", "2", "--seed", "-5"])
    assert_usage_error(r, "select", "--seed must be a non-negative integer; got -5")


def test_no_command_prints_help(capsys) -> None:
    r = run_cli([], capsys)
    assert r.code == 0 and "select" in r.out and "notebooks" in r.out


def test_unknown_command(capsys) -> None:
    r = run_cli(["bogus"], capsys)
    assert r.code == 2 and "ensel: error:" in r.err and "'bogus'" in r.err
    assert "Traceback" not in r.err and "rest" not in r.err


# --------------------------------------------------------------------------- select arguments
@pytest.mark.parametrize(("args", "fragments"), [
    (["--seed", "-5"], ["--seed must be a non-negative integer; got -5"]),
    (["--seed", "x"], ["--seed must be a non-negative integer; got x"]),
    (["-k", "0"], ["-k must be a positive integer or 'auto'; got '0'"]),
    (["-k", "two"], ["-k must be a positive integer or 'auto'; got 'two'"]),
    (["--splits", "1"], ["--splits must be an integer >= 2; got 1"]),
    (["--halvings", "1"], ["--halvings must be 0 or an integer >= 2; got 1"]),
    (["--max-k", "0"], ["--max-k must be a positive integer; got 0"]),
    (["--jobs", "0"], ["--jobs must be a positive integer; got 0"]),
    (["--jobs", "two"], ["--jobs must be a positive integer; got two"]),
    (["--method", "greedy"], ["--method must be one of", "greedy_mi", "'greedy'"]),
    (["--aggregator", "median"], ["--aggregator", "'median'"]),
    (["--format", "xml"], ["--format", "'xml'"]),
])
def test_select_bad_arguments(capsys, pool, args, fragments) -> None:
    argv = ["select", str(pool), "-k", "2", *args]
    if "-k" in args:
        argv = ["select", str(pool), *args]
    assert_usage_error(run_cli(argv, capsys), "select", *fragments)


def test_select_k_larger_than_the_pool(capsys, pool) -> None:
    assert_usage_error(run_cli(["select", str(pool), "-k", "4"], capsys), "select",
                       "-k 4 is larger than the pool: the data has 3 model(s)", pool.name)


def test_select_unknown_condition(capsys, pool) -> None:
    assert_usage_error(run_cli(["select", str(pool), "-k", "2", "--condition", "t9"],
                               capsys),
                       "select", "--condition: unknown condition 't9'", "all")


def test_select_dataset_name_typo(capsys) -> None:
    assert_usage_error(run_cli(["select", "mmlu-pro", "-k", "2"], capsys), "select",
                       "unknown dataset 'mmlu-pro' (did you mean 'mmlu_pro'?); known:", "medmcqa")


def test_select_missing_file(capsys, tmp_path) -> None:
    assert_usage_error(run_cli(["select", str(tmp_path / "nope.csv"), "-k", "2"], capsys),
                       "select", "nope.csv")


def test_select_directory(capsys, tmp_path) -> None:
    r = run_cli(["select", str(tmp_path), "-k", "2"], capsys)
    assert_usage_error(r, "select", tmp_path.name)


def test_select_exhaustive_beyond_its_limit(capsys, tmp_path) -> None:
    path = _pool(tmp_path, m=16, n=40)
    assert_usage_error(run_cli(["select", str(path), "-k", "2", "--method", "exhaustive"],
                               capsys),
                       "select", "--method exhaustive", "at most 15 models", "has 16")


def test_select_all_blank_answers_is_an_error_not_picks(capsys, tmp_path) -> None:
    path = tmp_path / "blank.csv"
    rows = [f"{i},{m},,{1 if i % 2 else -1}" for i in range(20) for m in ("a", "b")]
    path.write_text("item,model,answer,label\n" + "\n".join(rows) + "\n")
    r = run_cli(["select", str(path), "-k", "1"], capsys)
    assert_usage_error(r, "select", "blank.csv", "blank")
    assert r.out == ""


def test_select_one_label_class(capsys, tmp_path) -> None:
    path = tmp_path / "one.csv"
    rows = [f"{i},{m},1,1" for i in range(20) for m in ("a", "b")]
    path.write_text("item,model,answer,label\n" + "\n".join(rows) + "\n")
    assert_usage_error(run_cli(["select", str(path), "-k", "1"], capsys), "select",
                       "one.csv", "one label class")


def test_select_model_without_answers_in_the_condition_is_dropped(capsys, tmp_path,
                                                                  caplog) -> None:
    path = _pool(tmp_path, m=3, n=60)
    df = pd.read_csv(path)
    df.loc[df["model"] == "model-0", "answer"] = np.nan  # the best model: all blank
    df.to_csv(path, index=False)
    with caplog.at_level("WARNING", logger="ensel"):
        r = run_cli(["select", str(path), "-k", "2", "--splits", "2", "--halvings", "0",
                     "--json"], capsys)
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["dropped_models"] == ["model-0"] and doc["n_models"] == 2
    assert "model-0" not in [s["model"] for s in doc["selected"]]
    assert "dropped" in caplog.text


# --------------------------------------------------------------------------- files
def test_truncated_gzip(capsys, tmp_path) -> None:
    path = tmp_path / "t.csv.gz"
    path.write_bytes(gzip.compress(b"item,model,answer,label\n1,a,1,1\n" * 50)[:30])
    assert_usage_error(run_cli(["select", str(path), "-k", "1"], capsys), "select", "t.csv.gz")


def test_plain_file_named_gz(capsys, tmp_path) -> None:
    path = tmp_path / "p.csv.gz"
    path.write_text("item,model,answer,label\n1,a,1,1\n")
    assert_usage_error(run_cli(["select", str(path), "-k", "1"], capsys), "select", "p.csv.gz")


def test_not_utf8(capsys, tmp_path) -> None:
    path = tmp_path / "latin.csv"
    path.write_bytes("item,model,answer,label\n1,caf\u00e9,1,1\n".encode("latin-1"))
    assert_usage_error(run_cli(["select", str(path), "-k", "1"], capsys), "select",
                       "latin.csv", "UTF-8")


def test_ensel_data_dir_is_a_file(capsys, monkeypatch, tmp_path) -> None:
    f = tmp_path / "afile"
    f.write_text("x")
    monkeypatch.setenv("ENSEL_DATA_DIR", str(f))
    assert_usage_error(run_cli(["select", "mmlu_pro", "-k", "2"], capsys), "select",
                       f"ENSEL_DATA_DIR={f} is a file")


# --------------------------------------------------------------------------- outputs
def test_import_refuses_to_overwrite_its_input(capsys, tmp_path) -> None:
    src = tmp_path / "w.csv"
    src.write_bytes((DATA / "wide_mc.csv").read_bytes())
    before = src.read_bytes()
    for extra in ([], ["--force"]):
        r = run_cli(["import", "wide", str(src), "-o", str(src), *extra], capsys)
        assert_usage_error(r, "import", "w.csv", "is also an input")
    assert src.read_bytes() == before


def test_import_refuses_an_existing_file_without_force(capsys, tmp_path) -> None:
    out = tmp_path / "tidy.csv"
    out.write_text("keep me")
    r = run_cli(["import", "wide", str(DATA / "wide_mc.csv"), "-o", str(out)], capsys)
    assert_usage_error(r, "import", "tidy.csv", "exists", "--force")
    assert out.read_text() == "keep me"
    r = run_cli(["import", "wide", str(DATA / "wide_mc.csv"), "-o", str(out), "--force"],
                capsys)
    assert r.code == 0, r.err
    assert list(pd.read_csv(out).columns) == ["item", "model", "condition", "answer", "label"]


@pytest.mark.parametrize("folder", ["book", "_build", "notebooks"])
def test_import_never_writes_into_the_book_folders(capsys, folder) -> None:
    out = REPO / folder / "x_engine_test.parquet"
    r = run_cli(["import", "wide", str(DATA / "wide_mc.csv"), "-o", str(out)], capsys)
    assert_usage_error(r, "import", "refusing to write into", folder)
    assert not out.exists()


def test_import_output_suffix(capsys, tmp_path) -> None:
    r = run_cli(["import", "wide", str(DATA / "wide_mc.csv"), "-o", str(tmp_path / "x.txt")],
                capsys)
    assert_usage_error(r, "import", "x.txt", ".parquet")


def test_import_unknown_format(capsys, tmp_path) -> None:
    r = run_cli(["import", "xml", str(DATA / "wide_mc.csv"), "-o", str(tmp_path / "x.csv")],
                capsys)
    assert_usage_error(r, "import", "'xml'")


def test_evaluate_refuses_an_existing_notebook_beside_the_report(capsys, tmp_path,
                                                                 pool) -> None:
    (tmp_path / "report.ipynb").write_text("{}")
    r = run_cli(["evaluate", str(pool), "-o", str(tmp_path / "report.html")], capsys)
    assert_usage_error(r, "evaluate", "report.ipynb", "exists", "--force")
    assert (tmp_path / "report.ipynb").read_text() == "{}"


@pytest.mark.parametrize("folder", ["_build/html", "book", "notebooks"])
def test_evaluate_never_writes_into_the_book_folders(capsys, pool, folder) -> None:
    out = REPO / folder / "r_engine_test.html"
    r = run_cli(["evaluate", str(pool), "-o", str(out)], capsys)
    assert_usage_error(r, "evaluate", "refusing to write into")
    assert not out.exists()


def test_evaluate_report_must_be_html(capsys, tmp_path, pool) -> None:
    r = run_cli(["evaluate", str(pool), "-o", str(tmp_path / "r.pdf")], capsys)
    assert_usage_error(r, "evaluate", "r.pdf", ".html")


@pytest.mark.parametrize(("ks", "fragment"), [("1-x", "--ks must be"), ("0,1", "--ks must be"),
                                              ("1-9", "k=9 but the data has 3 model(s)")])
def test_evaluate_bad_budgets(capsys, tmp_path, pool, ks, fragment) -> None:
    r = run_cli(["evaluate", str(pool), "-o", str(tmp_path / "r.html"), "--ks", ks], capsys)
    assert_usage_error(r, "evaluate", fragment)


@pytest.mark.parametrize("jobs", ["0", "-1", "x"])
def test_evaluate_bad_jobs(capsys, tmp_path, pool, jobs) -> None:
    r = run_cli(["evaluate", str(pool), "-o", str(tmp_path / "r.html"), "--jobs", jobs], capsys)
    assert_usage_error(r, "evaluate", f"--jobs must be a positive integer; got {jobs}")
    assert not (tmp_path / "r.html").exists()


def test_evaluate_default_budgets_are_capped() -> None:
    from ensel.cli.evaluate import default_ks

    assert default_ks(2, 10) == [1, 2] and default_ks(20, 100)[-1] == 20
    assert default_ks(1000, 16_000) == list(range(1, 14))  # 2^13 <= 16,000 training items
    assert default_ks(63, 10**9)[-1] == 20


# --------------------------------------------------------------------------- other commands
@pytest.mark.parametrize(("argv", "fragments"), [
    (["notebooks", "run", "experiments", "-p", "n_splits=[1"], ["-p", "not valid YAML"]),
    (["notebooks", "run", "experiments", "-p", "nokey"], ["-p 'nokey'", "name=value"]),
    (["notebooks", "run", "experiments", "-p", "bogus=1"], ["no parameter 'bogus'"]),
    (["notebooks", "run", "nonesuch"], ["no run of notebook 'nonesuch'"]),
    (["datasets", "fetch", "mmlu-pro"], ["unknown dataset 'mmlu-pro' (did you mean 'mmlu_pro'?)",
                                         "known:"]),
    (["collect", "export", "no-store.sqlite", "-o", "x.parquet"], ["no store at"]),
    (["collect", "estimate", "no-config.yml"], ["no-config.yml"]),
    (["collect", "estimate", "papr"], ["papr: no such configuration file",
                                       "name of a shipped one: paper"]),
    (["collect", "status", "no-store.sqlite", "--json"], ["no store at"]),
    (["datasets", "status", "medmcqa", "--json"], ["stand-in", "nothing to download"]),
])
def test_other_commands_one_line(capsys, argv, fragments) -> None:
    assert_usage_error(run_cli(argv, capsys), argv[0], *fragments)


def test_subcommand_argument_error_has_the_command_prefix(capsys) -> None:
    r = run_cli(["datasets", "fetch"], capsys)
    assert r.code == 2 and "ensel datasets: error:" in r.err and "Traceback" not in r.err


def test_collect_export_refuses_to_overwrite(capsys, tmp_path) -> None:
    store = tmp_path / "s.sqlite"
    store.write_bytes(b"")
    out = tmp_path / "o.parquet"
    out.write_text("keep")
    r = run_cli(["collect", "export", str(store), "-o", str(out)], capsys)
    assert_usage_error(r, "collect", "o.parquet", "exists", "--force")
    assert out.read_text() == "keep"


def test_broken_pipe_is_quiet(tmp_path, pool) -> None:
    import subprocess

    cmd = (f"{sys.executable} -m ensel select {pool} -k 2 --splits 2 --halvings 0 | head -1")
    res = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True,
                         env={**os.environ}, timeout=300)
    assert res.returncode == 0 and "Traceback" not in res.stderr


def test_exhaustive_with_another_aggregator(capsys, pool) -> None:
    r = run_cli(["select", str(pool), "-k", "2", "--method", "exhaustive", "--aggregator",
                 "mv"], capsys)
    assert_usage_error(r, "select", "--method exhaustive", "--aggregator map only", "'mv'")


def test_evaluate_without_the_notebooks_extra(capsys, monkeypatch, tmp_path, pool) -> None:
    """The core install: one line naming the extra, exit 2, before reading or writing."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "jupytext" else real(name, *a))
    r = run_cli(["evaluate", str(pool), "-o", str(tmp_path / "r.html")], capsys)
    assert_usage_error(r, "evaluate", "jupytext not installed", 'pip install "ensel[notebooks]"')
    assert sorted(p.name for p in tmp_path.iterdir()) == [pool.name]


def test_notebooks_run_outside_a_checkout(capsys, monkeypatch, tmp_path) -> None:
    import ensel._io

    monkeypatch.setattr(ensel._io, "repository_root", lambda: None)
    monkeypatch.chdir(tmp_path)
    for cmd in (["run", "experiments"], ["all", "--test"]):
        r = run_cli(["notebooks", *cmd], capsys)
        assert_usage_error(r, "notebooks", "run this from a checkout or set ENSEL_REPO_ROOT")
    assert list(tmp_path.iterdir()) == []
