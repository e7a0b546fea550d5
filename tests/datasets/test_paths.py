"""Paths and messages of the data layer: registry paths, mirror/cache agreement, the CLI."""

from __future__ import annotations

import hashlib
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_mirror

from ensel.cli import main as cli_main
from ensel.datasets import _fetch
from ensel.datasets import mmlu_pro as mp
from ensel.datasets._fetch import DataUnavailableError, RegistryEntry

HEADER = "owner,repo,commit,path,url,sha256,size\n"


@pytest.fixture
def cache_dir(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "cache"
    monkeypatch.setenv("ENSEL_DATA_DIR", str(path))
    return path


@pytest.mark.parametrize("field,value", [
    ("path", "../../outside.json"),
    ("path", "eval_results/../../../etc/passwd"),
    ("path", "/etc/passwd"),
    ("path", "a//b.json"),
    ("path", "C:/x.json"),
    ("owner", ".."),
    ("repo", "a/b"),
    ("commit", "/tmp"),
])
def test_registry_paths_that_leave_the_cache_are_refused(tmp_path, field, value):
    row = {"owner": "o", "repo": "r", "commit": "c" * 40, "path": "d/x.json",
           "url": "http://127.0.0.1:9/x", "sha256": "0" * 64, "size": "1"}
    row[field] = value
    reg = tmp_path / "reg.csv"
    good = f"o,r,{'c' * 40},d/ok.json,http://127.0.0.1:9/y,{'0' * 64},1\n"
    reg.write_text(HEADER + good + ",".join(row[c] for c in HEADER.strip().split(",")) + "\n")
    with pytest.raises(ValueError, match=rf"registry {reg} line 3: {field} "):
        _fetch.read_registry(reg)
    # an entry built by hand is refused before any path is formed
    entry = RegistryEntry(**{**row, "size": 1})
    with pytest.raises(ValueError, match=f"{field} "):
        _fetch.cache_path(entry)


def test_shipped_registry_is_safe():
    entries = _fetch.read_registry("mmlu_pro")
    assert len(entries) == 43


def _mirror_entry(content: bytes) -> RegistryEntry:
    return RegistryEntry(owner="own", repo="rep", commit="c" * 40, path="d/x.bin",
                         url="http://127.0.0.1:9/x.bin",
                         sha256=hashlib.sha256(content).hexdigest(), size=len(content))


def test_empty_mirror_and_availability_agree_with_the_loader(tmp_path, monkeypatch, cache_dir,
                                                            caplog):
    content = b"pinned bytes" * 5
    entry = _mirror_entry(content)
    empty = tmp_path / "empty-mirror"
    empty.mkdir()
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(empty))
    # nothing anywhere: both say no, and the message says the mirror folder is empty
    assert not _fetch.is_available(entry)
    with pytest.raises(DataUnavailableError, match="the mirror has no file .*; that folder is "
                                                   "empty .*the cache has no verified copy"):
        _fetch.fetch(entry)
    # a verified copy in the cache: both say yes, and the loader says where it read from
    target = _fetch.cache_path(entry)
    target.parent.mkdir(parents=True)
    target.write_bytes(content)
    assert _fetch.is_available(entry) and _fetch.locate(entry) == target
    with caplog.at_level(logging.WARNING, logger="ensel"):
        assert _fetch.fetch(entry) == target
    (line,) = [r.getMessage() for r in caplog.records if r.name == "ensel"]
    assert line.startswith(f"ensel: the mirror {empty} has no own/rep/")
    assert f"using the verified copy in the cache {target}" in line
    # a damaged cached copy is not used (and the mirror is never bypassed for the network)
    target.write_bytes(b"X" * len(content))
    with pytest.raises(DataUnavailableError, match="the cache has no verified copy"):
        _fetch.fetch(entry)
    # a mirror of the wrong size is refused by fetch, so locate does not offer the cache
    target.write_bytes(content)
    bad = empty / entry.relpath
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"short")
    assert _fetch.locate(entry) is None and not _fetch.is_available(entry)
    with pytest.raises(DataUnavailableError, match="checksum mismatch"):
        _fetch.fetch(entry)
    # a mirror folder that does not exist is said as such
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(tmp_path / "nowhere"))
    target.unlink()
    with pytest.raises(DataUnavailableError, match="that folder does not exist"):
        _fetch.fetch(entry)


def test_mmlu_pro_is_available_iff_it_loads(tmp_path, monkeypatch, cache_dir):
    mirror = require_mirror()
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(empty))
    assert not mp.is_available()
    with pytest.raises(DataUnavailableError):
        mp.raw_predictions(["Yi-6B"])
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(mirror))
    assert mp.is_available()
    assert len(mp.raw_predictions(["Yi-6B"])) > 0


# --------------------------------------------------------------------------- command line
def test_cli_help_lists_only_what_exists(capsys, cache_dir, monkeypatch):
    monkeypatch.delenv("ENSEL_DATA_MIRROR", raising=False)
    assert cli_main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "notebooks" in out and "datasets" in out and "rest" not in out
    with pytest.raises(SystemExit):
        cli_main(["datasets", "--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: ensel datasets")
    commands = {"list", "fetch", "status"}
    assert "{list,fetch,status}" in out
    for command in commands:  # every command the help names runs
        argv = ["datasets", command] + ([] if command == "list" else ["mmlu_pro"])
        assert cli_main(argv) in (0, 1)
        capsys.readouterr()
    assert cli_main(["datasets", "list"]) == 0
    out = capsys.readouterr().out
    for name in ("medmcqa", "mmlu", "imdb", "mmlu_pro"):
        assert f"\n{name} " in "\n" + out
    assert "ensel datasets fetch mmlu_pro" in out  # no mirror, empty cache: says how


def test_console_script_lists_datasets():
    done = subprocess.run([sys.executable, "-m", "ensel.datasets", "list"], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "mmlu_pro" in done.stdout and "Warning" not in done.stderr


def test_registry_names_are_plain_words():
    for name in ("../mmlu_pro", "registry/../../x", "/etc/passwd"):
        with pytest.raises(ValueError, match="no download registry"):
            _fetch.registry_path(name)


def test_a_folder_given_as_dataset_is_said_to_be_a_folder(tmp_path, monkeypatch):
    import ensel.datasets

    (tmp_path / "myanswers").mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(IsADirectoryError, match="'myanswers' is a directory, not a file"):
        ensel.datasets.load("myanswers")
