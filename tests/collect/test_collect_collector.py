"""The collector against the simulated pool on a real loopback HTTP server (no mocked client):
faults, a bad key, an unknown model, SIGKILL and resume, shards, and the key never leaking."""

from __future__ import annotations

import dataclasses
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import numpy as np
import openai
import pandas as pd
import pytest

from ensel.collect.collector import EndpointRefused, _retry_after, collect, parse_shard
from ensel.collect.config import load_config
from ensel.collect.simulate import Faults
from ensel.collect.store import Store, StoreError

N = 16 * 2 * 3 * 2  # questions x (true, false) x models x temperatures: every key of a run


def _export(path: Path) -> pd.DataFrame:
    with Store(path) as st:
        return st.export()


def test_clean_run_answers_every_key_once_with_the_pools_accuracies(run_config, serve) -> None:
    server, cfg = serve(run_config)
    s = collect(cfg)
    assert s.completed == s.pending == N and s.failed == 0 and s.attempts == N
    df = _export(cfg.store)
    assert len(df) == N and not df.duplicated(["item", "model", "condition"]).any()
    acc = (df["answer"] == df["label"]).groupby(df["model"]).mean()
    assert acc["GPT-4.1"] > acc["LLaMA-3.1-8b"]
    again = collect(cfg)  # everything is stored: nothing is asked again
    assert again.pending == 0 and again.attempts == 0 and server.requests == N


def test_every_fault_is_retried_and_answers_match_a_clean_run(run_config, serve, tmp_path,
                                                              make_config) -> None:
    cfg = load_config(make_config(tmp_path, timeout=0.5))
    faults = Faults(rate_429=0.08, rate_500=0.08, rate_502=0.08, rate_503=0.08, drop=0.08,
                    malformed=0.08, off_format=0.08, slow=0.04, slow_seconds=1.5,
                    retry_after=0.02)
    server, cfg = serve(cfg, faults)
    s = collect(cfg)
    assert s.completed == N and s.failed == 0
    for kind in ("http_429", "http_500", "http_502", "http_503", "connection", "malformed",
                 "timeout"):
        assert s.retries[kind] > 0, kind
    with Store(cfg.store) as st:
        table = st.table()
    abst = table[table["answer"] == 0]
    assert s.abstained == len(abst) > 0 and set(abst["raw_text"]) == {"I cannot tell."}
    assert table["attempts"].max() > 1
    _, clean_cfg = serve(dataclasses.replace(run_config, store=tmp_path / "clean.sqlite"))
    collect(clean_cfg)
    faulty, clean = _export(cfg.store), _export(clean_cfg.store)
    answered = faulty["answer"] != 0
    pd.testing.assert_frame_equal(faulty[answered], clean[answered])


def test_retry_after_is_read_from_429_and_503() -> None:
    req = httpx2.Request("POST", "http://127.0.0.1/v1/chat/completions")
    for status, cls in ((429, openai.RateLimitError), (503, openai.InternalServerError)):
        resp = httpx2.Response(status, headers={"retry-after": "2.5"}, request=req)
        assert _retry_after(cls("x", response=resp, body=None)) == 2.5
    resp = httpx2.Response(500, headers={"retry-after": "9"}, request=req)
    assert _retry_after(openai.InternalServerError("x", response=resp, body=None)) is None


def test_bad_key_stops_at_once_without_retries(run_config, serve, api_key,
                                               caplog: pytest.LogCaptureFixture) -> None:
    server, cfg = serve(run_config, Faults(unauthorized=True))
    with caplog.at_level(logging.DEBUG), pytest.raises(EndpointRefused, match="HTTP 401") as info:
        collect(cfg)
    assert server.requests <= cfg.concurrency  # each worker's first request, no retry
    assert api_key not in str(info.value) and api_key not in caplog.text
    with Store(cfg.store) as st:
        assert st.count() == 0


def test_unknown_model_is_skipped_and_the_others_complete(tmp_path, api_key, serve,
                                                          make_config) -> None:
    path = make_config(tmp_path)
    path.write_text(path.read_text().replace("LLaMA-3.1-8b: sim/llama-3.1-8b",
                                             "No-Such-Model: sim/none"))
    server, cfg = serve(load_config(path))
    s = collect(cfg)
    assert s.skipped_models == ["sim/none"] and s.completed == N * 2 // 3
    with Store(cfg.store) as st:
        status = st.status()
    none = status[status["model"] == "No-Such-Model"]
    assert (none["answered"] == 0).all() and none["errors"].str.startswith("http_404").all()


def test_shards_merge_into_the_full_run(run_config, serve, tmp_path) -> None:
    _, cfg = serve(run_config)
    collect(cfg)
    parts = []
    for i in (1, 2):
        part = dataclasses.replace(cfg, store=tmp_path / f"shard{i}.sqlite")
        parts.append(collect(part, shard=parse_shard(f"{i}/2")).completed)
    assert all(p > 0 for p in parts) and sum(parts) == N
    with Store(tmp_path / "merged.sqlite") as st:
        st.merge([tmp_path / "shard1.sqlite", tmp_path / "shard2.sqlite"])
    pd.testing.assert_frame_equal(_export(tmp_path / "merged.sqlite"), _export(cfg.store))
    with pytest.raises(ValueError, match="--shard must look like i/n"):
        parse_shard("two")


def test_store_of_another_prompt_version_is_refused_by_run(run_config, serve) -> None:
    Store(run_config.store, prompt_hashes={"0123456789abcdef"}).close()
    _, cfg = serve(run_config)
    with pytest.raises(StoreError, match="refusing to mix"):
        collect(cfg)
    assert collect(cfg, allow_mixed=True).completed == N


def _rows(path: Path) -> int:
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM answers WHERE answer IS NOT NULL"
                               ).fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def test_sigkilled_run_resumes_to_the_uninterrupted_table(tmp_path, api_key, serve,
                                                          make_config) -> None:
    cfg = load_config(make_config(tmp_path, rpm=1200))  # 20 requests/s per model: ~3 s
    server, cfg = serve(cfg)
    cmd = [sys.executable, "-c", "import sys; from ensel.collect.cli import main; "
           "sys.exit(main(sys.argv[1:]))", "run", str(cfg.path), "--base-url", cfg.base_url,
           "--no-progress"]
    env = {**os.environ, "ENSEL_TEST_API_KEY": api_key}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while _rows(cfg.store) < 20 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    killed_at = _rows(cfg.store)
    assert 0 < killed_at < N
    resumed = subprocess.run(cmd, env=env, capture_output=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr.decode()
    with Store(cfg.store) as st:
        table = st.table()
    assert len(table) == N and table["answer"].notna().all()
    assert not table.duplicated(["query_id", "model", "temperature", "run"]).any()
    fresh = dataclasses.replace(cfg, store=tmp_path / "fresh.sqlite",
                                requests_per_minute={}, default_rpm=1e7)
    collect(fresh)
    pd.testing.assert_frame_equal(_export(cfg.store), _export(fresh.store))
    outputs = out + err + resumed.stdout + resumed.stderr
    assert api_key.encode() not in outputs


def test_the_key_is_in_no_file_log_or_output(run_config, serve, tmp_path, api_key,
                                             caplog: pytest.LogCaptureFixture,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from ensel.collect.cli import main

    _, cfg = serve(run_config, Faults(rate_429=0.1, rate_500=0.1, off_format=0.1,
                                      retry_after=0.01))
    with caplog.at_level(logging.DEBUG):
        assert main(["run", str(cfg.path), "--base-url", cfg.base_url, "--no-progress"]) == 0
        assert main(["status", str(cfg.store)]) == 0
        assert main(["export", str(cfg.store), "-o", str(tmp_path / "out.parquet")]) == 0
    _, bad = serve(run_config, Faults(unauthorized=True))
    assert main(["run", str(cfg.path), "--base-url", bad.base_url, "--no-progress",
                 "--store", str(tmp_path / "bad.sqlite")]) == 1
    captured = capsys.readouterr()
    assert "refused the API key" in captured.err
    for text in (caplog.text, captured.out, captured.err):
        assert api_key not in text
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name.endswith("-wal") or p.suffix == ".sqlite" for p in files)
    for p in files:
        assert api_key.encode() not in p.read_bytes(), p
    assert np.isin(pd.read_parquet(tmp_path / "out.parquet")["answer"], [-1, 0, 1]).all()
