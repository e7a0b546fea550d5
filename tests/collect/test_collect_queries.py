"""Query sets in the paper's construction, read from files in the upstream formats, and the
pooch download with trust on first use (served from a loopback HTTP server)."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ensel.collect.queries import DatasetFileError, build_queries
from ensel.collect.sources import read_sources
from ensel.collect.testing import write_fixture
from ensel.datasets._fetch import DataUnavailableError


@pytest.mark.parametrize("source", ["medmcqa", "mmlu"])
def test_multiple_choice_queries_pair_the_right_and_a_seeded_wrong_option(
        tmp_path: Path, source: str) -> None:
    path = write_fixture(source, tmp_path / "f.parquet", n=30)
    q = build_queries(source, path=path, seed=3)
    assert len(q) == 60 and q["query_id"].is_unique
    assert (q["label"].to_numpy()[::2] == 1).all() and (q["label"].to_numpy()[1::2] == -1).all()
    pos, neg = q.iloc[::2].reset_index(), q.iloc[1::2].reset_index()
    assert (pos["question"] == neg["question"]).all()
    assert (pos["candidate_answer"] != neg["candidate_answer"]).all()
    again = build_queries(source, path=path, seed=3)
    pd.testing.assert_frame_equal(q, again)
    assert not build_queries(source, path=path, seed=4).equals(q)
    sample = build_queries(source, path=path, seed=3, n_queries=20)
    assert len(sample) == 20 and sample["label"].sum() == 0


def test_mmlu_gold_option_is_the_answer_index(tmp_path: Path) -> None:
    path = write_fixture("mmlu", tmp_path / "f.parquet", n=5)
    raw = pd.read_parquet(path)
    q = build_queries("mmlu", path=path)
    gold = [raw["choices"][i][raw["answer"][i]] for i in range(5)]
    assert list(q["candidate_answer"].iloc[::2]) == gold


def test_imdb_is_balanced_and_seeded(tmp_path: Path) -> None:
    path = write_fixture("imdb", tmp_path / "f.parquet", n=40)
    q = build_queries("imdb", path=path, n_queries=10, seed=1)
    assert len(q) == 10 and (q["label"] == 1).sum() == 5 and set(q["task"]) == {"sentiment"}
    assert q.equals(build_queries("imdb", path=path, n_queries=10, seed=1))


def test_malformed_files_are_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not a parquet file")
    with pytest.raises(DatasetFileError, match="cannot read the mmlu file .*bad.parquet"):
        build_queries("mmlu", path=bad)
    pd.DataFrame({"question": ["q"], "opa": ["a"]}).to_parquet(tmp_path / "m.parquet")
    with pytest.raises(DatasetFileError, match=r"lacks the column\(s\) \['opb', 'opc', 'opd', "
                                               r"'cop'\]"):
        build_queries("medmcqa", path=tmp_path / "m.parquet")
    with pytest.raises(ValueError, match=r"n_queries of build_queries must be an even integer >="
                                         r" 2 \(source imdb\)"):
        build_queries("imdb", path=write_fixture("imdb", tmp_path / "i.parquet", n=4),
                      n_queries=3)


def test_shipped_registry_says_trust_on_first_use() -> None:
    sources = read_sources()
    assert set(sources) == {"medmcqa", "mmlu", "imdb"}
    assert all(e.url.startswith("https://huggingface.co/datasets/") for e in sources.values())


@pytest.fixture
def http_folder(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    root = tmp_path / "www"
    root.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None  # type: ignore[method-assign]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", root
    server.shutdown()
    server.server_close()


def test_download_records_the_first_hash_and_refuses_a_changed_file(
        tmp_path: Path, http_folder: tuple[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    url, root = http_folder
    monkeypatch.setenv("ENSEL_DATA_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ENSEL_DATA_MIRROR", raising=False)
    write_fixture("imdb", root / "test.parquet", n=20)
    registry = tmp_path / "sources.csv"
    registry.write_text("# a test registry\nowner,repo,commit,path,url,sha256,size\n"
                        f"stanfordnlp,imdb,main,plain_text/test.parquet,{url}/test.parquet,,0\n")
    q = build_queries("imdb", registry=registry, n_queries=10)
    assert len(q) == 10
    assert (tmp_path / "cache" / "collect" / "tofu.csv").read_text().count(url) == 1
    cached = next((tmp_path / "cache" / "raw").rglob("test.parquet"))
    cached.unlink()  # a new download of a file that changed upstream: refused
    write_fixture("imdb", root / "test.parquet", n=20, seed=1)
    pd.DataFrame({"text": ["changed"] * 2, "label": [0, 1]}).to_parquet(root / "test.parquet")
    with pytest.raises(DataUnavailableError, match="first download"):
        build_queries("imdb", registry=registry, n_queries=2)
    assert not cached.exists()
    with pytest.raises(DataUnavailableError, match="could not download"):
        registry.write_text("owner,repo,commit,path,url,sha256,size\n"
                            f"stanfordnlp,imdb,main,x/missing.parquet,{url}/missing.parquet,,0\n")
        build_queries("imdb", registry=registry)
    assert np.isin(q["label"], [-1, 1]).all()
