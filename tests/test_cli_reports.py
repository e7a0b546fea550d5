"""``--json`` on every reporting command, progress on stderr only, and the command line
outside a checkout (the shipped ``runs.yml`` and collection config)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ensel.cli import main


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    code = main(argv)
    out = capsys.readouterr()
    assert code in (0, 1), out.err
    return json.loads(out.out)  # stdout holds the one document and nothing else


def test_datasets_list_json(capsys) -> None:
    doc = _json(["datasets", "list", "--json"], capsys)
    assert doc["schema"] == "ensel.datasets.list/1"
    from ensel.datasets import available

    assert [d["name"] for d in doc["datasets"]] == list(available()["name"])
    kinds = {d["name"]: (d["kind"], d["available"], d["how"]) for d in doc["datasets"]}
    assert kinds["medmcqa"] == ("stand-in", True, "generated locally")
    assert kinds["mmlu_pro"][0] == "real"


def test_datasets_status_json_matches_the_text(capsys, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(tmp_path / "empty-mirror"))
    monkeypatch.setenv("ENSEL_DATA_DIR", str(tmp_path / "cache"))
    doc = _json(["datasets", "status", "mmlu_pro", "--json"], capsys)
    assert doc["schema"] == "ensel.datasets.status/1" and doc["dataset"] == "mmlu_pro"
    assert doc["total"] == len(doc["files"]) > 0 and doc["available"] == 0
    assert all(f["location"] is None and len(f["sha256"]) == 64 for f in doc["files"])
    assert main(["datasets", "status", "mmlu_pro"]) == 1  # files missing: exit 1 either way
    text = capsys.readouterr().out
    assert f"0/{doc['total']} files available" in text


def test_collect_estimate_json_on_the_shipped_config(capsys) -> None:
    doc = _json(["collect", "estimate", "paper", "--json"], capsys)
    assert doc["schema"] == "ensel.collect.estimate/1"
    assert doc["total_requests"] == 2_102_352 == sum(r["requests"] for r in doc["rows"])
    assert doc["total_cost_usd"] == pytest.approx(sum(r["cost_usd"] or 0 for r in doc["rows"]))
    assert {r["dataset"] for r in doc["rows"]} == {"medmcqa", "mmlu", "imdb"}
    # the text output gives the same total; the README's path form works too
    assert main(["collect", "estimate", "data/collect/paper.yml"]) == 0
    assert "total: 2,102,352 requests" in capsys.readouterr().out


def test_collect_status_json(capsys, tmp_path) -> None:
    from ensel.collect.store import Store

    store = tmp_path / "answers.sqlite"
    row = {"dataset": "d", "model": "m", "model_id": "org/m", "temperature": 0.7, "run": 1,
           "prompt_hash": "h1", "label": 1, "attempts": 1, "prompt_tokens": 100,
           "completion_tokens": 1}
    with Store(store) as st:
        st.put_many([{**row, "query_id": "q1", "answer": 1},
                     {**row, "query_id": "q2", "answer": 0},
                     {**row, "query_id": "q3", "answer": None, "error_class": "http_500"}])
    doc = _json(["collect", "status", str(store), "--json"], capsys)
    assert doc["schema"] == "ensel.collect.status/1" and doc["store"] == str(store)
    assert doc["totals"] == {"rows": 3, "answered": 2, "abstained": 1, "failed": 1,
                             "cost_usd": None}  # no config: no prices
    (r,) = doc["rows"]
    assert (r["answered"], r["abstention_rate"], r["errors"]) == (2, 0.5, "http_500: 1")


def test_notebooks_list_json(capsys) -> None:
    from ensel.book.runner import load_runs, source_root

    doc = _json(["notebooks", "list", "--json"], capsys)
    assert doc["schema"] == "ensel.notebooks.list/1" and doc["checkout"] is True
    runs = load_runs(source_root() / "notebooks" / "runs.yml")
    assert [r["output"] for r in doc["runs"]] == [r.output for r in runs]
    exp = next(r for r in doc["runs"] if r["output"] == "experiments-medmcqa")
    assert exp["parameters"]["dataset"] == "medmcqa" and exp["notebook"] == "experiments"


def test_notebooks_outside_a_checkout(capsys, monkeypatch, tmp_path) -> None:
    """An installed package used elsewhere: list reads the shipped runs.yml, run says in one
    line that it needs the repository."""
    import ensel._io
    from ensel.datasets._paths import package_data

    monkeypatch.setattr(ensel._io, "repository_root", lambda: None)
    monkeypatch.chdir(tmp_path)
    doc = _json(["notebooks", "list", "--json"], capsys)
    assert doc["checkout"] is False
    assert Path(doc["config"]) == package_data("notebooks", "runs.yml")
    assert main(["notebooks", "run", "experiments"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ensel notebooks: error:")
    assert "ENSEL_REPO_ROOT" in err[0] and "ensel evaluate" in err[0]


def test_collect_shipped_config_store_goes_to_the_current_folder(monkeypatch, tmp_path
                                                                 ) -> None:
    from ensel.collect.cli import _load, config_path

    monkeypatch.chdir(tmp_path)
    path, shipped = config_path("paper")
    assert shipped and path.is_file()
    assert _load("paper").store == tmp_path / "paper-answers.sqlite"
    # a path is used as given, with its store beside it (the config's own rule)
    assert config_path(str(path)) == (path, False)


def test_select_progress_goes_to_stderr_only(capsys, tmp_path) -> None:
    from ensel.datasets import load

    df = load("medmcqa", n_items=80)
    df = df[df["model"].isin(sorted(df["model"].unique())[:4])]
    data = tmp_path / "pool.parquet"
    df.to_parquet(data, index=False)
    argv = ["select", str(data), "-k", "auto", "--max-k", "3", "--splits", "2",
            "--halvings", "0", "--json"]
    assert main([*argv, "--progress"]) == 0
    with_bar = capsys.readouterr()
    doc = json.loads(with_bar.out)
    assert doc["schema"] == "ensel.select/2"
    # one step per phase: k on all data, held-out errors, 2 nested splits, picks (tqdm
    # redraws at most every 0.1 s, so not every step is drawn)
    assert "ensel select:   0%|" in with_bar.err and "| 0/5 [" in with_bar.err
    assert "nested split" in with_bar.err
    assert main(argv) == 0  # not a terminal: no bar unless asked
    quiet = capsys.readouterr()
    assert json.loads(quiet.out) == doc and "ensel select" not in quiet.err


def test_evaluate_names_the_extra_it_needs(capsys, monkeypatch, tmp_path) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in ("papermill", "myst_nb")
                        else real(name, *a))
    data = tmp_path / "t.csv"
    pd.DataFrame({"item": ["a"], "model": ["m"], "condition": ["c"], "answer": [1],
                  "label": [1]}).to_csv(data, index=False)
    assert main(["evaluate", str(data), "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ensel evaluate: error:")
    assert "papermill, myst_nb not installed" in err[0]
    assert 'pip install "ensel[notebooks]"' in err[0]
    assert not (tmp_path / "r.html").exists()
