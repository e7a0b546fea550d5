"""``-o`` of the two commands that write an HTML report with a file beside it (``ensel
report``: the JSON document; ``ensel evaluate``: the executed notebook): one check
(:func:`ensel.cli._args._html_output`), the same refusals, before any work."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import assert_usage_error, run_cli
from .test_refusals import ONE_CLASS


@pytest.mark.parametrize(("command", "beside"), [("report", ".json"),
                                                 ("evaluate", ".ipynb")])
def test_both_report_commands_check_o_and_the_file_beside_it(tmp_path: Path, capsys,
                                                             monkeypatch, command,
                                                             beside) -> None:
    from ensel.cli._args import _html_output

    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.csv").write_text(ONE_CLASS.replace(",1\n", ",-1\n", 6),
                                       encoding="utf-8")
    r = run_cli([command, "good.csv", "-o", "x.txt"], capsys)
    assert_usage_error(r, command, "-o x.txt: the report must be an .html file")
    (tmp_path / f"r{beside}").write_text("kept", encoding="utf-8")
    r = run_cli([command, "good.csv", "-o", "r.html"], capsys)
    assert_usage_error(r, command, f"r{beside}: the file exists; pass --force")
    assert (tmp_path / f"r{beside}").read_text(encoding="utf-8") == "kept"
    assert not (tmp_path / "r.html").exists()
    args = type("Args", (), {"output": "r.htm", "data": ["good.csv"], "force": True})()
    assert _html_output(args, beside) == (tmp_path / "r.htm", tmp_path / f"r{beside}")
