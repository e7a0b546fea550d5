"""Derived files are verified before use: no damaged cache or results file is ever loaded.

A seeded loop flips single bits at many random offsets of every kind of derived file (the
converted MMLU-Pro tables, raw-*.parquet and binary-*.parquet; the stand-in tables; the
experiment results) and of their checksum records, and checks that every load returns
exactly the original table -- rebuilt, after a one-line notice, whenever the file was hit.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import require_mirror

from ensel import experiment as ex
from ensel.book import results as book_results
from ensel.datasets import _integrity, standins
from ensel.datasets import mmlu_pro as mp

POOL = ["Yi-6B", "Qwen1.5-7B-Chat"]
SUBSET = ["business"]


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ENSEL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("ENSEL_RESULTS_DIR", str(tmp_path / "results"))
    return tmp_path / "data"


def _notices(caplog) -> list[str]:
    out = [r.getMessage() for r in caplog.records if r.name == "ensel"]
    caplog.clear()
    return out


def _assert_same(got: pd.DataFrame, original: pd.DataFrame, where: str = "") -> None:
    """Exactly the original table: columns, dtypes, categories and every value (fast)."""
    assert list(got.columns) == list(original.columns), where
    assert [str(d) for d in got.dtypes] == [str(d) for d in original.dtypes], where
    for col in original.columns:
        if isinstance(original[col].dtype, pd.CategoricalDtype):
            assert list(got[col].cat.categories) == list(original[col].cat.categories), where
            np.testing.assert_array_equal(got[col].cat.codes, original[col].cat.codes, where)
    hashes = pd.util.hash_pandas_object
    np.testing.assert_array_equal(hashes(got).to_numpy(), hashes(original).to_numpy(), where)


def _flip(path: Path, offset: int, bit: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 1 << bit
    path.write_bytes(bytes(data))


def _offsets(rng: random.Random, size: int, n: int) -> list[tuple[int, int]]:
    picks = {0, 3, size // 2, size - 1, size - 5}  # magic bytes, footer, middle
    picks |= {rng.randrange(size) for _ in range(n)}
    return [(o, rng.randrange(8)) for o in sorted(picks)]


def _no_silent_loads(path: Path, load: Callable[[], pd.DataFrame], original: pd.DataFrame,
                     caplog, rng: random.Random, *, n_data: int, n_record: int) -> int:
    """Flip bits in ``path`` and its record; every load must equal ``original``."""
    record = _integrity.record_path(path)
    good_data, good_record = path.read_bytes(), record.read_bytes()
    checked = 0
    for target, good, n in ((path, good_data, n_data), (record, good_record, n_record)):
        for offset, bit in _offsets(rng, len(good), n):
            path.write_bytes(good_data)
            record.write_bytes(good_record)
            _flip(target, offset, bit)
            caplog.clear()
            with caplog.at_level(logging.WARNING, logger="ensel"):
                got = load()
            lines = _notices(caplog)
            where = f"{target.name} byte {offset} bit {bit}"
            _assert_same(got, original, where)
            if target == path:  # the data changed: it must have been rebuilt, and said so
                assert len(lines) == 1 and str(path) in lines[0], (where, lines)
                assert "Warning" not in lines[0]
            # whatever happened, the files on disk are good again: the next load is silent
            with caplog.at_level(logging.WARNING, logger="ensel"):
                again = load()
            assert not _notices(caplog), where
            _assert_same(again, original, where)
            checked += 1
    path.write_bytes(good_data)
    record.write_bytes(good_record)
    return checked


def _truncations_repair(path: Path, load: Callable[[], pd.DataFrame], original: pd.DataFrame,
                        caplog) -> None:
    good = path.read_bytes()
    for size in (0, 8, len(good) // 2, len(good) - 1):
        path.write_bytes(good[:size])
        with caplog.at_level(logging.WARNING, logger="ensel"):
            got = load()
        lines = _notices(caplog)
        assert len(lines) == 1 and "not usable" in lines[0], (size, lines)
        _assert_same(got, original, f"truncated to {size}")
        assert path.read_bytes() == good  # repaired on disk (same deterministic bytes)
    # a missing checksum record (a file from an older ensel) is rebuilt too, said at INFO
    _integrity.record_path(path).unlink()
    with caplog.at_level(logging.INFO, logger="ensel"):
        _assert_same(load(), original, "no record")
    (record,) = [r for r in caplog.records if r.name == "ensel"]
    assert record.levelno == logging.INFO and "has no checksum record" in record.getMessage()
    caplog.clear()
    assert _integrity.record_path(path).is_file()


# --------------------------------------------------------------------------- stand-ins
def test_standin_cache_bit_flips_never_load_silently(data_dir, caplog):
    def load() -> pd.DataFrame:
        return standins.load("imdb", n_items=40, seed=3)

    original = load()
    pd.testing.assert_frame_equal(original, standins.generate("imdb", n_items=40, seed=3))
    (path,) = (data_dir / "standins").glob("*.parquet")
    n = _no_silent_loads(path, load, original, caplog, random.Random(11), n_data=50,
                         n_record=15)
    assert n >= 60
    _truncations_repair(path, load, original, caplog)


def test_standin_cache_from_other_inputs_is_regenerated(data_dir, caplog, monkeypatch):
    original = standins.load("mmlu", n_items=30)
    path = standins._cache_path("mmlu", 0, 30)
    # same file name (forced), different derivation (generator version): never used
    monkeypatch.setattr(standins, "_cache_path", lambda *a, **k: path)
    monkeypatch.setattr(standins, "GENERATOR_VERSION", "test-bump")
    with caplog.at_level(logging.WARNING, logger="ensel"):
        got = standins.load("mmlu", n_items=30)
    assert "built from other inputs, parameters or code" in " ".join(_notices(caplog))
    pd.testing.assert_frame_equal(got, original)


# --------------------------------------------------------------------------- MMLU-Pro
@pytest.fixture
def mirrored(data_dir, monkeypatch):
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(require_mirror()))
    return data_dir / "mmlu_pro"


#: The MMLU-Pro caches rebuild from the mirror at every damaged load: make test flips the
#: fixed offsets (magic bytes, middle, footer) and a few random ones ("short"); CI the
#: seeded sample in full ("full", make test-slow). Same loop, same checks.
FLIPS = [pytest.param(0.25, id="short"), pytest.param(1.0, id="full", marks=pytest.mark.slow)]


@pytest.mark.parametrize("share", FLIPS)
def test_mmlu_pro_binary_cache_bit_flips_never_load_silently(mirrored, caplog, share):
    def load() -> pd.DataFrame:
        return mp.load(models=POOL, subset=SUBSET)

    original = load()
    (path,) = mirrored.glob("binary-*.parquet")
    n_data, n_record = round(30 * share), round(10 * share)
    n = _no_silent_loads(path, load, original, caplog, random.Random(12), n_data=n_data,
                         n_record=n_record)
    assert n >= n_data + n_record
    _truncations_repair(path, load, original, caplog)


@pytest.mark.parametrize("share", FLIPS)
def test_mmlu_pro_raw_cache_bit_flips_never_load_silently(mirrored, caplog, share):
    def load() -> pd.DataFrame:
        return mp.raw_predictions(POOL[:1])

    original = load()
    (path,) = mirrored.glob(f"raw-{POOL[0]}-*.parquet")
    n_data, n_record = round(10 * share), round(4 * share)
    n = _no_silent_loads(path, load, original, caplog, random.Random(13), n_data=n_data,
                         n_record=n_record)
    assert n >= n_data + n_record
    _truncations_repair(path, load, original, caplog)


# --------------------------------------------------------------------------- results
def _results() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = [(c, s, sel, agg, k, float(rng.random()), "a|b"[: 2 * k - 1], 0.7, 20)
            for c in ("t0.01-r1", "t0.7-r2") for s in range(3)
            for sel in ex.PAPER_SELECTORS for agg in ex.PAPER_AGGREGATORS for k in (1, 2)]
    return pd.DataFrame(rows, columns=[*ex.RESULT_COLUMNS, "selected", "selected_accuracy",
                                       "n_test"])


def test_results_bit_flips_are_never_loaded(data_dir, caplog):
    results = _results()
    path = book_results.save_results(results, "medmcqa")

    def load() -> pd.DataFrame:
        got = book_results.load_results("medmcqa", regenerate=_results)
        got.attrs = {}
        return got

    n = _no_silent_loads(path, load, results, caplog, random.Random(14), n_data=50,
                         n_record=15)
    assert n >= 60
    _truncations_repair(path, load, results, caplog)
    # without a way to recompute, a damaged file is refused, never returned
    _flip(path, len(path.read_bytes()) // 2, 3)
    with pytest.raises(book_results.ResultsDamagedError,
                       match=r"results file .*medmcqa.parquet is not usable: .*rerun the "
                             r"experiments notebook"):
        book_results.load_results("medmcqa")


def test_results_record_what_they_were_derived_from(data_dir):
    results = _results()
    results.attrs["provenance"] = {"n_splits": 3, "seed": 0}
    path = book_results.save_results(results, "mmlu")
    record = json.loads(_integrity.record_path(path).read_text())
    assert record["derived_from"]["provenance"] == {"n_splits": 3, "seed": 0}
    assert record["derived_from"]["dataset"] == "mmlu"
    back = book_results.load_results("mmlu")
    assert back.attrs["provenance"]["code"] == record["derived_from"]["code"]
    pd.testing.assert_frame_equal(back, results)
    assert not list(path.parent.glob(".*.tmp"))  # atomic writes leave no temporary file


def test_evaluate_results_carry_their_derivation_into_the_record(data_dir):
    df = standins.load("imdb", n_items=60)
    results = ex.evaluate(df, ks=[1, 2], n_splits=1)
    prov = results.attrs["provenance"]
    assert prov["n_splits"] == 1 and prov["ks"] == [1, 2] and prov["seed"] == 0
    other = ex.evaluate(df.assign(answer=-df["answer"]), ks=[1, 2], n_splits=1)
    assert other.attrs["provenance"]["input_sha256"] != prov["input_sha256"]
    path = book_results.save_results(results, "imdb")
    record = json.loads(_integrity.record_path(path).read_text())
    assert record["derived_from"]["provenance"] == prov
    assert book_results.load_results("imdb").attrs["provenance"]["provenance"] == prov
