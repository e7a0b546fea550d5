"""``ensel collect`` on the command line: estimate, simulate, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from ensel.cli import main as ensel_main
from ensel.collect.cli import main
from ensel.collect.estimate import estimate
from ensel.collect.testing import demo_config
from ensel.datasets._paths import package_data


def test_estimate_of_the_papers_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert ensel_main(["collect", "estimate", str(package_data("collect", "paper.yml"))]) == 0
    out = capsys.readouterr().out
    assert "total: 2,102,352 requests" in out and "prices as of 2025-10-15" in out


def test_estimate_counts_tokens_from_the_queries(tmp_path: Path) -> None:
    from ensel.collect.config import load_config

    cfg = load_config(demo_config(tmp_path, models=["GPT-4.1", "GPT-4o"], n_queries=20,
                                  source="mmlu"))
    est = estimate(cfg)
    assert est["requests"].tolist() == [20, 20] and set(est["chars_from"]) == {"queries"}
    assert est.attrs["total_cost_usd"] > 0


def test_simulate_serves_on_loopback(tmp_path: Path) -> None:
    config = demo_config(tmp_path, models=["GPT-4.1"], n_queries=4, source="mmlu")
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from ensel.collect.cli import main; "
         "sys.exit(main(sys.argv[1:]))", "simulate", str(config), "--seconds", "60"],
        stdout=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        body = json.dumps({"model": "sim/gpt-4.1", "temperature": 0.7, "seed": 1, "messages": [
            {"role": "system", "content": "Is the following statement true or false?"},
            {"role": "user", "content": "Question: q Is the answer 'a'?\nAnswer:"}]}).encode()
        req = urllib.request.Request(url + "/chat/completions", data=body, headers={
            "Authorization": "Bearer x", "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as resp:
            reply = json.load(resp)
        assert reply["choices"][0]["message"]["content"] in ("True", "False")
    finally:
        proc.terminate()
        proc.wait(60)
        proc.stdout.close()


def test_bad_shard_and_missing_dataset_file_are_one_line_errors(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    config = demo_config(tmp_path, models=["GPT-4.1"], n_queries=4, source="mmlu")
    assert main(["run", str(config), "--shard", "3/2"]) == 2
    assert capsys.readouterr().err.strip() == "ensel collect: error: --shard 3/2: need 1 <= i <= n"
    (tmp_path / "mmlu.parquet").write_text("garbage")
    assert main(["run", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot read the mmlu file" in err
    assert not (tmp_path / "answers.sqlite").exists()
