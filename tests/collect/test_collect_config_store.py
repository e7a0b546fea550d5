"""The run configuration and the answer store: validation, resumability, prompt versions,
unwritable and full stores, merge, export to the tidy table."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

from ensel.collect.cli import main
from ensel.collect.config import ConfigError, load_config
from ensel.collect.store import Store, StoreError
from ensel.datasets import load
from ensel.datasets._paths import package_data


def _row(q: str, answer: int | None = 1, **kw: object) -> dict:
    return {"dataset": "d", "query_id": q, "model": "m", "temperature": 0.7, "run": 1,
            "prompt_hash": "h1", "label": 1, "answer": answer, "attempts": 1, **kw}


def test_shipped_paper_config() -> None:
    cfg = load_config(package_data("collect", "paper.yml"))
    assert cfg.temperatures == (0.01, 0.3, 0.7) and cfg.runs == 2
    assert [d.n_queries for d in cfg.datasets.values()] == [8366, 10000, 10000]
    ids = {mid for d in cfg.datasets.values() for mid in d.models.values()}
    assert ids <= set(cfg.prices) and cfg.prices_as_of


@pytest.mark.parametrize(("extra", "message"), [
    ("colour: blue\n", "unknown key 'colour' in the top level"),
    ("runs: 0\n", "runs must be an integer > 0"),
    ("max_attempts: 2.5\n", "max_attempts must be an integer > 0; got 2.5"),
    ("backoff_s: -1\n", "backoff_s must be a finite number > 0; got -1"),
    ("backoff_s: .inf\n", "backoff_s must be a finite number > 0; got inf"),
    ("temperatures: [.nan, .nan]\n", "every temperature must be a finite number >= 0; got nan"),
    ("temperatures: [0.7, 0.3, 0.7]\n", "temperatures lists 0.7 twice"),
])
def test_bad_config_names_the_key_and_file(tmp_path: Path, extra: str, message: str,
                                           make_config) -> None:
    path = make_config(tmp_path)
    key = extra.split(":")[0]
    text = "".join(line for line in path.read_text().splitlines(keepends=True)
                   if not line.startswith(("runs:", f"{key}:"))) + extra
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        load_config(path)
    assert str(path) in str(info.value)


def test_missing_model_list_and_unknown_dataset_key(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "c.yml"
    path.write_text("endpoint: {base_url: x}\ndatasets:\n  mmlu: {source: mmlu}\n")
    with pytest.raises(ConfigError, match="datasets.mmlu.models is missing"):
        load_config(path)
    path.write_text("endpoint: {base_url: x}\ndatasets:\n  mmlu: {source: mmlu, modles: [a]}\n")
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown key 'modles' in datasets.mmlu" in err
    assert main(["estimate", str(tmp_path / "none.yml")]) == 2
    assert "no such configuration file" in capsys.readouterr().err


def test_missing_key_names_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        make_config) -> None:
    monkeypatch.delenv("ENSEL_TEST_API_KEY", raising=False)
    cfg = load_config(make_config(tmp_path))
    with pytest.raises(ConfigError, match="set the environment variable ENSEL_TEST_API_KEY"):
        cfg.api_key()


def test_one_row_per_key_and_completed_answers_are_kept(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite", prompt_hashes={"h1"}) as st:
        st.put(_row("q1", None, error_class="http_500"))
        st.put(_row("q1", 1, raw_text="True"))
        st.put(_row("q1", -1, raw_text="False"))  # a completed answer is never overwritten
        st.put(_row("q2", 0, raw_text="Maybe"))
        t = st.table()
        assert len(t) == 2 and t.set_index("query_id").loc["q1", "raw_text"] == "True"
        assert st.done("d", "m", 0.7, 1, "h1") == {"q1", "q2"}
        status = st.status()
        assert status.loc[0, "abstention_rate"] == 0.5 and status.loc[0, "condition"] == "t0.7-r1"


def test_store_of_another_prompt_version_is_refused(tmp_path: Path) -> None:
    Store(tmp_path / "s.sqlite", prompt_hashes={"h1"}).close()
    with pytest.raises(StoreError, match="refusing to mix prompt versions"):
        Store(tmp_path / "s.sqlite", prompt_hashes={"h2"})
    with Store(tmp_path / "s.sqlite", prompt_hashes={"h2"}, allow_mixed=True) as st:
        assert st.prompt_hashes() == {"h1", "h2"}


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_read_only_store_is_a_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    with Store(folder / "s.sqlite") as st:
        st.put(_row("q1"))
    os.chmod(folder / "s.sqlite", 0o444)
    os.chmod(folder, 0o555)
    try:
        with pytest.raises(StoreError, match="cannot open the store .*s.sqlite"):
            Store(folder / "s.sqlite")
    finally:
        os.chmod(folder, 0o755)
        os.chmod(folder / "s.sqlite", 0o644)
    with Store(folder / "s.sqlite") as st:
        assert st.count() == 1


def test_unwritable_or_foreign_store_paths_are_clear_errors(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot open the store .*file/s.sqlite"):
        Store(blocker / "s.sqlite")  # its folder cannot be created (works as root too)
    not_db = tmp_path / "notes.sqlite"
    not_db.write_text("these are notes, not a database " * 100)
    with pytest.raises(StoreError, match="cannot open the store .*notes.sqlite"):
        Store(not_db)
    assert not_db.read_text().startswith("these are notes")


def test_full_disk_stops_with_a_clear_error_and_keeps_the_rows(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite", max_pages=12) as st:
        with pytest.raises(StoreError, match="cannot write the store .*full"):
            for i in range(10_000):
                st.put(_row(f"q{i}", raw_text="x" * 200))
        kept = st.count()
    assert kept > 0
    with Store(tmp_path / "s.sqlite") as st:
        assert st.count() == kept


def test_merge_and_export_to_the_tidy_table(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    with Store(tmp_path / "a.sqlite", prompt_hashes={"h1"}) as a:
        a.put(_row("q1", 1))
        a.put(_row("q2", None, error_class="timeout"))
        a.put(_row("q1", -1, model="m2"))  # a pool needs at least two models
    with Store(tmp_path / "b.sqlite", prompt_hashes={"h1"}) as b:
        b.put(_row("q2", -1))
        b.put(_row("q3", 0))
        b.put(_row("q2", 1, model="m2"))
        b.put(_row("q3", 1, model="m2"))
    assert main(["merge", str(tmp_path / "m.sqlite"), str(tmp_path / "a.sqlite"),
                 str(tmp_path / "b.sqlite")]) == 0
    assert main(["export", str(tmp_path / "m.sqlite"), "-o", str(tmp_path / "t.parquet")]) == 0
    df = load(tmp_path / "t.parquet")
    assert list(df.columns) == ["item", "model", "condition", "answer", "label"]
    assert df.loc[df["model"] == "m", "answer"].tolist() == [1, -1, 0]
    assert set(df["condition"]) == {"t0.7-r1"}
    capsys.readouterr()
    assert main(["status", str(tmp_path / "nothing.sqlite")]) == 2
    assert "no store at" in capsys.readouterr().err
    pd.testing.assert_frame_equal(df, load(tmp_path / "t.parquet"))


@pytest.mark.parametrize(("text", "where", "why"), [
    ("models: [\n", "line 2, column 1", "expected the node content"),
    ("a: 1\nb: [1, 2\nc: 3\n", "line 3, column 2", "expected ',' or ']'"),
])
def test_a_yaml_syntax_error_names_its_line_and_column(tmp_path: Path, text: str, where: str,
                                                      why: str) -> None:
    """A trial found the parser's position dropped ("while parsing a flow node" alone)."""
    cfg = tmp_path / "bad.yml"
    cfg.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(cfg)
    msg = str(info.value)
    assert msg.startswith(f"{cfg}, {where}: cannot read the configuration: ") and why in msg
    assert "\n" not in msg
