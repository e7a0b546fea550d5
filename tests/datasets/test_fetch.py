"""Tests of the checksum-pinned fetcher (mirror, cache, pooch download and its failures)."""

from __future__ import annotations

import hashlib
import http.server
import threading
import urllib.parse
from pathlib import Path

import pytest
from conftest import UPSTREAM, require_mirror

from ensel.datasets import _fetch
from ensel.datasets._fetch import DataUnavailableError, RegistryEntry


@pytest.fixture
def cache_dir(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "cache"
    monkeypatch.setenv("ENSEL_DATA_DIR", str(path))
    return path


def _entry_for(content: bytes, url: str = "http://127.0.0.1:9/x.bin", path="d/x.bin"):
    return RegistryEntry(
        owner="own",
        repo="rep",
        commit="c" * 40,
        path=path,
        url=url,
        sha256=hashlib.sha256(content).hexdigest(),
        size=len(content),
    )


def _files_below(path: Path) -> list[Path]:
    return sorted(p for p in path.rglob("*") if p.is_file()) if path.exists() else []


# --------------------------------------------------------------------------- registry
def test_registry_matches_sha256sums():
    mirror = require_mirror()
    sums = {}
    for line in (mirror / UPSTREAM / "SHA256SUMS").read_text().splitlines():
        digest, rel = line.split("  ", 1)
        sums[rel.removeprefix("./")] = digest
    entries = _fetch.read_registry("mmlu_pro")
    assert len(entries) == 43
    assert sum("model_outputs_" in e.path for e in entries) == 29
    assert sum(e.path.endswith("_result.json") for e in entries) == 14
    for e in entries:
        assert sums[f"{e.commit}/{e.path}"] == e.sha256
        assert (mirror / e.relpath).stat().st_size == e.size
        quoted = urllib.parse.quote(e.path)
        assert e.url == f"https://raw.githubusercontent.com/{UPSTREAM}/{e.commit}/{quoted}"
        assert len(e.commit) == 40
    assert " " not in "".join(e.url for e in entries)


def test_registry_errors(tmp_path):
    with pytest.raises(ValueError, match="no download registry for dataset 'nope'"):
        _fetch.read_registry("nope")
    bad = tmp_path / "bad.csv"
    bad.write_text("owner,repo\nx,y\n")
    with pytest.raises(ValueError, match="lacks the column"):
        _fetch.read_registry(bad)
    with pytest.raises(ValueError, match="has no file with path"):
        _fetch.fetch(("mmlu_pro", "eval_results/nothing.zip"))
    with pytest.raises(ValueError, match="RegistryEntry or a"):
        _fetch.fetch("mmlu_pro")


# --------------------------------------------------------------------------- mirror
def test_mirror_fetch_reads_in_place(monkeypatch, cache_dir):
    mirror = require_mirror()
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(mirror))
    path = _fetch.fetch(("mmlu_pro", "eval_results/gpt4o/computer science_result.json"))
    assert path == mirror / UPSTREAM / "ff991b5b7f14a383fd41da3987447ab6c08bf138" / (
        "eval_results/gpt4o/computer science_result.json"
    )
    assert _files_below(cache_dir) == []  # nothing copied into the cache
    assert _fetch.is_available("mmlu_pro")


def test_mirror_checksum_mismatch(tmp_path, monkeypatch, cache_dir):
    mirror = require_mirror()
    entry = next(e for e in _fetch.read_registry("mmlu_pro") if "history_result" in e.path)
    fake = tmp_path / "mirror"
    target = fake / entry.relpath
    target.parent.mkdir(parents=True)
    data = bytearray((mirror / entry.relpath).read_bytes())
    data[100] ^= 0xFF  # same size, one byte flipped
    target.write_bytes(bytes(data))
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(fake))
    actual = hashlib.sha256(bytes(data)).hexdigest()
    with pytest.raises(DataUnavailableError, match="checksum mismatch for 'history_result") as e:
        _fetch.fetch(entry)
    assert entry.sha256 in str(e.value) and actual in str(e.value)


def test_mirror_missing_file(tmp_path, monkeypatch, cache_dir):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(empty))
    entry = _fetch.read_registry("mmlu_pro")[0]
    with pytest.raises(DataUnavailableError, match="the mirror has no file") as e:
        _fetch.fetch(entry)
    assert str(empty / entry.relpath) in str(e.value)
    assert entry.url in str(e.value)
    assert not _fetch.is_available("mmlu_pro")
    assert _fetch.locate(entry) is None


# --------------------------------------------------------------------------- downloads
class _Handler(http.server.BaseHTTPRequestHandler):
    body = b""
    declared: int | None = None  # Content-Length to announce (> len(body) simulates a cut)

    def do_GET(self):  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Length", str(self.declared or len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)
        self.wfile.flush()
        self.close_connection = True

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    handler = type("H", (_Handler,), {})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield handler, f"http://127.0.0.1:{httpd.server_address[1]}/file.json"
    httpd.shutdown()
    httpd.server_close()


def test_download_ok_then_cached(server, monkeypatch, cache_dir):
    monkeypatch.delenv("ENSEL_DATA_MIRROR", raising=False)
    handler, url = server
    content = b'[{"question_id": 1}]' * 100
    handler.body = content
    entry = _entry_for(content, url)
    assert not _fetch.is_available(entry)
    path = _fetch.fetch(entry, progressbar=False)
    assert path == _fetch.cache_path(entry) and path.read_bytes() == content
    assert str(path).startswith(str(cache_dir))
    assert _fetch.is_available(entry)

    def boom(*args, **kwargs):
        raise AssertionError("a cached file must not be downloaded again")

    assert _fetch.fetch(entry, downloader=boom) == path


def test_download_checksum_mismatch_leaves_nothing(server, monkeypatch, cache_dir):
    monkeypatch.delenv("ENSEL_DATA_MIRROR", raising=False)
    handler, url = server
    content = b"x" * 5000
    handler.body = content[:2500]  # a truncated file served as complete
    entry = _entry_for(content, url)
    with pytest.raises(DataUnavailableError, match="could not download 'x.bin'") as e:
        _fetch.fetch(entry, progressbar=False)
    assert "ENSEL_DATA_MIRROR" in str(e.value) and str(_fetch.cache_path(entry)) in str(e.value)
    assert _files_below(cache_dir) == []


def test_download_interrupted_leaves_nothing(server, monkeypatch, cache_dir):
    monkeypatch.delenv("ENSEL_DATA_MIRROR", raising=False)
    handler, url = server
    content = b"y" * 20000
    handler.body = content[:7000]
    handler.declared = len(content)  # the connection closes before the announced length
    entry = _entry_for(content, url)
    with pytest.raises(DataUnavailableError, match="could not download"):
        _fetch.fetch(entry, progressbar=False)
    assert _files_below(cache_dir) == []


def test_download_failing_downloader_leaves_nothing(monkeypatch, cache_dir):
    monkeypatch.delenv("ENSEL_DATA_MIRROR", raising=False)
    content = b"z" * 4096
    entry = _entry_for(content)

    def half_then_fail(url, output_file, pooch_obj, check_only=False):
        with open(output_file, "wb") as fh:
            fh.write(content[:1000])
        raise ConnectionResetError("connection reset by peer (simulated)")

    with pytest.raises(DataUnavailableError, match="ConnectionResetError.*simulated"):
        _fetch.fetch(entry, downloader=half_then_fail)
    assert _files_below(cache_dir) == []


def test_download_network_unreachable(monkeypatch, cache_dir):
    monkeypatch.delenv("ENSEL_DATA_MIRROR", raising=False)
    entry = _entry_for(b"abc", url="http://127.0.0.1:9/nothing-listens-here")
    with pytest.raises(DataUnavailableError, match="could not download"):
        _fetch.fetch(entry, progressbar=False)
    assert _files_below(cache_dir) == []


def test_damaged_cached_copy_is_replaced(monkeypatch, cache_dir):
    monkeypatch.delenv("ENSEL_DATA_MIRROR", raising=False)
    content = b"good bytes" * 10
    entry = _entry_for(content)
    target = _fetch.cache_path(entry)
    target.parent.mkdir(parents=True)
    target.write_bytes(b"bad bytes!" * 10)  # same size, wrong hash

    def serve(url, output_file, pooch_obj, check_only=False):
        Path(output_file).write_bytes(content)

    assert _fetch.fetch(entry, downloader=serve).read_bytes() == content


# --------------------------------------------------------------------------- command line
def test_cli_status_and_fetch(tmp_path, monkeypatch, cache_dir, capsys):
    from ensel.datasets.__main__ import main

    mirror = require_mirror()  # before ENSEL_DATA_MIRROR is pointed at an empty folder
    empty = tmp_path / "empty-mirror"
    empty.mkdir()
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(empty))
    assert main(["status", "mmlu_pro"]) == 1
    assert "0/43 files available" in capsys.readouterr().out
    assert main(["fetch", "mmlu_pro"]) == 1
    assert "the mirror has no file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["fetch", "mmlu"])  # stand-ins have no registry
    assert "no download registry for dataset 'mmlu'" in capsys.readouterr().err
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(mirror))
    assert main(["status", "mmlu_pro"]) == 0
    assert "43/43 files available" in capsys.readouterr().out
