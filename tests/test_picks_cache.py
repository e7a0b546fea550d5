"""The pick paths remembered by content (ensel._picks): the same picks as a new fit, shared
by calls and, through the folder the book's runner sets, by the pages of a build."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ensel import _picks
from ensel._memo import Recent
from ensel.copula import sample_equicorrelated
from ensel.experiment import heldout_errors
from ensel.protocol import Protocol
from ensel.select import SELECTORS


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """An empty memory and a disk folder of this test."""
    monkeypatch.setattr(_picks, "_MEMORY", Recent(100))
    monkeypatch.setenv(_picks.DIR_VARIABLE, str(tmp_path / "picks"))
    monkeypatch.setenv(_picks.KEY_VARIABLE, "test")
    return tmp_path / "picks"


def _data(seed: int = 0):
    X, y, _ = sample_equicorrelated(np.linspace(0.6, 0.8, 8), 0.3, 8, 1500, random_state=seed)
    return X, y


def _counting_fit(X, y, name, calls):
    def fit(budget):
        calls.append(budget)
        return [int(j) for j in SELECTORS[name](budget).fit(X, y).selected_]
    return fit


@pytest.mark.parametrize("name", ["topk", "greedy_mi", "score_mi"])
def test_a_remembered_path_is_the_new_fit_and_its_prefixes(fresh, name):
    X, y = _data()
    calls: list[int] = []
    full = _picks.nested_path("binary", name, X, y, 6, _counting_fit(X, y, name, calls))
    assert full == [int(j) for j in SELECTORS[name](6).fit(X, y).selected_]
    for k in (1, 3, 6):  # a smaller budget reads the first picks, without a fit
        assert _picks.nested_path("binary", name, X, y, k, _counting_fit(X, y, name, calls)) \
            == [int(j) for j in SELECTORS[name](k).fit(X, y).selected_]
    assert calls == [6]
    _picks.nested_path("binary", name, X, y, 8, _counting_fit(X, y, name, calls))
    assert calls == [6, 8]  # a larger budget fits again


def test_other_content_other_key_and_the_disk_is_shared(fresh, monkeypatch):
    X, y = _data()
    calls: list[int] = []
    _picks.nested_path("binary", "greedy_mi", X, y, 5, _counting_fit(X, y, "greedy_mi", calls))
    X2 = X.copy()
    X2[0, 0] = -X2[0, 0]
    _picks.nested_path("binary", "greedy_mi", X2, y, 5, _counting_fit(X2, y, "greedy_mi", calls))
    assert calls == [5, 5]
    assert len(list(fresh.glob("*.npy"))) == 2
    monkeypatch.setattr(_picks, "_MEMORY", Recent(100))  # another process of the same build
    _picks.nested_path("binary", "greedy_mi", X, y, 5, _counting_fit(X, y, "greedy_mi", calls))
    assert calls == [5, 5]
    monkeypatch.setenv(_picks.KEY_VARIABLE, "other code")  # another version never reads it
    _picks.nested_path("binary", "greedy_mi", X, y, 5, _counting_fit(X, y, "greedy_mi", calls))
    assert calls == [5, 5, 5]
    old = fresh.parent / "old-version"
    old.mkdir()
    _picks.prune(fresh.parent, keep=fresh.name)
    assert fresh.is_dir() and not old.exists()
    _picks.prune(fresh.parent, keep=None)  # a forced build
    assert not fresh.exists()


def test_a_damaged_file_is_a_miss(fresh):
    X, y = _data()
    calls: list[int] = []
    _picks.nested_path("binary", "topk", X, y, 4, _counting_fit(X, y, "topk", calls))
    for p in fresh.glob("*.npy"):
        p.write_bytes(b"not a numpy file")
    _picks._MEMORY.clear()
    assert _picks.nested_path("binary", "topk", X, y, 4, _counting_fit(X, y, "topk", calls)) \
        == [int(j) for j in SELECTORS["topk"](4).fit(X, y).selected_]
    assert calls == [4, 4]


def test_heldout_errors_are_the_same_with_the_paths_remembered(fresh, monkeypatch):
    X, y = _data(1)
    kwargs = {"ks": [1, 3, 5], "protocol": Protocol(n_splits=3),
              "selectors": ["topk", "greedy_mi", "score_mi"], "aggregators": ["map", "wmv"]}
    monkeypatch.delenv(_picks.DIR_VARIABLE)
    cold = heldout_errors(X, y, **kwargs)
    warm = heldout_errors(X, y, **kwargs)  # every path from memory
    smaller = heldout_errors(X, y, **{**kwargs, "ks": [2, 3]})  # prefixes of the paths
    monkeypatch.setattr(_picks, "_MEMORY", Recent(100))
    fresh_small = heldout_errors(X, y, **{**kwargs, "ks": [2, 3]})
    assert cold.equals(warm)
    assert smaller.equals(fresh_small)


def test_a_fresh_clone_orders_the_runs_by_the_shipped_durations(tmp_path):
    """Without a build of its own, the runner starts the long pages first by the seconds
    shipped in notebooks/durations.json (a hint: a run it does not list counts 0)."""
    import json

    from ensel.book.runner import load_runs
    from ensel.book.runner._schedule import shipped_durations

    assert shipped_durations(tmp_path) == {}  # none shipped: runs.yml order
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "durations.json").write_text('{"a": 3.0, "b": 40.5}')
    assert shipped_durations(tmp_path) == {"a": 3.0, "b": 40.5}
    (tmp_path / "notebooks" / "durations.json").write_text("not json")
    assert shipped_durations(tmp_path) == {}
    root = Path(__file__).resolve().parents[1]
    shipped = json.loads((root / "notebooks" / "durations.json").read_text())
    outputs = {r.output for r in load_runs(root / "notebooks" / "runs.yml")}
    assert set(shipped) <= outputs, "notebooks/durations.json names runs runs.yml has not"


def test_only_the_book_builds_share_picks_on_disk(tmp_path, monkeypatch):
    """The runner's builds give their kernels the folder; ``ensel evaluate`` (no
    ``share_picks``) leaves nothing in the user's folder, whatever the environment says."""
    import os

    from ensel.book.runner._execute import _kernel_environment, picks_dir

    root = Path(__file__).resolve().parents[1]
    monkeypatch.setenv(_picks.DIR_VARIABLE, str(tmp_path / "elsewhere"))
    with _kernel_environment(tmp_path, root, True):
        assert os.environ[_picks.DIR_VARIABLE] == str(picks_dir(tmp_path, root))
        assert picks_dir(tmp_path, root).parent == picks_dir(tmp_path)
        assert len(os.environ[_picks.KEY_VARIABLE]) == 64
    with _kernel_environment(tmp_path, root, False):
        assert os.environ[_picks.DIR_VARIABLE] == "" and _picks._folder() is None
    assert os.environ[_picks.DIR_VARIABLE] == str(tmp_path / "elsewhere")  # restored


def test_the_disk_layer_writes_through_the_one_atomic_writer(fresh, monkeypatch):
    """Paths go to disk through ``ensel._io.write_atomic`` in its cache mode (no lock, the
    last rename wins): writers of one key in several threads all succeed, the folder keeps
    only the published files (no temporary file, no lock), and an unwritable folder only
    costs a later fit."""
    from concurrent.futures import ThreadPoolExecutor

    value = np.arange(5, dtype=np.int64)
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda i: _picks._write(f"k{i % 2}", value), range(16)))
    assert sorted(p.name for p in fresh.iterdir()) == ["k0.npy", "k1.npy"]
    assert np.load(fresh / "k0.npy").tolist() == value.tolist()
    blocked = fresh / "blocked"
    blocked.write_text("a file where the folder should be")
    monkeypatch.setenv(_picks.DIR_VARIABLE, str(blocked / "sub"))
    _picks._write("k2", value)  # OSError inside: no exception, remembered in memory
    assert _picks._read("k2").tolist() == value.tolist()
